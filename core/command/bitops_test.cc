#include "core/command/bitops.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>

namespace slotkv::command {
namespace {

using namespace std::string_literals;

constexpr uint64_t kMax = kMaxBitmapBytes;

// Reference implementations, one bit at a time.
bool NaiveBit(std::string_view s, int64_t i) {
  if (i < 0 || static_cast<size_t>(i >> 3) >= s.size()) return false;
  return (static_cast<uint8_t>(s[static_cast<size_t>(i >> 3)]) >> (7 - (i & 7))) & 1;
}

// Bits [first, last] (absolute, inclusive) after Redis's index rules over len units.
bool NaiveRange(int64_t len, int64_t* start, int64_t* end) {
  if (*start < 0) *start += len;
  if (*end < 0) *end += len;
  *start = std::max<int64_t>(*start, 0);
  *end = std::max<int64_t>(*end, 0);
  if (*end >= len) *end = len - 1;
  return *start <= *end;
}

uint64_t NaiveCount(std::string_view s, int64_t start, int64_t end, BitUnit unit) {
  const int64_t k = unit == BitUnit::kBit ? 1 : 8;
  if (!NaiveRange(static_cast<int64_t>(s.size()) * 8 / k, &start, &end)) return 0;
  uint64_t n = 0;
  for (int64_t i = start * k; i <= end * k + k - 1; ++i) n += NaiveBit(s, i) ? 1 : 0;
  return n;
}

int64_t NaivePos(std::string_view s, bool bit, int64_t start, std::optional<int64_t> end,
                 BitUnit unit) {
  const int64_t k = unit == BitUnit::kBit ? 1 : 8;
  const int64_t len = static_cast<int64_t>(s.size()) * 8 / k;
  int64_t e = end.value_or(len - 1);
  if (!NaiveRange(len, &start, &e)) return -1;
  for (int64_t i = start * k; i <= e * k + k - 1; ++i) {
    if (NaiveBit(s, i) == bit) return i;
  }
  return !bit && !end ? e * k + k : -1;
}

std::string RandomBits(std::mt19937_64& rng, size_t max_len) {
  std::string s(rng() % (max_len + 1), '\0');
  const int style = static_cast<int>(rng() % 4);  // runs of 0x00 / 0xFF make BITPOS skip words
  for (char& c : s) {
    if (style == 0) c = static_cast<char>(rng());
    if (style == 1) c = rng() % 16 == 0 ? static_cast<char>(rng()) : '\0';
    if (style == 2) c = rng() % 16 == 0 ? static_cast<char>(rng()) : '\xff';
    if (style == 3) c = '\xff';
  }
  return s;
}

// ---- GetBit / SetBit ------------------------------------------------------------------------

TEST_CASE("GetBit: bit 0 is the most significant bit of byte 0") {
  CHECK(GetBit("\x80", 0));
  CHECK_FALSE(GetBit("\x80", 1));
  CHECK(GetBit("\x00\x01"s, 15));
  CHECK_FALSE(GetBit("\x00\x01"s, 14));
}

TEST_CASE("GetBit: past the end reads 0") {
  CHECK_FALSE(GetBit("\xff", 8));
  CHECK_FALSE(GetBit("", 0));
  CHECK_FALSE(GetBit("\xff", UINT64_MAX));
}

TEST_CASE("SetBit returns the old bit and changes only that bit") {
  std::string s = "`";  // 0x60
  CHECK_FALSE(SetBit(&s, 7, true));
  CHECK(s == "a");
  CHECK(SetBit(&s, 2, false));
  CHECK(s == "A");
  CHECK_FALSE(SetBit(&s, 2, false));
  CHECK(s == "A");
}

TEST_CASE("SetBit grows the string with zero bytes, also when clearing") {
  std::string s;
  CHECK_FALSE(SetBit(&s, 17, true));
  CHECK(s == "\x00\x00\x40"s);
  CHECK_FALSE(SetBit(&s, 40, false));
  CHECK(s == "\x00\x00\x40\x00\x00\x00"s);
}

// ---- ParseBitOffset -------------------------------------------------------------------------

TEST_CASE("ParseBitOffset: strict decimal, not negative") {
  CHECK(ParseBitOffset("0", kMax) == 0u);
  CHECK(ParseBitOffset("4294967295", kMax) == 4294967295u);
  CHECK_FALSE(ParseBitOffset("-1", kMax));
  CHECK_FALSE(ParseBitOffset("x", kMax));
  CHECK_FALSE(ParseBitOffset("1.5", kMax));
  CHECK_FALSE(ParseBitOffset("+1", kMax));
  CHECK_FALSE(ParseBitOffset("01", kMax));
  CHECK_FALSE(ParseBitOffset("", kMax));
  CHECK_FALSE(ParseBitOffset(" 1", kMax));
}

TEST_CASE("ParseBitOffset: the byte must be below max_bytes") {
  CHECK_FALSE(ParseBitOffset("4294967296", kMax));
  CHECK(ParseBitOffset("8388607", 1 << 20) == 8388607u);
  CHECK_FALSE(ParseBitOffset("8388608", 1 << 20));
  CHECK_FALSE(ParseBitOffset("9223372036854775807", kMax));
}

TEST_CASE("ParseBitOffset: #N multiplies by the field width only when allowed") {
  CHECK(ParseBitOffset("#3", kMax, 8) == 24u);
  CHECK(ParseBitOffset("#3", kMax, 7) == 21u);
  CHECK(ParseBitOffset("#0", kMax, 8) == 0u);
  CHECK_FALSE(ParseBitOffset("#3", kMax));  // SETBIT / GETBIT: no # form
  CHECK_FALSE(ParseBitOffset("#", kMax, 8));
  CHECK_FALSE(ParseBitOffset("#-1", kMax, 8));
  CHECK_FALSE(ParseBitOffset("#-0", kMax, 8));
  CHECK_FALSE(ParseBitOffset("##1", kMax, 8));
  CHECK(ParseBitOffset("#536870911", kMax, 8) == 4294967288u);
  CHECK_FALSE(ParseBitOffset("#536870912", kMax, 8));
}

TEST_CASE("ParseBitOffset: #N wraps around 64 bits as Redis") {
  CHECK(ParseBitOffset("#2305843009213693952", kMax, 8) == 0u);  // 2^61 * 8 = 2^64
  CHECK_FALSE(ParseBitOffset("#1152921504606846976", kMax, 8));  // 2^63: negative
}

// ---- CountBits ------------------------------------------------------------------------------

TEST_CASE("CountBits over a whole string, word-sized and not") {
  CHECK(CountBits("") == 0);
  CHECK(CountBits("foobar") == 26);
  CHECK(CountBits(std::string(1000, '\xff')) == 8000);
  CHECK(CountBits(std::string(37, '\x01')) == 37);
}

TEST_CASE("CountBits byte range with negative indexes") {
  CHECK(CountBits("foobar", 0, 0, BitUnit::kByte) == 4);
  CHECK(CountBits("foobar", 1, 1, BitUnit::kByte) == 6);
  CHECK(CountBits("foobar", 0, -1, BitUnit::kByte) == 26);
  CHECK(CountBits("foobar", -2, -1, BitUnit::kByte) == 7);
}

TEST_CASE("CountBits: out-of-range indexes clamp, an empty range counts 0") {
  CHECK(CountBits("foobar", 3, 1, BitUnit::kByte) == 0);
  CHECK(CountBits("foobar", 100, 200, BitUnit::kByte) == 0);
  CHECK(CountBits("foobar", -100, -50, BitUnit::kByte) == 4);  // end clamps to 0
  CHECK(CountBits("foobar", 0, -100, BitUnit::kByte) == 4);
  CHECK(CountBits("foobar", INT64_MIN, INT64_MAX, BitUnit::kByte) == 26);
  CHECK(CountBits("", 0, -1, BitUnit::kByte) == 0);
  CHECK(CountBits("", 0, 0, BitUnit::kBit) == 0);
}

TEST_CASE("CountBits bit range masks the edge bytes") {
  CHECK(CountBits("foobar", 5, 30, BitUnit::kBit) == 17);
  CHECK(CountBits("foobar", -2, -1, BitUnit::kBit) == 1);
  CHECK(CountBits("\xff", 3, 3, BitUnit::kBit) == 1);
  CHECK(CountBits("\xff", 1, 6, BitUnit::kBit) == 6);
  CHECK(CountBits(std::string(1000, '\xff'), 3, 7998, BitUnit::kBit) == 7996);
}

TEST_CASE("CountBits matches a bit-by-bit count on random input") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 3000; ++i) {
    const std::string s = RandomBits(rng, 70);
    const int64_t n = static_cast<int64_t>(s.size()) * 8 + 20;
    const int64_t a = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * n)) - n;
    const int64_t b = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * n)) - n;
    const BitUnit unit = rng() % 2 ? BitUnit::kBit : BitUnit::kByte;
    INFO("s size " << s.size() << " range " << a << " " << b);
    CHECK(CountBits(s, a, b, unit) == NaiveCount(s, a, b, unit));
  }
}

