#include "core/command/zset_range.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace slotkv::command {
namespace {

ZSetValue::Entry At(double score) { return {score, ""}; }
ZSetValue::Entry Named(std::string member) { return {0, std::move(member)}; }

ZSetValue Make(const std::vector<ZSetValue::Entry>& entries) {
  ZSetValue z;
  for (const ZSetValue::Entry& e : entries) z.Set(e.member, e.score);
  return z;
}

// The member at it, or "end".
std::string MemberAt(const ZSetValue& z, ZSetValue::const_iterator it) {
  return it == z.end() ? "end" : it->member;
}

TEST_CASE("score bounds: inclusive, exclusive, infinities") {
  std::optional<ScoreRange> r = ParseScoreRange("(1.5", "2");
  REQUIRE(r);
  CHECK(r->min == 1.5);
  CHECK(r->min_exclusive);
  CHECK(r->max == 2);
  CHECK_FALSE(r->max_exclusive);
  CHECK_FALSE(r->AboveMin(At(1.5)));
  CHECK(r->AboveMin(At(1.6)));
  CHECK(r->BelowMax(At(2)));
  CHECK_FALSE(r->BelowMax(At(2.1)));

  r = ParseScoreRange("-inf", "+inf");
  REQUIRE(r);
  CHECK(std::isinf(r->min));
  CHECK(r->min < 0);
  CHECK(std::isinf(r->max));
  CHECK(r->max > 0);
  CHECK(r->AboveMin(At(-INFINITY)));
  r = ParseScoreRange("(-inf", "inf");
  REQUIRE(r);
  CHECK_FALSE(r->AboveMin(At(-INFINITY)));
  CHECK(r->BelowMax(At(INFINITY)));
}

TEST_CASE("score bounds are read with strtod, as Redis reads them") {
  CHECK(ParseScoreRange("", "(")->max == 0);  // empty strings are 0
  CHECK(ParseScoreRange("", "(")->max_exclusive);
  CHECK(ParseScoreRange(" 1", "0x10")->max == 16);                // leading space, hex
  CHECK(std::isinf(ParseScoreRange("1e400", "2")->min));          // overflow is infinity
  CHECK(ParseScoreRange(std::string("1\0x", 3), "2")->min == 1);  // a NUL ends the number
}

TEST_CASE("score bounds refuse NaN and trailing bytes") {
  CHECK_FALSE(ParseScoreRange("nan", "1"));
  CHECK_FALSE(ParseScoreRange("1", "(nan"));
  CHECK_FALSE(ParseScoreRange("1 ", "2"));
  CHECK_FALSE(ParseScoreRange("[1", "2"));
  CHECK_FALSE(ParseScoreRange("((1", "2"));
  CHECK_FALSE(ParseScoreRange("1", "x"));
}

TEST_CASE("score range always empty: min above max, or equal with an open end") {
  CHECK(ParseScoreRange("2", "1")->AlwaysEmpty());
  CHECK(ParseScoreRange("(1", "1")->AlwaysEmpty());
  CHECK(ParseScoreRange("1", "(1")->AlwaysEmpty());
  CHECK_FALSE(ParseScoreRange("1", "1")->AlwaysEmpty());
}

TEST_CASE("lex bounds: [ and ( take the rest, - and + stand alone") {
  std::optional<LexRange> r = ParseLexRange("[a", "(c");
  REQUIRE(r);
  CHECK(r->min.value == "a");
  CHECK_FALSE(r->min.exclusive);
  CHECK(r->max.value == "c");
  CHECK(r->max.exclusive);
  CHECK(r->AboveMin(Named("a")));
  CHECK_FALSE(r->AboveMin(Named("")));
  CHECK(r->BelowMax(Named("bzz")));
  CHECK_FALSE(r->BelowMax(Named("c")));

  r = ParseLexRange("-", "+");
  REQUIRE(r);
  CHECK(r->min.kind == LexBound::Kind::kMinusInf);
  CHECK(r->max.kind == LexBound::Kind::kPlusInf);
  CHECK(r->AboveMin(Named("")));
  CHECK(r->BelowMax(Named("\xff\xff")));
  CHECK(ParseLexRange("[", "(")->min.value.empty());
  CHECK(ParseLexRange(std::string("+\0x", 3), "+"));  // Redis stops at the NUL
}

TEST_CASE("lex bounds refuse anything else") {
  CHECK_FALSE(ParseLexRange("a", "+"));
  CHECK_FALSE(ParseLexRange("", "+"));
  CHECK_FALSE(ParseLexRange("-", "+x"));
  CHECK_FALSE(ParseLexRange("-a", "+"));
  CHECK_FALSE(ParseLexRange("[a", "b"));
}

TEST_CASE("lex members compare as bytes") {
  std::optional<LexRange> r = ParseLexRange("(a", "[\x80");
  REQUIRE(r);
  CHECK(r->AboveMin(Named("\x80")));
  CHECK(r->BelowMax(Named("\x7f")));
  CHECK_FALSE(r->BelowMax(Named("\x81")));
}

TEST_CASE("lex range always empty: reversed, equal with an open end, - - and + +") {
  CHECK(ParseLexRange("[b", "[a")->AlwaysEmpty());
  CHECK(ParseLexRange("(a", "[a")->AlwaysEmpty());
  CHECK_FALSE(ParseLexRange("[a", "[a")->AlwaysEmpty());
  CHECK(ParseLexRange("-", "-")->AlwaysEmpty());
  CHECK(ParseLexRange("+", "+")->AlwaysEmpty());
  CHECK(ParseLexRange("+", "[a")->AlwaysEmpty());
  CHECK(ParseLexRange("[a", "-")->AlwaysEmpty());
  CHECK_FALSE(ParseLexRange("-", "[a")->AlwaysEmpty());
}

TEST_CASE("first and last entry in a score range") {
  ZSetValue z = Make({{1, "a"}, {2, "b"}, {2, "c"}, {3, "d"}});
  CHECK(MemberAt(z, FirstInRange(z, *ParseScoreRange("2", "3"))) == "b");
  CHECK(MemberAt(z, LastInRange(z, *ParseScoreRange("2", "3"))) == "d");
  CHECK(MemberAt(z, FirstInRange(z, *ParseScoreRange("(1", "(3"))) == "b");
  CHECK(MemberAt(z, LastInRange(z, *ParseScoreRange("(1", "(3"))) == "c");
  CHECK(MemberAt(z, FirstInRange(z, *ParseScoreRange("(2", "(3"))) == "end");
  CHECK(MemberAt(z, LastInRange(z, *ParseScoreRange("(2", "(3"))) == "end");
  CHECK(MemberAt(z, FirstInRange(z, *ParseScoreRange("-inf", "0"))) == "end");
  CHECK(MemberAt(z, LastInRange(z, *ParseScoreRange("-inf", "0"))) == "end");
  CHECK(MemberAt(z, FirstInRange(z, *ParseScoreRange("3", "1"))) == "end");
  CHECK(MemberAt(z, LastInRange(z, *ParseScoreRange("-inf", "+inf"))) == "d");
}

TEST_CASE("first and last entry in a lex range over equal scores") {
  ZSetValue z = Make({{0, "a"}, {0, "b"}, {0, "c"}});
  CHECK(MemberAt(z, FirstInRange(z, *ParseLexRange("(a", "+"))) == "b");
  CHECK(MemberAt(z, LastInRange(z, *ParseLexRange("-", "(c"))) == "b");
  CHECK(MemberAt(z, FirstInRange(z, *ParseLexRange("(c", "+"))) == "end");
  CHECK(MemberAt(z, LastInRange(z, *ParseLexRange("-", "(a"))) == "end");
  CHECK(MemberAt(z, FirstInRange(z, *ParseLexRange("(a", "(b"))) == "end");
  const ZSetValue empty;
  CHECK(MemberAt(empty, FirstInRange(empty, *ParseLexRange("-", "+"))) == "end");
}

TEST_CASE("lex range over mixed scores walks the score order as Redis does") {
  // Order b(1) a(2) c(3) a0(4): the last member "a0" is below "(b", so Redis sees no entry.
  ZSetValue z = Make({{1, "b"}, {2, "a"}, {3, "c"}, {4, "a0"}});
  CHECK(MemberAt(z, FirstInRange(z, *ParseLexRange("(b", "+"))) == "end");
  CHECK(MemberAt(z, FirstInRange(z, *ParseLexRange("[a", "[c"))) == "b");
  CHECK(MemberAt(z, LastInRange(z, *ParseLexRange("-", "[b"))) == "a0");
  CHECK(MemberAt(z, LastInRange(z, *ParseLexRange("[b", "+"))) == "end");
}

}  // namespace
}  // namespace slotkv::command
