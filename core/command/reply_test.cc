#include "core/command/reply.h"

#include <doctest/doctest.h>

namespace slotkv::command {
namespace {

std::string Build2(void (*f)(Reply&)) {
  Reply r(2);
  f(r);
  return r.buffer();
}
std::string Build3(void (*f)(Reply&)) {
  Reply r(3);
  f(r);
  return r.buffer();
}

TEST_CASE("scalars are the same in both protocols") {
  auto f = [](Reply& r) {
    r.Ok();
    r.Integer(-42);
    r.Bulk(std::string_view("a\0b", 3));
    r.Bulk("");
  };
  const std::string want = std::string("+OK\r\n:-42\r\n$3\r\na\0b\r\n$0\r\n\r\n", 26);
  CHECK(Build2(f) == want);
  CHECK(Build3(f) == want);
}

TEST_CASE("nulls differ between RESP2 and RESP3") {
  auto f = [](Reply& r) {
    r.Null();
    r.NullArray();
  };
  CHECK(Build2(f) == "$-1\r\n*-1\r\n");
  CHECK(Build3(f) == "_\r\n_\r\n");
}

TEST_CASE("a map is a flat array in RESP2") {
  auto f = [](Reply& r) {
    r.Map(1);
    r.Bulk("k");
    r.Integer(1);
  };
  CHECK(Build2(f) == "*2\r\n$1\r\nk\r\n:1\r\n");
  CHECK(Build3(f) == "%1\r\n$1\r\nk\r\n:1\r\n");
}

TEST_CASE("sets, booleans, doubles and verbatim text by protocol") {
  auto f = [](Reply& r) {
    r.Set(0);
    r.Bool(true);
    r.Double(1.5);
    r.Verbatim("hi");
  };
  CHECK(Build2(f) == "*0\r\n:1\r\n$3\r\n1.5\r\n$2\r\nhi\r\n");
  CHECK(Build3(f) == "~0\r\n#t\r\n,1.5\r\n=6\r\ntxt:hi\r\n");
}

TEST_CASE("big numbers and attributes by protocol") {
  auto f = [](Reply& r) { r.BigNumber("1234567999999999999999999999999999999"); };
  CHECK(Build2(f) == "$37\r\n1234567999999999999999999999999999999\r\n");
  CHECK(Build3(f) == "(1234567999999999999999999999999999999\r\n");
  CHECK(Build3([](Reply& r) {
          r.Attribute(1);
          r.Bulk("k");
          r.Integer(1);
        }) == "|1\r\n$1\r\nk\r\n:1\r\n");
}

TEST_CASE("an error cannot break the stream and is counted") {
  Reply r(2);
  r.Error("ERR bad\r\nthing");
  CHECK(r.buffer() == "-ERR bad  thing\r\n");
  CHECK(r.errors() == 1);
}

}  // namespace
}  // namespace slotkv::command
