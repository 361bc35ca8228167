#include <doctest/doctest.h>

#include <cstdio>
#include <functional>
#include <future>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

const std::string kNoSuchKey = "-ERR no such key\r\n";
const std::string kSameObject = "-ERR source and destination objects are the same\r\n";
const std::string kDbRange = "-ERR DB index is out of range\r\n";
const std::string kIntRange =
    "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n";
const std::string kNotCompatible =
    "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n";
const std::string kGtLt = "-ERR GT and LT options at the same time are not compatible\r\n";

std::string InvalidExpire(const std::string& cmd) {
  return "-ERR invalid expire time in '" + cmd + "' command\r\n";
}

// Runs fn(store) on the owner of key's slot in database db and commits, as a command would.
// REQUIRES: no Run in progress.
void OnOwner(CommandFixture& f, const std::string& key, std::function<void(Store&)> fn,
             uint32_t db = 0) {
  ServerState& s = f.state();
  const uint32_t slot = s.keyspace->SlotOfKey(key);
  std::promise<Status> done;
  s.executor->Post(s.executor->OwnerOf(slot), [&] {
    Store store(s.keyspace, slot, db, &(*s.dirty)[static_cast<size_t>(s.executor->current())]);
    fn(store);
    done.set_value(s.CommitDirty());
  });
  REQUIRE(done.get_future().get().ok());
}

// Writes key with another type than string (no command of this family makes one).
void PutTyped(CommandFixture& f, const std::string& key, ValueType type, int64_t expire_at = 0) {
  OnOwner(f, key, [&](Store& store) { REQUIRE(store.Put(key, "bytes", type, expire_at).ok()); });
}

// key's stored value and metadata; nullopt when missing.
std::optional<std::pair<std::string, slot::KeyMeta>> Read(CommandFixture& f, const std::string& key,
                                                          uint32_t db = 0) {
  std::optional<std::pair<std::string, slot::KeyMeta>> out;
  OnOwner(
      f, key,
      [&](Store& store) {
        slot::KeyMeta meta;
        Result<std::optional<std::string>> v = store.Get(key, &meta);
        REQUIRE(v.ok());
        if (v->has_value()) out.emplace(**v, meta);
      },
      db);
  return out;
}

uint64_t Sum(CommandFixture& f, std::atomic<uint64_t> WorkerStats::*counter) {
  uint64_t n = 0;
  for (auto& s : *f.state().stats) n += WorkerStats::Get((*s).*counter);
  return n;
}

// ---- DEL UNLINK EXISTS TOUCH TYPE -----------------------------------------------------------

TEST_CASE("DEL and UNLINK count each existing key once") {
  CommandFixture f;
  CHECK(f.Run({"SET", "a", "1"}) == kOk);
  CHECK(f.Run({"SET", "b", "2"}) == kOk);
  CHECK(f.Run({"DEL", "a", "b", "c", "a"}) == Int(2));
  CHECK(f.Run({"DEL", "a"}) == Int(0));
  CHECK(f.Run({"SET", "a", "1"}) == kOk);
  CHECK(f.Run({"UNLINK", "a", "nokey"}) == Int(1));
  CHECK(f.Run({"EXISTS", "a"}) == Int(0));
  CHECK(f.Run({"DEL"}) == Arity("del"));
  CHECK(f.Run({"UNLINK"}) == Arity("unlink"));
}

TEST_CASE("EXISTS and TOUCH count duplicates and keyspace hits and misses") {
  CommandFixture f;
  CHECK(f.Run({"SET", "a", "1"}) == kOk);
  CHECK(f.Run({"SET", "b", "2"}) == kOk);
  const uint64_t hits = Sum(f, &WorkerStats::keyspace_hits);
  const uint64_t misses = Sum(f, &WorkerStats::keyspace_misses);
  CHECK(f.Run({"EXISTS", "a", "a", "b", "nokey", "a"}) == Int(4));
  CHECK(f.Run({"TOUCH", "a", "b", "nokey", "a"}) == Int(3));
  CHECK(Sum(f, &WorkerStats::keyspace_hits) == hits + 7);
  CHECK(Sum(f, &WorkerStats::keyspace_misses) == misses + 2);
  CHECK(f.Run({"TOUCH", "nokey"}) == Int(0));
  CHECK(f.Run({"EXISTS"}) == Arity("exists"));
  CHECK(f.Run({"TOUCH"}) == Arity("touch"));
}

