// Pieces of Redis's RDB format that payloads shared with Redis need (FUNCTION DUMP/RESTORE now,
// DUMP/RESTORE of keys later): lengths, strings (LZF-compressed ones read through liblzf) and
// the CRC-64 that ends a payload.
//
//   length := 00xxxxxx                       6 bits
//           | 01xxxxxx xxxxxxxx              14 bits, big-endian
//           | 0x80 u32be | 0x81 u64be
//   string := length bytes
//           | 11000000 i8 | 11000001 i16le | 11000010 i32le     an integer, read as text
//           | 11000011 clen:length len:length lzf[clen]         LZF-compressed
//   payload trailer := rdb_version:u16le crc64:u64le             CRC of everything before it
// Example: the string "ab" is 02 61 62; a string of 345 bytes starts 41 59.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slotkv {

// The RDB version of Redis 7.0, which payloads carry in their trailer.
inline constexpr uint16_t kRdbVersion = 10;

// Redis's CRC-64 (Jones polynomial, reflected): Crc64(0, "123456789") = 0xe9c6d914c4b8d9ca.
uint64_t Crc64(uint64_t crc, std::string_view data);

void PutRdbLength(std::string* out, uint64_t n);
// Written plain (Redis reads it whatever its compression settings).
void PutRdbString(std::string* out, std::string_view s);
// Reads a string from *in (advanced past it); false when malformed or cut short.
bool GetRdbString(std::string_view* in, std::string* out);
// Reads a plain length (not a string's special encoding); false when malformed or cut short.
bool GetRdbLength(std::string_view* in, uint64_t* n);

// Appends the payload trailer: kRdbVersion and the CRC-64 of everything in *out before it.
void PutRdbTrailer(std::string* out);
// The payload without its trailer, or nullopt when it has none, its version is above
// kRdbVersion or its CRC is wrong (Redis: "DUMP payload version or checksum are wrong").
std::optional<std::string_view> RdbPayloadBody(std::string_view payload);

}  // namespace slotkv