// ---- FindBit --------------------------------------------------------------------------------

TEST_CASE("FindBit over the whole string") {
  CHECK(FindBit("\xff\xf0\x00"s, false) == 12);
  CHECK(FindBit("\x00\xff"s, true) == 8);
  CHECK(FindBit("\x00\x00"s, true) == -1);
  CHECK(FindBit("\x00\x00"s, false) == 0);
}

TEST_CASE("FindBit: a clear bit in all ones without an end is the bit past the string") {
  CHECK(FindBit("\xff\xff\xff", false) == 24);
  CHECK(FindBit(std::string(100, '\xff'), false) == 800);
  CHECK(FindBit("\xff\xff\xff", false, 0, std::nullopt, BitUnit::kByte) == 24);
  CHECK(FindBit("\xff\xff\xff", false, 1, std::nullopt, BitUnit::kByte) == 24);
}

TEST_CASE("FindBit: with an explicit end a clear bit in all ones is not found") {
  CHECK(FindBit("\xff\xff\xff", false, 0, -1, BitUnit::kByte) == -1);
  CHECK(FindBit("\xff\xff\xff", false, 2, 2, BitUnit::kByte) == -1);
  CHECK(FindBit("\xff\xff\xff", false, 0, 23, BitUnit::kBit) == -1);
  CHECK(FindBit("\xff\xff\xff", false, 0, -1, BitUnit::kBit) == -1);
}

