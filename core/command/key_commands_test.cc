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

const std::string kNull = "$-1\r\n";
const std::string kOk = "+OK\r\n";
const std::string kSyntax = "-ERR syntax error\r\n";
const std::string kNotInt = "-ERR value is not an integer or out of range\r\n";
const std::string kNoSuchKey = "-ERR no such key\r\n";
const std::string kSameObject = "-ERR source and destination objects are the same\r\n";
const std::string kDbRange = "-ERR DB index is out of range\r\n";
const std::string kIntRange =
    "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n";
const std::string kNotCompatible =
    "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n";
const std::string kGtLt = "-ERR GT and LT options at the same time are not compatible\r\n";
const std::string kInvalidCursor = "-ERR invalid cursor\r\n";

std::string Bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}
std::string Int(int64_t v) { return ":" + std::to_string(v) + "\r\n"; }
std::string Arity(const std::string& cmd) {
  return "-ERR wrong number of arguments for '" + cmd + "' command\r\n";
}
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

// Parses a RESP array of bulk strings (KEYS' reply).
std::vector<std::string> ParseBulks(const std::string& r, size_t* pos) {
  std::vector<std::string> out;
  REQUIRE(r[*pos] == '*');
  size_t eol = r.find("\r\n", *pos);
  const long n = std::stol(r.substr(*pos + 1, eol - *pos - 1));
  *pos = eol + 2;
  for (long i = 0; i < n; ++i) {
    REQUIRE(r[*pos] == '$');
    eol = r.find("\r\n", *pos);
    const size_t len = std::stoul(r.substr(*pos + 1, eol - *pos - 1));
    out.push_back(r.substr(eol + 2, len));
    *pos = eol + 2 + len + 2;
  }
  return out;
}

std::set<std::string> KeysOf(CommandFixture& f, const std::string& pattern) {
  std::string r = f.Run({"KEYS", pattern});
  size_t pos = 0;
  std::vector<std::string> v = ParseBulks(r, &pos);
  CHECK(pos == r.size());
  return {v.begin(), v.end()};
}

// One SCAN call: the next cursor and the keys.
std::pair<std::string, std::vector<std::string>> ScanOnce(CommandFixture& f,
                                                          std::vector<std::string> args) {
  std::string r = f.Run(args);
  REQUIRE(r.rfind("*2\r\n$", 0) == 0);
  size_t eol = r.find("\r\n", 4);
  const size_t len = std::stoul(r.substr(5, eol - 5));
  std::string cursor = r.substr(eol + 2, len);
  size_t pos = eol + 2 + len + 2;
  std::vector<std::string> keys = ParseBulks(r, &pos);
  CHECK(pos == r.size());
  return {cursor, keys};
}

