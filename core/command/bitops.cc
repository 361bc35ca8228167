#include "core/command/bitops.h"

#include <algorithm>
#include <cstring>

#include "core/base/number.h"

namespace slotkv::command {
namespace {

const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

uint64_t Load64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  return w;
}

// Redis's index rules (BITCOUNT, BITPOS) over a string of len units: negative indexes count
// from the end, then both are clamped. False when the range is empty.
bool NormalizeRange(int64_t len, int64_t* start, int64_t* end) {
  if (*start < 0) *start += len;
  if (*end < 0) *end += len;
  if (*start < 0) *start = 0;
  if (*end < 0) *end = 0;
  if (*end >= len) *end = len - 1;
  return *start <= *end;
}

// Index (0 = most significant) of the first bit of byte v equal to `bit` among the bits set in
// `allowed`, or -1.
int FirstInByte(uint8_t v, bool bit, uint8_t allowed) {
  uint32_t m = (bit ? v : static_cast<uint8_t>(~v)) & allowed;
  if (m == 0) return -1;
  return __builtin_clz(m) - 24;
}

// The first bit equal to `bit` in bits [first, last] of s, or -1. REQUIRES: first <= last,
// last / 8 < s.size().
int64_t FindInBits(std::string_view s, bool bit, uint64_t first, uint64_t last) {
  const uint8_t* p = Bytes(s);
  const uint64_t fb = first >> 3;
  const uint64_t lb = last >> 3;
  const auto first_mask = static_cast<uint8_t>(0xFF >> (first & 7));
  const auto last_mask = static_cast<uint8_t>(0xFF << (7 - (last & 7)));
  auto at = [](uint64_t byte, int b) { return static_cast<int64_t>(byte * 8 + b); };
  if (fb == lb) {
    int b = FirstInByte(p[fb], bit, first_mask & last_mask);
    return b < 0 ? -1 : at(fb, b);
  }
  if (int b = FirstInByte(p[fb], bit, first_mask); b >= 0) return at(fb, b);
  // Whole bytes fb+1 .. lb-1: skip words with no candidate, then find the byte.
  const uint8_t skip = bit ? 0x00 : 0xFF;
  const uint64_t skip64 = bit ? 0 : ~uint64_t{0};
  uint64_t i = fb + 1;
  while (i + 8 <= lb && Load64(p + i) == skip64) i += 8;
  for (; i < lb; ++i) {
    if (p[i] != skip) return at(i, FirstInByte(p[i], bit, 0xFF));
  }
  int b = FirstInByte(p[lb], bit, last_mask);
  return b < 0 ? -1 : at(lb, b);
}

// acc[i] = f(acc[i], src[i]) for i < src.size(), eight bytes at a time.
template <typename F>
void Combine(std::string* acc, std::string_view src, F f) {
  auto* a = reinterpret_cast<uint8_t*>(acc->data());
  const uint8_t* b = Bytes(src);
  const size_t n = src.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w = f(Load64(a + i), Load64(b + i));
    std::memcpy(a + i, &w, sizeof(w));
  }
  for (; i < n; ++i) a[i] = static_cast<uint8_t>(f(uint64_t{a[i]}, uint64_t{b[i]}));
}

}  // namespace

bool GetBit(std::string_view s, uint64_t offset) {
  const uint64_t byte = offset >> 3;
  if (byte >= s.size()) return false;
  return (Bytes(s)[byte] >> (7 - (offset & 7))) & 1;
}

bool SetBit(std::string* s, uint64_t offset, bool on) {
  const uint64_t byte = offset >> 3;
  if (s->size() <= byte) s->resize(byte + 1, '\0');
  auto& c = reinterpret_cast<uint8_t&>((*s)[byte]);
  const auto mask = static_cast<uint8_t>(1 << (7 - (offset & 7)));
  const bool old = (c & mask) != 0;
  c = static_cast<uint8_t>(on ? (c | mask) : (c & ~mask));
  return old;
}

