#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

const std::string kNullArray = "*-1\r\n";

// An array reply of bulk strings.
std::string Bulks(std::vector<std::string> items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const std::string& s : items) out += Bulk(s);
  return out;
}
std::string Ints(std::vector<int64_t> items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (int64_t v : items) out += Int(v);
  return out;
}

TEST_CASE("LPUSH and RPUSH build the list, LRANGE and LLEN read it") {
  CommandFixture f;
  CHECK(f.Run({"RPUSH", "l", "b", "c"}) == Int(2));
  CHECK(f.Run({"LPUSH", "l", "a", "z"}) == Int(4));
  CHECK(f.Run({"LRANGE", "l", "0", "-1"}) == Bulks({"z", "a", "b", "c"}));
  CHECK(f.Run({"LRANGE", "l", "-2", "100"}) == Bulks({"b", "c"}));
  CHECK(f.Run({"LRANGE", "l", "3", "1"}) == Bulks({}));
  CHECK(f.Run({"LRANGE", "nokey", "0", "-1"}) == Bulks({}));
  CHECK(f.Run({"LRANGE", "l", "x", "1"}) == kNotInt);
  CHECK(f.Run({"LLEN", "l"}) == Int(4));
  CHECK(f.Run({"LLEN", "nokey"}) == Int(0));
  CHECK(f.Run({"TYPE", "l"}) == "+list\r\n");
}

TEST_CASE("LPUSHX and RPUSHX only touch an existing list") {
  CommandFixture f;
  CHECK(f.Run({"LPUSHX", "l", "a"}) == Int(0));
  CHECK(f.Run({"EXISTS", "l"}) == Int(0));
  f.Run({"RPUSH", "l", "m"});
  CHECK(f.Run({"LPUSHX", "l", "a", "b"}) == Int(3));
  CHECK(f.Run({"RPUSHX", "l", "z"}) == Int(4));
  CHECK(f.Run({"LRANGE", "l", "0", "-1"}) == Bulks({"b", "a", "m", "z"}));
}

TEST_CASE("LPOP and RPOP: nil, null array, empty array, count, deletion") {
  CommandFixture f;
  CHECK(f.Run({"LPOP", "l"}) == kNull);
  CHECK(f.Run({"LPOP", "l", "2"}) == kNullArray);
  CHECK(f.Run({"LPOP", "l", "0"}) == kNullArray);
  f.Run({"RPUSH", "l", "a", "b", "c", "d"});
  CHECK(f.Run({"LPOP", "l", "0"}) == Bulks({}));
  CHECK(f.Run({"LPOP", "l"}) == Bulk("a"));
  CHECK(f.Run({"RPOP", "l", "2"}) == Bulks({"d", "c"}));
  CHECK(f.Run({"RPOP", "l", "5"}) == Bulks({"b"}));
  CHECK(f.Run({"EXISTS", "l"}) == Int(0));
  CHECK(f.Run({"LPOP", "l", "-1"}) == Err("ERR value is out of range, must be positive"));
  CHECK(f.Run({"LPOP", "l", "x"}) == Err("ERR value is out of range, must be positive"));
  CHECK(f.Run({"LPOP", "l", "1", "2"}) == Err("ERR wrong number of arguments for 'lpop' command"));
}

TEST_CASE("LINDEX, LSET with negative indexes and their errors") {
  CommandFixture f;
  CHECK(f.Run({"LINDEX", "l", "x"}) == kNull);  // the key is looked up first
  CHECK(f.Run({"LSET", "l", "0", "v"}) == Err("ERR no such key"));
  f.Run({"RPUSH", "l", "a", "b", "c"});
  CHECK(f.Run({"LINDEX", "l", "-1"}) == Bulk("c"));
  CHECK(f.Run({"LINDEX", "l", "3"}) == kNull);
  CHECK(f.Run({"LINDEX", "l", "x"}) == kNotInt);
  CHECK(f.Run({"LSET", "l", "-3", "A"}) == kOk);
  CHECK(f.Run({"LSET", "l", "3", "A"}) == Err("ERR index out of range"));
  CHECK(f.Run({"LSET", "l", "x", "A"}) == kNotInt);
  CHECK(f.Run({"LINDEX", "l", "0"}) == Bulk("A"));
}

