#include <doctest/doctest.h>

#include <functional>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

const std::string kEmptyScan = "*2\r\n$1\r\n0\r\n*0\r\n";
const std::string kMustBePositive = "-ERR value is out of range, must be positive\r\n";

// A ZSCAN reply (cursor 0) of the given member, score texts.
std::string Scan(const std::vector<std::string>& items) { return "*2\r\n$1\r\n0\r\n" + Arr(items); }

// Runs fn(store) on the owner of key's slot (database 0) and commits, as a command would.
void OnOwner(CommandFixture& f, const std::string& key, std::function<void(Store&)> fn) {
  ServerState& s = f.state();
  const uint32_t slot = s.keyspace->SlotOfKey(key);
  std::promise<Status> done;
  s.executor->Post(s.executor->OwnerOf(slot), [&] {
    Store store(s.keyspace, slot, 0, &(*s.dirty)[static_cast<size_t>(s.executor->current())]);
    fn(store);
    done.set_value(s.CommitDirty());
  });
  REQUIRE(done.get_future().get().ok());
}

uint64_t Stat(CommandFixture& f, bool hits) {
  uint64_t n = 0;
  for (auto& s : *f.state().stats) {
    n += WorkerStats::Get(hits ? s->keyspace_hits : s->keyspace_misses);
  }
  return n;
}

TEST_CASE("ZADD adds and updates, ZSCORE and ZCARD read, TYPE is zset") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "1", "a", "2", "b", "3", "a"}) == Int(2));  // a counted once
  CHECK(f.Run({"ZSCORE", "z", "a"}) == Bulk("3"));
  CHECK(f.Run({"ZADD", "z", "5", "a", "2", "b", "1.5", "c"}) == Int(1));
  CHECK(f.Run({"ZSCORE", "z", "c"}) == Bulk("1.5"));
  CHECK(f.Run({"ZSCORE", "z", "nope"}) == kNull);
  CHECK(f.Run({"ZSCORE", "nokey", "a"}) == kNull);
  CHECK(f.Run({"ZCARD", "z"}) == Int(3));
  CHECK(f.Run({"ZCARD", "nokey"}) == Int(0));
  CHECK(f.Run({"TYPE", "z"}) == "+zset\r\n");
}

TEST_CASE("ZADD argument errors in Redis's order: pairs, conflicts, INCR, scores, key") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "v"}) == "+OK\r\n");
  CHECK(f.Run({"ZADD", "z", "1"}) == Err("ERR wrong number of arguments for 'zadd' command"));
  CHECK(f.Run({"ZADD", "z", "NX", "XX", "1"}) == kSyntax);
  CHECK(f.Run({"ZADD", "z", "GT", "LT", "1", "a", "2"}) == kSyntax);
  CHECK(f.Run({"ZADD", "s", "nx", "xx", "1", "a"}) ==
        Err("ERR XX and NX options at the same time are not compatible"));
  const std::string gt_lt_nx =
      Err("ERR GT, LT, and/or NX options at the same time are not compatible");
  CHECK(f.Run({"ZADD", "z", "GT", "LT", "1", "a"}) == gt_lt_nx);
  CHECK(f.Run({"ZADD", "z", "NX", "GT", "1", "a"}) == gt_lt_nx);
  CHECK(f.Run({"ZADD", "z", "LT", "NX", "1", "a"}) == gt_lt_nx);
  CHECK(f.Run({"ZADD", "z", "INCR", "1", "a", "2", "b"}) ==
        Err("ERR INCR option supports a single increment-element pair"));
  CHECK(f.Run({"ZADD", "s", "1", "a", "x", "b"}) == kNotFloat);  // every score before the key
  CHECK(f.Run({"ZADD", "s", "1", "a"}) == kWrongType);
  CHECK(f.Run({"ZADD", "z", "1", "a", "CH"}) == kSyntax);  // options only come first
  CHECK(f.Run({"EXISTS", "z"}) == Int(0));
}

