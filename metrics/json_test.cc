#include "metrics/json.h"

#include <doctest/doctest.h>

namespace slotkv::metrics {
namespace {

TEST_CASE("json: nesting and commas") {
  Json j;
  j.BeginObject().Key("a").Int(-1).Key("b").BeginArray().Uint(1).String("x").BeginObject();
  j.EndObject().EndArray().Key("c").Number("1.5").EndObject();
  CHECK(j.str() == R"({"a":-1,"b":[1,"x",{}],"c":1.5})");
}

TEST_CASE("json: strings are escaped, any byte gives valid JSON") {
  CHECK(JsonQuote("a\"b\\c") == R"("a\"b\\c")");
  CHECK(JsonQuote("l1\nl2\r\t") == R"("l1\nl2\r\t")");
  CHECK(JsonQuote(std::string("\x01\x7f\xff", 3)) == "\"\\u0001\x7f\\u00ff\"");
  CHECK(JsonQuote("") == "\"\"");
}

TEST_CASE("json: what counts as a number") {
  for (const char* yes : {"0", "12", "-3", "0.5", "1e+20", "-1.25E-3", "10"}) {
    CHECK_MESSAGE(IsJsonNumber(yes), yes);
  }
  for (const char* no : {"", "-", "01", "1.", ".5", "inf", "nan", "1e", "1x", "+1", "0x10",
                         "1.2.3", "12 "}) {
    CHECK_MESSAGE(!IsJsonNumber(no), no);
  }
}

}  // namespace
}  // namespace slotkv::metrics