TEST_CASE("TYPE is a status reply, none when missing") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "v"}) == kOk);
  PutTyped(f, "l", ValueType::kList);
  PutTyped(f, "z", ValueType::kZSet);
  CHECK(f.Run({"TYPE", "s"}) == "+string\r\n");
  CHECK(f.Run({"TYPE", "l"}) == "+list\r\n");
  CHECK(f.Run({"TYPE", "z"}) == "+zset\r\n");
  CHECK(f.Run({"TYPE", "nokey"}) == "+none\r\n");
  CHECK(f.Run({"TYPE"}) == Arity("type"));
  CHECK(f.Run({"TYPE", "a", "b"}) == Arity("type"));
}

// ---- EXPIRE family --------------------------------------------------------------------------

TEST_CASE("EXPIRE and PEXPIRE set a TTL that TTL rounds and PTTL gives exactly") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"TTL", "k"}) == Int(-1));
  CHECK(f.Run({"PTTL", "k"}) == Int(-1));
  CHECK(f.Run({"TTL", "nokey"}) == Int(-2));
  CHECK(f.Run({"PTTL", "nokey"}) == Int(-2));
  CHECK(f.Run({"EXPIRE", "k", "100"}) == Int(1));
  CHECK(f.Run({"TTL", "k"}) == Int(100));
  CHECK(f.Run({"PTTL", "k"}) == Int(100000));
  f.clock().AdvanceMs(400);
  CHECK(f.Run({"TTL", "k"}) == Int(100));  // 99.6 s rounds to the nearest second
  CHECK(f.Run({"PTTL", "k"}) == Int(99600));
  f.clock().AdvanceMs(200);
  CHECK(f.Run({"TTL", "k"}) == Int(99));
  CHECK(f.Run({"PEXPIRE", "k", "1500"}) == Int(1));
  CHECK(f.Run({"PTTL", "k"}) == Int(1500));
  CHECK(f.Run({"TTL", "k"}) == Int(2));
  CHECK(f.Run({"EXPIRE", "nokey", "100"}) == Int(0));
  CHECK(f.Run({"GET", "k"}) == Bulk("v"));
}

TEST_CASE("a key is gone once the clock passes its expiry") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"PEXPIRE", "k", "50"}) == Int(1));
  f.clock().AdvanceMs(49);
  CHECK(f.Run({"PTTL", "k"}) == Int(1));
  f.clock().AdvanceMs(1);
  CHECK(f.Run({"PTTL", "k"}) == Int(-2));
  CHECK(f.Run({"TTL", "k"}) == Int(-2));
  CHECK(f.Run({"EXISTS", "k"}) == Int(0));
  CHECK(f.Run({"EXPIRE", "k", "10"}) == Int(0));
}

TEST_CASE("EXPIRE keeps the value and the type") {
  CommandFixture f;
  PutTyped(f, "l", ValueType::kList);
  CHECK(f.Run({"EXPIRE", "l", "10"}) == Int(1));
  auto got = Read(f, "l");
  REQUIRE(got);
  CHECK(got->first == "bytes");
  CHECK(got->second.type == ValueType::kList);
  CHECK(got->second.expire_at_ms == f.clock().NowMs() + 10000);
}

TEST_CASE("EXPIRE NX XX GT LT: no TTL is infinite") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"EXPIRE", "k", "100", "XX"}) == Int(0));
  CHECK(f.Run({"EXPIRE", "k", "100", "GT"}) == Int(0));
  CHECK(f.Run({"TTL", "k"}) == Int(-1));
  CHECK(f.Run({"EXPIRE", "k", "100", "NX"}) == Int(1));
  CHECK(f.Run({"EXPIRE", "k", "200", "nx"}) == Int(0));
  CHECK(f.Run({"EXPIRE", "k", "50", "GT"}) == Int(0));
  CHECK(f.Run({"EXPIRE", "k", "100", "GT"}) == Int(0));  // equal is not greater
  CHECK(f.Run({"EXPIRE", "k", "150", "gt"}) == Int(1));
  CHECK(f.Run({"EXPIRE", "k", "170", "LT"}) == Int(0));
  CHECK(f.Run({"EXPIRE", "k", "150", "LT"}) == Int(0));  // equal is not less
  CHECK(f.Run({"EXPIRE", "k", "120", "LT"}) == Int(1));
  CHECK(f.Run({"EXPIRE", "k", "130", "XX"}) == Int(1));
  CHECK(f.Run({"EXPIRE", "k", "140", "XX", "GT"}) == Int(1));
  CHECK(f.Run({"EXPIRE", "k", "100", "NX", "NX"}) == Int(0));
  CHECK(f.Run({"TTL", "k"}) == Int(140));
  CHECK(f.Run({"SET", "p", "v"}) == kOk);
  CHECK(f.Run({"EXPIRE", "p", "100", "LT"}) == Int(1));  // any TTL is less than none
  CHECK(f.Run({"EXPIRE", "nokey", "100", "NX"}) == Int(0));
}