TEST_CASE("LINSERT before and after, missing pivot and key") {
  CommandFixture f;
  CHECK(f.Run({"LINSERT", "l", "BEFORE", "a", "x"}) == Int(0));
  CHECK(f.Run({"LINSERT", "l", "MIDDLE", "a", "x"}) == kSyntax);
  f.Run({"RPUSH", "l", "a", "b"});
  CHECK(f.Run({"LINSERT", "l", "before", "b", "x"}) == Int(3));
  CHECK(f.Run({"LINSERT", "l", "AFTER", "b", "y"}) == Int(4));
  CHECK(f.Run({"LINSERT", "l", "AFTER", "q", "y"}) == Int(-1));
  CHECK(f.Run({"LRANGE", "l", "0", "-1"}) == Bulks({"a", "x", "b", "y"}));
}

TEST_CASE("LREM and LTRIM delete an emptied list") {
  CommandFixture f;
  f.Run({"RPUSH", "l", "a", "b", "a", "c", "a"});
  CHECK(f.Run({"LREM", "l", "-1", "a"}) == Int(1));
  CHECK(f.Run({"LREM", "l", "0", "a"}) == Int(2));
  CHECK(f.Run({"LREM", "l", "x", "a"}) == kNotInt);
  CHECK(f.Run({"LRANGE", "l", "0", "-1"}) == Bulks({"b", "c"}));
  CHECK(f.Run({"LTRIM", "l", "1", "-1"}) == kOk);
  CHECK(f.Run({"LRANGE", "l", "0", "-1"}) == Bulks({"c"}));
  CHECK(f.Run({"LTRIM", "l", "5", "10"}) == kOk);
  CHECK(f.Run({"EXISTS", "l"}) == Int(0));
  CHECK(f.Run({"LTRIM", "l", "0", "x"}) == kNotInt);
}

TEST_CASE("LPOS with RANK, COUNT and MAXLEN") {
  CommandFixture f;
  f.Run({"RPUSH", "l", "a", "b", "c", "a", "b", "a"});
  CHECK(f.Run({"LPOS", "l", "a"}) == Int(0));
  CHECK(f.Run({"LPOS", "l", "a", "RANK", "2"}) == Int(3));
  CHECK(f.Run({"LPOS", "l", "a", "RANK", "-1"}) == Int(5));
  CHECK(f.Run({"LPOS", "l", "a", "COUNT", "0"}) == Ints({0, 3, 5}));
  CHECK(f.Run({"LPOS", "l", "a", "RANK", "-2", "COUNT", "2"}) == Ints({3, 0}));
  CHECK(f.Run({"LPOS", "l", "a", "COUNT", "0", "MAXLEN", "4"}) == Ints({0, 3}));
  CHECK(f.Run({"LPOS", "l", "z"}) == kNull);
  CHECK(f.Run({"LPOS", "l", "z", "COUNT", "1"}) == Ints({}));
  CHECK(f.Run({"LPOS", "nokey", "a"}) == kNull);
  CHECK(f.Run({"LPOS", "l", "a", "RANK", "-9223372036854775808"}) == Int(5));
  CHECK(f.Run({"LPOS", "l", "a", "RANK", "0"}) ==
        Err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
            "or use negative to start from the end of the list"));
  CHECK(f.Run({"LPOS", "l", "a", "RANK", "x"}) == kNotInt);
  CHECK(f.Run({"LPOS", "l", "a", "COUNT", "-1"}) == Err("ERR COUNT can't be negative"));
  CHECK(f.Run({"LPOS", "l", "a", "MAXLEN", "x"}) == Err("ERR MAXLEN can't be negative"));
  CHECK(f.Run({"LPOS", "l", "a", "RANK"}) == kSyntax);
  CHECK(f.Run({"LPOS", "l", "a", "FOO", "1"}) == kSyntax);
}