TEST_CASE("FindBit: an empty string or range gives -1") {
  CHECK(FindBit("", false) == -1);
  CHECK(FindBit("", true) == -1);
  CHECK(FindBit("", false, 0, std::nullopt, BitUnit::kByte) == -1);
  CHECK(FindBit("\xff\xff\xff", false, 3, std::nullopt, BitUnit::kByte) == -1);
  CHECK(FindBit("\xff\xff\xff", true, 3, std::nullopt, BitUnit::kByte) == -1);
  CHECK(FindBit("foobar", false, 1, 0, BitUnit::kByte) == -1);
}

TEST_CASE("FindBit byte and bit ranges") {
  const std::string s = "\x00\xff\xf0"s;
  CHECK(FindBit(s, true, 0, std::nullopt, BitUnit::kByte) == 8);
  CHECK(FindBit(s, true, 2, std::nullopt, BitUnit::kByte) == 16);
  CHECK(FindBit(s, true, 2, -1, BitUnit::kByte) == 16);
  CHECK(FindBit(s, true, 7, 15, BitUnit::kBit) == 8);
  CHECK(FindBit(s, true, 7, -3, BitUnit::kBit) == 8);
  CHECK(FindBit(s, true, 16, 23, BitUnit::kBit) == 16);
  CHECK(FindBit(s, true, 20, 23, BitUnit::kBit) == -1);
  CHECK(FindBit(s, true, 5, 1, BitUnit::kByte) == -1);
  CHECK(FindBit("foobar", true, -100, -50, BitUnit::kByte) == 1);
}

