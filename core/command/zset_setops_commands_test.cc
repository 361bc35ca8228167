#include <doctest/doctest.h>

#include <functional>
#include <future>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/command/command_test_util.h"
#include "core/types/zset_value.h"

namespace slotkv::command {
namespace {

const std::string kNullArray = "*-1\r\n";
const double kInf = std::numeric_limits<double>::infinity();

// An array reply of bulk strings (RESP2 WITHSCORES: member, score, member, score ...).
std::string Bulks(const std::vector<std::string>& items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const std::string& s : items) out += Bulk(s);
  return out;
}

// Runs fn(store) on the owner of key's slot (database 0) and commits, as a command would.
void OnOwner(CommandFixture& f, const std::string& key, const std::function<void(Store&)>& fn) {
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

// Stores a sorted set of (score, member) entries under key, written directly (no ZADD), so
// these tests need only this file's commands.
void Put(CommandFixture& f, const std::string& key,
         const std::vector<std::pair<double, std::string>>& entries) {
  ZSetValue zset;
  for (const auto& [score, member] : entries) zset.Set(member, score);
  OnOwner(f, key,
          [&](Store& store) { REQUIRE(store.Put(key, zset.Encode(), ValueType::kZSet, 0).ok()); });
}

// A key named prefix + n in another slot than other, whose owner is (or is not) other's owner.
std::string KeyOn(CommandFixture& f, const std::string& prefix, const std::string& other,
                  bool same_worker) {
  ServerState& s = f.state();
  const uint32_t other_slot = s.keyspace->SlotOfKey(other);
  const int owner = s.executor->OwnerOf(other_slot);
  for (int n = 0;; ++n) {
    std::string key = prefix + std::to_string(n);
    const uint32_t slot = s.keyspace->SlotOfKey(key);
    if ((s.executor->OwnerOf(slot) == owner) == same_worker && slot != other_slot) return key;
  }
}

// The whole sorted set at key with scores, read back through ZUNION.
std::string Dump(CommandFixture& f, const std::string& key) {
  return f.Run({"ZUNION", "1", key, "WITHSCORES"});
}

int64_t Stat(CommandFixture& f, bool hits) {
  int64_t n = 0;
  for (auto& s : *f.state().stats) {
    n += WorkerStats::Get(hits ? s->keyspace_hits : s->keyspace_misses);
  }
  return n;
}

TEST_CASE("ZUNION, ZINTER and ZDIFF over sorted sets, plain sets and missing keys") {
  CommandFixture f;
  const std::string a = "a";
  const std::string b = KeyOn(f, "b", a, false);
  const std::string s = KeyOn(f, "s", a, true);
  Put(f, a, {{1, "x"}, {2, "y"}, {3, "z"}});
  Put(f, b, {{10, "y"}, {20, "z"}, {30, "w"}});
  f.Run({"SADD", s, "z", "w", "v"});
  CHECK(f.Run({"ZUNION", "2", a, b}) == Bulks({"x", "y", "z", "w"}));
  CHECK(f.Run({"ZUNION", "3", a, b, "nokey", "WITHSCORES"}) ==
        Bulks({"x", "1", "y", "12", "z", "23", "w", "30"}));
  CHECK(f.Run({"ZUNION", "2", a, s, "WITHSCORES"}) ==
        Bulks({"v", "1", "w", "1", "x", "1", "y", "2", "z", "4"}));
  CHECK(f.Run({"ZINTER", "3", a, b, s, "withscores"}) == Bulks({"z", "24"}));
  CHECK(f.Run({"ZINTER", "2", a, "nokey"}) == Bulks({}));
  CHECK(f.Run({"ZDIFF", "2", a, b, "WITHSCORES"}) == Bulks({"x", "1"}));
  CHECK(f.Run({"ZDIFF", "2", s, a, "WITHSCORES"}) == Bulks({"v", "1", "w", "1"}));
  CHECK(f.Run({"ZDIFF", "2", "nokey", a}) == Bulks({}));
  CHECK(f.Run({"ZDIFF", "2", a, a}) == Bulks({}));
  CHECK(f.Run({"ZINTER", "3", a, a, a, "WITHSCORES"}) == Bulks({"x", "3", "y", "6", "z", "9"}));
}

TEST_CASE("WEIGHTS and AGGREGATE; options repeat, the last one winning") {
  CommandFixture f;
  Put(f, "{t}a", {{1, "x"}, {2, "y"}});
  Put(f, "{t}b", {{5, "y"}, {-1, "z"}});
  CHECK(f.Run({"ZUNION", "2", "{t}a", "{t}b", "WEIGHTS", "2", "0.5", "WITHSCORES"}) ==
        Bulks({"z", "-0.5", "x", "2", "y", "6.5"}));
  CHECK(f.Run({"ZUNION", "2", "{t}a", "{t}b", "AGGREGATE", "min", "WITHSCORES"}) ==
        Bulks({"z", "-1", "x", "1", "y", "2"}));
  CHECK(f.Run({"ZINTER", "2", "{t}a", "{t}b", "AGGREGATE", "MAX", "WITHSCORES"}) ==
        Bulks({"y", "5"}));
  CHECK(f.Run({"ZUNION", "1", "{t}a", "WEIGHTS", "2", "WEIGHTS", "3", "AGGREGATE", "MIN",
               "AGGREGATE", "SUM", "WITHSCORES", "WITHSCORES"}) == Bulks({"x", "3", "y", "6"}));
  CHECK(f.Run({"ZUNION", "1", "{t}a", "WEIGHTS", "0x10", "WITHSCORES"}) ==
        Bulks({"x", "16", "y", "32"}));
  CHECK(f.Run({"ZUNION", "1", "{t}a", "WEIGHTS", "-inf", "WITHSCORES"}) ==
        Bulks({"x", "-inf", "y", "-inf"}));
}

TEST_CASE("NaN scores count as 0 exactly where Redis clears them") {
  CommandFixture f;
  Put(f, "{t}p", {{1, "a"}, {kInf, "b"}, {-kInf, "c"}, {5, "d"}});
  Put(f, "{t}q", {{2, "a"}, {kInf, "b"}, {kInf, "c"}, {0, "d"}});
  Put(f, "{t}five", {{5, "x"}});
  Put(f, "{t}inf", {{kInf, "x"}});
  // inf + -inf is 0.
  CHECK(f.Run({"ZUNION", "2", "{t}p", "{t}q", "WITHSCORES"}) ==
        Bulks({"c", "0", "a", "3", "d", "5", "b", "inf"}));
  // A weighted inf * 0 counts as 0 in a union.
  CHECK(f.Run({"ZUNION", "1", "{t}p", "WEIGHTS", "0", "WITHSCORES"}) ==
        Bulks({"a", "0", "b", "0", "c", "0", "d", "0"}));
  CHECK(f.Run({"ZUNION", "2", "{t}five", "{t}inf", "WEIGHTS", "1", "0", "AGGREGATE", "MIN",
               "WITHSCORES"}) == Bulks({"x", "0"}));
  // In an intersection only the first input's NaN is cleared: a later one zeroes a SUM and
  // leaves MIN and MAX alone.
  CHECK(f.Run({"ZINTER", "2", "{t}five", "{t}inf", "WEIGHTS", "1", "0", "WITHSCORES"}) ==
        Bulks({"x", "0"}));
  CHECK(f.Run({"ZINTER", "2", "{t}inf", "{t}five", "WEIGHTS", "0", "1", "WITHSCORES"}) ==
        Bulks({"x", "5"}));
  CHECK(f.Run({"ZINTER", "2", "{t}five", "{t}inf", "WEIGHTS", "1", "0", "AGGREGATE", "MIN",
               "WITHSCORES"}) == Bulks({"x", "5"}));
  CHECK(f.Run({"ZINTER", "2", "{t}five", "{t}inf", "WEIGHTS", "1", "0", "AGGREGATE", "MAX",
               "WITHSCORES"}) == Bulks({"x", "5"}));
}

TEST_CASE("inputs are combined smallest first, as Redis sums them") {
  CommandFixture f;
  const std::string big = "big";
  const std::string s1 = KeyOn(f, "s1-", big, false);
  const std::string s2 = KeyOn(f, "s2-", big, true);
  Put(f, big, {{1e16, "a"}, {0, "p"}, {0, "q"}});
  Put(f, s1, {{1, "a"}});
  Put(f, s2, {{1, "a"}, {0, "r"}});
  // (1 + 1) + 1e16, not (1e16 + 1) + 1, which rounds to 1e16.
  CHECK(f.Run({"ZINTER", "3", big, s1, s2, "WITHSCORES"}) == Bulks({"a", "10000000000000002"}));
  CHECK(f.Run({"ZUNION", "3", big, s1, s2, "WITHSCORES"}) ==
        Bulks({"p", "0", "q", "0", "r", "0", "a", "10000000000000002"}));
}

TEST_CASE("ZINTERCARD counts the intersection, stopping at LIMIT") {
  CommandFixture f;
  const std::string a = "a";
  const std::string b = KeyOn(f, "b", a, false);
  Put(f, a, {{1, "x"}, {2, "y"}, {3, "z"}});
  f.Run({"SADD", b, "x", "y", "z", "w"});
  CHECK(f.Run({"ZINTERCARD", "2", a, b}) == Int(3));
  CHECK(f.Run({"ZINTERCARD", "2", a, b, "LIMIT", "2"}) == Int(2));
  CHECK(f.Run({"ZINTERCARD", "2", a, b, "LIMIT", "0"}) == Int(3));
  CHECK(f.Run({"ZINTERCARD", "2", a, b, "LIMIT", "1", "limit", "5"}) == Int(3));
  CHECK(f.Run({"ZINTERCARD", "2", a, "nokey"}) == Int(0));
  CHECK(f.Run({"ZINTERCARD", "0", a}) ==
        Err("ERR at least 1 input key is needed for 'zintercard' command"));
  CHECK(f.Run({"ZINTERCARD", "3", a, b}) == kSyntax);
  CHECK(f.Run({"ZINTERCARD", "1", a, "LIMIT", "-1"}) == Err("ERR LIMIT can't be negative"));
  CHECK(f.Run({"ZINTERCARD", "1", a, "LIMIT", "x"}) == Err("ERR LIMIT can't be negative"));
  CHECK(f.Run({"ZINTERCARD", "1", a, "LIMIT"}) == kSyntax);
  CHECK(f.Run({"ZINTERCARD", "1", a, "WITHSCORES"}) == kSyntax);
  CHECK(f.Run({"ZINTERCARD", "2", a, b, "WEIGHTS", "1", "1"}) == kSyntax);
}

TEST_CASE("argument errors in Redis's order: numkeys, then the sources, then the options") {
  CommandFixture f;
  Put(f, "{t}z", {{1, "x"}});
  f.Run({"SET", "{t}str", "v"});
  CHECK(f.Run({"ZUNION", "0", "{t}z"}) ==
        Err("ERR at least 1 input key is needed for 'zunion' command"));
  CHECK(f.Run({"zinter", "-1", "{t}z"}) ==
        Err("ERR at least 1 input key is needed for 'zinter' command"));
  CHECK(f.Run({"ZDIFFSTORE", "d", "0", "{t}z"}) ==
        Err("ERR at least 1 input key is needed for 'zdiffstore' command"));
  CHECK(f.Run({"ZUNION", "x", "{t}z"}) == kNotInt);
  CHECK(f.Run({"ZUNION", "99999999999999999999", "{t}z"}) == kNotInt);
  CHECK(f.Run({"ZUNION", "2", "{t}z"}) == kSyntax);
  CHECK(f.Run({"ZUNION", "2", "{t}z", "{t}str", "WEIGHTS", "1", "x"}) == kWrongType);
  CHECK(f.Run({"ZUNIONSTORE", "{t}d", "1", "{t}str", "AGGREGATE", "bad"}) == kWrongType);
  CHECK(f.Run({"ZUNION", "1", "{t}z", "WEIGHTS", "x"}) == Err("ERR weight value is not a float"));
  CHECK(f.Run({"ZUNION", "1", "{t}z", "WEIGHTS", "nan"}) == Err("ERR weight value is not a float"));
  CHECK(f.Run({"ZUNION", "1", "{t}z", "WEIGHTS", "1e400"}) ==
        Err("ERR weight value is not a float"));
  CHECK(f.Run({"ZUNION", "2", "{t}z", "{t}z", "WEIGHTS", "1"}) == kSyntax);
  CHECK(f.Run({"ZUNION", "1", "{t}z", "WEIGHTS", "1", "2"}) == kSyntax);
  CHECK(f.Run({"ZUNION", "1", "{t}z", "AGGREGATE", "AVG"}) == kSyntax);
  CHECK(f.Run({"ZUNION", "1", "{t}z", "AGGREGATE"}) == kSyntax);
  CHECK(f.Run({"ZUNION", "1", "{t}z", "AGGREGATE", "bad", "WEIGHTS", "x"}) == kSyntax);
  CHECK(f.Run({"ZDIFF", "1", "{t}z", "WEIGHTS", "1"}) == kSyntax);
  CHECK(f.Run({"ZDIFF", "1", "{t}z", "AGGREGATE", "SUM"}) == kSyntax);
  CHECK(f.Run({"ZINTERSTORE", "{t}d", "1", "{t}z", "WITHSCORES"}) == kSyntax);
  CHECK(f.Run({"EXISTS", "{t}d"}) == Int(0));
  CHECK(f.Run({"ZUNION", "2", "{t}z", "nokey", "WEIGHTS", "1", "x"}) ==
        Err("ERR weight value is not a float"));
}

TEST_CASE("*STORE writes the destination on its owner, without TTL; empty deletes it") {
  CommandFixture f;
  const std::string a = "a";
  const std::string b = KeyOn(f, "b", a, false);
  const std::string d = KeyOn(f, "d", a, false);
  Put(f, a, {{1, "x"}, {2, "y"}});
  Put(f, b, {{3, "y"}, {4, "z"}});
  f.Run({"SET", d, "old", "EX", "100"});
  CHECK(f.Run({"ZUNIONSTORE", d, "2", a, b}) == Int(3));
  CHECK(f.Run({"TTL", d}) == Int(-1));
  CHECK(f.Run({"TYPE", d}) == "+zset\r\n");
  CHECK(Dump(f, d) == Bulks({"x", "1", "z", "4", "y", "5"}));
  CHECK(f.Run({"ZINTERSTORE", d, "2", a, b, "WEIGHTS", "2", "3", "AGGREGATE", "MIN"}) == Int(1));
  CHECK(Dump(f, d) == Bulks({"y", "4"}));
  CHECK(f.Run({"ZDIFFSTORE", d, "2", a, b}) == Int(1));
  CHECK(Dump(f, d) == Bulks({"x", "1"}));
  // The destination may be a source.
  CHECK(f.Run({"ZUNIONSTORE", a, "2", a, b, "AGGREGATE", "MAX"}) == Int(3));
  CHECK(Dump(f, a) == Bulks({"x", "1", "y", "3", "z", "4"}));
  CHECK(f.Run({"ZINTERSTORE", d, "2", a, "nokey"}) == Int(0));
  CHECK(f.Run({"EXISTS", d}) == Int(0));
}

TEST_CASE("*STORE with every key in one slot runs in one step") {
  CommandFixture f;
  Put(f, "{t}a", {{1, "x"}, {2, "y"}});
  f.Run({"SADD", "{t}s", "y"});
  f.Run({"SET", "{t}d", "v", "EX", "100"});
  CHECK(f.Run({"ZINTERSTORE", "{t}d", "2", "{t}a", "{t}s"}) == Int(1));
  CHECK(f.Run({"TTL", "{t}d"}) == Int(-1));
  CHECK(Dump(f, "{t}d") == Bulks({"y", "3"}));
  CHECK(f.Run({"ZDIFFSTORE", "{t}d", "2", "{t}s", "{t}a"}) == Int(0));
  CHECK(f.Run({"EXISTS", "{t}d"}) == Int(0));
  CHECK(f.Run({"ZUNIONSTORE", "{t}d", "1", "{t}nokey"}) == Int(0));
}

TEST_CASE("a small stored result holds 0 where a listpack would not keep -0") {
  CommandFixture f;
  Put(f, "{t}a", {{1, "x"}, {5, "y"}});
  CHECK(f.Run({"ZUNION", "1", "{t}a", "WEIGHTS", "-0", "WITHSCORES"}) ==
        Bulks({"x", "-0", "y", "-0"}));
  CHECK(f.Run({"ZUNIONSTORE", "{t}d", "1", "{t}a", "WEIGHTS", "-0"}) == Int(2));
  CHECK(Dump(f, "{t}d") == Bulks({"x", "0", "y", "0"}));
  std::vector<std::pair<double, std::string>> many;
  for (int i = 0; i < 129; ++i) many.emplace_back(1, "m" + std::to_string(i));
  Put(f, "{t}big", many);
  CHECK(f.Run({"ZUNIONSTORE", "{t}d", "1", "{t}big", "WEIGHTS", "-0"}) == Int(129));
  CHECK(f.Run({"ZDIFF", "1", "{t}d", "WITHSCORES"}).find("$2\r\n-0\r\n") != std::string::npos);
}

TEST_CASE("RESP3 WITHSCORES replies [member, score] pairs of doubles") {
  CommandFixture f;
  Put(f, "{t}a", {{1.5, "x"}, {kInf, "y"}});
  f.client().protocol = 3;
  CHECK(f.Run({"ZUNION", "1", "{t}a", "WITHSCORES"}) ==
        "*2\r\n*2\r\n$1\r\nx\r\n,1.5\r\n*2\r\n$1\r\ny\r\n,inf\r\n");
  CHECK(f.Run({"ZDIFF", "1", "{t}a"}) == Bulks({"x", "y"}));
  CHECK(f.Run({"ZMPOP", "1", "{t}a", "MAX"}) ==
        "*2\r\n$4\r\n{t}a\r\n*1\r\n*2\r\n$1\r\ny\r\n,inf\r\n");
  CHECK(f.Run({"ZMPOP", "1", "{t}nokey", "MAX"}) == "_\r\n");
}

TEST_CASE("ZMPOP pops from the first non-empty sorted set, each key on its owner") {
  CommandFixture f;
  const std::string x = "x";
  const std::string y = KeyOn(f, "y", x, false);
  CHECK(f.Run({"ZMPOP", "2", x, y, "MIN"}) == kNullArray);
  Put(f, y, {{1, "a"}, {2, "b"}, {3, "c"}});
  f.Run({"EXPIRE", y, "100"});
  CHECK(f.Run({"ZMPOP", "2", x, y, "max", "COUNT", "2"}) ==
        "*2\r\n" + Bulk(y) + "*2\r\n" + Bulks({"c", "3"}) + Bulks({"b", "2"}));
  CHECK(f.Run({"TTL", y}) == Int(100));
  CHECK(f.Run({"ZMPOP", "1", y, "MIN", "COUNT", "5"}) ==
        "*2\r\n" + Bulk(y) + "*1\r\n" + Bulks({"a", "1"}));
  CHECK(f.Run({"EXISTS", y}) == Int(0));
  Put(f, "{t}b", {{7, "m"}});
  CHECK(f.Run({"ZMPOP", "2", "{t}a", "{t}b", "MIN"}) ==
        "*2\r\n" + Bulk("{t}b") + "*1\r\n" + Bulks({"m", "7"}));
  f.Run({"SET", x, "v"});
  Put(f, y, {{1, "a"}});
  CHECK(f.Run({"ZMPOP", "2", x, y, "MIN"}) == kWrongType);
  CHECK(f.Run({"ZMPOP", "2", "nokey", y, "MIN"}) ==
        "*2\r\n" + Bulk(y) + "*1\r\n" + Bulks({"a", "1"}));
}

TEST_CASE("ZMPOP argument errors come before any key") {
  CommandFixture f;
  f.Run({"SET", "str", "v"});
  const std::string kNumKeys = Err("ERR numkeys should be greater than 0");
  CHECK(f.Run({"ZMPOP", "0", "str", "MIN"}) == kNumKeys);
  CHECK(f.Run({"ZMPOP", "x", "str", "MIN"}) == kNumKeys);
  CHECK(f.Run({"ZMPOP", "-1", "str", "MIN"}) == kNumKeys);
  CHECK(f.Run({"ZMPOP", "2", "str", "MIN"}) == kSyntax);
  CHECK(f.Run({"ZMPOP", "1", "str", "UP"}) == kSyntax);
  const std::string kCount = Err("ERR count should be greater than 0");
  CHECK(f.Run({"ZMPOP", "1", "str", "MIN", "COUNT", "0"}) == kCount);
  CHECK(f.Run({"ZMPOP", "1", "str", "MIN", "COUNT", "x"}) == kCount);
  CHECK(f.Run({"ZMPOP", "1", "str", "MIN", "COUNT"}) == kSyntax);
  CHECK(f.Run({"ZMPOP", "1", "str", "MIN", "COUNT", "1", "COUNT", "1"}) == kSyntax);
  CHECK(f.Run({"ZMPOP", "1", "str", "MIN", "COUNT", "1"}) == kWrongType);
}

TEST_CASE("a corrupt source is an error reply, not a crash") {
  CommandFixture f;
  OnOwner(f, "bad", [](Store& store) {
    REQUIRE(store.Put("bad", std::string("\x01\x05", 2), ValueType::kZSet, 0).ok());
  });
  CHECK(f.Run({"ZUNION", "1", "bad"}).rfind("-ERR Corruption:", 0) == 0);
  CHECK(f.Run({"ZINTERCARD", "2", "nokey", "bad"}).rfind("-ERR Corruption:", 0) == 0);
  CHECK(f.Run({"ZMPOP", "1", "bad", "MIN"}).rfind("-ERR Corruption:", 0) == 0);
}

TEST_CASE("source lookups count keyspace hits and misses, ZMPOP's do not") {
  CommandFixture f;
  Put(f, "z", {{1, "x"}, {2, "y"}});
  const int64_t hits = Stat(f, true);
  const int64_t misses = Stat(f, false);
  f.Run({"ZUNION", "2", "z", "nokey"});
  f.Run({"ZUNIONSTORE", "d", "2", "z", "nokey"});
  f.Run({"ZINTERCARD", "1", "z"});
  f.Run({"ZMPOP", "2", "nokey", "z", "MIN"});
  CHECK(Stat(f, true) == hits + 3);
  CHECK(Stat(f, false) == misses + 2);
}

TEST_CASE("set operation commands are registered as Redis 7.0 lists them") {
  CommandFixture f;
  const CommandTable& table = *f.state().table;
  for (const char* name : {"zunion", "zinter", "zdiff", "zintercard"}) {
    const CommandSpec* spec = table.Find(name);
    REQUIRE(spec != nullptr);
    CHECK(spec->arity == -3);
    CHECK(spec->flags == kReadOnly);
    CHECK(spec->first_key == 0);
  }
  for (const char* name : {"zunionstore", "zinterstore", "zdiffstore"}) {
    const CommandSpec* spec = table.Find(name);
    REQUIRE(spec != nullptr);
    CHECK(spec->arity == -4);
    CHECK(spec->first_key == 1);
    CHECK(spec->last_key == 1);
  }
  const CommandSpec* zmpop = table.Find("zmpop");
  REQUIRE(zmpop != nullptr);
  CHECK(zmpop->flags == kWrite);
  CHECK(zmpop->since == "7.0.0");
  CHECK(f.Run({"ZUNIONSTORE", "d", "1"}) ==
        Err("ERR wrong number of arguments for 'zunionstore' command"));
}

}  // namespace
}  // namespace slotkv::command