TEST_CASE("EXPIRE option errors come before the time, the time before the key") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"EXPIRE", "k", "100", "NX", "XX"}) == kNotCompatible);
  CHECK(f.Run({"EXPIRE", "k", "100", "NX", "GT"}) == kNotCompatible);
  CHECK(f.Run({"EXPIRE", "k", "100", "LT", "NX"}) == kNotCompatible);
  CHECK(f.Run({"PEXPIRE", "k", "100", "XX", "NX"}) == kNotCompatible);
  CHECK(f.Run({"EXPIRE", "k", "100", "GT", "LT"}) == kGtLt);
  CHECK(f.Run({"EXPIRE", "k", "100", "FOO"}) == "-ERR Unsupported option FOO\r\n");
  CHECK(f.Run({"EXPIRE", "k", "abc", "foo"}) == "-ERR Unsupported option foo\r\n");
  CHECK(f.Run({"EXPIRE", "nokey", "100", "foo"}) == "-ERR Unsupported option foo\r\n");
  CHECK(f.Run({"EXPIRE", "nokey", "abc"}) == kNotInt);
  CHECK(f.Run({"EXPIRE", "k", "1.5"}) == kNotInt);
  CHECK(f.Run({"EXPIRE", "k"}) == Arity("expire"));
  CHECK(f.Run({"PEXPIREAT", "k"}) == Arity("pexpireat"));
  CHECK(f.Run({"TTL", "k"}) == Int(-1));
}

TEST_CASE("EXPIRE overflow is an invalid expire time naming the command") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  const std::string max = "9223372036854775807";
  CHECK(f.Run({"EXPIRE", "k", max}) == InvalidExpire("expire"));
  CHECK(f.Run({"expire", "k", "9223372036854775"}) == InvalidExpire("expire"));
  CHECK(f.Run({"EXPIRE", "k", "-9223372036854775808"}) == InvalidExpire("expire"));
  CHECK(f.Run({"PEXPIRE", "k", max}) == InvalidExpire("pexpire"));
  CHECK(f.Run({"PEXPIRE", "k", "9223372036854775800"}) == InvalidExpire("pexpire"));
  CHECK(f.Run({"EXPIREAT", "k", max}) == InvalidExpire("expireat"));
  CHECK(f.Run({"EXPIRE", "nokey", max, "NX"}) == InvalidExpire("expire"));
  CHECK(f.Run({"TTL", "k"}) == Int(-1));
  // No base time: the largest second count that fits in ms is fine.
  CHECK(f.Run({"EXPIREAT", "k", "9223372036854775"}) == Int(1));
  CHECK(f.Run({"PEXPIRETIME", "k"}) == Int(9223372036854775000));
  CHECK(f.Run({"PEXPIREAT", "k", max}) == Int(1));
  CHECK(f.Run({"PEXPIRETIME", "k"}) == Int(INT64_MAX));
}

TEST_CASE("an expiry not in the future deletes the key and replies 1") {
  CommandFixture f;
  for (const char* k : {"a", "b", "c", "d", "e", "g"}) CHECK(f.Run({"SET", k, "v"}) == kOk);
  CHECK(f.Run({"EXPIRE", "a", "0"}) == Int(1));
  CHECK(f.Run({"EXPIRE", "b", "-5"}) == Int(1));
  CHECK(f.Run({"EXPIREAT", "c", "1"}) == Int(1));
  CHECK(f.Run({"PEXPIREAT", "d", std::to_string(f.clock().NowMs())}) == Int(1));
  CHECK(f.Run({"PEXPIREAT", "e", "-9223372036854775808"}) == Int(1));
  CHECK(f.Run({"EXISTS", "a", "b", "c", "d", "e"}) == Int(0));
  CHECK(f.Run({"DBSIZE"}) == Int(1));
  // The options are checked first: a failed condition keeps the key.
  CHECK(f.Run({"EXPIRE", "g", "100"}) == Int(1));
  CHECK(f.Run({"EXPIRE", "g", "-1", "GT"}) == Int(0));
  CHECK(f.Run({"EXPIRE", "g", "-1", "NX"}) == Int(0));
  CHECK(f.Run({"EXISTS", "g"}) == Int(1));
  CHECK(f.Run({"EXPIRE", "g", "-1", "LT"}) == Int(1));
  CHECK(f.Run({"EXISTS", "g"}) == Int(0));
}

