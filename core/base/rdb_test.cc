#include "core/base/rdb.h"

#include <doctest/doctest.h>

extern "C" {
#include <lzf.h>
}

namespace slotkv {
namespace {

TEST_CASE("CRC-64 as Redis computes it") {
  CHECK(Crc64(0, "123456789") == 0xe9c6d914c4b8d9caull);
  CHECK(Crc64(0, "") == 0);
}

TEST_CASE("RDB lengths and strings round-trip at every width") {
  for (size_t n : {size_t{0}, size_t{63}, size_t{64}, size_t{345}, size_t{16383},
                   size_t{16384}, size_t{70000}}) {
    CAPTURE(n);
    std::string s(n, 'x');
    std::string out;
    PutRdbString(&out, s);
    std::string_view in = out;
    std::string back;
    REQUIRE(GetRdbString(&in, &back));
    CHECK(back == s);
    CHECK(in.empty());
  }
  std::string two;
  PutRdbString(&two, "ab");
  CHECK(two == std::string("\x02" "ab"));
}

TEST_CASE("RDB integer and LZF strings as Redis writes them") {
  std::string_view int8("\xc0\xfe", 2);
  std::string out;
  REQUIRE(GetRdbString(&int8, &out));
  CHECK(out == "-2");
  std::string_view int16("\xc1\x39\x30", 3);
  REQUIRE(GetRdbString(&int16, &out));
  CHECK(out == "12345");
  // An LZF string as Redis writes one: 11000011, clen, len, then the compressed bytes.
  const std::string text(200, 'a');
  std::string compressed(text.size(), '\0');
  const unsigned clen = lzf_compress(text.data(), static_cast<unsigned>(text.size()),
                                     compressed.data(), static_cast<unsigned>(compressed.size()));
  REQUIRE(clen > 0);
  std::string payload = "\xc3";
  PutRdbLength(&payload, clen);
  PutRdbLength(&payload, text.size());
  payload.append(compressed.data(), clen);
  std::string_view lzf = payload;
  std::string back;
  REQUIRE(GetRdbString(&lzf, &back));
  CHECK(back == text);
  CHECK(lzf.empty());
  std::string_view cut("\x05" "ab", 3);
  CHECK_FALSE(GetRdbString(&cut, &out));
}

}  // namespace
}  // namespace slotkv
