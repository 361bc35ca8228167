#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

const std::string kNotFloat = "-ERR min or max is not a float\r\n";
const std::string kNotLex = "-ERR min or max not valid string range item\r\n";

// An array reply of bulk strings.
std::string Bulks(std::vector<std::string> items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const std::string& s : items) out += Bulk(s);
  return out;
}

// A fixture holding z = a:1 b:2 c:3 d:4 e:5.
struct Abcde : CommandFixture {
  Abcde() { Run({"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}); }
};

// A fixture holding l = a b c d e f g, all with score 0.
struct Lex : CommandFixture {
  Lex() {
    Run({"ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "f", "0", "g"});
  }
};

TEST_CASE("ZRANGE by rank: negative indexes, clipping, empty ranges") {
  Abcde f;
  CHECK(f.Run({"ZRANGE", "z", "0", "-1"}) == Bulks({"a", "b", "c", "d", "e"}));
  CHECK(f.Run({"ZRANGE", "z", "-2", "100"}) == Bulks({"d", "e"}));
  CHECK(f.Run({"ZRANGE", "z", "-100", "1"}) == Bulks({"a", "b"}));
  CHECK(f.Run({"ZRANGE", "z", "3", "1"}) == Bulks({}));
  CHECK(f.Run({"ZRANGE", "z", "5", "10"}) == Bulks({}));
  CHECK(f.Run({"ZRANGE", "z", "-9223372036854775808", "9223372036854775807"}) ==
        Bulks({"a", "b", "c", "d", "e"}));
  CHECK(f.Run({"ZRANGE", "nokey", "0", "-1"}) == Bulks({}));
  CHECK(f.Run({"ZRANGE", "z", "0", "1", "WITHSCORES"}) == Bulks({"a", "1", "b", "2"}));
}

TEST_CASE("ZRANGE REV and ZREVRANGE count ranks from the highest score") {
  Abcde f;
  CHECK(f.Run({"ZRANGE", "z", "0", "1", "REV"}) == Bulks({"e", "d"}));
  CHECK(f.Run({"ZREVRANGE", "z", "-2", "-1"}) == Bulks({"b", "a"}));
  CHECK(f.Run({"ZREVRANGE", "z", "0", "0", "WITHSCORES"}) == Bulks({"e", "5"}));
  CHECK(f.Run({"ZREVRANGE", "z", "0", "1", "REV"}) == kSyntax);
}

TEST_CASE("WITHSCORES in RESP3 replies [member, score] pairs") {
  Abcde f;
  f.client().protocol = 3;
  CHECK(f.Run({"ZRANGE", "z", "0", "1", "WITHSCORES"}) ==
        "*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2\r\n");
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "(4", "+inf", "WITHSCORES"}) ==
        "*1\r\n*2\r\n$1\r\ne\r\n,5\r\n");
  CHECK(f.Run({"ZRANGE", "z", "0", "1"}) == Bulks({"a", "b"}));
}

TEST_CASE("ZRANGE option errors, in Redis's order") {
  Abcde f;
  CHECK(f.Run({"ZRANGE", "z", "0", "-1", "LIMIT", "0", "1"}) ==
        "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
        "BYLEX\r\n");
  CHECK(f.Run({"ZRANGE", "z", "0", "-1", "LIMIT", "0", "-1"}) ==
        Bulks({"a", "b", "c", "d", "e"}));  // the default limit passes
  CHECK(f.Run({"ZRANGE", "z", "[a", "[c", "BYLEX", "WITHSCORES"}) ==
        "-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n");
  CHECK(f.Run({"ZRANGE", "z", "[a", "[c", "BYLEX", "LIMIT", "1"}) == kSyntax);
  CHECK(f.Run({"ZRANGE", "z", "x", "y", "LIMIT", "1", "x", "FOO"}) == kNotInt);
  CHECK(f.Run({"ZRANGE", "z", "x", "y", "FOO"}) == kSyntax);
  CHECK(f.Run({"ZRANGE", "z", "0", "-1", "REV", "REV"}) == kSyntax);
  CHECK(f.Run({"ZRANGE", "z", "0", "-1", "BYSCORE", "BYLEX"}) == kSyntax);
  CHECK(f.Run({"ZRANGE", "z", "a", "1"}) == kNotInt);
  CHECK(f.Run({"ZRANGE", "z", "a", "1", "BYSCORE"}) == kNotFloat);
  CHECK(f.Run({"ZRANGE", "z", "0", "1", "BYLEX"}) == kNotLex);
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "1", "2", "REV"}) == kSyntax);
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "1", "2", "BYSCORE"}) == kSyntax);
  CHECK(f.Run({"ZRANGEBYLEX", "z", "-", "+", "WITHSCORES"}) ==
        "-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n");
  CHECK(f.Run({"ZRANGE", "nokey", "x", "1"}) == kNotInt);  // bounds before the key
}