TEST_CASE("EXPIREAT PEXPIREAT EXPIRETIME PEXPIRETIME") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"EXPIRETIME", "k"}) == Int(-1));
  CHECK(f.Run({"PEXPIRETIME", "k"}) == Int(-1));
  CHECK(f.Run({"EXPIRETIME", "nokey"}) == Int(-2));
  CHECK(f.Run({"PEXPIRETIME", "nokey"}) == Int(-2));
  const int64_t at = f.clock().NowMs() / 1000 + 1000;
  CHECK(f.Run({"EXPIREAT", "k", std::to_string(at)}) == Int(1));
  CHECK(f.Run({"EXPIRETIME", "k"}) == Int(at));
  CHECK(f.Run({"PEXPIRETIME", "k"}) == Int(at * 1000));
  const int64_t pat = at * 1000 + 1234;
  CHECK(f.Run({"PEXPIREAT", "k", std::to_string(pat)}) == Int(1));
  CHECK(f.Run({"PEXPIRETIME", "k"}) == Int(pat));
  CHECK(f.Run({"EXPIRETIME", "k"}) == Int(at + 1));  // rounded to the nearest second
  CHECK(f.Run({"EXPIREAT", "k", std::to_string(at + 10), "GT"}) == Int(1));
  CHECK(f.Run({"EXPIREAT", "k", std::to_string(at), "GT"}) == Int(0));
  CHECK(f.Run({"PEXPIREAT", "k", std::to_string(pat), "LT"}) == Int(1));
  CHECK(f.Run({"PEXPIRETIME", "k"}) == Int(pat));
  CHECK(f.Run({"EXPIRETIME"}) == Arity("expiretime"));
}

TEST_CASE("PERSIST removes the TTL only") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v", "EX", "100"}) == kOk);
  CHECK(f.Run({"PERSIST", "k"}) == Int(1));
  CHECK(f.Run({"TTL", "k"}) == Int(-1));
  CHECK(f.Run({"PERSIST", "k"}) == Int(0));
  CHECK(f.Run({"PERSIST", "nokey"}) == Int(0));
  CHECK(f.Run({"GET", "k"}) == Bulk("v"));
  PutTyped(f, "h", ValueType::kHash, f.clock().NowMs() + 5000);
  CHECK(f.Run({"PERSIST", "h"}) == Int(1));
  CHECK(Read(f, "h")->second.type == ValueType::kHash);
  CHECK(f.Run({"PERSIST"}) == Arity("persist"));
}

// ---- RENAME RENAMENX COPY MOVE --------------------------------------------------------------

TEST_CASE("RENAME moves value and TTL, overwrites, and drops the target's TTL") {
  CommandFixture f;
  CHECK(f.Run({"RENAME", "nokey", "x"}) == kNoSuchKey);
  CHECK(f.Run({"RENAME", "nokey", "nokey"}) == kNoSuchKey);
  CHECK(f.Run({"SET", "a", "1", "EX", "100"}) == kOk);
  CHECK(f.Run({"SET", "b", "old"}) == kOk);
  CHECK(f.Run({"RENAME", "a", "b"}) == kOk);
  CHECK(f.Run({"EXISTS", "a"}) == Int(0));
  CHECK(f.Run({"GET", "b"}) == Bulk("1"));
  CHECK(f.Run({"TTL", "b"}) == Int(100));
  CHECK(f.Run({"RENAME", "b", "b"}) == kOk);
  CHECK(f.Run({"GET", "b"}) == Bulk("1"));
  CHECK(f.Run({"SET", "c", "2"}) == kOk);
  CHECK(f.Run({"RENAME", "c", "b"}) == kOk);
  CHECK(f.Run({"TTL", "b"}) == Int(-1));
  CHECK(f.Run({"RENAME", "b"}) == Arity("rename"));
}