// A whole SCAN from cursor 0 with extra options; *calls counts the calls.
std::vector<std::string> ScanAll(CommandFixture& f, std::vector<std::string> options,
                                 int* calls = nullptr) {
  std::string cursor = "0";
  std::vector<std::string> seen;
  int n = 0;
  do {
    std::vector<std::string> args = {"SCAN", cursor};
    args.insert(args.end(), options.begin(), options.end());
    auto [next, keys] = ScanOnce(f, args);
    seen.insert(seen.end(), keys.begin(), keys.end());
    cursor = next;
    REQUIRE(++n < 100000);
  } while (cursor != "0");
  if (calls) *calls = n;
  return seen;
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

TEST_CASE("KEYS matches globs over every slot") {
  CommandFixture f;
  for (const char* k : {"hello", "hallo", "hxllo", "hllo", "heeeello", "h[llo", "a", "b"}) {
    CHECK(f.Run({"SET", k, "1"}) == kOk);
  }
  CHECK(KeysOf(f, "*").size() == 8);
  CHECK(KeysOf(f, "h?llo") == std::set<std::string>{"hello", "hallo", "hxllo", "h[llo"});
  CHECK(KeysOf(f, "h*llo").size() == 6);
  CHECK(KeysOf(f, "h[ae]llo") == std::set<std::string>{"hello", "hallo"});
  CHECK(KeysOf(f, "h\\[llo") == std::set<std::string>{"h[llo"});
  CHECK(KeysOf(f, "?") == std::set<std::string>{"a", "b"});
  CHECK(KeysOf(f, "nomatch*").empty());
  CHECK(f.Run({"KEYS", "nomatch*"}) == "*0\r\n");
  CHECK(f.Run({"KEYS"}) == Arity("keys"));
}

TEST_CASE("KEYS: only a lone star matches the empty key") {
  CommandFixture f;
  CHECK(f.Run({"SET", "", "v"}) == kOk);
  CHECK(f.Run({"SET", "x", "v"}) == kOk);
  CHECK(KeysOf(f, "*") == std::set<std::string>{"", "x"});
  CHECK(KeysOf(f, "**") == std::set<std::string>{"x"});
  CHECK(KeysOf(f, "?*") == std::set<std::string>{"x"});
}

TEST_CASE("KEYS skips expired keys and other databases") {
  CommandFixture f;
  CHECK(f.Run({"SET", "live", "v"}) == kOk);
  CHECK(f.Run({"SET", "dead", "v", "PX", "30"}) == kOk);
  CHECK(f.Run({"SELECT", "1"}) == kOk);
  CHECK(f.Run({"SET", "elsewhere", "v"}) == kOk);
  CHECK(f.Run({"SELECT", "0"}) == kOk);
  f.clock().AdvanceMs(30);
  CHECK(f.Run({"KEYS", "*"}) == "*1\r\n" + Bulk("live"));
}

// ---- SCAN -----------------------------------------------------------------------------------

TEST_CASE("SCAN returns each of 1000 keys across slots, COUNT bounding each call") {
  CommandFixture f(3, 16);
  std::set<std::string> keys;
  for (int i = 0; i < 1000; ++i) {
    keys.insert("key:" + std::to_string(i));
    CHECK(f.Run({"SET", "key:" + std::to_string(i), "v"}) == kOk);
  }
  int calls = 0;
  std::vector<std::string> seen = ScanAll(f, {"COUNT", "10"}, &calls);
  CHECK(std::set<std::string>(seen.begin(), seen.end()) == keys);
  CHECK(calls > 50);
  seen = ScanAll(f, {}, &calls);  // default COUNT 10
  CHECK(std::set<std::string>(seen.begin(), seen.end()) == keys);
  seen = ScanAll(f, {"COUNT", "100000"}, &calls);
  CHECK(seen.size() == 1000);
  CHECK(calls == 1);
}

TEST_CASE("SCAN returns every key present for the whole scan despite writes") {
  CommandFixture f(2, 8);
  std::set<std::string> stable;
  for (int i = 0; i < 500; ++i) {
    stable.insert("stable:" + std::to_string(i));
    CHECK(f.Run({"SET", "stable:" + std::to_string(i), "v"}) == kOk);
  }
  std::mt19937 rng(12345);
  std::set<std::string> seen;
  std::string cursor = "0";
  int n = 0;
  do {
    auto [next, keys] = ScanOnce(f, {"SCAN", cursor, "COUNT", "7"});
    seen.insert(keys.begin(), keys.end());
    cursor = next;
    // Churn: new keys, deleted keys, rewritten stable keys.
    CHECK(f.Run({"SET", "churn:" + std::to_string(n), "v"}) == kOk);
    if (n >= 3) CHECK(f.Run({"DEL", "churn:" + std::to_string(n - 3)}) == Int(1));
    CHECK(f.Run({"SET", "stable:" + std::to_string(rng() % 500), "w"}) == kOk);
    ++n;
  } while (cursor != "0");
  for (const std::string& k : stable) CHECK(seen.count(k) == 1);
  for (const std::string& k : seen) {
    const bool ours = k.rfind("stable:", 0) == 0 || k.rfind("churn:", 0) == 0;
    CHECK(ours);
  }
}

TEST_CASE("SCAN cursor is bucket * slots + slot, slots in order") {
  CommandFixture f(2, 8);
  for (int i = 0; i < 200; ++i) CHECK(f.Run({"SET", "k" + std::to_string(i), "v"}) == kOk);
  std::string cursor = "0";
  uint64_t from_slot = 0;
  std::set<uint64_t> slots_reached;
  do {
    auto [next, keys] = ScanOnce(f, {"SCAN", cursor, "COUNT", "3"});
    cursor = next;
    const uint64_t c = std::stoull(cursor);
    const uint64_t to_slot = c == 0 ? 7 : c % 8;
    CHECK(to_slot >= from_slot);
    // Every key of this call lives in a slot between where the call started and where it
    // stopped.
    for (const std::string& k : keys) {
      const uint32_t s = f.state().keyspace->SlotOfKey(k);
      CHECK(s >= from_slot);
      CHECK(s <= to_slot);
    }
    from_slot = to_slot;
    slots_reached.insert(to_slot);
  } while (cursor != "0");
  CHECK(slots_reached.size() > 4);
}

TEST_CASE("SCAN MATCH and TYPE filter after COUNT") {
  CommandFixture f;
  for (int i = 0; i < 50; ++i) {
    CHECK(f.Run({"SET", "user:" + std::to_string(i), "1"}) == kOk);
    CHECK(f.Run({"SET", "other:" + std::to_string(i), "1"}) == kOk);
  }
  PutTyped(f, "list:1", ValueType::kList);
  std::vector<std::string> seen = ScanAll(f, {"MATCH", "user:*", "COUNT", "20"});
  CHECK(seen.size() == 50);
  for (const std::string& k : seen) CHECK(k.rfind("user:", 0) == 0);
  seen = ScanAll(f, {"MATCH", "user:1?", "COUNT", "1000"});
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == 10);
  CHECK(ScanAll(f, {"TYPE", "string", "COUNT", "1000"}).size() == 100);
  CHECK(ScanAll(f, {"TYPE", "LIST"}) == std::vector<std::string>{"list:1"});
  CHECK(ScanAll(f, {"TYPE", "nosuchtype"}).empty());
  CHECK(ScanAll(f, {"MATCH", "*", "TYPE", "list", "MATCH", "l*"}) ==
        std::vector<std::string>{"list:1"});
}