TEST_CASE("ZRANGEBYSCORE: exclusive bounds, infinities, LIMIT") {
  Abcde f;
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "(1", "3"}) == Bulks({"b", "c"}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "-inf", "(2"}) == Bulks({"a"}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "4", "+inf", "WITHSCORES"}) == Bulks({"d", "4", "e", "5"}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "3", "1"}) == Bulks({}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "(3", "3"}) == Bulks({}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1", "2"}) == Bulks({"b", "c"}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "3", "-5"}) == Bulks({"d", "e"}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "-1", "2"}) == Bulks({}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "5", "2"}) == Bulks({}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "0"}) == Bulks({}));
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "", "1"}) == Bulks({"a"}));  // strtod reads "" as 0
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "nan", "1"}) == kNotFloat);
  CHECK(f.Run({"ZRANGEBYSCORE", "z", "1 ", "2"}) == kNotFloat);
}

TEST_CASE("ZREVRANGEBYSCORE and ZRANGE BYSCORE REV take max before min") {
  Abcde f;
  CHECK(f.Run({"ZREVRANGEBYSCORE", "z", "4", "(2"}) == Bulks({"d", "c"}));
  CHECK(f.Run({"ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", "1", "2", "WITHSCORES"}) ==
        Bulks({"d", "4", "c", "3"}));
  CHECK(f.Run({"ZRANGE", "z", "(5", "3", "BYSCORE", "REV"}) == Bulks({"d", "c"}));
  CHECK(f.Run({"ZRANGE", "z", "3", "5", "BYSCORE", "REV"}) == Bulks({}));
  CHECK(f.Run({"ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "1"}) == Bulks({"b"}));
}

TEST_CASE("ZRANGEBYLEX and ZREVRANGEBYLEX over equal scores") {
  Lex f;
  CHECK(f.Run({"ZRANGEBYLEX", "l", "-", "[c"}) == Bulks({"a", "b", "c"}));
  CHECK(f.Run({"ZRANGEBYLEX", "l", "(e", "+"}) == Bulks({"f", "g"}));
  CHECK(f.Run({"ZRANGEBYLEX", "l", "[aa", "(c"}) == Bulks({"b"}));
  CHECK(f.Run({"ZRANGEBYLEX", "l", "+", "-"}) == Bulks({}));
  CHECK(f.Run({"ZRANGEBYLEX", "l", "-", "+", "LIMIT", "2", "3"}) == Bulks({"c", "d", "e"}));
  CHECK(f.Run({"ZRANGEBYLEX", "l", "-", "+", "LIMIT", "-1", "3"}) == Bulks({}));
  CHECK(f.Run({"ZREVRANGEBYLEX", "l", "[c", "-"}) == Bulks({"c", "b", "a"}));
  CHECK(f.Run({"ZREVRANGEBYLEX", "l", "+", "(e", "LIMIT", "1", "5"}) == Bulks({"f"}));
  CHECK(f.Run({"ZRANGE", "l", "(f", "[b", "BYLEX", "REV"}) == Bulks({"e", "d", "c", "b"}));
  CHECK(f.Run({"ZRANGEBYLEX", "l", "a", "+"}) == kNotLex);
  CHECK(f.Run({"ZRANGEBYLEX", "l", "", "+"}) == kNotLex);
}

TEST_CASE("ZRANGEBYLEX over mixed scores walks the score order as Redis does") {
  CommandFixture f;
  f.Run({"ZADD", "m", "1", "b", "2", "a", "3", "c", "4", "a0"});
  CHECK(f.Run({"ZRANGEBYLEX", "m", "[a", "[c"}) == Bulks({"b", "a", "c", "a0"}));
  CHECK(f.Run({"ZRANGEBYLEX", "m", "(b", "+"}) == Bulks({}));
  CHECK(f.Run({"ZREVRANGEBYLEX", "m", "[b", "-"}) == Bulks({"a0", "c", "a", "b"}));
  CHECK(f.Run({"ZLEXCOUNT", "m", "[a", "[c"}) == Int(4));
  CHECK(f.Run({"ZREMRANGEBYLEX", "m", "[a", "[b"}) == Int(2));
  CHECK(f.Run({"ZRANGE", "m", "0", "-1"}) == Bulks({"c", "a0"}));
}

TEST_CASE("ZCOUNT and ZLEXCOUNT") {
  Abcde f;
  CHECK(f.Run({"ZCOUNT", "z", "(1", "4"}) == Int(3));
  CHECK(f.Run({"ZCOUNT", "z", "-inf", "+inf"}) == Int(5));
  CHECK(f.Run({"ZCOUNT", "z", "(4", "(4"}) == Int(0));
  CHECK(f.Run({"ZCOUNT", "nokey", "1", "2"}) == Int(0));
  CHECK(f.Run({"ZCOUNT", "nokey", "x", "2"}) == kNotFloat);
  f.Run({"ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d"});
  CHECK(f.Run({"ZLEXCOUNT", "l", "[b", "(d"}) == Int(2));
  CHECK(f.Run({"ZLEXCOUNT", "l", "-", "+"}) == Int(4));
  CHECK(f.Run({"ZLEXCOUNT", "l", "(d", "+"}) == Int(0));
  CHECK(f.Run({"ZLEXCOUNT", "nokey", "-", "+"}) == Int(0));
  CHECK(f.Run({"ZLEXCOUNT", "l", "x", "+"}) == kNotLex);
}

TEST_CASE("ZREMRANGEBYRANK removes ranks and deletes an emptied set") {
  Abcde f;
  CHECK(f.Run({"ZREMRANGEBYRANK", "z", "1", "2"}) == Int(2));
  CHECK(f.Run({"ZRANGE", "z", "0", "-1"}) == Bulks({"a", "d", "e"}));
  CHECK(f.Run({"ZREMRANGEBYRANK", "z", "-100", "-3"}) == Int(1));
  CHECK(f.Run({"ZREMRANGEBYRANK", "z", "5", "10"}) == Int(0));
  CHECK(f.Run({"ZREMRANGEBYRANK", "z", "x", "1"}) == kNotInt);
  CHECK(f.Run({"ZREMRANGEBYRANK", "nokey", "0", "-1"}) == Int(0));
  CHECK(f.Run({"ZREMRANGEBYRANK", "z", "0", "-1"}) == Int(2));
  CHECK(f.Run({"EXISTS", "z"}) == Int(0));
}

TEST_CASE("ZREMRANGEBYSCORE and ZREMRANGEBYLEX keep the TTL") {
  Abcde f;
  f.Run({"EXPIRE", "z", "100"});
  CHECK(f.Run({"ZREMRANGEBYSCORE", "z", "(1", "3"}) == Int(2));
  CHECK(f.Run({"ZRANGE", "z", "0", "-1"}) == Bulks({"a", "d", "e"}));
  CHECK(f.Run({"TTL", "z"}) == Int(100));
  CHECK(f.Run({"ZREMRANGEBYSCORE", "z", "6", "+inf"}) == Int(0));
  CHECK(f.Run({"ZREMRANGEBYSCORE", "z", "x", "1"}) == kNotFloat);
  f.Run({"ZADD", "l", "0", "a", "0", "b", "0", "c"});
  CHECK(f.Run({"ZREMRANGEBYLEX", "l", "(a", "+"}) == Int(2));
  CHECK(f.Run({"ZREMRANGEBYLEX", "l", "[a", "x"}) == kNotLex);
  CHECK(f.Run({"ZREMRANGEBYLEX", "l", "-", "+"}) == Int(1));
  CHECK(f.Run({"EXISTS", "l"}) == Int(0));
}

TEST_CASE("range commands on another type reply WRONGTYPE after checking the bounds") {
  CommandFixture f;
  f.Run({"SET", "s", "v"});
  CHECK(f.Run({"ZRANGE", "s", "0", "-1"}) == kWrongType);
  CHECK(f.Run({"ZRANGEBYSCORE", "s", "x", "1"}) == kNotFloat);
  CHECK(f.Run({"ZCOUNT", "s", "1", "2"}) == kWrongType);
  CHECK(f.Run({"ZLEXCOUNT", "s", "-", "+"}) == kWrongType);
  CHECK(f.Run({"ZREMRANGEBYRANK", "s", "0", "1"}) == kWrongType);
  CHECK(f.Run({"ZREVRANGEBYLEX", "s", "+", "-"}) == kWrongType);
}

TEST_CASE("ZRANGESTORE in one slot: result, no TTL, empty result deletes dst") {
  CommandFixture f;
  f.Run({"ZADD", "{a}src", "1", "a", "2", "b", "3", "c"});
  f.Run({"SET", "{a}dst", "v", "EX", "100"});
  CHECK(f.Run({"ZRANGESTORE", "{a}dst", "{a}src", "(1", "+inf", "BYSCORE"}) == Int(2));
  CHECK(f.Run({"ZRANGE", "{a}dst", "0", "-1", "WITHSCORES"}) == Bulks({"b", "2", "c", "3"}));
  CHECK(f.Run({"TTL", "{a}dst"}) == Int(-1));
  CHECK(f.Run({"ZRANGESTORE", "{a}src", "{a}src", "0", "0", "REV"}) == Int(1));
  CHECK(f.Run({"ZRANGE", "{a}src", "0", "-1"}) == Bulks({"c"}));
  CHECK(f.Run({"ZRANGESTORE", "{a}dst", "{a}src", "5", "9"}) == Int(0));
  CHECK(f.Run({"EXISTS", "{a}dst"}) == Int(0));
  CHECK(f.Run({"ZRANGESTORE", "{a}dst", "{a}nokey", "0", "-1"}) == Int(0));
}

TEST_CASE("ZRANGESTORE across slots, and its errors") {
  CommandFixture f;
  f.Run({"ZADD", "{a}src", "0", "a", "0", "b", "0", "c"});
  f.Run({"ZADD", "{b}dst", "9", "old"});
  CHECK(f.Run({"ZRANGESTORE", "{b}dst", "{a}src", "[b", "+", "BYLEX", "LIMIT", "0", "1"}) ==
        Int(1));
  CHECK(f.Run({"ZRANGE", "{b}dst", "0", "-1", "WITHSCORES"}) == Bulks({"b", "0"}));
  CHECK(f.Run({"ZRANGESTORE", "{b}dst", "{a}nokey", "0", "-1"}) == Int(0));
  CHECK(f.Run({"EXISTS", "{b}dst"}) == Int(0));
  CHECK(f.Run({"ZRANGESTORE", "{b}dst", "{a}src", "0", "-1", "WITHSCORES"}) == kSyntax);
  CHECK(f.Run({"ZRANGESTORE", "{b}dst", "{a}src", "0", "-1", "LIMIT", "0", "1"}) ==
        "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
        "BYLEX\r\n");
  f.Run({"SET", "{a}str", "v"});
  f.Run({"ZADD", "{b}dst", "1", "x"});
  CHECK(f.Run({"ZRANGESTORE", "{b}dst", "{a}str", "0", "-1"}) == kWrongType);
  CHECK(f.Run({"ZRANGE", "{b}dst", "0", "-1"}) == Bulks({"x"}));
}

}  // namespace
}  // namespace slotkv::command