TEST_CASE("RENAME keeps the type") {
  CommandFixture f;
  PutTyped(f, "s", ValueType::kSet);
  CHECK(f.Run({"RENAME", "s", "t"}) == kOk);
  CHECK(f.Run({"TYPE", "t"}) == "+set\r\n");
}

TEST_CASE("RENAME between keys of every pair of slots") {
  CommandFixture f(3, 8);
  for (int i = 0; i < 64; ++i) {
    const std::string src = "src:" + std::to_string(i);
    const std::string dst = "dst:" + std::to_string(i * 7919);
    CHECK(f.Run({"SET", src, "v" + std::to_string(i)}) == kOk);
    CHECK(f.Run({"RENAME", src, dst}) == kOk);
  }
  for (int i = 0; i < 64; ++i) {
    CHECK(f.Run({"GET", "dst:" + std::to_string(i * 7919)}) == Bulk("v" + std::to_string(i)));
  }
  CHECK(f.Run({"DBSIZE"}) == Int(64));
}

TEST_CASE("RENAMENX renames only to a missing key") {
  CommandFixture f;
  CHECK(f.Run({"RENAMENX", "nokey", "x"}) == kNoSuchKey);
  CHECK(f.Run({"RENAMENX", "nokey", "nokey"}) == kNoSuchKey);
  CHECK(f.Run({"SET", "a", "1"}) == kOk);
  CHECK(f.Run({"SET", "b", "2"}) == kOk);
  CHECK(f.Run({"RENAMENX", "a", "b"}) == Int(0));
  CHECK(f.Run({"GET", "a"}) == Bulk("1"));
  CHECK(f.Run({"RENAMENX", "a", "a"}) == Int(0));
  CHECK(f.Run({"RENAMENX", "a", "c"}) == Int(1));
  CHECK(f.Run({"GET", "c"}) == Bulk("1"));
  CHECK(f.Run({"EXISTS", "a"}) == Int(0));
}

TEST_CASE("COPY copies value and TTL, REPLACE overwrites") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v", "EX", "100"}) == kOk);
  CHECK(f.Run({"COPY", "k", "k2"}) == Int(1));
  CHECK(f.Run({"GET", "k2"}) == Bulk("v"));
  CHECK(f.Run({"TTL", "k2"}) == Int(100));
  CHECK(f.Run({"SET", "k", "changed"}) == kOk);
  CHECK(f.Run({"GET", "k2"}) == Bulk("v"));
  CHECK(f.Run({"COPY", "k", "k2"}) == Int(0));
  CHECK(f.Run({"GET", "k2"}) == Bulk("v"));
  CHECK(f.Run({"COPY", "k", "k2", "REPLACE"}) == Int(1));
  CHECK(f.Run({"GET", "k2"}) == Bulk("changed"));
  CHECK(f.Run({"TTL", "k2"}) == Int(-1));
  CHECK(f.Run({"COPY", "nokey", "k3"}) == Int(0));
  CHECK(f.Run({"COPY", "nokey", "k3", "replace", "replace"}) == Int(0));
  CHECK(f.Run({"EXISTS", "k3"}) == Int(0));
}

TEST_CASE("COPY to another database") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"COPY", "k", "k", "DB", "1"}) == Int(1));
  CHECK(f.Run({"COPY", "k", "k", "DB", "1"}) == Int(0));
  CHECK(f.Run({"COPY", "k", "k", "db", "1", "REPLACE"}) == Int(1));
  CHECK(f.Run({"COPY", "k", "other", "DB", "0", "DB", "2"}) == Int(1));  // the last DB wins
  CHECK(Read(f, "other", 2)->first == "v");
  CHECK(f.Run({"SELECT", "1"}) == kOk);
  CHECK(f.Run({"GET", "k"}) == Bulk("v"));
  CHECK(f.Run({"COPY", "k", "k", "DB", "0"}) == Int(0));
  CHECK(f.Run({"SELECT", "0"}) == kOk);
  CHECK(f.Run({"GET", "k"}) == Bulk("v"));
}