TEST_CASE("SCAN MATCH star alone also returns the empty key") {
  CommandFixture f;
  CHECK(f.Run({"SET", "", "v"}) == kOk);
  CHECK(ScanAll(f, {"MATCH", "*"}) == std::vector<std::string>{""});
  CHECK(ScanAll(f, {"MATCH", "**"}).empty());
}

TEST_CASE("SCAN errors and cursor parsing as Redis 7.0 (strtoul)") {
  CommandFixture f;
  CHECK(f.Run({"SCAN", "0"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.Run({"SCAN", "abc"}) == kInvalidCursor);
  CHECK(f.Run({"SCAN", "18446744073709551616"}) == kInvalidCursor);
  CHECK(f.Run({"SCAN", " 1"}) == kInvalidCursor);
  CHECK(f.Run({"SCAN", "1 "}) == kInvalidCursor);
  CHECK(f.Run({"SCAN", "1.5"}) == kInvalidCursor);
  CHECK(f.Run({"SCAN", "+"}) == kInvalidCursor);
  CHECK(f.Run({"SCAN", "0x10"}) == kInvalidCursor);
  CHECK(f.Run({"SCAN", ""}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.Run({"SCAN", "+0"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.Run({"SCAN", "007"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.Run({"SCAN", "-1"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.Run({"SCAN", "18446744073709551615"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.Run({"SCAN", "0", "COUNT", "0"}) == kSyntax);
  CHECK(f.Run({"SCAN", "0", "COUNT", "-1"}) == kSyntax);
  CHECK(f.Run({"SCAN", "0", "COUNT", "x"}) == kNotInt);
  CHECK(f.Run({"SCAN", "0", "COUNT", "5", "COUNT", "0"}) == kSyntax);
  CHECK(f.Run({"SCAN", "0", "FOO"}) == kSyntax);
  CHECK(f.Run({"SCAN", "0", "MATCH"}) == kSyntax);
  CHECK(f.Run({"SCAN", "0", "TYPE"}) == kSyntax);
  CHECK(f.Run({"SCAN"}) == Arity("scan"));
}

TEST_CASE("SCAN of a cursor past a slot's end moves on to the next slot") {
  CommandFixture f(2, 8);
  for (int i = 0; i < 100; ++i) CHECK(f.Run({"SET", "k" + std::to_string(i), "v"}) == kOk);
  // Slot 7, a bucket far past its end: nothing more to see.
  const uint64_t past_end = (uint64_t{1} << 40) * 8 + 7;
  CHECK(f.Run({"SCAN", std::to_string(past_end), "COUNT", "1000"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_CASE("SCAN and KEYS see the client's database") {
  CommandFixture f;
  CHECK(f.Run({"SET", "zero", "v"}) == kOk);
  CHECK(f.Run({"SELECT", "5"}) == kOk);
  CHECK(f.Run({"SET", "five", "v"}) == kOk);
  CHECK(ScanAll(f, {}) == std::vector<std::string>{"five"});
  CHECK(KeysOf(f, "*") == std::set<std::string>{"five"});
  CHECK(f.Run({"RANDOMKEY"}) == Bulk("five"));
}

// ---- RANDOMKEY ------------------------------------------------------------------------------

TEST_CASE("RANDOMKEY: null when empty, a key of the database otherwise") {
  CommandFixture f;
  CHECK(f.Run({"RANDOMKEY"}) == kNull);
  CHECK(f.Run({"SET", "only", "v"}) == kOk);
  CHECK(f.Run({"RANDOMKEY"}) == Bulk("only"));
  CHECK(f.Run({"RANDOMKEY", "x"}) == Arity("randomkey"));
}

TEST_CASE("RANDOMKEY spreads over keys and slots") {
  CommandFixture f(2, 8);
  std::set<std::string> keys;
  for (int i = 0; i < 100; ++i) {
    keys.insert("r" + std::to_string(i));
    CHECK(f.Run({"SET", "r" + std::to_string(i), "v"}) == kOk);
  }
  std::set<std::string> got;
  std::set<uint32_t> slots;
  for (int i = 0; i < 600; ++i) {
    std::string r = f.Run({"RANDOMKEY"});
    REQUIRE(r.rfind("$", 0) == 0);
    std::string key = r.substr(r.find("\r\n") + 2);
    key.resize(key.size() - 2);
    CHECK(keys.count(key) == 1);
    got.insert(key);
    slots.insert(f.state().keyspace->SlotOfKey(key));
  }
  CHECK(got.size() > 60);
  CHECK(slots.size() == 8);
}

TEST_CASE("RANDOMKEY samples big slots by bucket") {
  CommandFixture f(2, 4);
  std::set<std::string> keys;
  for (int i = 0; i < 3000; ++i) {  // about 750 keys per slot: past the full-scan size
    keys.insert("big:" + std::to_string(i));
    CHECK(f.Run({"SET", "big:" + std::to_string(i), "v"}) == kOk);
  }
  std::set<std::string> got;
  for (int i = 0; i < 400; ++i) {
    std::string r = f.Run({"RANDOMKEY"});
    REQUIRE(r.rfind("$", 0) == 0);
    std::string key = r.substr(r.find("\r\n") + 2);
    key.resize(key.size() - 2);
    CHECK(keys.count(key) == 1);
    got.insert(key);
  }
  CHECK(got.size() > 300);  // uniform draws would give about 375 distinct keys
}

TEST_CASE("RANDOMKEY never returns an expired key") {
  CommandFixture f;
  for (int i = 0; i < 20; ++i) {
    CHECK(f.Run({"SET", "t" + std::to_string(i), "v", "PX", "10"}) == kOk);
  }
  CHECK(f.Run({"SET", "live", "v"}) == kOk);
  f.clock().AdvanceMs(10);
  for (int i = 0; i < 20; ++i) CHECK(f.Run({"RANDOMKEY"}) == Bulk("live"));
  CHECK(f.Run({"DEL", "live"}) == Int(1));
  CHECK(f.Run({"RANDOMKEY"}) == kNull);
}

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
  PutTyped(f, "z", ValueType::kZSet);
  CHECK(f.Run({"OBJECT", "ENCODING", "l"}) == Bulk("quicklist"));
  CHECK(f.Run({"OBJECT", "ENCODING", "z"}) == Bulk("listpack"));
  f.Run({"HSET", "h", "a", "1"});
  CHECK(f.Run({"OBJECT", "ENCODING", "h"}) == Bulk("listpack"));
  f.Run({"HSET", "h", "long", std::string(65, 'x')});
  CHECK(f.Run({"OBJECT", "ENCODING", "h"}) == Bulk("hashtable"));
  std::vector<std::string> many = {"HSET", "big"};
  for (int i = 0; i < 129; ++i) {
    many.push_back("f" + std::to_string(i));
    many.push_back("v");
  }
  f.Run(many);
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