TEST_CASE("ZADD scores: inf, hex and subnormals taken; NaN, overflow and spaces refused") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "-inf", "lo", "+inf", "hi", "0x10", "hex", "1e-310", "sub"}) == Int(4));
  CHECK(f.Run({"ZSCORE", "z", "lo"}) == Bulk("-inf"));
  CHECK(f.Run({"ZSCORE", "z", "hi"}) == Bulk("inf"));
  CHECK(f.Run({"ZSCORE", "z", "hex"}) == Bulk("16"));
  CHECK(f.Run({"ZSCORE", "z", "sub"}) == Bulk("9.9999999999999694e-311"));
  for (const char* bad : {"nan", "1e400", "1e-400", " 1", "1 ", "", "1x"}) {
    CHECK_MESSAGE(f.Run({"ZADD", "z", bad, "m"}) == kNotFloat, bad);
  }
  CHECK(f.Run({"ZADD", "z", "1.1", "f"}) == Int(1));
  CHECK(f.Run({"ZSCORE", "z", "f"}) == Bulk("1.1000000000000001"));
}

TEST_CASE("ZADD NX, XX, GT, LT and CH") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "XX", "1", "a"}) == Int(0));
  CHECK(f.Run({"EXISTS", "z"}) == Int(0));  // XX never creates the key
  CHECK(f.Run({"ZADD", "z", "1", "a", "5", "b"}) == Int(2));
  CHECK(f.Run({"ZADD", "z", "NX", "9", "a", "3", "c"}) == Int(1));
  CHECK(f.Run({"ZSCORE", "z", "a"}) == Bulk("1"));
  CHECK(f.Run({"ZADD", "z", "XX", "CH", "2", "a", "4", "d"}) == Int(1));
  CHECK(f.Run({"ZSCORE", "z", "d"}) == kNull);
  CHECK(f.Run({"ZADD", "z", "GT", "CH", "1", "a", "6", "b", "7", "e"}) == Int(2));  // b, e
  CHECK(f.Run({"ZSCORE", "z", "a"}) == Bulk("2"));
  CHECK(f.Run({"ZADD", "z", "lt", "ch", "0", "a", "9", "b"}) == Int(1));
  CHECK(f.Run({"ZSCORE", "z", "a"}) == Bulk("0"));
  CHECK(f.Run({"ZSCORE", "z", "b"}) == Bulk("6"));
  CHECK(f.Run({"ZADD", "z", "GT", "XX", "CH", "100", "c", "20", "new"}) == Int(1));
  CHECK(f.Run({"ZADD", "z", "CH", "100", "c"}) == Int(0));  // same score: not changed
  CHECK(f.Run({"ZCARD", "z"}) == Int(4));                   // a b c e
}

TEST_CASE("ZADD INCR and ZINCRBY reply the new score, or nil when an option prevented it") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "XX", "INCR", "1", "a"}) == kNull);
  CHECK(f.Run({"EXISTS", "z"}) == Int(0));
  CHECK(f.Run({"ZADD", "z", "INCR", "1", "a"}) == Bulk("1"));
  CHECK(f.Run({"ZADD", "z", "NX", "INCR", "1", "a"}) == kNull);
  CHECK(f.Run({"ZADD", "z", "XX", "INCR", "1.5", "a"}) == Bulk("2.5"));
  CHECK(f.Run({"ZADD", "z", "GT", "INCR", "-1", "a"}) == kNull);
  CHECK(f.Run({"ZADD", "z", "LT", "INCR", "-1", "a"}) == Bulk("1.5"));
  CHECK(f.Run({"ZADD", "z", "GT", "INCR", "0", "a"}) == kNull);  // not greater
  CHECK(f.Run({"ZINCRBY", "z", "2", "a"}) == Bulk("3.5"));
  CHECK(f.Run({"ZINCRBY", "z", "-1", "b"}) == Bulk("-1"));
  CHECK(f.Run({"ZINCRBY", "z", "x", "a"}) == kNotFloat);
  // ZINCRBY is ZADD INCR underneath: an option word in the increment's place is read as one.
  CHECK(f.Run({"ZINCRBY", "z", "nx", "a"}) == kSyntax);
  CHECK(f.Run({"ZINCRBY", "z", "1", "nx"}) == Bulk("1"));
  CHECK(f.Run({"HELLO", "3"}).rfind("%", 0) == 0);
  CHECK(f.Run({"ZINCRBY", "z", "1", "a"}) == ",4.5\r\n");
  CHECK(f.Run({"ZADD", "z", "NX", "INCR", "1", "a"}) == "_\r\n");
}

