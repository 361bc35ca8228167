// ValuePtr encoding, as stored in bucket cells. Kind numbers are on-disk numbers: never reuse one.
//
//   ptr := kind:u8 body
//   body := (kind = 0 kSegments) segment:varint32 offset:varint32 length:varint32
//         | (kind = 1 kBigFile)  big_id:varint64
//
// An encoded pointer is read back only when the input holds exactly one pointer: a trailing byte,
// a missing byte, an unknown kind or a varint past its width all reject it.
//
// Worked examples:
//   {kSegments, segment 300, offset 17, length 42} -> 00 ac 02 11 2a   (5 bytes)
//   {kBigFile, big_id 5}                           -> 01 05            (2 bytes)
#include "chunk/value_ptr.h"

#include "core/base/coding.h"

namespace slotkv::chunk {

void EncodeValuePtr(const ValuePtr& ptr, std::string* out) {
  out->push_back(static_cast<char>(ptr.kind));
  if (ptr.kind == ValuePtr::Kind::kBigFile) {
    PutVarint64(out, ptr.big_id);
    return;
  }
  PutVarint32(out, ptr.segment);
  PutVarint32(out, ptr.offset);
  PutVarint32(out, ptr.length);
}

bool DecodeValuePtr(std::string_view in, ValuePtr* ptr) {
  if (in.empty()) return false;
  const auto kind = static_cast<uint8_t>(in[0]);
  in.remove_prefix(1);
  ValuePtr p;
  switch (kind) {
    case static_cast<uint8_t>(ValuePtr::Kind::kSegments):
      p.kind = ValuePtr::Kind::kSegments;
      if (!GetVarint32(&in, &p.segment) || !GetVarint32(&in, &p.offset) ||
          !GetVarint32(&in, &p.length)) {
        return false;
      }
      break;
    case static_cast<uint8_t>(ValuePtr::Kind::kBigFile):
      p.kind = ValuePtr::Kind::kBigFile;
      if (!GetVarint64(&in, &p.big_id)) return false;
      break;
    default:
      return false;
  }
  if (!in.empty()) return false;
  *ptr = p;
  return true;
}

}  // namespace slotkv::chunk
