#include "core/types/listpack.h"

#include <cstdint>

#include "core/base/coding.h"
#include "core/base/number.h"

namespace slotkv::rdb {
namespace {

// The bytes a listpack entry's back-length takes for an entry of l bytes.
size_t BacklenBytes(size_t l) {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

}  // namespace

uint64_t LittleEndian(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
  return v;
}

int64_t Signed(uint64_t v, size_t n) {
  if (n < 8 && ((v >> (8 * n - 1)) & 1)) v |= ~uint64_t{0} << (8 * n);
  return static_cast<int64_t>(v);
}

std::optional<std::vector<std::string>> ListpackElements(std::string_view lp) {
  if (lp.size() < 7 || LittleEndian(lp.data(), 4) != lp.size() ||
      static_cast<uint8_t>(lp.back()) != 0xFF) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  size_t p = 6;
  const size_t end = lp.size() - 1;
  while (p < end) {
    const auto b = static_cast<uint8_t>(lp[p]);
    size_t head = 1, len = 0;
    std::optional<int64_t> num;
    if ((b & 0x80) == 0) {
      num = b & 0x7f;
    } else if ((b & 0xC0) == 0x80) {
      len = b & 0x3f;
    } else if ((b & 0xE0) == 0xC0) {
      if (p + 2 > end) return std::nullopt;
      head = 2;
      int64_t v = ((b & 0x1f) << 8) | static_cast<uint8_t>(lp[p + 1]);
      if (v >= (1 << 12)) v -= (1 << 13);
      num = v;
    } else if ((b & 0xF0) == 0xE0) {
      if (p + 2 > end) return std::nullopt;
      head = 2;
      len = ((b & 0x0f) << 8) | static_cast<uint8_t>(lp[p + 1]);
    } else if (b == 0xF0) {
      if (p + 5 > end) return std::nullopt;
      head = 5;
      len = LittleEndian(lp.data() + p + 1, 4);
    } else if (b >= 0xF1 && b <= 0xF4) {
      const size_t width = b == 0xF1 ? 2 : b == 0xF2 ? 3 : b == 0xF3 ? 4 : 8;
      if (p + 1 + width > end) return std::nullopt;
      head = 1 + width;
      num = Signed(LittleEndian(lp.data() + p + 1, width), width);
    } else {
      return std::nullopt;
    }
    const size_t entry = head + len;
    if (len > end - p || p + entry + BacklenBytes(entry) > end) return std::nullopt;
    out.push_back(num ? std::to_string(*num) : std::string(lp.substr(p + head, len)));
    p += entry + BacklenBytes(entry);
  }
  const uint64_t count = LittleEndian(lp.data() + 4, 2);
  if (p != end || (count != 65535 && count != out.size())) return std::nullopt;
  return out;
}


void ListpackWriter::Entry(std::string_view encoded) {
  body_.append(encoded);
  // The back-length: the entry's size, its high 7-bit group first, every byte but the first
  // flagged 128, so it reads backwards from the entry's end.
  const uint64_t l = encoded.size();
  const size_t n = BacklenBytes(l);
  for (size_t i = n; i-- > 0;) {
    const auto group = static_cast<uint8_t>((l >> (7 * i)) & 127);
    body_.push_back(static_cast<char>(i + 1 == n ? group : group | 128));
  }
  ++count_;
}

void ListpackWriter::AddInteger(int64_t v) {
  std::string e;
  if (v >= 0 && v <= 127) {
    e.push_back(static_cast<char>(v));
  } else if (v >= -4096 && v <= 4095) {
    const auto u = static_cast<uint64_t>(v < 0 ? (int64_t{1} << 13) + v : v);
    e.push_back(static_cast<char>(0xC0 | (u >> 8)));
    e.push_back(static_cast<char>(u & 0xFF));
  } else {
    size_t width = 8;
    uint8_t tag = 0xF4;
    if (v >= -32768 && v <= 32767) {
      width = 2;
      tag = 0xF1;
    } else if (v >= -8388608 && v <= 8388607) {
      width = 3;
      tag = 0xF2;
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      width = 4;
      tag = 0xF3;
    }
    e.push_back(static_cast<char>(tag));
    const auto u = static_cast<uint64_t>(v);
    for (size_t i = 0; i < width; ++i) e.push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
  }
  Entry(e);
}

void ListpackWriter::Add(std::string_view s) {
  if (!s.empty() && s.size() <= 20) {
    std::optional<int64_t> v = ParseInt64(s);
    if (v && std::to_string(*v) == s) {
      AddInteger(*v);
      return;
    }
  }
  std::string e;
  if (s.size() < 64) {
    e.push_back(static_cast<char>(0x80 | s.size()));
  } else if (s.size() < 4096) {
    e.push_back(static_cast<char>(0xE0 | (s.size() >> 8)));
    e.push_back(static_cast<char>(s.size() & 0xFF));
  } else {
    e.push_back(static_cast<char>(0xF0));
    char len[4];
    EncodeFixed32(len, static_cast<uint32_t>(s.size()));
    e.append(len, 4);
  }
  e.append(s);
  Entry(e);
}

std::string ListpackWriter::Finish() const {
  std::string out(6, '\0');
  EncodeFixed32(out.data(), static_cast<uint32_t>(bytes()));
  EncodeFixed16(out.data() + 4, static_cast<uint16_t>(count_ < 65535 ? count_ : 65535));
  out.append(body_);
  out.push_back(static_cast<char>(0xFF));
  return out;
}

}  // namespace slotkv::rdb