TEST_CASE("an increment to NaN is refused and changes nothing") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "INCR", "inf", "a"}) == Bulk("inf"));
  const std::string nan = Err("ERR resulting score is not a number (NaN)");
  CHECK(f.Run({"ZADD", "z", "INCR", "-inf", "a"}) == nan);
  CHECK(f.Run({"ZINCRBY", "z", "-inf", "a"}) == nan);
  CHECK(f.Run({"ZSCORE", "z", "a"}) == Bulk("inf"));
  CHECK(f.Run({"ZINCRBY", "z", "inf", "a"}) == Bulk("inf"));
}

TEST_CASE("a -0 score is stored as 0 in a small set and kept past the listpack limits") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "INCR", "-0", "m"}) == Bulk("-0"));  // the reply keeps the sign
  CHECK(f.Run({"ZSCORE", "z", "m"}) == Bulk("0"));
  CHECK(f.Run({"ZADD", "z", "-0", "n"}) == Int(1));
  CHECK(f.Run({"ZSCORE", "z", "n"}) == Bulk("0"));
  CHECK(f.Run({"ZADD", "z", "CH", "-0", "n"}) == Int(0));  // -0 == 0: no change
  const std::string long_member(65, 'x');
  CHECK(f.Run({"ZADD", "big", "1", long_member}) == Int(1));
  CHECK(f.Run({"ZADD", "big", "-0", "n"}) == Int(1));
  CHECK(f.Run({"ZSCORE", "big", "n"}) == Bulk("-0"));
}

TEST_CASE("ZMSCORE, ZRANK and ZREVRANK") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "1", "a", "2", "b", "2", "c", "-1", "d"}) == Int(4));
  CHECK(f.Run({"ZMSCORE", "z", "a", "nope", "d"}) == "*3\r\n$1\r\n1\r\n$-1\r\n$2\r\n-1\r\n");
  CHECK(f.Run({"ZMSCORE", "nokey", "a", "b"}) == "*2\r\n$-1\r\n$-1\r\n");
  CHECK(f.Run({"ZRANK", "z", "d"}) == Int(0));
  CHECK(f.Run({"ZRANK", "z", "c"}) == Int(3));  // equal scores order by member
  CHECK(f.Run({"ZREVRANK", "z", "c"}) == Int(0));
  CHECK(f.Run({"ZREVRANK", "z", "d"}) == Int(3));
  CHECK(f.Run({"ZRANK", "z", "nope"}) == kNull);
  CHECK(f.Run({"ZREVRANK", "nokey", "a"}) == kNull);
  CHECK(f.Run({"HELLO", "3"}).rfind("%", 0) == 0);
  CHECK(f.Run({"ZMSCORE", "z", "b", "nope"}) == "*2\r\n,2\r\n_\r\n");
  CHECK(f.Run({"ZSCORE", "z", "d"}) == ",-1\r\n");
  CHECK(f.Run({"ZRANK", "z", "nope"}) == "_\r\n");
}

TEST_CASE("ZREM counts removed members and deletes an emptied set") {
  CommandFixture f;
  CHECK(f.Run({"ZREM", "nokey", "a"}) == Int(0));
  CHECK(f.Run({"ZADD", "z", "1", "a", "2", "b"}) == Int(2));
  CHECK(f.Run({"ZREM", "z", "a", "nope", "a"}) == Int(1));
  CHECK(f.Run({"ZREM", "z", "nope"}) == Int(0));
  CHECK(f.Run({"ZREM", "z", "b"}) == Int(1));
  CHECK(f.Run({"EXISTS", "z"}) == Int(0));
}

