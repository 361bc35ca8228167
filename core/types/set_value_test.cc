#include "core/types/set_value.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <set>

namespace slotkv {
namespace {

SetValue Make(std::initializer_list<std::string_view> members) {
  SetValue s;
  for (std::string_view m : members) s.Add(m);
  return s;
}

std::set<std::string> Members(const SetValue& s) {
  return std::set<std::string>(s.members().begin(), s.members().end());
}

TEST_CASE("set: worked example of the format") {
  SetValue s = Make({"a", "bc"});
  CHECK(s.Encode() == std::string("\x01\x02\x01"
                                  "a"
                                  "\x02"
                                  "bc",
                                  7));
}

TEST_CASE("set: add, contains, remove, size") {
  SetValue s;
  CHECK(s.empty());
  CHECK(s.Add("x"));
  CHECK_FALSE(s.Add("x"));
  CHECK(s.Add(""));
  CHECK(s.Add(std::string_view("\0\xff", 2)));
  CHECK(s.size() == 3);
  CHECK(s.Contains(""));
  CHECK(s.Contains(std::string_view("\0\xff", 2)));
  CHECK_FALSE(s.Contains("y"));
  CHECK(s.Remove("x"));
  CHECK_FALSE(s.Remove("x"));
  CHECK(s.size() == 2);
  CHECK(s.Contains(""));
  CHECK(s.Contains(std::string_view("\0\xff", 2)));
  CHECK(s.Remove(""));
  CHECK(s.Remove(std::string_view("\0\xff", 2)));
  CHECK(s.empty());
}

TEST_CASE("set: remove from the middle keeps the moved member findable") {
  SetValue s = Make({"a", "b", "c", "d"});
  CHECK(s.Remove("b"));
  CHECK(s.members() == std::vector<std::string>{"a", "d", "c"});
  for (std::string_view m : {"a", "c", "d"}) CHECK(s.Contains(m));
  CHECK(s.Remove("d"));
  CHECK(s.Remove("a"));
  CHECK(s.members() == std::vector<std::string>{"c"});
}

TEST_CASE("set: round trip, binary members and a 100k-member set") {
  SetValue small = Make({"", "a", std::string(300, 'z'), std::string("\0\r\n", 3)});
  Result<SetValue> d = SetValue::Decode(small.Encode());
  REQUIRE(d.ok());
  CHECK(Members(*d) == Members(small));
  CHECK(d->members() == small.members());  // order kept

  SetValue big;
  for (int i = 0; i < 100000; ++i) CHECK(big.Add("member:" + std::to_string(i)));
  const std::string enc = big.Encode();
  Result<SetValue> back = SetValue::Decode(enc);
  REQUIRE(back.ok());
  CHECK(back->size() == 100000);
  CHECK(back->Contains("member:99999"));
  CHECK_FALSE(back->Contains("member:100000"));
  Result<uint64_t> n = SetValue::DecodeSize(enc);
  REQUIRE(n.ok());
  CHECK(*n == 100000);
}

TEST_CASE("set: copy and move keep a working index") {
  SetValue a = Make({"a", "b"});
  SetValue b = a;
  CHECK(b.Add("c"));
  CHECK_FALSE(a.Contains("c"));
  SetValue c = std::move(b);
  CHECK(c.Contains("c"));
  CHECK(c.Remove("a"));
  CHECK(b.empty());  // NOLINT: moved-from is empty by contract
  CHECK(b.Add("z"));
  a = c;
  CHECK(a.Contains("c"));
  CHECK_FALSE(a.Contains("a"));
  a = std::move(c);
  CHECK(a.Contains("b"));
}

TEST_CASE("set: truncation at every length is Corruption") {
  const std::string enc = Make({"alpha", "", "beta", std::string(200, 'q')}).Encode();
  for (size_t len = 0; len < enc.size(); ++len) {
    Result<SetValue> d = SetValue::Decode(std::string_view(enc).substr(0, len));
    CHECK_MESSAGE(d.status().IsCorruption(), "length " << len);
  }
  CHECK(SetValue::Decode(enc).ok());
  CHECK(SetValue::Decode(enc + "x").status().IsCorruption());  // trailing byte
}

TEST_CASE("set: malformed headers and members are Corruption") {
  using namespace std::string_literals;
  CHECK(SetValue::Decode("").status().IsCorruption());
  CHECK(SetValue::Decode("\x02\x01\x01"
                         "a"s)
            .status()
            .IsCorruption());                                    // version 2
  CHECK(SetValue::Decode("\x01\x00"s).status().IsCorruption());  // no members
  CHECK(SetValue::Decode("\x01\x02\x01"
                         "a\x01"
                         "a"s)
            .status()
            .IsCorruption());  // duplicate
  CHECK(SetValue::Decode("\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s).status().IsCorruption());
  CHECK(SetValue::Decode("\x01\x05\x00\x00"s).status().IsCorruption());  // count past the end
  CHECK(SetValue::Decode("\x01\x01\x85\x80\x80\x80\x80\x01"
                         "a"s)
            .status()
            .IsCorruption());
  CHECK(SetValue::DecodeSize("\x01"s).status().IsCorruption());
  CHECK(SetValue::DecodeSize("\x07\x01\x00"s).status().IsCorruption());
}

TEST_CASE("set: random garbage never crashes") {
  const unsigned seed = static_cast<unsigned>(std::random_device()());
  std::printf("set garbage seed %u\n", seed);
  std::mt19937_64 rng(seed);
  const std::string good = Make({"a", "bb", "ccc", ""}).Encode();
  for (int round = 0; round < 20000; ++round) {
    std::string bytes;
    if (round % 2 == 0) {
      bytes.resize(rng() % 24);
      for (char& c : bytes) c = static_cast<char>(rng());
      if (!bytes.empty() && round % 4 == 0) bytes[0] = 1;
    } else {
      bytes = good;
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    Result<SetValue> d = SetValue::Decode(bytes);
    if (d.ok()) {
      CHECK(d->Encode().size() <= bytes.size());
      CHECK_FALSE(d->empty());
    } else {
      CHECK(d.status().IsCorruption());
    }
  }
}

TEST_CASE("set: random picks are members, distinct picks are distinct") {
  std::mt19937_64 rng(42);
  SetValue s;
  for (int i = 0; i < 50; ++i) s.Add(std::to_string(i));
  for (size_t count : {size_t{0}, size_t{1}, size_t{5}, size_t{20}, size_t{49}, size_t{50}}) {
    std::vector<size_t> picks = s.RandomDistinct(count, rng);
    CHECK(picks.size() == count);
    std::set<size_t> uniq(picks.begin(), picks.end());
    CHECK(uniq.size() == count);
    for (size_t i : picks) CHECK(i < s.size());
  }
  std::set<size_t> seen;
  for (int i = 0; i < 2000; ++i) seen.insert(s.RandomIndex(rng));
  CHECK(seen.size() == 50);  // every member shows up
}

TEST_CASE("set: pop empties the set one member at a time") {
  std::mt19937_64 rng(7);
  SetValue s = Make({"a", "b", "c"});
  std::set<std::string> popped;
  while (!s.empty()) popped.insert(s.Pop(rng));
  CHECK(popped == std::set<std::string>{"a", "b", "c"});
}

}  // namespace
}  // namespace slotkv