TEST_CASE("FindBit: a range within one byte") {
  CHECK(FindBit("\x81", true, 1, 6, BitUnit::kBit) == -1);
  CHECK(FindBit("\x81", false, 1, 6, BitUnit::kBit) == 1);
  CHECK(FindBit("\x7e", false, 1, 6, BitUnit::kBit) == -1);
  CHECK(FindBit("\x7e", true, 0, 0, BitUnit::kBit) == -1);
  CHECK(FindBit("\x7e", false, 7, 7, BitUnit::kBit) == 7);
}

TEST_CASE("FindBit skips long runs word by word") {
  std::string s(1003, '\0');
  s[1001] = '\x10';
  CHECK(FindBit(s, true) == 1001 * 8 + 3);
  CHECK(FindBit(s, true, 5, 1001, BitUnit::kByte) == 1001 * 8 + 3);
  CHECK(FindBit(s, true, 5, 1000, BitUnit::kByte) == -1);
  CHECK(FindBit(s, true, 3, 8011, BitUnit::kBit) == 8011);
  CHECK(FindBit(s, true, 3, 8010, BitUnit::kBit) == -1);
}

TEST_CASE("FindBit matches a bit-by-bit search on random input") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 3000; ++i) {
    const std::string s = RandomBits(rng, 70);
    const int64_t n = static_cast<int64_t>(s.size()) * 8 + 20;
    const int64_t a = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * n)) - n;
    const int64_t b = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * n)) - n;
    const bool bit = rng() % 2;
    const BitUnit unit = rng() % 2 ? BitUnit::kBit : BitUnit::kByte;
    INFO("s size " << s.size() << " bit " << bit << " range " << a << " " << b);
    CHECK(FindBit(s, bit, a, b, unit) == NaivePos(s, bit, a, b, unit));
    CHECK(FindBit(s, bit, a, std::nullopt, BitUnit::kByte) ==
          NaivePos(s, bit, a, std::nullopt, BitUnit::kByte));
    if (!s.empty()) CHECK(FindBit(s, bit) == NaivePos(s, bit, 0, std::nullopt, BitUnit::kByte));
  }
}

// ---- BITOP ----------------------------------------------------------------------------------

TEST_CASE("BitOp pads shorter sources with zeros") {
  const std::vector<std::string_view> src = {"\xff\x0f", "\x0f"};
  CHECK(BitOp(BitOpKind::kAnd, src) == "\x0f\x00"s);
  CHECK(BitOp(BitOpKind::kOr, src) == "\xff\x0f");
  CHECK(BitOp(BitOpKind::kXor, src) == "\xf0\x0f");
}

TEST_CASE("BitOp AND with a missing (empty) source clears everything") {
  CHECK(BitOp(BitOpKind::kAnd, {"\xff\xff", ""}) == "\x00\x00"s);
  CHECK(BitOp(BitOpKind::kAnd, {"", "\xff\xff"}) == "\x00\x00"s);
}

TEST_CASE("BitOp NOT inverts one source") {
  CHECK(BitOp(BitOpKind::kNot, {"\xff\x0f\x00"s}) == "\x00\xf0\xff"s);
  CHECK(BitOp(BitOpKind::kNot, {""}).empty());
}

TEST_CASE("BitOp of many sources, word-sized and not, in any order") {
  std::string a(21, '\x55'), b(13, '\x0f'), c(8, '\xf0');
  std::string and_abc(21, '\0'), or_abc = a, xor_abc = a;
  for (size_t i = 0; i < 21; ++i) {
    uint8_t x = 0x55, y = i < 13 ? 0x0f : 0, z = i < 8 ? 0xf0 : 0;
    and_abc[i] = static_cast<char>(x & y & z);
    or_abc[i] = static_cast<char>(x | y | z);
    xor_abc[i] = static_cast<char>(x ^ y ^ z);
  }
  CHECK(BitOp(BitOpKind::kAnd, {a, b, c}) == and_abc);
  CHECK(BitOp(BitOpKind::kAnd, {c, a, b}) == and_abc);
  CHECK(BitOp(BitOpKind::kOr, {b, c, a}) == or_abc);
  CHECK(BitOp(BitOpKind::kXor, {c, b, a}) == xor_abc);
}