TEST_CASE("writes keep the TTL") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"}) == Int(4));
  CHECK(f.Run({"EXPIRE", "z", "100"}) == Int(1));
  CHECK(f.Run({"ZADD", "z", "5", "e"}) == Int(1));
  CHECK(f.Run({"ZINCRBY", "z", "1", "a"}) == Bulk("2"));
  CHECK(f.Run({"ZREM", "z", "b"}) == Int(1));
  CHECK(f.Run({"ZPOPMIN", "z"}) == Arr({"a", "2"}));
  CHECK(f.Run({"ZPOPMAX", "z", "1"}) == Arr({"e", "5"}));
  CHECK(f.Run({"TTL", "z"}) == Int(100));
}

TEST_CASE("ZPOPMIN and ZPOPMAX: flat pairs in RESP2, with and without count") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"}) == Int(4));
  CHECK(f.Run({"ZPOPMIN", "z"}) == Arr({"a", "1"}));
  CHECK(f.Run({"ZPOPMAX", "z"}) == Arr({"d", "4"}));
  CHECK(f.Run({"ZPOPMIN", "z", "0"}) == kEmptyArray);
  CHECK(f.Run({"ZPOPMAX", "z", "5"}) == Arr({"c", "3", "b", "2"}));
  CHECK(f.Run({"EXISTS", "z"}) == Int(0));
  CHECK(f.Run({"ZPOPMIN", "z"}) == kEmptyArray);
  CHECK(f.Run({"ZPOPMIN", "z", "0"}) == kEmptyArray);
  CHECK(f.Run({"ZADD", "z", "1", "a", "2", "b"}) == Int(2));
  CHECK(f.Run({"ZPOPMIN", "z", "9223372036854775807"}) == Arr({"a", "1", "b", "2"}));
}

TEST_CASE("ZPOPMIN and ZPOPMAX in RESP3: flat without count, [member, score] pairs with it") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "1", "a", "2", "b", "3", "c"}) == Int(3));
  CHECK(f.Run({"HELLO", "3"}).rfind("%", 0) == 0);
  CHECK(f.Run({"ZPOPMIN", "z"}) == "*2\r\n$1\r\na\r\n,1\r\n");
  CHECK(f.Run({"ZPOPMAX", "z", "1"}) == "*1\r\n*2\r\n$1\r\nc\r\n,3\r\n");
  CHECK(f.Run({"ZPOPMAX", "z", "0"}) == kEmptyArray);
  CHECK(f.Run({"ZPOPMAX", "z", "3"}) == "*1\r\n*2\r\n$1\r\nb\r\n,2\r\n");
  CHECK(f.Run({"ZPOPMIN", "z"}) == kEmptyArray);
}

TEST_CASE("ZPOPMIN count errors come before the key, WRONGTYPE before count 0") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "v"}) == "+OK\r\n");
  CHECK(f.Run({"ZPOPMIN", "s", "-1"}) == kMustBePositive);
  CHECK(f.Run({"ZPOPMAX", "s", "x"}) == kMustBePositive);
  CHECK(f.Run({"ZPOPMIN", "s", "1", "2"}) == kSyntax);
  CHECK(f.Run({"ZPOPMIN", "s", "0"}) == kWrongType);
  CHECK(f.Run({"ZPOPMIN", "nokey", "-1"}) == kMustBePositive);
}

