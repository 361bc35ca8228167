#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "core/command/command_test_util.h"
#include "core/types/set_value.h"

namespace slotkv::command {
namespace {

// The bulk strings of a flat array or set reply ("*n" / "~n" then n bulks), sorted; fails the
// test on anything else.
std::vector<std::string> Members(const std::string& reply) {
  std::vector<std::string> out;
  REQUIRE(!reply.empty());
  REQUIRE((reply[0] == '*' || reply[0] == '~'));
  size_t pos = reply.find("\r\n");
  const size_t n = std::stoul(reply.substr(1, pos - 1));
  pos += 2;
  for (size_t i = 0; i < n; ++i) {
    REQUIRE(reply[pos] == '$');
    size_t eol = reply.find("\r\n", pos);
    const size_t len = std::stoul(reply.substr(pos + 1, eol - pos - 1));
    out.push_back(reply.substr(eol + 2, len));
    pos = eol + 2 + len + 2;
  }
  CHECK(pos == reply.size());
  std::sort(out.begin(), out.end());
  return out;
}

using V = std::vector<std::string>;

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

// The key's absolute expiry in ms: 0 = none, -2 = no such key.
int64_t ExpireAt(CommandFixture& f, const std::string& key) {
  int64_t at = -2;
  OnOwner(f, key, [&](Store& store) {
    Result<std::optional<slot::KeyMeta>> m = store.GetMeta(key);
    REQUIRE(m.ok());
    if (m->has_value()) at = (*m)->expire_at_ms;
  });
  return at;
}

// A key named prefix + n whose slot's owner is (or is not) the owner of other's slot.
std::string KeyOn(CommandFixture& f, const std::string& prefix, const std::string& other,
                  bool same_worker) {
  ServerState& s = f.state();
  const int owner = s.executor->OwnerOf(s.keyspace->SlotOfKey(other));
  for (int n = 0;; ++n) {
    std::string key = prefix + std::to_string(n);
    const bool same = s.executor->OwnerOf(s.keyspace->SlotOfKey(key)) == owner;
    if (same == same_worker && s.keyspace->SlotOfKey(key) != s.keyspace->SlotOfKey(other)) {
      return key;
    }
  }
}

int64_t Stat(CommandFixture& f, bool hits) {
  int64_t n = 0;
  for (auto& s : *f.state().stats) {
    n += WorkerStats::Get(hits ? s->keyspace_hits : s->keyspace_misses);
  }
  return n;
}

TEST_CASE("SADD counts new members, SREM removed ones, an emptied set is deleted") {
  CommandFixture f;
  CHECK(f.Run({"SADD", "s", "a", "b", "a"}) == Int(2));
  CHECK(f.Run({"SADD", "s", "b", "c"}) == Int(1));
  CHECK(f.Run({"SCARD", "s"}) == Int(3));
  CHECK(f.Run({"TYPE", "s"}) == "+set\r\n");
  CHECK(f.Run({"SREM", "s", "a", "zz"}) == Int(1));
  CHECK(f.Run({"SREM", "nokey", "a"}) == Int(0));
  CHECK(f.Run({"SREM", "s", "b", "c"}) == Int(2));
  CHECK(f.Run({"EXISTS", "s"}) == Int(0));
  CHECK(f.Run({"SCARD", "s"}) == Int(0));
}

TEST_CASE("SISMEMBER, SMISMEMBER and SMEMBERS") {
  CommandFixture f;
  f.Run({"SADD", "s", "a", ""});
  CHECK(f.Run({"SISMEMBER", "s", ""}) == Int(1));
  CHECK(f.Run({"SISMEMBER", "s", "x"}) == Int(0));
  CHECK(f.Run({"SISMEMBER", "nokey", "x"}) == Int(0));
  CHECK(f.Run({"SMISMEMBER", "s", "a", "x"}) == "*2\r\n:1\r\n:0\r\n");
  CHECK(f.Run({"SMISMEMBER", "nokey", "a"}) == "*1\r\n:0\r\n");
  CHECK(Members(f.Run({"SMEMBERS", "s"})) == V{"", "a"});
  CHECK(f.Run({"SMEMBERS", "nokey"}) == "*0\r\n");
}

TEST_CASE("set replies are RESP3 sets") {
  CommandFixture f;
  f.client().protocol = 3;
  f.Run({"SADD", "s", "a"});
  CHECK(f.Run({"SMEMBERS", "s"}) == "~1\r\n$1\r\na\r\n");
  CHECK(f.Run({"SMEMBERS", "nokey"}) == "~0\r\n");
  CHECK(f.Run({"SUNION", "s", "nokey"}) == "~1\r\n$1\r\na\r\n");
  CHECK(f.Run({"SPOP", "nokey", "1"}) == "~0\r\n");
  CHECK(f.Run({"SPOP", "nokey"}) == "_\r\n");
  CHECK(f.Run({"SRANDMEMBER", "s", "5"}) == "*1\r\n$1\r\na\r\n");
}

TEST_CASE("WRONGTYPE against a string key, and the string survives") {
  CommandFixture f;
  f.Run({"SET", "str", "v"});
  f.Run({"SADD", "s", "a"});
  for (const std::vector<std::string>& cmd :
       std::vector<std::vector<std::string>>{{"SADD", "str", "a"},
                                             {"SREM", "str", "a"},
                                             {"SCARD", "str"},
                                             {"SISMEMBER", "str", "a"},
                                             {"SMISMEMBER", "str", "a"},
                                             {"SMEMBERS", "str"},
                                             {"SRANDMEMBER", "str"},
                                             {"SPOP", "str", "1"},
                                             {"SSCAN", "str", "0"},
                                             {"SUNION", "nokey", "str"},
                                             {"SINTER", "nokey", "str"},
                                             {"SDIFF", "s", "str"},
                                             {"SINTERCARD", "2", "nokey", "str"},
                                             {"SUNIONSTORE", "d", "s", "str"},
                                             {"SMOVE", "s", "str", "a"},
                                             {"SMOVE", "str", "s", "a"}}) {
    CHECK_MESSAGE(f.Run(cmd) == kWrongType, cmd[0]);
  }
  CHECK(f.Run({"GET", "str"}) == "$1\r\nv\r\n");
  CHECK(f.Run({"SMOVE", "nokey", "str", "a"}) == Int(0));  // a missing source comes first
}

TEST_CASE("a corrupt set value is an error reply, not a crash") {
  CommandFixture f;
  OnOwner(f, "bad", [](Store& store) {
    REQUIRE(store.Put("bad", std::string("\x01\x05", 2), ValueType::kSet, 0).ok());
  });
  CHECK(f.Run({"SMEMBERS", "bad"}).rfind("-ERR Corruption: set:", 0) == 0);
  CHECK(f.Run({"SCARD", "bad"}).rfind("-ERR Corruption: set:", 0) == 0);
  CHECK(f.Run({"SADD", "bad", "x"}).rfind("-ERR Corruption: set:", 0) == 0);
}

TEST_CASE("SRANDMEMBER counts: distinct, whole set, repeats; errors") {
  CommandFixture f;
  CHECK(f.Run({"SRANDMEMBER", "nokey"}) == kNull);
  CHECK(f.Run({"SRANDMEMBER", "nokey", "-2"}) == "*0\r\n");
  f.Run({"SADD", "s", "a", "b", "c", "d"});
  std::vector<std::string> two = Members(f.Run({"SRANDMEMBER", "s", "2"}));
  CHECK(two.size() == 2);
  CHECK(std::set<std::string>(two.begin(), two.end()).size() == 2);
  CHECK(Members(f.Run({"SRANDMEMBER", "s", "9"})) == V{"a", "b", "c", "d"});
  CHECK(Members(f.Run({"SRANDMEMBER", "s", "-9"})).size() == 9);
  CHECK(f.Run({"SRANDMEMBER", "s", "0"}) == "*0\r\n");
  CHECK(f.Run({"SRANDMEMBER", "s", "x"}) == kNotInt);
  CHECK(f.Run({"SRANDMEMBER", "s", "1", "2"}) == kSyntax);
  CHECK(f.Run({"SRANDMEMBER", "s", "-9223372036854775808"}) ==
        Err("ERR value is out of range, value must between -9223372036854775807 and "
            "9223372036854775807"));
  // Redis would stream this reply; slotkv builds replies in memory and refuses past 1 GB.
  CHECK(f.Run({"SRANDMEMBER", "s", "-9223372036854775807"}) ==
        Err("ERR value is out of range (the reply would exceed 1 GB)"));
  CHECK(f.Run({"SCARD", "s"}) == Int(4));
}

TEST_CASE("SPOP removes what it replies and keeps the TTL") {
  CommandFixture f;
  f.Run({"SADD", "s", "a", "b", "c", "d"});
  f.Run({"EXPIRE", "s", "100"});
  const int64_t at = ExpireAt(f, "s");
  CHECK(at > 0);
  std::vector<std::string> popped = Members(f.Run({"SPOP", "s", "2"}));
  CHECK(popped.size() == 2);
  for (const std::string& m : popped) CHECK(f.Run({"SISMEMBER", "s", m}) == Int(0));
  CHECK(f.Run({"SCARD", "s"}) == Int(2));
  CHECK(ExpireAt(f, "s") == at);
  CHECK(f.Run({"SPOP", "s"}).rfind("$1\r\n", 0) == 0);
  CHECK(f.Run({"SPOP", "s", "5"}).rfind("*1\r\n", 0) == 0);
  CHECK(f.Run({"EXISTS", "s"}) == Int(0));
  CHECK(f.Run({"SPOP", "s", "-1"}) == Err("ERR value is out of range, must be positive"));
  CHECK(f.Run({"SPOP", "s", "x"}) == Err("ERR value is out of range, must be positive"));
  CHECK(f.Run({"SPOP", "s", "1", "2"}) == kSyntax);
}

TEST_CASE("SSCAN replies every matching member with cursor 0") {
  CommandFixture f;
  f.Run({"SADD", "s", "k1", "k2", "x"});
  CHECK(
      f.Run({"SSCAN", "s", "0", "MATCH", "k*", "COUNT", "1"}).rfind("*2\r\n$1\r\n0\r\n*2\r\n", 0) ==
      0);
  CHECK(f.Run({"SSCAN", "nokey", "0", "COUNT", "0"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.Run({"SSCAN", "s", "x"}) == Err("ERR invalid cursor"));
  CHECK(f.Run({"SSCAN", "s", "0", "COUNT", "0"}) == kSyntax);
  CHECK(f.Run({"SSCAN", "s", "0", "COUNT", "y"}) == kNotInt);
  CHECK(f.Run({"SSCAN", "s", "0", "TYPE", "set"}) == kSyntax);
}

TEST_CASE("SUNION, SINTER, SDIFF and SINTERCARD across workers") {
  CommandFixture f;
  const std::string a = "a";
  const std::string b = KeyOn(f, "b", a, false);
  const std::string c = KeyOn(f, "c", a, true);
  f.Run({"SADD", a, "1", "2", "3"});
  f.Run({"SADD", b, "2", "3", "4"});
  f.Run({"SADD", c, "3", "5"});
  CHECK(Members(f.Run({"SUNION", a, b, c, "nokey"})) == V{"1", "2", "3", "4", "5"});
  CHECK(Members(f.Run({"SINTER", a, b, c})) == V{"3"});
  CHECK(Members(f.Run({"SINTER", a, b, "nokey"})) == V{});
  CHECK(Members(f.Run({"SDIFF", a, b})) == V{"1"});
  CHECK(Members(f.Run({"SDIFF", "nokey", a})) == V{});
  CHECK(f.Run({"SINTERCARD", "2", a, b}) == Int(2));
  CHECK(f.Run({"SINTERCARD", "2", a, b, "LIMIT", "1"}) == Int(1));
  CHECK(f.Run({"SINTERCARD", "0", a}) == Err("ERR numkeys should be greater than 0"));
  CHECK(f.Run({"SINTERCARD", "3", a, b}) ==
        Err("ERR Number of keys can't be greater than number of args"));
  CHECK(f.Run({"SINTERCARD", "1", a, "LIMIT", "-1"}) == Err("ERR LIMIT can't be negative"));
  CHECK(f.Run({"SINTERCARD", "1", a, "LIMIT"}) == kSyntax);
}

TEST_CASE("*STORE writes the destination on its owner, without TTL; empty deletes it") {
  CommandFixture f;
  const std::string a = "a";
  const std::string b = KeyOn(f, "b", a, false);
  const std::string d = KeyOn(f, "d", a, false);
  f.Run({"SADD", a, "1", "2"});
  f.Run({"SADD", b, "2", "3"});
  f.Run({"SET", d, "old", "EX", "100"});
  CHECK(f.Run({"SUNIONSTORE", d, a, b}) == Int(3));
  CHECK(Members(f.Run({"SMEMBERS", d})) == V{"1", "2", "3"});
  CHECK(ExpireAt(f, d) == 0);
  CHECK(f.Run({"SINTERSTORE", d, a, b}) == Int(1));
  CHECK(f.Run({"SDIFFSTORE", d, a, b}) == Int(1));
  CHECK(Members(f.Run({"SMEMBERS", d})) == V{"1"});
  CHECK(f.Run({"SINTERSTORE", d, a, "nokey"}) == Int(0));
  CHECK(f.Run({"EXISTS", d}) == Int(0));
  CHECK(f.Run({"SUNIONSTORE", "{t}d", "{t}1", "{t}2"}) == Int(0));
}

TEST_CASE("SMOVE within a slot and across workers keeps TTLs") {
  CommandFixture f;
  const std::string src = "src";
  const std::string dst = KeyOn(f, "dst", src, false);
  f.Run({"SADD", src, "x", "y"});
  f.Run({"EXPIRE", src, "100"});
  const int64_t at = ExpireAt(f, src);
  CHECK(f.Run({"SMOVE", src, dst, "x"}) == Int(1));
  CHECK(f.Run({"SMOVE", src, dst, "nope"}) == Int(0));
  CHECK(ExpireAt(f, src) == at);
  CHECK(Members(f.Run({"SMEMBERS", dst})) == V{"x"});
  CHECK(f.Run({"SMOVE", src, src, "y"}) == Int(1));
  CHECK(f.Run({"SMOVE", src, dst, "y"}) == Int(1));
  CHECK(f.Run({"EXISTS", src}) == Int(0));
  CHECK(Members(f.Run({"SMEMBERS", dst})) == V{"x", "y"});
  CHECK(f.Run({"SMOVE", "{t}a", "{t}b", "x"}) == Int(0));
  f.Run({"SADD", "{t}a", "x"});
  CHECK(f.Run({"SMOVE", "{t}a", "{t}b", "x"}) == Int(1));
  CHECK(f.Run({"EXISTS", "{t}a"}) == Int(0));
  CHECK(Members(f.Run({"SMEMBERS", "{t}b"})) == V{"x"});
}

TEST_CASE("reads (also the sources of a STORE) count keyspace hits and misses, writes do not") {
  CommandFixture f;
  f.Run({"SADD", "s", "a"});
  const int64_t hits = Stat(f, true);
  const int64_t misses = Stat(f, false);
  f.Run({"SISMEMBER", "s", "a"});
  f.Run({"SCARD", "nokey"});
  f.Run({"SUNION", "s", "nokey"});
  f.Run({"SINTERCARD", "1", "s"});
  f.Run({"SREM", "s", "zz"});
  f.Run({"SUNIONSTORE", "d", "s", "nokey"});  // its sources are read, as Redis
  CHECK(Stat(f, true) == hits + 4);
  CHECK(Stat(f, false) == misses + 3);
}

TEST_CASE("a 100k-member set: SADD in batches, SISMEMBER, SREM") {
  CommandFixture f;
  for (int batch = 0; batch < 10; ++batch) {
    std::vector<std::string> cmd = {"SADD", "big"};
    for (int i = 0; i < 10000; ++i) cmd.push_back("m" + std::to_string(batch * 10000 + i));
    CHECK(f.Run(cmd) == Int(10000));
  }
  CHECK(f.Run({"SCARD", "big"}) == Int(100000));
  CHECK(f.Run({"SISMEMBER", "big", "m99999"}) == Int(1));
  CHECK(f.Run({"SREM", "big", "m0", "m5", "nope"}) == Int(2));
  CHECK(f.Run({"SCARD", "big"}) == Int(99998));
}

TEST_CASE("set commands are registered as Redis 7.0 lists them") {
  CommandFixture f;
  const CommandSpec* smove = f.state().table->Find("smove");
  REQUIRE(smove != nullptr);
  CHECK(smove->arity == 4);
  CHECK(smove->first_key == 1);
  CHECK(smove->last_key == 2);
  const CommandSpec* card = f.state().table->Find("sintercard");
  REQUIRE(card != nullptr);
  CHECK(card->first_key == 0);
  CHECK(card->since == "7.0.0");
  CHECK(f.Run({"SADD", "s"}) == Err("ERR wrong number of arguments for 'sadd' command"));
}

}  // namespace
}  // namespace slotkv::command