std::optional<uint64_t> ParseBitOffset(std::string_view arg, uint64_t max_bytes, int hash_bits) {
  const bool hash = hash_bits > 0 && !arg.empty() && arg[0] == '#';
  if (hash) arg.remove_prefix(1);
  std::optional<int64_t> v = ParseInt64(arg);
  if (!v) return std::nullopt;
  int64_t offset = *v;
  // Redis multiplies in signed 64 bits; wrap-around is what it does in practice.
  if (hash) {
    offset = static_cast<int64_t>(static_cast<uint64_t>(offset) *
                                  static_cast<uint64_t>(hash_bits));
  }
  if (offset < 0 || static_cast<uint64_t>(offset >> 3) >= max_bytes) return std::nullopt;
  return static_cast<uint64_t>(offset);
}

uint64_t CountBits(std::string_view s) {
  const uint8_t* p = Bytes(s);
  const size_t n = s.size();
  uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  size_t i = 0;
  // Four counters: independent popcounts overlap in the CPU.
  for (; i + 32 <= n; i += 32) {
    c0 += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i)));
    c1 += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i + 8)));
    c2 += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i + 16)));
    c3 += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i + 24)));
  }
  for (; i + 8 <= n; i += 8) c0 += static_cast<uint64_t>(__builtin_popcountll(Load64(p + i)));
  for (; i < n; ++i) c0 += static_cast<uint64_t>(__builtin_popcount(p[i]));
  return c0 + c1 + c2 + c3;
}

uint64_t CountBits(std::string_view s, int64_t start, int64_t end, BitUnit unit) {
  const auto len = static_cast<int64_t>(s.size());
  if (unit == BitUnit::kByte) {
    if (!NormalizeRange(len, &start, &end)) return 0;
    return CountBits(s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
  }
  if (!NormalizeRange(len * 8, &start, &end)) return 0;
  const auto fb = static_cast<size_t>(start >> 3);
  const auto lb = static_cast<size_t>(end >> 3);
  const uint8_t* p = Bytes(s);
  // Count whole bytes, then take away the bits of the edge bytes outside the range.
  const auto before = static_cast<uint8_t>(0xFF00 >> (start & 7));
  const auto after = static_cast<uint8_t>((1 << (7 - (end & 7))) - 1);
  return CountBits(s.substr(fb, lb - fb + 1)) -
         static_cast<uint64_t>(__builtin_popcount(p[fb] & before)) -
         static_cast<uint64_t>(__builtin_popcount(p[lb] & after));
}

int64_t FindBit(std::string_view s, bool bit) {
  if (s.empty()) return -1;
  const int64_t pos = FindInBits(s, bit, 0, s.size() * 8 - 1);
  if (pos < 0 && !bit) return static_cast<int64_t>(s.size() * 8);
  return pos;
}

int64_t FindBit(std::string_view s, bool bit, int64_t start, std::optional<int64_t> end,
                BitUnit unit) {
  const int64_t len = static_cast<int64_t>(s.size()) * (unit == BitUnit::kBit ? 8 : 1);
  int64_t e = end.value_or(len - 1);
  if (!NormalizeRange(len, &start, &e)) return -1;
  const bool bits = unit == BitUnit::kBit;
  const auto first = static_cast<uint64_t>(bits ? start : start * 8);
  const auto last = static_cast<uint64_t>(bits ? e : e * 8 + 7);
  const int64_t pos = FindInBits(s, bit, first, last);
  // Without an explicit end the string counts as padded with zeros.
  if (pos < 0 && !bit && !end) return static_cast<int64_t>(last + 1);
  return pos;
}

void BitOpFold(BitOpKind op, std::string* acc, std::string_view src) {
  if (acc->size() < src.size()) acc->resize(src.size(), '\0');
  switch (op) {
    case BitOpKind::kAnd:
      Combine(acc, src, [](uint64_t a, uint64_t b) { return a & b; });
      // Past src's end the operand is zero.
      std::memset(acc->data() + src.size(), 0, acc->size() - src.size());
      break;
    case BitOpKind::kOr:
      Combine(acc, src, [](uint64_t a, uint64_t b) { return a | b; });
      break;
    case BitOpKind::kXor:
      Combine(acc, src, [](uint64_t a, uint64_t b) { return a ^ b; });
      break;
    case BitOpKind::kNot:
      break;  // not a fold: see BitNot
  }
}

void BitNot(std::string* s) {
  auto* p = reinterpret_cast<uint8_t*>(s->data());
  const size_t n = s->size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w = ~Load64(p + i);
    std::memcpy(p + i, &w, sizeof(w));
  }
  for (; i < n; ++i) p[i] = static_cast<uint8_t>(~p[i]);
}