TEST_CASE("COPY errors") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"COPY", "k", "k"}) == kSameObject);
  CHECK(f.Run({"COPY", "nokey", "nokey"}) == kSameObject);
  CHECK(f.Run({"COPY", "k", "k", "DB", "0"}) == kSameObject);
  CHECK(f.Run({"COPY", "k", "x", "DB", "16"}) == kDbRange);
  CHECK(f.Run({"COPY", "k", "x", "DB", "-1"}) == kDbRange);
  CHECK(f.Run({"COPY", "k", "x", "DB", "99999999999"}) == kIntRange);
  CHECK(f.Run({"COPY", "k", "x", "DB", "x"}) == kNotInt);
  CHECK(f.Run({"COPY", "k", "x", "DB"}) == kSyntax);
  CHECK(f.Run({"COPY", "k", "x", "FOO"}) == kSyntax);
  CHECK(f.Run({"COPY", "k"}) == Arity("copy"));
  CHECK(f.Run({"EXISTS", "x"}) == Int(0));
}

TEST_CASE("MOVE to another database of the same slot") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v", "PX", "5000"}) == kOk);
  CHECK(f.Run({"MOVE", "k", "1"}) == Int(1));
  CHECK(f.Run({"EXISTS", "k"}) == Int(0));
  auto moved = Read(f, "k", 1);
  REQUIRE(moved);
  CHECK(moved->first == "v");
  CHECK(moved->second.expire_at_ms == f.clock().NowMs() + 5000);
  CHECK(f.Run({"MOVE", "k", "1"}) == Int(0));  // no longer here
  CHECK(f.Run({"SET", "k", "w"}) == kOk);
  CHECK(f.Run({"MOVE", "k", "1"}) == Int(0));  // the target exists
  CHECK(f.Run({"GET", "k"}) == Bulk("w"));
  CHECK(f.Run({"MOVE", "nokey", "1"}) == Int(0));
}

TEST_CASE("MOVE errors") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"MOVE", "k", "0"}) == kSameObject);
  CHECK(f.Run({"MOVE", "k", "16"}) == kDbRange);
  CHECK(f.Run({"MOVE", "k", "-1"}) == kDbRange);
  CHECK(f.Run({"MOVE", "k", "99999999999"}) == kIntRange);
  CHECK(f.Run({"MOVE", "k", "x"}) == kNotInt);
  CHECK(f.Run({"MOVE", "k"}) == Arity("move"));
  CHECK(f.Run({"SELECT", "3"}) == kOk);
  CHECK(f.Run({"MOVE", "k", "3"}) == kSameObject);
  CHECK(f.Run({"MOVE", "k", "0"}) == Int(0));
}

// ---- KEYS -----------------------------------------------------------------------------------

// ---- OBJECT ---------------------------------------------------------------------------------

TEST_CASE("OBJECT ENCODING of strings: int, embstr, raw") {
  CommandFixture f;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"12345", "int"},
      {"-123", "int"},
      {"0", "int"},
      {"-9223372036854775808", "int"},
      {"9223372036854775807", "int"},
      {"12345678901234567890", "embstr"},  // beyond int64
      {"0123", "embstr"},
      {"-0", "embstr"},
      {"+1", "embstr"},
      {" 1", "embstr"},
      {"", "embstr"},
      {std::string(44, 'x'), "embstr"},
      {std::string(45, 'x'), "raw"},
  };
  for (const auto& [value, encoding] : cases) {
    CAPTURE(value);
    CHECK(f.Run({"SET", "k", value}) == kOk);
    CHECK(f.Run({"OBJECT", "ENCODING", "k"}) == Bulk(encoding));
  }
  CHECK(f.Run({"object", "encoding", "nokey"}) == kNull);
}

TEST_CASE("OBJECT ENCODING of values of other types, by Redis 7.0's thresholds") {
  CommandFixture f;
  PutTyped(f, "l", ValueType::kList);
  f.Run({"ZADD", "z", "1", "a"});
  CHECK(f.Run({"OBJECT", "ENCODING", "l"}) == Bulk("quicklist"));
  CHECK(f.Run({"OBJECT", "ENCODING", "z"}) == Bulk("listpack"));
  f.Run({"HSET", "h", "a", "1"});
  CHECK(f.Run({"OBJECT", "ENCODING", "h"}) == Bulk("listpack"));
  f.Run({"HSET", "h", "long", std::string(65, 'x')});
  CHECK(f.Run({"OBJECT", "ENCODING", "h"}) == Bulk("hashtable"));
  // hash-max-listpack-entries is 512 in Redis 7.0.15
  std::vector<std::string> many = {"HSET", "big"};
  for (int i = 0; i < 512; ++i) {
    many.push_back("f" + std::to_string(i));
    many.push_back("v");
  }
  f.Run(many);
  CHECK(f.Run({"OBJECT", "ENCODING", "big"}) == Bulk("listpack"));
  f.Run({"HSET", "big", "f512", "v"});
  CHECK(f.Run({"OBJECT", "ENCODING", "big"}) == Bulk("hashtable"));
  f.Run({"SADD", "ints", "1", "-2", "30"});
  CHECK(f.Run({"OBJECT", "ENCODING", "ints"}) == Bulk("intset"));
  f.Run({"SADD", "ints", "x"});
  CHECK(f.Run({"OBJECT", "ENCODING", "ints"}) == Bulk("hashtable"));
  std::vector<std::string> ints = {"SADD", "manyints"};
  for (int i = 0; i < 513; ++i) ints.push_back(std::to_string(i));
  f.Run(ints);
  CHECK(f.Run({"OBJECT", "ENCODING", "manyints"}) == Bulk("hashtable"));
}

