#include "core/types/list_value.h"

#include <doctest/doctest.h>

#include <vector>

namespace slotkv {
namespace {

ListValue Make(std::initializer_list<std::string_view> items) {
  ListValue l;
  for (std::string_view v : items) l.PushBack(v);
  return l;
}

std::vector<std::string> Items(const ListValue& l) {
  std::vector<std::string> out;
  for (size_t i = 0; i < l.size(); ++i) out.push_back(l.at(i));
  return out;
}

using V = std::vector<std::string>;

TEST_CASE("list: worked example of the format") {
  CHECK(Make({"a", "bc"}).Encode() == std::string("\x01\x02\x01"
                                                  "a"
                                                  "\x02"
                                                  "bc",
                                                  7));
}

TEST_CASE("list: round trip keeps order, repeats, empty and binary elements") {
  ListValue l = Make({"x", "", "x", std::string_view("\0\xff", 2)});
  Result<ListValue> back = ListValue::Decode(l.Encode());
  REQUIRE(back.ok());
  CHECK(Items(*back) == Items(l));
  CHECK(*ListValue::DecodeSize(l.Encode()) == 4);
}

TEST_CASE("list: every truncation is Corruption") {
  const std::string enc = Make({"ab", "", "cde"}).Encode();
  for (size_t n = 0; n < enc.size(); ++n) {
    Result<ListValue> r = ListValue::Decode(enc.substr(0, n));
    CHECK_MESSAGE(r.status().IsCorruption(), n);
  }
}

TEST_CASE("list: bad version, zero count, huge count, trailing bytes") {
  CHECK(ListValue::Decode(std::string("\x02\x01\x00", 3)).status().IsCorruption());
  CHECK(ListValue::Decode(std::string("\x01\x00", 2)).status().IsCorruption());
  CHECK(ListValue::Decode(std::string("\x01\x7f\x00", 3)).status().IsCorruption());
  CHECK(ListValue::Decode(std::string("\x01\x01\x00\x00", 4)).status().IsCorruption());
  CHECK(ListValue::DecodeSize(std::string("\x01\x00", 2)).status().IsCorruption());
}

TEST_CASE("list: push and pop at both ends") {
  ListValue l;
  l.PushBack("b");
  l.PushFront("a");
  l.PushBack("c");
  CHECK(Items(l) == V{"a", "b", "c"});
  CHECK(l.PopFront() == "a");
  CHECK(l.PopBack() == "c");
  CHECK(l.size() == 1);
}

TEST_CASE("list: negative indexes and set") {
  ListValue l = Make({"a", "b", "c"});
  CHECK(*l.Position(-1) == 2);
  CHECK(*l.Position(-3) == 0);
  CHECK_FALSE(l.Position(-4));
  CHECK_FALSE(l.Position(3));
  CHECK(l.Set(-1, "z"));
  CHECK_FALSE(l.Set(5, "z"));
  CHECK(Items(l) == V{"a", "b", "z"});
}

TEST_CASE("list: insert before and after the first pivot") {
  ListValue l = Make({"a", "p", "p"});
  CHECK(l.Insert("p", "x", false));
  CHECK(l.Insert("p", "y", true));
  CHECK_FALSE(l.Insert("q", "y", true));
  CHECK(Items(l) == V{"a", "x", "p", "y", "p"});
}

TEST_CASE("list: remove from head, tail, all") {
  ListValue l = Make({"a", "b", "a", "c", "a"});
  CHECK(l.Remove("a", 1) == 1);
  CHECK(Items(l) == V{"b", "a", "c", "a"});
  CHECK(l.Remove("a", -1) == 1);
  CHECK(Items(l) == V{"b", "a", "c"});
  l.PushBack("a");
  CHECK(l.Remove("a", 0) == 2);
  CHECK(Items(l) == V{"b", "c"});
}

TEST_CASE("list: range and trim clamp as Redis") {
  ListValue l = Make({"a", "b", "c", "d"});
  CHECK(*l.Range(0, -1) == std::make_pair<size_t, size_t>(0, 3));
  CHECK(*l.Range(-100, 100) == std::make_pair<size_t, size_t>(0, 3));
  CHECK_FALSE(l.Range(2, 1));
  CHECK_FALSE(l.Range(4, 10));
  CHECK_FALSE(l.Range(0, -5));
  l.Trim(1, -2);
  CHECK(Items(l) == V{"b", "c"});
  l.Trim(5, 10);
  CHECK(l.empty());
}

}  // namespace
}  // namespace slotkv