std::string BitOp(BitOpKind op, const std::vector<std::string_view>& sources) {
  std::string acc(sources.front());
  if (op == BitOpKind::kNot) {
    BitNot(&acc);
    return acc;
  }
  for (size_t i = 1; i < sources.size(); ++i) BitOpFold(op, &acc, sources[i]);
  return acc;
}

std::optional<BitfieldType> ParseBitfieldType(std::string_view arg) {
  arg = arg.substr(0, arg.find('\0'));  // Redis reads the type as a C string
  if (arg.empty() || (arg[0] != 'i' && arg[0] != 'u')) return std::nullopt;
  BitfieldType t;
  t.is_signed = arg[0] == 'i';
  std::optional<int64_t> bits = ParseInt64(arg.substr(1));
  if (!bits || *bits < 1 || *bits > (t.is_signed ? 64 : 63)) return std::nullopt;
  t.bits = static_cast<int>(*bits);
  return t;
}

uint64_t GetUnsignedField(std::string_view s, uint64_t offset, int bits) {
  // The field lies within the 9 bytes from offset / 8; copy them zero-padded.
  uint8_t buf[9] = {};
  const uint64_t byte = offset >> 3;
  if (byte < s.size()) std::memcpy(buf, s.data() + byte, std::min<uint64_t>(9, s.size() - byte));
  uint64_t hi = 0;
  for (int i = 0; i < 8; ++i) hi = (hi << 8) | buf[i];
  const int shift = static_cast<int>(offset & 7);
  if (shift != 0) hi = (hi << shift) | (buf[8] >> (8 - shift));
  return hi >> (64 - bits);
}

int64_t GetSignedField(std::string_view s, uint64_t offset, int bits) {
  uint64_t v = GetUnsignedField(s, offset, bits);
  if (bits < 64 && ((v >> (bits - 1)) & 1)) v |= ~uint64_t{0} << bits;  // sign-extend
  return static_cast<int64_t>(v);
}

void SetField(std::string* s, uint64_t offset, int bits, uint64_t value) {
  for (int j = 0; j < bits; ++j) {
    SetBit(s, offset + static_cast<uint64_t>(j), (value >> (bits - 1 - j)) & 1);
  }
}

// The overflow tests below follow Redis's checkSignedBitfieldOverflow and
// checkUnsignedBitfieldOverflow exactly, quirks included: for a signed SET of a value so
// negative that max - value wraps (e.g. i8 and -2^63), Redis sees an overflow upwards, so SAT
// stores the maximum.
std::optional<int64_t> SignedFieldAdd(int64_t value, int64_t incr, int bits,
                                      BitfieldOverflow ow) {
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  const auto maxincr = static_cast<int64_t>(static_cast<uint64_t>(max) -
                                            static_cast<uint64_t>(value));
  const auto minincr = static_cast<int64_t>(static_cast<uint64_t>(min) -
                                            static_cast<uint64_t>(value));
  int dir = 0;
  if (value > max || (bits != 64 && incr > maxincr) ||
      (value >= 0 && incr > 0 && incr > maxincr)) {
    dir = 1;
  } else if (value < min || (bits != 64 && incr < minincr) ||
             (value < 0 && incr < 0 && incr < minincr)) {
    dir = -1;
  }
  uint64_t sum = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
  if (dir == 0) return static_cast<int64_t>(sum);
  switch (ow) {
    case BitfieldOverflow::kFail:
      return std::nullopt;
    case BitfieldOverflow::kSat:
      return dir > 0 ? max : min;
    case BitfieldOverflow::kWrap:
      break;
  }
  if (bits < 64) {
    const uint64_t mask = ~uint64_t{0} << bits;
    sum = (sum & (uint64_t{1} << (bits - 1))) ? (sum | mask) : (sum & ~mask);
  }
  return static_cast<int64_t>(sum);
}

