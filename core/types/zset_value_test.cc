#include "core/types/zset_value.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "core/base/coding.h"

namespace slotkv {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

ZSetValue Make(std::initializer_list<std::pair<double, std::string_view>> entries) {
  ZSetValue z;
  for (const auto& [score, member] : entries) z.Set(member, score);
  return z;
}

std::vector<std::pair<double, std::string>> Entries(const ZSetValue& z) {
  std::vector<std::pair<double, std::string>> out;
  for (const ZSetValue::Entry& e : z) out.emplace_back(e.score, e.member);
  return out;
}

// An encoding of entries as given, in order (for malformed inputs Encode cannot produce).
std::string Raw(const std::vector<std::pair<double, std::string>>& entries) {
  std::string out("\x01", 1);
  PutVarint64(&out, entries.size());
  for (const auto& [score, member] : entries) {
    PutFixed64(&out, std::bit_cast<uint64_t>(score));
    PutLengthPrefixed(&out, member);
  }
  return out;
}

TEST_CASE("zset: worked example of the format") {
  ZSetValue z = Make({{2, "bc"}, {1.5, "a"}});
  const std::string expected("\x01\x02"
                             "\x00\x00\x00\x00\x00\x00\xf8\x3f\x01"
                             "a"
                             "\x00\x00\x00\x00\x00\x00\x00\x40\x02"
                             "bc",
                             23);
  CHECK(z.Encode() == expected);
}

TEST_CASE("zset: order is score, then member bytes") {
  ZSetValue z = Make({{1, "b"}, {1, "a"}, {0, "z"}, {1, "\xff"}, {-kInf, "m"}, {kInf, "y"},
                      {1, ""}});
  std::vector<std::pair<double, std::string>> want = {
      {-kInf, "m"}, {0, "z"}, {1, ""}, {1, "a"}, {1, "b"}, {1, "\xff"}, {kInf, "y"}};
  CHECK(Entries(z) == want);
  CHECK(z.Rank("m") == 0u);
  CHECK(z.Rank("\xff") == 5u);
  CHECK_FALSE(z.Rank("nope").has_value());
  CHECK(z.AtRank(3)->member == "a");
  CHECK(z.AtRank(6)->member == "y");
  CHECK(z.AtRank(7) == z.end());
}

TEST_CASE("zset: set, update, unchanged, remove, erase") {
  ZSetValue z;
  CHECK(z.Set("a", 1) == ZSetValue::Change::kAdded);
  CHECK(z.Set("b", 2) == ZSetValue::Change::kAdded);
  CHECK(z.Set("a", 1) == ZSetValue::Change::kUnchanged);
  CHECK(z.Set("a", 3) == ZSetValue::Change::kUpdated);
  CHECK(z.Score("a") == 3.0);
  CHECK(z.begin()->member == "b");
  CHECK(z.Find("a")->score == 3.0);
  CHECK(z.Find("x") == z.end());
  CHECK(z.Set("b", -0.0) == ZSetValue::Change::kUpdated);
  CHECK(z.Set("b", 0.0) == ZSetValue::Change::kUnchanged);
  CHECK(std::signbit(*z.Score("b")));
  CHECK(z.Remove("a"));
  CHECK_FALSE(z.Remove("a"));
  CHECK(z.size() == 1);
  auto next = z.Erase(z.begin());
  CHECK(next == z.end());
  CHECK(z.empty());
  CHECK_FALSE(z.Score("b").has_value());
}

TEST_CASE("zset: lower bound by score") {
  ZSetValue z = Make({{1, "a"}, {2, "b"}, {2, "c"}, {3, "d"}});
  CHECK(z.LowerBound(2, false)->member == "b");
  CHECK(z.LowerBound(2, true)->member == "d");
  CHECK(z.LowerBound(-kInf, false)->member == "a");
  CHECK(z.LowerBound(3, true) == z.end());
  CHECK(z.LowerBound(kInf, false) == z.end());
  CHECK(z.LowerBound(1.5, true)->member == "b");
}

TEST_CASE("zset: copy and move keep the index") {
  ZSetValue a = Make({{1, "x"}, {2, "y"}});
  ZSetValue b = a;
  CHECK(b.Set("x", 5) == ZSetValue::Change::kUpdated);
  CHECK(a.Score("x") == 1.0);
  ZSetValue c = std::move(b);
  CHECK(b.empty());
  CHECK(c.Score("x") == 5.0);
  CHECK(c.Remove("y"));
  a = c;
  CHECK(a.size() == 1);
  CHECK(a.Score("x") == 5.0);
  a = std::move(c);
  CHECK(a.Remove("x"));
}

TEST_CASE("zset: random round trips against a model") {
  std::mt19937_64 rng(7);
  ZSetValue z;
  std::map<std::string, double> model;
  for (int i = 0; i < 5000; ++i) {
    std::string member(static_cast<size_t>(rng() % 4), 'a');
    for (char& ch : member) ch = static_cast<char>(rng() % 256);
    const double score = static_cast<double>(static_cast<int>(rng() % 21) - 10) / 4;
    if (rng() % 3 == 0) {
      CHECK(z.Remove(member) == (model.erase(member) == 1));
    } else {
      z.Set(member, score);
      model[member] = score;
    }
  }
  REQUIRE(z.size() == model.size());
  for (const auto& [member, score] : model) CHECK(z.Score(member) == score);
  Result<ZSetValue> back = ZSetValue::Decode(z.Encode());
  REQUIRE(back.ok());
  CHECK(Entries(*back) == Entries(z));
  CHECK(ZSetValue::DecodeSize(z.Encode()).value() == z.size());
  size_t rank = 0;
  for (const ZSetValue::Entry& e : *back) CHECK(back->Rank(e.member) == rank++);
}

TEST_CASE("zset: corrupt inputs are Corruption") {
  const std::string good = Make({{1, "a"}, {2, "b"}}).Encode();
  CHECK(ZSetValue::Decode(good).ok());
  std::vector<std::string> bad = {
      "",
      std::string("\x02", 1) + good.substr(1),                  // unknown version
      std::string("\x01\x00", 2),                               // no entries
      std::string("\x01\xff", 2),                               // truncated varint
      good.substr(0, good.size() - 1),                          // member past the end
      good + "x",                                               // trailing byte
      Raw({{2, "b"}, {1, "a"}}),                                // out of order
      Raw({{1, "b"}, {1, "a"}}),                                // out of member order
      Raw({{1, "a"}, {2, "a"}}),                                // duplicate member
      Raw({{std::numeric_limits<double>::quiet_NaN(), "a"}}),   // NaN
      std::string("\x01\x05", 2) + good.substr(2),              // count past the end
  };
  for (const std::string& b : bad) {
    Result<ZSetValue> r = ZSetValue::Decode(b);
    CHECK(r.status().IsCorruption());
  }
  CHECK(ZSetValue::DecodeSize("").status().IsCorruption());
  CHECK(ZSetValue::DecodeSize(std::string("\x01\x00", 2)).status().IsCorruption());
  // Every truncation of a good value is Corruption, never a crash.
  for (size_t n = 0; n < good.size(); ++n) {
    CHECK(ZSetValue::Decode(good.substr(0, n)).status().IsCorruption());
  }
}

}  // namespace
}  // namespace slotkv
