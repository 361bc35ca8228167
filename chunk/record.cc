// Value record encoding, used for every record in chunks.dat and as the whole content of a
// big-<id>.val file. Format version 1 (chunks.meta records the version).
//
//   record      := crc:fixed32 key:lenprefixed seq:fixed64 value:lenprefixed
//   lenprefixed := n:varint32, then n bytes
//   crc         = Checksum(every byte of the record after the crc field)
//
// Integers are little-endian. The key and seq let compaction ask the bucket pages whether the
// record is still the live version of its key, and let Read check that a pointer lands on the
// record of the key it was looked up for.
//
// Worked example: key "ab", seq 9, value "xyz" (19 bytes):
//   cc cc cc cc              crc of the next 15 bytes
//   02 61 62                 key = "ab"
//   09 00 00 00 00 00 00 00  seq = 9
//   03 78 79 7a              value = "xyz"
//
// End of a segment's records: segments are written whole, zero-padded after their last record,
// so the records of a segment end where the rest of it is all zero. No record can be all zero:
// the only all-zero candidate (empty key, seq 0, empty value, crc 0) has a non-zero checksum
// (checked by a test), so a record never reads as padding.
#include "chunk/record.h"

#include <algorithm>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::chunk {

size_t RecordLength(size_t key_size, size_t value_size) {
  return 4 + static_cast<size_t>(VarintLength(key_size)) + key_size + 8 +
         static_cast<size_t>(VarintLength(value_size)) + value_size;
}

void AppendRecord(std::string_view key, uint64_t seq, std::string_view value, std::string* out) {
  const size_t start = out->size();
  out->append(4, '\0');
  PutLengthPrefixed(out, key);
  PutFixed64(out, seq);
  PutLengthPrefixed(out, value);
  const uint32_t crc = Checksum(std::string_view(*out).substr(start + 4));
  EncodeFixed32(out->data() + start, crc);
}

Status DecodeRecord(std::string_view in, RecordView* record, size_t* length) {
  std::string_view rest = in;
  uint32_t crc = 0;
  RecordView r;
  if (!GetFixed32(&rest, &crc) || !GetLengthPrefixed(&rest, &r.key) || !GetFixed64(&rest, &r.seq) ||
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

}  // namespace slotkv::chunk
