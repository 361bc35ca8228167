#include "core/base/number.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

// Expected texts and accept/reject decisions were taken from redis-server 7.0.15: INCRBY for
// integers, INCRBYFLOAT on a missing key for long doubles (its reply is
// FormatLongDouble(ParseLongDouble(arg))), ZADD then ZSCORE for doubles.

namespace slotkv {
namespace {

using namespace std::string_view_literals;

// What INCRBYFLOAT on a missing key replies for `arg`, or "ERR" when the parse fails.
std::string IncrByFloat(std::string_view arg) {
  std::optional<long double> v = ParseLongDouble(arg);
  return v ? FormatLongDouble(*v) : "ERR";
}

// What ZADD then ZSCORE reply for score `arg`, or "ERR" when the parse fails.
std::string ZScore(std::string_view arg) {
  std::optional<double> v = ParseDouble(arg);
  return v ? FormatDouble(*v) : "ERR";
}

// ---- ParseInt64

TEST_CASE("int64 parses plain decimals") {
  CHECK(ParseInt64("0") == 0);
  CHECK(ParseInt64("7") == 7);
  CHECK(ParseInt64("-1234567890123456789") == -1234567890123456789);
}

TEST_CASE("int64 accepts both ends of its range") {
  CHECK(ParseInt64("9223372036854775807") == std::numeric_limits<int64_t>::max());
  CHECK(ParseInt64("-9223372036854775808") == std::numeric_limits<int64_t>::min());
}

TEST_CASE("int64 rejects one past either end") {
  CHECK_FALSE(ParseInt64("9223372036854775808"));
  CHECK_FALSE(ParseInt64("-9223372036854775809"));
  CHECK_FALSE(ParseInt64("18446744073709551615"));
  CHECK_FALSE(ParseInt64("18446744073709551616"));
  CHECK_FALSE(ParseInt64("99999999999999999999"));
}

TEST_CASE("int64 rejects 21 bytes or more") {
  CHECK_FALSE(ParseInt64("123456789012345678901"));
  CHECK_FALSE(ParseInt64("-12345678901234567890"));
}

TEST_CASE("int64 rejects leading zeros and negative zero") {
  CHECK_FALSE(ParseInt64("00"));
  CHECK_FALSE(ParseInt64("01"));
  CHECK_FALSE(ParseInt64("-0"));
  CHECK_FALSE(ParseInt64("-00"));
  CHECK_FALSE(ParseInt64("-01"));
}

TEST_CASE("int64 rejects signs, spaces and other bytes") {
  CHECK_FALSE(ParseInt64(""));
  CHECK_FALSE(ParseInt64("-"));
  CHECK_FALSE(ParseInt64("+1"));
  CHECK_FALSE(ParseInt64(" 1"));
  CHECK_FALSE(ParseInt64("1 "));
  CHECK_FALSE(ParseInt64("12a"));
  CHECK_FALSE(ParseInt64("1\0"sv));
  CHECK_FALSE(ParseInt64("0x10"));
  CHECK_FALSE(ParseInt64("1e3"));
  CHECK_FALSE(ParseInt64("--1"));
}

// ---- ParseUint64

TEST_CASE("uint64 accepts its full range") {
  CHECK(ParseUint64("0") == 0u);
  CHECK(ParseUint64("9223372036854775808") == 9223372036854775808u);
  CHECK(ParseUint64("18446744073709551615") == std::numeric_limits<uint64_t>::max());
}

TEST_CASE("uint64 rejects overflow and 21 bytes or more") {
  CHECK_FALSE(ParseUint64("18446744073709551616"));
  CHECK_FALSE(ParseUint64("99999999999999999999"));
  CHECK_FALSE(ParseUint64("100000000000000000000"));
}

TEST_CASE("uint64 rejects any sign, leading zeros and spaces") {
  CHECK_FALSE(ParseUint64(""));
  CHECK_FALSE(ParseUint64("-1"));
  CHECK_FALSE(ParseUint64("-0"));
  CHECK_FALSE(ParseUint64("+1"));
  CHECK_FALSE(ParseUint64("00"));
  CHECK_FALSE(ParseUint64("007"));
  CHECK_FALSE(ParseUint64(" 1"));
  CHECK_FALSE(ParseUint64("1 "));
}

// ---- FormatInt64

TEST_CASE("int64 formats in decimal at both ends") {
  CHECK(FormatInt64(0) == "0");
  CHECK(FormatInt64(-42) == "-42");
  CHECK(FormatInt64(std::numeric_limits<int64_t>::max()) == "9223372036854775807");
  CHECK(FormatInt64(std::numeric_limits<int64_t>::min()) == "-9223372036854775808");
}

// ---- ParseLongDouble / FormatLongDouble (INCRBYFLOAT)

TEST_CASE("incrbyfloat prints short decimals without trailing zeros") {
  CHECK(IncrByFloat("10.5") == "10.5");
  CHECK(IncrByFloat("-7.25") == "-7.25");
  CHECK(IncrByFloat("1.23456789012345678") == "1.23456789012345678");
  CHECK(IncrByFloat(".5") == "0.5");
}

TEST_CASE("incrbyfloat prints whole numbers without a point") {
  CHECK(IncrByFloat("5000") == "5000");
  CHECK(IncrByFloat("3.0e3") == "3000");
  CHECK(IncrByFloat("1.5e+2") == "150");
  CHECK(IncrByFloat("5.") == "5");
  CHECK(IncrByFloat("-5") == "-5");
  CHECK(IncrByFloat("1e17") == "100000000000000000");
}

TEST_CASE("incrbyfloat sums print as Redis prints them") {
  CHECK(FormatLongDouble(*ParseLongDouble("0.1") + *ParseLongDouble("0.2")) == "0.3");
  CHECK(FormatLongDouble(*ParseLongDouble("10.50") + *ParseLongDouble("0.1")) == "10.6");
  CHECK(FormatLongDouble(*ParseLongDouble("1.1") + *ParseLongDouble("0")) == "1.1");
  CHECK(FormatLongDouble(*ParseLongDouble("-1.5") + *ParseLongDouble("1e-30")) == "-1.5");
  CHECK(FormatLongDouble(*ParseLongDouble("1.5") + *ParseLongDouble("-1.5")) == "0");
}

TEST_CASE("incrbyfloat rounds to 17 decimals") {
  CHECK(IncrByFloat("3.14159265358979323846") == "3.14159265358979324");
  CHECK(IncrByFloat("0.99999999999999999999") == "1");
  CHECK(IncrByFloat("99999999999999999.99999") == "100000000000000000");
  CHECK(IncrByFloat("2e-17") == "0.00000000000000002");
  CHECK(IncrByFloat("0.000000000000000015") == "0.00000000000000002");
  CHECK(IncrByFloat("-0.000000000000000015") == "-0.00000000000000002");
}

TEST_CASE("incrbyfloat prints negative zero and tiny negatives as 0") {
  CHECK(IncrByFloat("-0.0") == "0");
  CHECK(IncrByFloat("-0") == "0");
  CHECK(IncrByFloat("-1e-20") == "0");
  CHECK(IncrByFloat("1e-20") == "0");
  CHECK(IncrByFloat("5e-18") == "0");
  CHECK(FormatLongDouble(-0.0L) == "0");
}

TEST_CASE("incrbyfloat prints large values in full") {
  CHECK(IncrByFloat("123456789012345678901234567890") == "123456789012345678899921813504");
  CHECK(IncrByFloat("1e400") ==
        "10000000000000000000281880683947586514586453433629052038625910693539685534008629862039"
        "36399484832416052209405392731761620029582277725925573402382897659334066101779744743454"
        "61739178624481166749717237789438243915933380474706750262466844013592375136038303437354"
        "85505244955964979021825038280091068414947402456898653040951017512658092615827588920183"
        "472511643316591362664138176309734806343732497430221946880");
  std::string max = IncrByFloat("1.18973149535723176502e+4932");  // LDBL_MAX
  CHECK(max.size() == 4933);
  CHECK(max.starts_with("1189731495357231765021263853030970205169"));
  CHECK(max.ends_with("849149662444156604419552086811989770240"));
}

TEST_CASE("long double parses what strtold parses") {
  CHECK(IncrByFloat("+1") == "1");
  CHECK(IncrByFloat("0x10") == "16");
  CHECK(IncrByFloat("0x1p-2") == "0.25");
  CHECK(ParseLongDouble("inf") == std::numeric_limits<long double>::infinity());
  CHECK(ParseLongDouble("-inf") == -std::numeric_limits<long double>::infinity());
  CHECK(ParseLongDouble("infinity") == std::numeric_limits<long double>::infinity());
}

TEST_CASE("long double rejects NaN") {
  CHECK_FALSE(ParseLongDouble("nan"));
  CHECK_FALSE(ParseLongDouble("NaN"));
  CHECK_FALSE(ParseLongDouble("-nan"));
}

TEST_CASE("long double rejects overflow and underflow to zero but keeps subnormals") {
  CHECK_FALSE(ParseLongDouble("1e5000"));
  CHECK_FALSE(ParseLongDouble("-1e5000"));
  CHECK_FALSE(ParseLongDouble("1.2e4932"));
  CHECK_FALSE(ParseLongDouble("1e-5000"));
  CHECK(IncrByFloat("1e-4940") == "0");
  CHECK(IncrByFloat("1e-310") == "0");
}

TEST_CASE("long double rejects spaces, trailing bytes and empty") {
  CHECK_FALSE(ParseLongDouble(""));
  CHECK_FALSE(ParseLongDouble(" 1"));
  CHECK_FALSE(ParseLongDouble("\t1"));
  CHECK_FALSE(ParseLongDouble("1 "));
  CHECK_FALSE(ParseLongDouble("1e"));
  CHECK_FALSE(ParseLongDouble("abc"));
  CHECK_FALSE(ParseLongDouble("1.5\0zz"sv));
  CHECK_FALSE(ParseLongDouble("\0001"sv));  // NUL then "1"
}

TEST_CASE("long double rejects 5120 bytes or more") {
  CHECK(IncrByFloat(std::string(5119, '0')) == "0");
  CHECK(IncrByFloat(std::string(5118, '0') + "1") == "1");
  CHECK_FALSE(ParseLongDouble(std::string(5120, '0')));
  CHECK_FALSE(ParseLongDouble(std::string(5119, '1')));  // fits, but overflows
}

TEST_CASE("long double infinities format as inf") {
  CHECK(FormatLongDouble(std::numeric_limits<long double>::infinity()) == "inf");
  CHECK(FormatLongDouble(-std::numeric_limits<long double>::infinity()) == "-inf");
}

// ---- ParseDouble / FormatDouble (ZADD scores, ZSCORE replies)

TEST_CASE("double scores print with 17 significant digits") {
  CHECK(ZScore("1.1") == "1.1000000000000001");
  CHECK(ZScore("0.1") == "0.10000000000000001");
  CHECK(ZScore("0.30000000000000004") == "0.30000000000000004");
  CHECK(ZScore("1.5e300") == "1.5000000000000001e+300");
  CHECK(ZScore("1e-5") == "1.0000000000000001e-05");
  CHECK(ZScore("123456789012345678") == "1.2345678901234568e+17");
  CHECK(FormatDouble(0.2 + 0.1) == "0.30000000000000004");
}

TEST_CASE("double scores print short values plainly") {
  CHECK(ZScore("3") == "3");
  CHECK(ZScore("-3.5") == "-3.5");
  CHECK(ZScore("0") == "0");
  CHECK(ZScore(".5") == "0.5");
  CHECK(ZScore("5.") == "5");
  CHECK(ZScore("+1") == "1");
  CHECK(ZScore("0x10") == "16");
  CHECK(FormatDouble(-0.0) == "-0");  // as ZSCORE on a skiplist-encoded zset
}

TEST_CASE("double scores switch to exponents at 1e17") {
  CHECK(ZScore("1e17") == "1e+17");
  CHECK(ZScore("100000000000000000000") == "1e+20");
  CHECK(ZScore("1e21") == "1e+21");
  CHECK(ZScore("1e308") == "1e+308");
  CHECK(ZScore("1.7976931348623157e308") == "1.7976931348623157e+308");
}

TEST_CASE("double accepts every spelling of infinity") {
  CHECK(ZScore("inf") == "inf");
  CHECK(ZScore("+inf") == "inf");
  CHECK(ZScore("INF") == "inf");
  CHECK(ZScore("Infinity") == "inf");
  CHECK(ZScore("-inf") == "-inf");
  CHECK(ZScore("-Infinity") == "-inf");
}

TEST_CASE("double rejects NaN") {
  CHECK_FALSE(ParseDouble("nan"));
  CHECK_FALSE(ParseDouble("NAN"));
}

TEST_CASE("double rejects overflow and underflow to zero but keeps subnormals") {
  CHECK_FALSE(ParseDouble("1e400"));
  CHECK_FALSE(ParseDouble("-1e400"));
  CHECK_FALSE(ParseDouble("1e-400"));
  CHECK(ZScore("0e-400") == "0");
  CHECK(ZScore("1e-310") == "9.9999999999999694e-311");
  CHECK(ZScore("5e-324") == "4.9406564584124654e-324");
  CHECK(ZScore("2.5e-308") == "2.4999999999999998e-308");
}

TEST_CASE("double rejects spaces, trailing bytes and empty") {
  CHECK_FALSE(ParseDouble(""));
  CHECK_FALSE(ParseDouble(" 1"));
  CHECK_FALSE(ParseDouble("1 "));
  CHECK_FALSE(ParseDouble("1e"));
  CHECK_FALSE(ParseDouble("1.5\0zz"sv));
  CHECK_FALSE(ParseDouble("abc"));
}

TEST_CASE("double parses long input beyond the stack buffer") {
  CHECK(ZScore("1." + std::string(500, '0')) == "1");
  CHECK(ZScore(std::string(300, '0') + "7") == "7");
  CHECK_FALSE(ParseDouble(std::string(300, '0') + "7x"));
}

}  // namespace
}  // namespace slotkv

namespace slotkv {
namespace {

TEST_CASE("scan cursors parse as Redis 7.0's strtoul does") {
  CHECK(ParseScanCursor("0") == 0u);
  CHECK(ParseScanCursor("") == 0u);
  CHECK(ParseScanCursor("+5") == 5u);
  CHECK(ParseScanCursor("007") == 7u);
  CHECK(ParseScanCursor("-1") == UINT64_MAX);
  CHECK(ParseScanCursor("18446744073709551615") == UINT64_MAX);
  CHECK_FALSE(ParseScanCursor("18446744073709551616"));
  CHECK_FALSE(ParseScanCursor(" 1"));
  CHECK_FALSE(ParseScanCursor("1x"));
  CHECK_FALSE(ParseScanCursor("-"));
  CHECK(ParseScanCursor(std::string_view("12\0zz", 5)) == 12u);
}

}  // namespace
}  // namespace slotkv