TEST_CASE("LMOVE and RPOPLPUSH in one slot, rotation, and across slots") {
  CommandFixture f;
  CHECK(f.Run({"LMOVE", "{a}s", "{a}d", "LEFT", "RIGHT"}) == kNull);
  CHECK(f.Run({"LMOVE", "{a}s", "{a}d", "UP", "RIGHT"}) == kSyntax);
  f.Run({"RPUSH", "{a}s", "1", "2", "3"});
  CHECK(f.Run({"LMOVE", "{a}s", "{a}d", "LEFT", "RIGHT"}) == Bulk("1"));
  CHECK(f.Run({"RPOPLPUSH", "{a}s", "{a}d"}) == Bulk("3"));
  CHECK(f.Run({"LRANGE", "{a}d", "0", "-1"}) == Bulks({"3", "1"}));
  CHECK(f.Run({"LMOVE", "{a}d", "{a}d", "LEFT", "RIGHT"}) == Bulk("3"));
  CHECK(f.Run({"LRANGE", "{a}d", "0", "-1"}) == Bulks({"1", "3"}));
  CHECK(f.Run({"LMOVE", "{a}s", "{b}d", "RIGHT", "LEFT"}) == Bulk("2"));
  CHECK(f.Run({"EXISTS", "{a}s"}) == Int(0));
  CHECK(f.Run({"LRANGE", "{b}d", "0", "-1"}) == Bulks({"2"}));
  f.Run({"SET", "{b}str", "v"});
  CHECK(f.Run({"LMOVE", "{b}d", "{b}str", "LEFT", "LEFT"}) == kWrongType);
  CHECK(f.Run({"LMOVE", "{a}d", "{b}str", "LEFT", "LEFT"}) == kWrongType);
  CHECK(f.Run({"LMOVE", "{a}nokey", "{b}str", "LEFT", "LEFT"}) == kNull);
  CHECK(f.Run({"LRANGE", "{a}d", "0", "-1"}) == Bulks({"1", "3"}));
}

TEST_CASE("LMPOP takes from the first non-empty list") {
  CommandFixture f;
  CHECK(f.Run({"LMPOP", "2", "{a}x", "{b}y", "LEFT"}) == kNullArray);
  f.Run({"RPUSH", "{b}y", "1", "2", "3"});
  CHECK(f.Run({"LMPOP", "2", "{a}x", "{b}y", "RIGHT", "COUNT", "2"}) ==
        "*2\r\n" + Bulk("{b}y") + Bulks({"3", "2"}));
  CHECK(f.Run({"LMPOP", "1", "{b}y", "LEFT", "COUNT", "5"}) ==
        "*2\r\n" + Bulk("{b}y") + Bulks({"1"}));
  CHECK(f.Run({"EXISTS", "{b}y"}) == Int(0));
  CHECK(f.Run({"LMPOP", "0", "a", "LEFT"}) == Err("ERR numkeys should be greater than 0"));
  CHECK(f.Run({"LMPOP", "3", "a", "b", "LEFT"}) == kSyntax);
  CHECK(f.Run({"LMPOP", "1", "a", "UP"}) == kSyntax);
  CHECK(f.Run({"LMPOP", "1", "a", "LEFT", "COUNT", "0"}) ==
        Err("ERR count should be greater than 0"));
  CHECK(f.Run({"LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "2"}) == kSyntax);
  f.Run({"SET", "{a}x", "v"});
  CHECK(f.Run({"LMPOP", "2", "{a}x", "{b}y", "LEFT"}) == kWrongType);
}

TEST_CASE("list commands on a string key are WRONGTYPE") {
  CommandFixture f;
  f.Run({"SET", "s", "v"});
  for (std::vector<std::string> cmd :
       std::vector<std::vector<std::string>>{{"LPUSH", "s", "a"},
                                             {"RPUSHX", "s", "a"},
                                             {"LPOP", "s"},
                                             {"LLEN", "s"},
                                             {"LINDEX", "s", "0"},
                                             {"LRANGE", "s", "0", "1"},
                                             {"LSET", "s", "0", "a"},
                                             {"LREM", "s", "0", "a"},
                                             {"LTRIM", "s", "0", "1"},
                                             {"LPOS", "s", "a"},
                                             {"LINSERT", "s", "BEFORE", "a", "b"}}) {
    CHECK_MESSAGE(f.Run(cmd) == kWrongType, cmd[0]);
  }
}

TEST_CASE("list modifications keep the TTL") {
  CommandFixture f;
  f.Run({"RPUSH", "l", "a", "b", "c"});
  CHECK(f.Run({"EXPIRE", "l", "100"}) == Int(1));
  f.Run({"LPUSH", "l", "z"});
  f.Run({"LPOP", "l"});
  f.Run({"LSET", "l", "0", "q"});
  f.Run({"LREM", "l", "1", "b"});
  CHECK(f.Run({"TTL", "l"}) == Int(100));
}

}  // namespace
}  // namespace slotkv::command
