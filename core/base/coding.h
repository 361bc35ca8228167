// Fixed-width little-endian and varint encodings used by every on-disk format.
// Decoders read from a string_view cursor and advance it; they return false (and leave the
// cursor unspecified) when the input ends early or a varint is malformed.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace slotkv {

inline void EncodeFixed32(char* dst, uint32_t v) { std::memcpy(dst, &v, 4); }
inline void EncodeFixed64(char* dst, uint64_t v) { std::memcpy(dst, &v, 8); }
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint16_t DecodeFixed16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline void EncodeFixed16(char* dst, uint16_t v) { std::memcpy(dst, &v, 2); }
// Big-endian, for keys that must sort by the number (internal page keys) and for RDB.
inline void EncodeBigEndian64(char* dst, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) *dst++ = static_cast<char>(v >> shift);
}

// Writes v as a varint at dst (VarintLength(v) bytes) and returns the byte after it.
inline char* EncodeVarint64(char* dst, uint64_t v) {
  while (v >= 0x80) {
    *dst++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *dst++ = static_cast<char>(v);
  return dst;
}

void PutFixed16(std::string* dst, uint16_t v);
void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);
void PutVarint32(std::string* dst, uint32_t v);
void PutVarint64(std::string* dst, uint64_t v);
// Varint length, then the bytes.
void PutLengthPrefixed(std::string* dst, std::string_view value);

// Bytes PutVarint64 would write for v.
int VarintLength(uint64_t v);

bool GetFixed16(std::string_view* in, uint16_t* v);
bool GetFixed32(std::string_view* in, uint32_t* v);
bool GetFixed64(std::string_view* in, uint64_t* v);
bool GetVarint32(std::string_view* in, uint32_t* v);
bool GetVarint64(std::string_view* in, uint64_t* v);
// The returned view points into the input.
bool GetLengthPrefixed(std::string_view* in, std::string_view* value);

}  // namespace slotkv
