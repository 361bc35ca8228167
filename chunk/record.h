// Value records: the unit the chunk store writes into segments and big-value files. Internal to
// chunk/; the format is described at the top of record.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace slotkv::chunk {

// crc + key hash + empty value: the smallest record.
inline constexpr size_t kMinRecordBytes = 4 + 8 + 1;

// Bytes AppendRecord writes for a value of this size.
size_t RecordLength(size_t value_size);

// Appends one encoded record to *out. key_hash = KeyHash(key).
// REQUIRES: value.size() fits in 32 bits.
void AppendRecord(uint64_t key_hash, std::string_view value, std::string* out);

// A decoded record; value points into the input given to DecodeRecord.
struct RecordView {
  uint64_t key_hash = 0;
  std::string_view value;
};

// Decodes the record at the start of in (bytes after it are ignored) and sets *length to the
// bytes it takes. Corruption ("value record truncated" / "value record checksum mismatch") when
// the record runs past in or its checksum does not match.
Status DecodeRecord(std::string_view in, RecordView* record, size_t* length);

// True when every byte of data is zero (an empty view counts): how a segment's records end.
bool IsAllZero(std::string_view data);

// Calls fn(record, offset, length) for each record of a run's bytes in order, up to the zeros
// an unfinished run ends with. A record that does not decode ends the walk with DecodeRecord's
// Corruption, and *at set to its offset.
Status ForEachRecord(std::string_view run, size_t* at,
                     const std::function<void(const RecordView&, size_t, size_t)>& fn);

}  // namespace slotkv::chunk
