// Fuzz target: chunk/record (DecodeRecord, IsAllZero), read the way a segment run is read back
// for compaction (ChunkStore::ReadSegment: records back to back up to the zero padding), and
// chunk/value_ptr (DecodeValuePtr), the pointers bucket cells hold to such records.
//
// Input:  flags:u8 region
//   flags bit 0: rewrite each record's crc first, so that mutations reach the length parsing.
//
// Checks: a decoded record lies inside the input, takes at least RecordLength of its value,
// re-encodes to exactly RecordLength bytes that decode back to it, and any cut of it is
// "truncated"; a decoded value pointer re-encodes to bytes that decode back to it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "chunk/record.h"
#include "chunk/value_ptr.h"
#include "test/fuzz/fuzz_util.h"

namespace slotkv::chunk {
namespace {

void CheckValuePtr(std::string_view bytes) {
  ValuePtr ptr;
  if (!DecodeValuePtr(bytes, &ptr)) return;
  std::string encoded;
  EncodeValuePtr(ptr, &encoded);
  FUZZ_CHECK(encoded.size() <= bytes.size());
  ValuePtr again;
  FUZZ_CHECK(DecodeValuePtr(encoded, &again) && again == ptr);
}

}  // namespace
}  // namespace slotkv::chunk

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotkv;
  using namespace slotkv::chunk;
  if (size < 1) return 0;
  std::string region(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 0x01) fuzz::RepairChunkChecksums(&region);

  size_t at = 0;
  const Status s = ForEachRecord(region, &at, [&](const RecordView& rec, size_t pos, size_t len) {
    const std::string_view rest = std::string_view(region).substr(pos);
    FUZZ_CHECK(len >= kMinRecordBytes && len <= rest.size());
    FUZZ_CHECK(rec.value.data() >= rest.data() &&
               rec.value.data() + rec.value.size() == rest.data() + len);
    FUZZ_CHECK(len >= RecordLength(rec.value.size()));
    std::string encoded;
    AppendRecord(rec.key_hash, rec.value, &encoded);
    FUZZ_CHECK(encoded.size() == RecordLength(rec.value.size()));
    RecordView again;
    size_t again_len = 0;
    FUZZ_CHECK(DecodeRecord(encoded, &again, &again_len).ok());
    FUZZ_CHECK(again_len == encoded.size() && again.key_hash == rec.key_hash &&
               again.value == rec.value);
    // No record reads as zero padding.
    FUZZ_CHECK(!IsAllZero(encoded));
    for (size_t cut : {len - 1, len / 2}) {
      RecordView partial;
      size_t unused = 0;
      const Status t = DecodeRecord(rest.substr(0, cut), &partial, &unused);
      FUZZ_CHECK_MSG(!t.ok() && t.message() == "value record truncated", t.ToString());
    }
    // Values of bucket cells that point here are encoded pointers: the value bytes are as
    // good a source of pointer bytes as any.
    CheckValuePtr(rec.value);
  });
  FUZZ_CHECK_MSG(s.ok() || (s.IsCorruption() && at < region.size()), s.ToString());
  CheckValuePtr(std::string_view(region).substr(0, 12));
  return 0;
}