TEST_CASE("ZRANDMEMBER: no count, distinct counts, the whole set, repeats") {
  CommandFixture f;
  CHECK(f.Run({"ZRANDMEMBER", "nokey"}) == kNull);
  CHECK(f.Run({"ZRANDMEMBER", "nokey", "3"}) == kEmptyArray);
  CHECK(f.Run({"ZRANDMEMBER", "nokey", "-3", "WITHSCORES"}) == kEmptyArray);
  CHECK(f.Run({"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"}) == Int(4));
  const std::set<std::string> one = {Bulk("a"), Bulk("b"), Bulk("c"), Bulk("d")};
  CHECK(one.count(f.Run({"ZRANDMEMBER", "z"})) == 1);
  CHECK(f.Run({"ZRANDMEMBER", "z", "0"}) == kEmptyArray);
  // The whole set, highest score first, as Redis 7.0.
  CHECK(f.Run({"ZRANDMEMBER", "z", "4"}) == Arr({"d", "c", "b", "a"}));
  CHECK(f.Run({"ZRANDMEMBER", "z", "9", "withscores"}) ==
        Arr({"d", "4", "c", "3", "b", "2", "a", "1"}));
  // Distinct members in ascending order.
  const std::set<std::string> pairs = {Arr({"a", "b"}), Arr({"a", "c"}), Arr({"a", "d"}),
                                       Arr({"b", "c"}), Arr({"b", "d"}), Arr({"c", "d"})};
  for (int i = 0; i < 20; ++i) CHECK(pairs.count(f.Run({"ZRANDMEMBER", "z", "2"})) == 1);
  const std::set<std::string> scored = {Arr({"a", "1"}), Arr({"b", "2"}), Arr({"c", "3"}),
                                        Arr({"d", "4"})};
  CHECK(scored.count(f.Run({"ZRANDMEMBER", "z", "1", "WITHSCORES"})) == 1);
  CHECK(f.Run({"ZRANDMEMBER", "z", "-9"}).rfind("*9\r\n", 0) == 0);
  CHECK(f.Run({"ZRANDMEMBER", "z", "-9", "WITHSCORES"}).rfind("*18\r\n", 0) == 0);
  CHECK(f.Run({"ZADD", "one", "7", "m"}) == Int(1));
  CHECK(f.Run({"ZRANDMEMBER", "one", "-3", "WITHSCORES"}) == Arr({"m", "7", "m", "7", "m", "7"}));
}

TEST_CASE("ZRANDMEMBER errors in Redis's order: count, keyword, range, key") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "v"}) == "+OK\r\n");
  CHECK(f.Run({"ZRANDMEMBER", "s", "x"}) == kNotInt);
  CHECK(f.Run({"ZRANDMEMBER", "s", "-9223372036854775808"}) ==
        Err("ERR value is out of range, value must between -9223372036854775807 and "
            "9223372036854775807"));
  CHECK(f.Run({"ZRANDMEMBER", "s", "1", "WITHSCORE"}) == kSyntax);
  CHECK(f.Run({"ZRANDMEMBER", "s", "1", "WITHSCORES", "x"}) == kSyntax);
  CHECK(f.Run({"ZRANDMEMBER", "s", "9223372036854775807", "WITHSCORES"}) ==
        Err("ERR value is out of range"));
  CHECK(f.Run({"ZRANDMEMBER", "s", "1"}) == kWrongType);
  CHECK(f.Run({"ZRANDMEMBER", "s"}) == kWrongType);
  CHECK(f.Run({"ZADD", "z", "1", "a"}) == Int(1));
  // Redis would stream this reply; slotkv builds replies in memory and refuses past 1 GB.
  CHECK(f.Run({"ZRANDMEMBER", "z", "-9223372036854775807"}) ==
        Err("ERR value is out of range (the reply would exceed 1 GB)"));
  CHECK(f.Run({"ZRANDMEMBER", "z", "9223372036854775807"}) == Arr({"a"}));
}

TEST_CASE("ZRANDMEMBER WITHSCORES in RESP3 nests [member, score] pairs") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "1.5", "a"}) == Int(1));
  CHECK(f.Run({"HELLO", "3"}).rfind("%", 0) == 0);
  CHECK(f.Run({"ZRANDMEMBER", "z", "1", "WITHSCORES"}) == "*1\r\n*2\r\n$1\r\na\r\n,1.5\r\n");
  CHECK(f.Run({"ZRANDMEMBER", "z", "-2", "WITHSCORES"}) ==
        "*2\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\na\r\n,1.5\r\n");
  CHECK(f.Run({"ZRANDMEMBER", "z", "-2"}) == Arr({"a", "a"}));
  CHECK(f.Run({"ZRANDMEMBER", "nokey", "2"}) == kEmptyArray);
  CHECK(f.Run({"ZRANDMEMBER", "nokey"}) == "_\r\n");
}