std::optional<uint64_t> UnsignedFieldAdd(uint64_t value, int64_t incr, int bits,
                                         BitfieldOverflow ow) {
  const uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
  const auto maxincr = static_cast<int64_t>(max - value);
  const auto minincr = static_cast<int64_t>(uint64_t{0} - value);
  int dir = 0;
  if (value > max || (incr > 0 && incr > maxincr)) {
    dir = 1;
  } else if (incr < 0 && incr < minincr) {
    dir = -1;
  }
  uint64_t sum = value + static_cast<uint64_t>(incr);
  if (dir == 0) return sum;
  switch (ow) {
    case BitfieldOverflow::kFail:
      return std::nullopt;
    case BitfieldOverflow::kSat:
      return dir > 0 ? max : 0;
    case BitfieldOverflow::kWrap:
      break;
  }
  return bits == 64 ? sum : sum & max;
}

bool BitfieldWrites(const std::vector<BitfieldOp>& ops) {
  for (const BitfieldOp& op : ops) {
    if (op.kind != BitfieldOp::Kind::kGet) return true;
  }
  return false;
}

std::vector<std::optional<int64_t>> ApplyBitfield(std::string* s,
                                                  const std::vector<BitfieldOp>& ops) {
  uint64_t need = 0;  // bytes covering every written field
  for (const BitfieldOp& op : ops) {
    if (op.kind == BitfieldOp::Kind::kGet) continue;
    need = std::max(need, ((op.offset + static_cast<uint64_t>(op.type.bits) - 1) >> 3) + 1);
  }
  if (s->size() < need) s->resize(need, '\0');

  std::vector<std::optional<int64_t>> out;
  out.reserve(ops.size());
  for (const BitfieldOp& op : ops) {
    const int bits = op.type.bits;
    if (op.kind == BitfieldOp::Kind::kGet) {
      out.push_back(op.type.is_signed
                        ? GetSignedField(*s, op.offset, bits)
                        : static_cast<int64_t>(GetUnsignedField(*s, op.offset, bits)));
      continue;
    }
    const bool incr = op.kind == BitfieldOp::Kind::kIncrBy;
    if (op.type.is_signed) {
      const int64_t old = GetSignedField(*s, op.offset, bits);
      std::optional<int64_t> v = incr ? SignedFieldAdd(old, op.value, bits, op.overflow)
                                      : SignedFieldAdd(op.value, 0, bits, op.overflow);
      if (!v) {
        out.emplace_back();
        continue;
      }
      SetField(s, op.offset, bits, static_cast<uint64_t>(*v));
      out.push_back(incr ? *v : old);
    } else {
      const uint64_t old = GetUnsignedField(*s, op.offset, bits);
      std::optional<uint64_t> v =
          incr ? UnsignedFieldAdd(old, op.value, bits, op.overflow)
               : UnsignedFieldAdd(static_cast<uint64_t>(op.value), 0, bits, op.overflow);
      if (!v) {
        out.emplace_back();
        continue;
      }
      SetField(s, op.offset, bits, *v);
      out.push_back(static_cast<int64_t>(incr ? *v : old));
    }
  }
  return out;
}

}  // namespace slotkv::command