TEST_CASE("OBJECT FREQ IDLETIME REFCOUNT") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "some value"}) == kOk);
  CHECK(f.Run({"OBJECT", "FREQ", "k"}) ==
        "-ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
        "note that when switching between policies at runtime LRU and LFU data will take some "
        "time to adjust.\r\n");
  CHECK(f.Run({"OBJECT", "FREQ", "nokey"}) == kNull);
  f.clock().AdvanceMs(5000);
  CHECK(f.Run({"OBJECT", "IDLETIME", "k"}) ==
        "-ERR slotkv does not track access times: OBJECT IDLETIME is not available\r\n");
  CHECK(f.Run({"OBJECT", "IDLETIME", "nokey"}) == kNull);
  CHECK(f.Run({"OBJECT", "REFCOUNT", "k"}) == Int(1));
  CHECK(f.Run({"OBJECT", "REFCOUNT", "nokey"}) == kNull);
  // Redis shares the integers 0..9999.
  CHECK(f.Run({"SET", "n", "9999"}) == kOk);
  CHECK(f.Run({"OBJECT", "REFCOUNT", "n"}) == Int(2147483647));
  CHECK(f.Run({"SET", "n", "10000"}) == kOk);
  CHECK(f.Run({"OBJECT", "REFCOUNT", "n"}) == Int(1));
  CHECK(f.Run({"SET", "n", "-1"}) == kOk);
  CHECK(f.Run({"OBJECT", "REFCOUNT", "n"}) == Int(1));
}

TEST_CASE("OBJECT HELP, unknown subcommands and subcommand arity") {
  CommandFixture f;
  std::string help = f.Run({"OBJECT", "HELP"});
  CHECK(help.rfind("*15\r\n+OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
                   "+ENCODING <key>\r\n",
                   0) == 0);
  CHECK(help.find("+REFCOUNT <key>\r\n") != std::string::npos);
  CHECK(help.ends_with("+HELP\r\n+    Prints this help.\r\n"));
  CHECK(f.Run({"OBJECT", "FOO"}) == "-ERR unknown subcommand 'FOO'. Try OBJECT HELP.\r\n");
  CHECK(f.Run({"OBJECT", "foo", "k", "x"}) ==
        "-ERR unknown subcommand 'foo'. Try OBJECT HELP.\r\n");
  CHECK(f.Run({"OBJECT"}) == Arity("object"));
  CHECK(f.Run({"OBJECT", "ENCODING"}) == Arity("object|encoding"));
  CHECK(f.Run({"OBJECT", "Encoding", "a", "b"}) == Arity("object|encoding"));
  CHECK(f.Run({"OBJECT", "FREQ"}) == Arity("object|freq"));
  CHECK(f.Run({"OBJECT", "IDLETIME", "a", "b"}) == Arity("object|idletime"));
  CHECK(f.Run({"OBJECT", "REFCOUNT"}) == Arity("object|refcount"));
  CHECK(f.Run({"OBJECT", "HELP", "x"}) == Arity("object|help"));
}

TEST_CASE("RESP3 nulls for missing keys") {
  CommandFixture f;
  f.client().protocol = 3;
  CHECK(f.Run({"OBJECT", "ENCODING", "nokey"}) == "_\r\n");
  CHECK(f.Run({"RANDOMKEY"}) == "_\r\n");
  CHECK(f.Run({"TYPE", "nokey"}) == "+none\r\n");
}

}  // namespace
}  // namespace slotkv::command