TEST_CASE("BitNot of a long string") {
  std::string s(37, '\x0f');
  BitNot(&s);
  CHECK(s == std::string(37, '\xf0'));
}

// ---- BITFIELD -------------------------------------------------------------------------------

TEST_CASE("ParseBitfieldType accepts i1..i64 and u1..u63") {
  CHECK(ParseBitfieldType("i1")->bits == 1);
  CHECK(ParseBitfieldType("i64")->is_signed);
  CHECK(ParseBitfieldType("u63")->bits == 63);
  CHECK_FALSE(ParseBitfieldType("u63")->is_signed);
  CHECK_FALSE(ParseBitfieldType("u64"));
  CHECK_FALSE(ParseBitfieldType("i65"));
  CHECK_FALSE(ParseBitfieldType("i0"));
  CHECK_FALSE(ParseBitfieldType("u"));
  CHECK_FALSE(ParseBitfieldType(""));
  CHECK_FALSE(ParseBitfieldType("x8"));
  CHECK_FALSE(ParseBitfieldType("I8"));  // case matters
  CHECK_FALSE(ParseBitfieldType("u08"));
  CHECK_FALSE(ParseBitfieldType("u-8"));
  CHECK_FALSE(ParseBitfieldType("u+8"));
}

TEST_CASE("ParseBitfieldType stops at a NUL byte, as Redis reads a C string") {
  CHECK(ParseBitfieldType("u8\0x"s)->bits == 8);
  CHECK_FALSE(ParseBitfieldType("\0u8"s));
}

TEST_CASE("GetUnsignedField and GetSignedField, aligned and not") {
  const std::string s = "\x9c\xff"s;
  CHECK(GetUnsignedField(s, 0, 8) == 156);
  CHECK(GetSignedField(s, 0, 8) == -100);
  CHECK(GetUnsignedField(s, 8, 4) == 15);
  CHECK(GetSignedField(s, 8, 4) == -1);
  CHECK(GetUnsignedField(s, 3, 5) == 28);
  CHECK(GetUnsignedField(s, 4, 8) == 0xcf);
  CHECK(GetSignedField(s, 0, 1) == -1);
  CHECK(GetUnsignedField(s, 1, 1) == 0);
}

TEST_CASE("Fields past the end read zero-padded") {
  CHECK(GetUnsignedField("\xff", 4, 8) == 0xf0);
  CHECK(GetUnsignedField("", 0, 63) == 0);
  CHECK(GetSignedField("\xff", 8, 64) == 0);
  CHECK(GetUnsignedField("\xff", 4294967288u, 8) == 0);
}

TEST_CASE("64-bit fields at an unaligned offset span nine bytes") {
  const std::string s = "\x01\xff\xff\xff\xff\xff\xff\xff\xfe"s;
  CHECK(GetSignedField(s, 7, 64) == -1);
  CHECK(GetUnsignedField(s, 7, 63) == INT64_MAX);
  CHECK(GetUnsignedField(s, 8, 63) == INT64_MAX);
  CHECK(GetSignedField(s, 8, 64) == -2);
}

TEST_CASE("SetField writes only the field's bits") {
  std::string s(2, '\0');
  SetField(&s, 3, 5, 31);
  CHECK(s == "\x1f\x00"s);
  SetField(&s, 6, 4, 0);
  CHECK(s == "\x1c\x00"s);
  std::string w(9, '\0');
  SetField(&w, 4, 64, UINT64_MAX);
  CHECK(w == "\x0f\xff\xff\xff\xff\xff\xff\xff\xf0"s);
}