TEST_CASE("ZSCAN returns everything with cursor 0; MATCH, COUNT and errors") {
  CommandFixture f;
  CHECK(f.Run({"ZSCAN", "nokey", "0", "BAD"}) == kEmptyScan);
  CHECK(f.Run({"ZSCAN", "nokey", "x"}) == Err("ERR invalid cursor"));
  CHECK(f.Run({"ZADD", "z", "1", "a1", "2", "b1", "0.5", "a2", "-inf", ""}) == Int(4));
  const std::string all = Scan({"", "-inf", "a2", "0.5", "a1", "1", "b1", "2"});
  CHECK(f.Run({"ZSCAN", "z", "0"}) == all);
  CHECK(f.Run({"ZSCAN", "z", "123", "COUNT", "1", "MATCH", "a*"}) ==
        Scan({"a2", "0.5", "a1", "1"}));
  CHECK(f.Run({"ZSCAN", "z", "0", "MATCH", "*"}) == all);
  CHECK(f.Run({"ZSCAN", "z", "0", "MATCH", "1"}) == kEmptyScan);  // members only
  CHECK(f.Run({"ZSCAN", "z", "x"}) == Err("ERR invalid cursor"));
  CHECK(f.Run({"ZSCAN", "z", "0", "COUNT", "0"}) == kSyntax);
  CHECK(f.Run({"ZSCAN", "z", "0", "COUNT", "x"}) == kNotInt);
  CHECK(f.Run({"ZSCAN", "z", "0", "MATCH"}) == kSyntax);
  CHECK(f.Run({"ZSCAN", "z", "0", "TYPE", "zset"}) == kSyntax);
  CHECK(f.Run({"HELLO", "3"}).rfind("%", 0) == 0);
  CHECK(f.Run({"ZSCAN", "z", "0"}) == all);  // scores stay bulk strings in RESP3
}

TEST_CASE("ZSCAN prints listpack scores as Redis's listpack holds them") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "1e17", "d", "4611686018427387904", "e", "9223372036854775808", "f",
               "0.1", "g"}) == Int(4));
  CHECK(f.Run({"ZSCAN", "z", "0", "MATCH", "[de]"}) ==
        Scan({"d", "100000000000000000", "e", "4611686018427387904"}));
  CHECK(f.Run({"ZSCAN", "z", "0", "MATCH", "[fg]"}) ==
        Scan({"g", "0.10000000000000001", "f", "9.2233720368547758e+18"}));
  CHECK(f.Run({"ZADD", "z", "1", std::string(65, 'x')}) == Int(1));  // now a skiplist
  CHECK(f.Run({"ZSCAN", "z", "0", "MATCH", "d"}) == Scan({"d", "1e+17"}));
}

TEST_CASE("OBJECT ENCODING of a sorted set: listpack up to 128 entries of 64 bytes") {
  CommandFixture f;
  std::vector<std::string> add = {"ZADD", "z"};
  for (int i = 0; i < 128; ++i) {
    add.push_back(std::to_string(i));
    add.push_back("m" + std::to_string(i));
  }
  CHECK(f.Run(add) == Int(128));
  CHECK(f.Run({"OBJECT", "ENCODING", "z"}) == Bulk("listpack"));
  CHECK(f.Run({"ZADD", "z", "1", "one-more"}) == Int(1));
  CHECK(f.Run({"OBJECT", "ENCODING", "z"}) == Bulk("skiplist"));
  CHECK(f.Run({"ZADD", "w", "1", std::string(64, 'x')}) == Int(1));
  CHECK(f.Run({"OBJECT", "ENCODING", "w"}) == Bulk("listpack"));
  CHECK(f.Run({"ZADD", "w", "1", std::string(65, 'x')}) == Int(1));
  CHECK(f.Run({"OBJECT", "ENCODING", "w"}) == Bulk("skiplist"));
}

TEST_CASE("every command replies WRONGTYPE on a string key, which survives") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "v"}) == "+OK\r\n");
  for (const std::vector<std::string>& cmd :
       std::vector<std::vector<std::string>>{{"ZADD", "s", "1", "a"},
                                             {"ZINCRBY", "s", "1", "a"},
                                             {"ZCARD", "s"},
                                             {"ZSCORE", "s", "a"},
                                             {"ZMSCORE", "s", "a"},
                                             {"ZRANK", "s", "a"},
                                             {"ZREVRANK", "s", "a"},
                                             {"ZREM", "s", "a"},
                                             {"ZPOPMIN", "s"},
                                             {"ZPOPMAX", "s", "2"},
                                             {"ZRANDMEMBER", "s", "-2"},
                                             {"ZSCAN", "s", "0"}}) {
    CHECK_MESSAGE(f.Run(cmd) == kWrongType, cmd[0]);
  }
  CHECK(f.Run({"GET", "s"}) == Bulk("v"));
}

