// Value record encoding, used for every record in chunks.dat and as the whole content of a
// big-<id>.val file. Format version 2 (chunks.meta records the version).
//
//   record      := crc:fixed32 key_hash:fixed64 value:lenprefixed
//   lenprefixed := n:varint32, then n bytes
//   crc         = Checksum(every byte of the record after the crc field)
//   key_hash    = KeyHash(key)
//
// Integers are little-endian. The key's hash (not the key: the bucket cell that points here
// holds the key and seq already, and a record stays 13 bytes plus its value) lets compaction
// find the cells that may point at the record, and lets Read check that a pointer lands on a
// record of the key it was looked up for. (Version 1 carried the whole key and a seq.)
//
// Worked example: key "ab" (KeyHash 0x1122334455667788, say), value "xyz" (16 bytes):
//   cc cc cc cc              crc of the next 12 bytes
//   88 77 66 55 44 33 22 11  key_hash
//   03 78 79 7a              value = "xyz"
//
// End of a segment's records: segments are written whole, zero-padded after their last record,
// so the records of a segment end where the rest of it is all zero. No record can be all zero:
// the only all-zero candidate (hash 0, empty value, crc 0) has a non-zero checksum
// (checked by a test), so a record never reads as padding.
#include "chunk/record.h"

#include <algorithm>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::chunk {

size_t RecordLength(size_t value_size) {
  return 4 + 8 + static_cast<size_t>(VarintLength(value_size)) + value_size;
}

void AppendRecord(uint64_t key_hash, std::string_view value, std::string* out) {
  const size_t start = out->size();
  out->append(4, '\0');
  PutFixed64(out, key_hash);
  PutLengthPrefixed(out, value);
  const uint32_t crc = Checksum(std::string_view(*out).substr(start + 4));
  EncodeFixed32(out->data() + start, crc);
}

Status DecodeRecord(std::string_view in, RecordView* record, size_t* length) {
  std::string_view rest = in;
  uint32_t crc = 0;
  RecordView r;
  if (!GetFixed32(&rest, &crc) || !GetFixed64(&rest, &r.key_hash) ||
      !GetLengthPrefixed(&rest, &r.value)) {
    return Status::Corruption("value record truncated");
  }
  const size_t len = in.size() - rest.size();
  if (Checksum(in.substr(4, len - 4)) != crc) {
    return Status::Corruption("value record checksum mismatch");
  }
  *record = r;
  *length = len;
  return Status::OK();
}

bool IsAllZero(std::string_view data) {
  return std::all_of(data.begin(), data.end(), [](char c) { return c == '\0'; });
}

Status ForEachRecord(std::string_view run, size_t* at,
                     const std::function<void(const RecordView&, size_t, size_t)>& fn) {
  size_t pos = 0;
  while (pos < run.size()) {
    const std::string_view rest = run.substr(pos);
    if (IsAllZero(rest.substr(0, kMinRecordBytes)) && IsAllZero(rest)) break;
    RecordView rec;
    size_t len = 0;
    if (Status s = DecodeRecord(rest, &rec, &len); !s.ok()) {
      *at = pos;
      return s;
    }
    fn(rec, pos, len);
    pos += len;
  }
  return Status::OK();
}

}  // namespace slotkv::chunk