TEST_CASE("SignedFieldAdd without overflow") {
  CHECK(SignedFieldAdd(-100, 50, 8, BitfieldOverflow::kFail) == -50);
  CHECK(SignedFieldAdd(127, 0, 8, BitfieldOverflow::kFail) == 127);
  CHECK(SignedFieldAdd(-128, 0, 8, BitfieldOverflow::kFail) == -128);
  CHECK(SignedFieldAdd(INT64_MAX, INT64_MIN, 64, BitfieldOverflow::kFail) == -1);
}

TEST_CASE("SignedFieldAdd overflow: WRAP, SAT, FAIL") {
  CHECK(SignedFieldAdd(-100, -100, 8, BitfieldOverflow::kWrap) == 56);
  CHECK(SignedFieldAdd(-100, -100, 8, BitfieldOverflow::kSat) == -128);
  CHECK_FALSE(SignedFieldAdd(-100, -100, 8, BitfieldOverflow::kFail));
  CHECK(SignedFieldAdd(100, 100, 8, BitfieldOverflow::kWrap) == -56);
  CHECK(SignedFieldAdd(100, 100, 8, BitfieldOverflow::kSat) == 127);
  CHECK(SignedFieldAdd(200, 0, 8, BitfieldOverflow::kWrap) == -56);  // SET
  CHECK(SignedFieldAdd(-200, 0, 8, BitfieldOverflow::kSat) == -128);
  CHECK(SignedFieldAdd(-129, 0, 8, BitfieldOverflow::kWrap) == 127);
}

TEST_CASE("SignedFieldAdd on i64 wraps in two's complement") {
  CHECK(SignedFieldAdd(INT64_MAX, INT64_MAX, 64, BitfieldOverflow::kWrap) == -2);
  CHECK(SignedFieldAdd(INT64_MAX, 1, 64, BitfieldOverflow::kSat) == INT64_MAX);
  CHECK(SignedFieldAdd(INT64_MIN, -1, 64, BitfieldOverflow::kSat) == INT64_MIN);
  CHECK(SignedFieldAdd(INT64_MIN, INT64_MIN, 64, BitfieldOverflow::kWrap) == 0);
  CHECK_FALSE(SignedFieldAdd(INT64_MIN, -1, 64, BitfieldOverflow::kFail));
}

TEST_CASE("SignedFieldAdd keeps Redis's quirk: a hugely negative SET saturates upwards") {
  // max - value wraps, so Redis sees an overflow upwards (checked against redis-server 7.0.15).
  CHECK(SignedFieldAdd(INT64_MIN, 0, 8, BitfieldOverflow::kSat) == 127);
  CHECK(SignedFieldAdd(INT64_MIN + 127, 0, 8, BitfieldOverflow::kSat) == 127);
  CHECK(SignedFieldAdd(INT64_MIN + 128, 0, 8, BitfieldOverflow::kSat) == -128);
  CHECK(SignedFieldAdd(INT64_MIN, 0, 63, BitfieldOverflow::kSat) == (int64_t{1} << 62) - 1);
  CHECK(SignedFieldAdd(INT64_MIN, 0, 1, BitfieldOverflow::kSat) == 0);
  CHECK(SignedFieldAdd(INT64_MIN + 1, 0, 1, BitfieldOverflow::kSat) == -1);
}

TEST_CASE("UnsignedFieldAdd overflow: WRAP, SAT, FAIL") {
  CHECK(UnsignedFieldAdd(156, 300, 8, BitfieldOverflow::kWrap) == 200);
  CHECK(UnsignedFieldAdd(156, 300, 8, BitfieldOverflow::kSat) == 255);
  CHECK_FALSE(UnsignedFieldAdd(156, 300, 8, BitfieldOverflow::kFail));
  CHECK(UnsignedFieldAdd(1, -2, 8, BitfieldOverflow::kWrap) == 255);
  CHECK(UnsignedFieldAdd(1, -2, 8, BitfieldOverflow::kSat) == 0);
  CHECK(UnsignedFieldAdd(3, 0, 2, BitfieldOverflow::kFail) == 3);
  CHECK_FALSE(UnsignedFieldAdd(3, 1, 2, BitfieldOverflow::kFail));
}