TEST_CASE("keyspace hits and misses count the read commands only") {
  CommandFixture f;
  CHECK(f.Run({"ZADD", "z", "1", "a"}) == Int(1));
  CHECK(f.Run({"ZINCRBY", "z", "1", "a"}) == Bulk("2"));
  CHECK(f.Run({"ZREM", "nokey", "a"}) == Int(0));
  CHECK(f.Run({"ZPOPMIN", "nokey"}) == kEmptyArray);
  CHECK(Stat(f, true) == 0);
  CHECK(Stat(f, false) == 0);
  f.Run({"ZCARD", "z"});
  f.Run({"ZSCORE", "z", "a"});
  f.Run({"ZMSCORE", "nokey", "a"});
  f.Run({"ZRANK", "z", "a"});
  f.Run({"ZREVRANK", "nokey", "a"});
  f.Run({"ZRANDMEMBER", "z"});
  f.Run({"ZSCAN", "nokey", "0"});
  CHECK(Stat(f, true) == 4);
  CHECK(Stat(f, false) == 3);
}

TEST_CASE("a corrupt stored sorted set replies an error, not a crash") {
  CommandFixture f;
  OnOwner(f, "z", [](Store& store) {
    REQUIRE(store.Put("z", std::string("\x01\x05", 2), ValueType::kZSet, 0).ok());
  });
  CHECK(f.Run({"ZSCORE", "z", "a"}).rfind("-ERR Corruption: zset:", 0) == 0);
  CHECK(f.Run({"ZCARD", "z"}).rfind("-ERR Corruption: zset:", 0) == 0);
  CHECK(f.Run({"ZADD", "z", "1", "a"}).rfind("-ERR Corruption: zset:", 0) == 0);
}

TEST_CASE("a sorted set of 20k members: ZADD in batches, ZCARD, ZRANK, ZREM, ZPOPMAX") {
  CommandFixture f;
  for (int batch = 0; batch < 20; ++batch) {
    std::vector<std::string> cmd = {"ZADD", "big"};
    for (int i = 0; i < 1000; ++i) {
      const int n = batch * 1000 + i;
      cmd.push_back(std::to_string(n));
      cmd.push_back("m" + std::to_string(n));
    }
    CHECK(f.Run(cmd) == Int(1000));
  }
  CHECK(f.Run({"ZCARD", "big"}) == Int(20000));
  CHECK(f.Run({"ZRANK", "big", "m12345"}) == Int(12345));
  CHECK(f.Run({"ZREVRANK", "big", "m12345"}) == Int(7654));
  CHECK(f.Run({"ZREM", "big", "m0", "m19999", "nope"}) == Int(2));
  CHECK(f.Run({"ZPOPMAX", "big"}) == Arr({"m19998", "19998"}));
  CHECK(f.Run({"ZCARD", "big"}) == Int(19997));
  CHECK(f.Run({"ZRANDMEMBER", "big", "-5000"}).rfind("*5000\r\n", 0) == 0);
}

TEST_CASE("sorted-set commands are registered as Redis 7.0 lists them") {
  CommandFixture f;
  const CommandSpec* zadd = f.state().table->Find("zadd");
  REQUIRE(zadd != nullptr);
  CHECK(zadd->arity == -4);
  CHECK(zadd->group == "sorted-set");
  CHECK(zadd->acl == "write sortedset fast");
  const CommandSpec* scan = f.state().table->Find("zscan");
  REQUIRE(scan != nullptr);
  CHECK(scan->flags == kReadOnly);
  CHECK(scan->since == "2.8.0");
  CHECK(f.Run({"ZINCRBY", "z", "1"}) == Err("ERR wrong number of arguments for 'zincrby' command"));
}

}  // namespace
}  // namespace slotkv::command
