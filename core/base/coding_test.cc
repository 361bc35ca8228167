#include "core/base/coding.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace slotkv {
namespace {

TEST_CASE("varints round trip at every length boundary") {
  std::vector<uint64_t> values = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX};
  for (int shift = 0; shift < 64; shift += 7) values.push_back(uint64_t{1} << shift);
  std::string buf;
  for (uint64_t v : values) PutVarint64(&buf, v);
  std::string_view in = buf;
  for (uint64_t v : values) {
    uint64_t got;
    REQUIRE(GetVarint64(&in, &got));
    CHECK(got == v);
  }
  CHECK(in.empty());
  CHECK(VarintLength(127) == 1);
  CHECK(VarintLength(128) == 2);
  CHECK(VarintLength(UINT64_MAX) == 10);
}

TEST_CASE("truncated varint is rejected") {
  std::string buf;
  PutVarint64(&buf, UINT64_MAX);
  for (size_t len = 0; len < buf.size(); ++len) {
    std::string_view in(buf.data(), len);
    uint64_t v;
    CHECK_FALSE(GetVarint64(&in, &v));
  }
}

TEST_CASE("varint32 rejects values above 32 bits") {
  std::string buf;
  PutVarint64(&buf, uint64_t{1} << 32);
  std::string_view in = buf;
  uint32_t v;
  CHECK_FALSE(GetVarint32(&in, &v));
}

TEST_CASE("fixed and length-prefixed fields round trip") {
  std::string buf;
  PutFixed16(&buf, 0xBEEF);
  PutFixed32(&buf, 0xDEADBEEF);
  PutFixed64(&buf, 0x0123456789ABCDEFull);
  PutLengthPrefixed(&buf, "hello");
  PutLengthPrefixed(&buf, "");
  std::string_view in = buf;
  uint16_t a;
  uint32_t b;
  uint64_t c;
  std::string_view s1, s2;
  REQUIRE(GetFixed16(&in, &a));
  REQUIRE(GetFixed32(&in, &b));
  REQUIRE(GetFixed64(&in, &c));
  REQUIRE(GetLengthPrefixed(&in, &s1));
  REQUIRE(GetLengthPrefixed(&in, &s2));
  CHECK(a == 0xBEEF);
  CHECK(b == 0xDEADBEEF);
  CHECK(c == 0x0123456789ABCDEFull);
  CHECK(s1 == "hello");
  CHECK(s2.empty());
  CHECK(in.empty());
}

TEST_CASE("big-endian 64-bit numbers sort as their bytes") {
  char a[8];
  char b[8];
  EncodeBigEndian64(a, 0x0123456789ABCDEFull);
  CHECK(std::string_view(a, 8) == "\x01\x23\x45\x67\x89\xAB\xCD\xEF");
  EncodeBigEndian64(a, 255);
  EncodeBigEndian64(b, 256);
  CHECK(std::string_view(a, 8) < std::string_view(b, 8));
}

TEST_CASE("length prefix longer than the input is rejected") {
  std::string buf;
  PutVarint32(&buf, 10);
  buf += "abc";
  std::string_view in = buf;
  std::string_view out;
  CHECK_FALSE(GetLengthPrefixed(&in, &out));
}

}  // namespace
}  // namespace slotkv