TEST_CASE("UnsignedFieldAdd SET takes the value as 64-bit unsigned") {
  CHECK(UnsignedFieldAdd(UINT64_MAX, 0, 8, BitfieldOverflow::kSat) == 255);  // SET u8 -1
  CHECK(UnsignedFieldAdd(UINT64_MAX, 0, 3, BitfieldOverflow::kWrap) == 7);
  CHECK(UnsignedFieldAdd(256, 0, 8, BitfieldOverflow::kWrap) == 0);
  CHECK_FALSE(UnsignedFieldAdd(256, 0, 8, BitfieldOverflow::kFail));
}

TEST_CASE("UnsignedFieldAdd on u63 with extreme increments") {
  const uint64_t v = 3690620391307935742u;
  CHECK(UnsignedFieldAdd(v, INT64_MIN, 63, BitfieldOverflow::kWrap) == v);
  CHECK(UnsignedFieldAdd(v, INT64_MIN, 63, BitfieldOverflow::kSat) == 0);
  CHECK(UnsignedFieldAdd(v, INT64_MAX, 63, BitfieldOverflow::kSat) == uint64_t{INT64_MAX});
  CHECK(UnsignedFieldAdd(v, INT64_MAX, 63, BitfieldOverflow::kWrap) == v - 1);
}

BitfieldOp Op(BitfieldOp::Kind kind, const char* type, uint64_t offset, int64_t value = 0,
              BitfieldOverflow ow = BitfieldOverflow::kWrap) {
  BitfieldOp op;
  op.kind = kind;
  op.type = *ParseBitfieldType(type);
  op.offset = offset;
  op.value = value;
  op.overflow = ow;
  return op;
}

constexpr auto kGet = BitfieldOp::Kind::kGet;
constexpr auto kSet = BitfieldOp::Kind::kSet;
constexpr auto kIncr = BitfieldOp::Kind::kIncrBy;

TEST_CASE("ApplyBitfield replies old value for SET, new value for INCRBY") {
  std::string s;
  auto r = ApplyBitfield(&s, {Op(kSet, "i8", 0, -100), Op(kGet, "u8", 0),
                              Op(kIncr, "i8", 0, -100), Op(kGet, "i8", 0)});
  CHECK(r == std::vector<std::optional<int64_t>>{0, 156, 56, 56});
  CHECK(s == "\x38");
}

TEST_CASE("ApplyBitfield: FAIL replies nil and leaves the field") {
  std::string s = "\x80";
  auto r = ApplyBitfield(&s, {Op(kIncr, "i8", 0, -1, BitfieldOverflow::kFail),
                              Op(kGet, "i8", 0)});
  CHECK(r == std::vector<std::optional<int64_t>>{std::nullopt, -128});
  CHECK(s == "\x80");
}

TEST_CASE("ApplyBitfield grows the string for writes even when they fail") {
  std::string s;
  auto r = ApplyBitfield(&s, {Op(kIncr, "u2", 0, 5, BitfieldOverflow::kFail)});
  CHECK(r == std::vector<std::optional<int64_t>>{std::nullopt});
  CHECK(s == "\x00"s);
  ApplyBitfield(&s, {Op(kSet, "i64", 7, 0, BitfieldOverflow::kFail)});
  CHECK(s.size() == 9);
}

TEST_CASE("ApplyBitfield GET never grows the string") {
  std::string s = "\xff";
  auto r = ApplyBitfield(&s, {Op(kGet, "u8", 4), Op(kGet, "i64", 100)});
  CHECK(r == std::vector<std::optional<int64_t>>{0xf0, 0});
  CHECK(s == "\xff");
}

TEST_CASE("BitfieldWrites is true when any op is SET or INCRBY") {
  CHECK_FALSE(BitfieldWrites({}));
  CHECK_FALSE(BitfieldWrites({Op(kGet, "u8", 0)}));
  CHECK(BitfieldWrites({Op(kGet, "u8", 0), Op(kIncr, "u8", 0, 1)}));
}

}  // namespace
}  // namespace slotkv::command
