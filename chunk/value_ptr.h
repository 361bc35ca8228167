// ValuePtr: where a long value lives in a slot's chunk store. Stored (encoded) in bucket cells.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace slotkv::chunk {

struct ValuePtr {
  enum class Kind : uint8_t { kSegments = 0, kBigFile = 1 };  // on-disk numbers
  Kind kind = Kind::kSegments;
  uint32_t segment = 0;   // kSegments: segment holding the record's first byte
  uint32_t offset = 0;    // kSegments: byte offset of the record within that segment
  uint32_t length = 0;    // kSegments: encoded record length (may run over following segments)
  uint64_t big_id = 0;    // kBigFile: the value is in file big-<big_id>.val

  bool operator==(const ValuePtr&) const = default;
};

// One number per place a pointer names (its big file, or its segment and offset), for sets.
inline uint64_t PlaceOf(const ValuePtr& ptr) {
  if (ptr.kind == ValuePtr::Kind::kBigFile) return (uint64_t{1} << 63) | ptr.big_id;
  return (uint64_t{ptr.segment} << 32) | ptr.offset;
}

// Appends a compact encoding (a few bytes: kind, varints) to *out.
void EncodeValuePtr(const ValuePtr& ptr, std::string* out);
// False when in is not exactly one encoded pointer.
bool DecodeValuePtr(std::string_view in, ValuePtr* ptr);

}  // namespace slotkv::chunk
