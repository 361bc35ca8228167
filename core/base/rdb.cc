#include "core/base/rdb.h"

#include <array>

extern "C" {
#include <lzf.h>
}

#include "core/base/coding.h"

namespace slotkv {
namespace {

constexpr uint64_t kJonesReflected = 0x95ac9329ac4bc9b5ull;

std::array<uint64_t, 256> MakeTable() {
  std::array<uint64_t, 256> t{};
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kJonesReflected : c >> 1;
    t[i] = c;
  }
  return t;
}

bool GetLength(std::string_view* in, uint64_t* n, bool* special) {
  if (in->empty()) return false;
  const auto b = static_cast<uint8_t>((*in)[0]);
  *special = false;
  switch (b >> 6) {
    case 0:
      *n = b & 0x3f;
      in->remove_prefix(1);
      return true;
    case 1:
      if (in->size() < 2) return false;
      *n = (uint64_t{b & 0x3fu} << 8) | static_cast<uint8_t>((*in)[1]);
      in->remove_prefix(2);
      return true;
    case 3:
      *special = true;
      *n = b & 0x3f;
      in->remove_prefix(1);
      return true;
    default: {
      const size_t width = b == 0x80 ? 4 : b == 0x81 ? 8 : 0;
      if (width == 0 || in->size() < 1 + width) return false;
      uint64_t v = 0;
      for (size_t i = 1; i <= width; ++i) v = (v << 8) | static_cast<uint8_t>((*in)[i]);
      *n = v;
      in->remove_prefix(1 + width);
      return true;
    }
  }
}

}  // namespace

uint64_t Crc64(uint64_t crc, std::string_view data) {
  static const std::array<uint64_t, 256> table = MakeTable();
  for (char c : data) crc = table[(crc ^ static_cast<uint8_t>(c)) & 0xff] ^ (crc >> 8);
  return crc;
}

void PutRdbLength(std::string* out, uint64_t n) {
  if (n < (1u << 6)) {
    out->push_back(static_cast<char>(n));
  } else if (n < (1u << 14)) {
    out->push_back(static_cast<char>(0x40 | (n >> 8)));
    out->push_back(static_cast<char>(n & 0xff));
  } else if (n <= UINT32_MAX) {
    out->push_back(static_cast<char>(0x80));
    for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(n >> shift));
  } else {
    char be[9] = {static_cast<char>(0x81)};
    EncodeBigEndian64(be + 1, n);
    out->append(be, sizeof(be));
  }
}

void PutRdbString(std::string* out, std::string_view s) {
  PutRdbLength(out, s.size());
  out->append(s);
}

bool GetRdbString(std::string_view* in, std::string* out) {
  uint64_t n = 0;
  bool special = false;
  if (!GetLength(in, &n, &special)) return false;
  if (!special) {
    if (in->size() < n) return false;
    out->assign(in->substr(0, n));
    in->remove_prefix(n);
    return true;
  }
  if (n <= 2) {  // an integer of 1, 2 or 4 bytes, little-endian
    const size_t width = size_t{1} << n;
    if (in->size() < width) return false;
    int64_t v = 0;
    for (size_t i = 0; i < width; ++i) v |= int64_t{static_cast<uint8_t>((*in)[i])} << (8 * i);
    if (width < 8 && (v >> (8 * width - 1)) & 1) v -= int64_t{1} << (8 * width);  // sign
    out->assign(std::to_string(v));
    in->remove_prefix(width);
    return true;
  }
  if (n != 3) return false;
  uint64_t clen = 0, len = 0;
  bool sp = false;
  if (!GetLength(in, &clen, &sp) || sp || !GetLength(in, &len, &sp) || sp) return false;
  // LZF makes at most 264 bytes of 3: a longer length is a lie, not a reason to allocate it.
  if (in->size() < clen || len > clen * 88 + 64) return false;
  out->assign(len, '\0');
  const unsigned got = lzf_decompress(in->data(), static_cast<unsigned>(clen), out->data(),
                                      static_cast<unsigned>(len));
  if (got != len) return false;
  in->remove_prefix(clen);
  return true;
}

bool GetRdbLength(std::string_view* in, uint64_t* n) {
  bool special = false;
  return GetLength(in, n, &special) && !special;
}

void PutRdbTrailer(std::string* out) {
  out->push_back(static_cast<char>(kRdbVersion & 0xff));
  out->push_back(static_cast<char>(kRdbVersion >> 8));
  const uint64_t crc = Crc64(0, *out);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(crc >> (8 * i)));
}

std::optional<std::string_view> RdbPayloadBody(std::string_view payload) {
  if (payload.size() < 10) return std::nullopt;
  const std::string_view body = payload.substr(0, payload.size() - 8);
  uint64_t crc = 0;
  for (int i = 0; i < 8; ++i) {
    crc |= uint64_t{static_cast<uint8_t>(payload[payload.size() - 8 + i])} << (8 * i);
  }
  const auto version = static_cast<uint16_t>(static_cast<uint8_t>(body[body.size() - 2]) |
                                             (static_cast<uint8_t>(body[body.size() - 1]) << 8));
  if (version > kRdbVersion || Crc64(0, body) != crc) return std::nullopt;
  return body.substr(0, body.size() - 2);
}

}  // namespace slotkv
