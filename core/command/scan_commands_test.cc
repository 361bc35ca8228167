// KEYS, SCAN and RANDOMKEY (scan_commands.cc) through the in-process fixture.
#include <doctest/doctest.h>

#include <functional>
#include <future>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

const std::string kInvalidCursor = "-ERR invalid cursor\r\n";


// Writes key with another type than string, on its owner, committed.
void PutTyped(CommandFixture& f, const std::string& key, ValueType type) {
  ServerState& s = f.state();
  const uint32_t slot = s.keyspace->SlotOfKey(key);
  std::promise<Status> done;
  s.executor->Post(s.executor->OwnerOf(slot), [&] {
    Store store(s.keyspace, slot, 0, &(*s.dirty)[static_cast<size_t>(s.executor->current())]);
    REQUIRE(store.Put(key, "bytes", type, 0).ok());
    done.set_value(s.CommitDirty());
  });
  REQUIRE(done.get_future().get().ok());
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

}  // namespace
}  // namespace slotkv::command
