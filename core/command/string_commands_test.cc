#include <doctest/doctest.h>

#include <functional>
#include <future>
#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

const std::string kEmpty = "$0\r\n\r\n";
const std::string kOverflow = "-ERR increment or decrement would overflow\r\n";
const std::string kTooBig = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n";

std::string InvalidExpireReply(const std::string& cmd) {
  return "-ERR invalid expire time in '" + cmd + "' command\r\n";
}

// Runs fn(store) on the owner of key's slot (database 0) and commits, as a command would.
// REQUIRES: no Run in progress.
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

// Writes key with a non-string type (no command of this family makes one).
void PutList(CommandFixture& f, const std::string& key) {
  OnOwner(f, key,
          [&](Store& store) { REQUIRE(store.Put(key, "list-bytes", ValueType::kList, 0).ok()); });
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

uint64_t Hits(CommandFixture& f) {
  uint64_t n = 0;
  for (auto& s : *f.state().stats) n += WorkerStats::Get(s->keyspace_hits);
  return n;
}
uint64_t Misses(CommandFixture& f) {
  uint64_t n = 0;
  for (auto& s : *f.state().stats) n += WorkerStats::Get(s->keyspace_misses);
  return n;
}

// ---- GET / SET -----------------------------------------------------------------------------

TEST_CASE("GET and SET round trip, overwrite, arity") {
  CommandFixture f;
  CHECK(f.Run({"GET", "k"}) == kNull);
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"GET", "k"}) == Bulk("v"));
  CHECK(f.Run({"SET", "k", "w"}) == kOk);
  CHECK(f.Run({"GET", "k"}) == Bulk("w"));
  CHECK(f.Run({"SET", "e", ""}) == kOk);
  CHECK(f.Run({"GET", "e"}) == kEmpty);
  CHECK(f.Run({"GET"}) == Arity("get"));
  CHECK(f.Run({"GET", "a", "b"}) == Arity("get"));
  CHECK(f.Run({"SET", "k"}) == Arity("set"));
}

TEST_CASE("SET is binary safe") {
  CommandFixture f;
  std::string every_byte;
  for (int i = 0; i < 256; ++i) every_byte.push_back(static_cast<char>(i));
  CHECK(f.Run({"SET", every_byte, every_byte}) == kOk);
  CHECK(f.Run({"GET", every_byte}) == Bulk(every_byte));
}

TEST_CASE("SET NX and XX") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v", "XX"}) == kNull);
  CHECK(f.Run({"GET", "k"}) == kNull);
  CHECK(f.Run({"SET", "k", "v", "nx"}) == kOk);
  CHECK(f.Run({"SET", "k", "w", "NX"}) == kNull);
  CHECK(f.Run({"GET", "k"}) == Bulk("v"));
  CHECK(f.Run({"SET", "k", "w", "xx"}) == kOk);
  CHECK(f.Run({"GET", "k"}) == Bulk("w"));
  CHECK(f.Run({"SET", "k", "x", "NX", "NX"}) == kNull);  // repeating an option is allowed
}

TEST_CASE("SET GET replies the old value, also when NX or XX refuse") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v1", "GET"}) == kNull);
  CHECK(f.Run({"SET", "k", "v2", "get"}) == Bulk("v1"));
  CHECK(f.Run({"SET", "k", "v3", "NX", "GET"}) == Bulk("v2"));
  CHECK(f.Run({"GET", "k"}) == Bulk("v2"));
  CHECK(f.Run({"SET", "k", "v4", "XX", "GET"}) == Bulk("v2"));
  CHECK(f.Run({"GET", "k"}) == Bulk("v4"));
  CHECK(f.Run({"SET", "nokey", "x", "XX", "GET"}) == kNull);
  CHECK(f.Run({"GET", "nokey"}) == kNull);
}

TEST_CASE("SET EX, PX, EXAT, PXAT store the absolute expiry") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"SET", "a", "v", "EX", "100"}) == kOk);
  CHECK(ExpireAt(f, "a") == now + 100'000);
  CHECK(f.Run({"SET", "b", "v", "px", "1500"}) == kOk);
  CHECK(ExpireAt(f, "b") == now + 1500);
  CHECK(f.Run({"SET", "c", "v", "EXAT", std::to_string(now / 1000 + 50)}) == kOk);
  CHECK(ExpireAt(f, "c") == (now / 1000 + 50) * 1000);
  CHECK(f.Run({"SET", "d", "v", "PXAT", std::to_string(now + 7)}) == kOk);
  CHECK(ExpireAt(f, "d") == now + 7);
  f.clock().AdvanceMs(1500);
  CHECK(f.Run({"GET", "b"}) == kNull);
  CHECK(f.Run({"GET", "a"}) == Bulk("v"));
}

TEST_CASE("SET with an expiry time in the past leaves no key") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "old"}) == kOk);
  CHECK(f.Run({"SET", "k", "v", "EXAT", "1"}) == kOk);
  CHECK(f.Run({"GET", "k"}) == kNull);
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"SET", "k", "w", "PXAT", "5", "GET"}) == Bulk("v"));
  CHECK(ExpireAt(f, "k") == -2);
}

TEST_CASE("SET repeated expiry of one kind: the last wins") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"SET", "k", "v", "ex", "10", "EX", "20"}) == kOk);
  CHECK(ExpireAt(f, "k") == now + 20'000);
  CHECK(f.Run({"SET", "k", "v", "KEEPTTL", "KEEPTTL", "GET", "GET"}) == Bulk("v"));
  CHECK(ExpireAt(f, "k") == now + 20'000);
}

TEST_CASE("SET syntax errors leave the key alone") {
  CommandFixture f;
  const std::vector<std::vector<std::string>> bad = {{"EX", "10", "PX", "100"},
                                                     {"NX", "XX"},
                                                     {"XX", "NX"},
                                                     {"EX", "10", "KEEPTTL"},
                                                     {"KEEPTTL", "PX", "100"},
                                                     {"EXAT", "9999999999", "EX", "10"},
                                                     {"EX"},
                                                     {"FOO"},
                                                     {"EX", "10", "EX", "20", "PX", "100"},
                                                     {"PERSIST"},
                                                     {""}};
  CHECK(f.Run({"SET", "k", "orig"}) == kOk);
  for (const auto& opts : bad) {
    std::vector<std::string> cmd = {"SET", "k", "v"};
    cmd.insert(cmd.end(), opts.begin(), opts.end());
    CAPTURE(opts.front());
    CHECK(f.Run(cmd) == kSyntax);
  }
  CHECK(f.Run({"GET", "k"}) == Bulk("orig"));
}

TEST_CASE("SET syntax error wins over a bad expiry number") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v", "EX", "abc", "FOO"}) == kSyntax);
  CHECK(f.Run({"SET", "k", "v", "EX", "abc"}) == kNotInt);
  CHECK(f.Run({"SET", "k", "v", "EX", "1.5"}) == kNotInt);
}

TEST_CASE("SET invalid expire times") {
  CommandFixture f;
  const std::vector<std::vector<std::string>> bad = {
      {"EX", "0"},
      {"EX", "-1"},
      {"PX", "0"},
      {"PX", "-5"},
      {"EXAT", "0"},
      {"PXAT", "0"},
      {"EX", "9223372036854775807"},
      {"PX", "9223372036854775807"},
      {"EX", "9223372036854774"}};  // fits * 1000, overflows + now
  for (const auto& opts : bad) {
    CAPTURE(opts[1]);
    CHECK(f.Run({"SET", "k", "v", opts[0], opts[1]}) == InvalidExpireReply("set"));
  }
  CHECK(f.Run({"GET", "k"}) == kNull);
}

TEST_CASE("SET KEEPTTL keeps the TTL, plain SET drops it") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"SET", "k", "v", "EX", "100"}) == kOk);
  CHECK(f.Run({"SET", "k", "v2", "KEEPTTL"}) == kOk);
  CHECK(ExpireAt(f, "k") == now + 100'000);
  CHECK(f.Run({"GET", "k"}) == Bulk("v2"));
  CHECK(f.Run({"SET", "k", "v3"}) == kOk);
  CHECK(ExpireAt(f, "k") == 0);
  CHECK(f.Run({"SET", "new", "v", "KEEPTTL"}) == kOk);
  CHECK(ExpireAt(f, "new") == 0);
}

TEST_CASE("SET overwrites another type; SET GET on it is WRONGTYPE") {
  CommandFixture f;
  PutList(f, "l");
  CHECK(f.Run({"SET", "l", "v", "GET"}) == kWrongType);
  CHECK(f.Run({"SET", "l", "v", "NX"}) == kNull);
  CHECK(f.Run({"GET", "l"}) == kWrongType);
  CHECK(f.Run({"SET", "l", "v"}) == kOk);
  CHECK(f.Run({"GET", "l"}) == Bulk("v"));
}

TEST_CASE("SETEX and PSETEX") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"SETEX", "s", "10", "v"}) == kOk);
  CHECK(ExpireAt(f, "s") == now + 10'000);
  CHECK(f.Run({"GET", "s"}) == Bulk("v"));
  CHECK(f.Run({"PSETEX", "p", "5000", "v"}) == kOk);
  CHECK(ExpireAt(f, "p") == now + 5000);
  CHECK(f.Run({"SETEX", "s", "0", "v"}) == InvalidExpireReply("setex"));
  CHECK(f.Run({"SETEX", "s", "-1", "v"}) == InvalidExpireReply("setex"));
  CHECK(f.Run({"PSETEX", "s", "0", "v"}) == InvalidExpireReply("psetex"));
  CHECK(f.Run({"SETEX", "s", "abc", "v"}) == kNotInt);
  CHECK(f.Run({"SETEX", "s", "10"}) == Arity("setex"));
  CHECK(ExpireAt(f, "s") == now + 10'000);
  f.clock().AdvanceMs(5000);
  CHECK(f.Run({"GET", "p"}) == kNull);
}

TEST_CASE("SETNX sets only a missing key, of any type") {
  CommandFixture f;
  CHECK(f.Run({"SETNX", "k", "a"}) == Int(1));
  CHECK(f.Run({"SETNX", "k", "b"}) == Int(0));
  CHECK(f.Run({"GET", "k"}) == Bulk("a"));
  PutList(f, "l");
  CHECK(f.Run({"SETNX", "l", "x"}) == Int(0));
  CHECK(f.Run({"SETNX", "k"}) == Arity("setnx"));
}

// ---- GETSET / GETDEL / GETEX ---------------------------------------------------------------

TEST_CASE("GETSET replies the old value and drops the TTL") {
  CommandFixture f;
  CHECK(f.Run({"GETSET", "k", "a"}) == kNull);
  CHECK(f.Run({"SET", "k", "a", "EX", "100"}) == kOk);
  CHECK(f.Run({"GETSET", "k", "b"}) == Bulk("a"));
  CHECK(f.Run({"GET", "k"}) == Bulk("b"));
  CHECK(ExpireAt(f, "k") == 0);
  CHECK(f.Run({"GETSET", "k"}) == Arity("getset"));
}

TEST_CASE("GETDEL") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v", "EX", "100"}) == kOk);
  CHECK(f.Run({"GETDEL", "k"}) == Bulk("v"));
  CHECK(f.Run({"GET", "k"}) == kNull);
  CHECK(f.Run({"GETDEL", "k"}) == kNull);
  CHECK(f.Run({"GETDEL"}) == Arity("getdel"));
}

TEST_CASE("GETEX without options is GET and keeps the TTL") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"SET", "k", "v", "PX", "500"}) == kOk);
  CHECK(f.Run({"GETEX", "k"}) == Bulk("v"));
  CHECK(ExpireAt(f, "k") == now + 500);
  CHECK(f.Run({"GETEX", "nokey"}) == kNull);
}

TEST_CASE("GETEX EX, PX, EXAT, PXAT, PERSIST") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"GETEX", "k", "EX", "100"}) == Bulk("v"));
  CHECK(ExpireAt(f, "k") == now + 100'000);
  CHECK(f.Run({"GETEX", "k", "px", "50000"}) == Bulk("v"));
  CHECK(ExpireAt(f, "k") == now + 50'000);
  CHECK(f.Run({"GETEX", "k", "EXAT", std::to_string(now / 1000 + 300)}) == Bulk("v"));
  CHECK(ExpireAt(f, "k") == (now / 1000 + 300) * 1000);
  CHECK(f.Run({"GETEX", "k", "PXAT", std::to_string(now + 7)}) == Bulk("v"));
  CHECK(ExpireAt(f, "k") == now + 7);
  CHECK(f.Run({"GETEX", "k", "PERSIST"}) == Bulk("v"));
  CHECK(ExpireAt(f, "k") == 0);
  CHECK(f.Run({"GETEX", "k", "PERSIST", "persist"}) == Bulk("v"));
  CHECK(f.Run({"GETEX", "nokey", "EX", "10"}) == kNull);
  CHECK(ExpireAt(f, "nokey") == -2);
}

TEST_CASE("GETEX with a time in the past replies the value and deletes the key") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"GETEX", "k", "EXAT", "1"}) == Bulk("v"));
  CHECK(f.Run({"GET", "k"}) == kNull);
  CHECK(ExpireAt(f, "k") == -2);
}

TEST_CASE("GETEX errors") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"GETEX", "k", "EX", "10", "PX", "100"}) == kSyntax);
  CHECK(f.Run({"GETEX", "k", "PERSIST", "EX", "10"}) == kSyntax);
  CHECK(f.Run({"GETEX", "k", "EX", "10", "PERSIST"}) == kSyntax);
  CHECK(f.Run({"GETEX", "k", "FOO"}) == kSyntax);
  CHECK(f.Run({"GETEX", "k", "EX"}) == kSyntax);
  CHECK(f.Run({"GETEX", "k", "NX"}) == kSyntax);
  CHECK(f.Run({"GETEX", "k", "KEEPTTL"}) == kSyntax);
  CHECK(f.Run({"GETEX", "k", "GET"}) == kSyntax);
  CHECK(f.Run({"GETEX", "k", "EX", "0"}) == InvalidExpireReply("getex"));
  CHECK(f.Run({"GETEX", "k", "PXAT", "-1"}) == InvalidExpireReply("getex"));
  CHECK(f.Run({"GETEX", "k", "EX", "x"}) == kNotInt);
  CHECK(ExpireAt(f, "k") == 0);
  CHECK(f.Run({"GETEX"}) == Arity("getex"));
}

TEST_CASE("GETEX of a missing key is nil before the expiry is read") {
  CommandFixture f;
  CHECK(f.Run({"GETEX", "nokey", "EX", "0"}) == kNull);
  CHECK(f.Run({"GETEX", "nokey", "EX", "abc"}) == kNull);
  CHECK(f.Run({"GETEX", "nokey", "FOO"}) == kSyntax);
}

// ---- APPEND / STRLEN / GETRANGE / SETRANGE -------------------------------------------------

TEST_CASE("APPEND creates, extends and keeps the TTL") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"APPEND", "k", "abc"}) == Int(3));
  CHECK(ExpireAt(f, "k") == 0);
  CHECK(f.Run({"APPEND", "k", "def"}) == Int(6));
  CHECK(f.Run({"GET", "k"}) == Bulk("abcdef"));
  CHECK(f.Run({"APPEND", "n", ""}) == Int(0));
  CHECK(f.Run({"GET", "n"}) == kEmpty);
  CHECK(f.Run({"SET", "t", "x", "PX", "100"}) == kOk);
  CHECK(f.Run({"APPEND", "t", "y"}) == Int(2));
  CHECK(ExpireAt(f, "t") == now + 100);
  CHECK(f.Run({"SET", "i", "10"}) == kOk);
  CHECK(f.Run({"APPEND", "i", "5"}) == Int(3));
  CHECK(f.Run({"INCR", "i"}) == Int(106));
  CHECK(f.Run({"APPEND", "k"}) == Arity("append"));
}

TEST_CASE("APPEND past proto-max-bulk-len") {
  CommandFixture f;
  f.state().proto_max_bulk_len = 8;  // below the option's minimum, to keep the test small
  CHECK(f.Run({"APPEND", "k", "12345678"}) == Int(8));
  CHECK(f.Run({"APPEND", "k", "9"}) == kTooBig);
  CHECK(f.Run({"APPEND", "k", ""}) == Int(8));
  CHECK(f.Run({"GET", "k"}) == Bulk("12345678"));
}

TEST_CASE("STRLEN") {
  CommandFixture f;
  CHECK(f.Run({"STRLEN", "nokey"}) == Int(0));
  CHECK(f.Run({"SET", "k", "hello"}) == kOk);
  CHECK(f.Run({"STRLEN", "k"}) == Int(5));
  CHECK(f.Run({"SET", "i", "-12345"}) == kOk);
  CHECK(f.Run({"STRLEN", "i"}) == Int(6));
  CHECK(f.Run({"STRLEN", "k", "x"}) == Arity("strlen"));
}

TEST_CASE("GETRANGE clamps indexes as Redis 7.0") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "Hello World"}) == kOk);
  struct Case {
    const char* start;
    const char* end;
    const char* want;
  };
  const Case cases[] = {{"0", "4", "Hello"},
                        {"-5", "-1", "World"},
                        {"0", "-1", "Hello World"},
                        {"5", "2", ""},
                        {"-100", "100", "Hello World"},
                        {"100", "200", ""},
                        {"-1", "-5", ""},
                        {"0", "0", "H"},
                        {"-1", "-1", "d"},
                        {"6", "1000", "World"},
                        {"0", "-100", "H"},
                        {"-100", "-50", "H"},
                        {"-9223372036854775808", "9223372036854775807", "Hello World"}};
  for (const Case& c : cases) {
    CAPTURE(c.start);
    CAPTURE(c.end);
    CHECK(f.Run({"GETRANGE", "s", c.start, c.end}) == Bulk(c.want));
  }
}

TEST_CASE("GETRANGE of missing and empty keys, SUBSTR, errors") {
  CommandFixture f;
  CHECK(f.Run({"GETRANGE", "nokey", "0", "-1"}) == kEmpty);
  CHECK(f.Run({"SET", "e", ""}) == kOk);
  CHECK(f.Run({"GETRANGE", "e", "0", "-1"}) == kEmpty);
  CHECK(f.Run({"GETRANGE", "e", "0", "0"}) == kEmpty);
  CHECK(f.Run({"SET", "s", "Hello World"}) == kOk);
  CHECK(f.Run({"SUBSTR", "s", "0", "4"}) == Bulk("Hello"));
  CHECK(f.Run({"GETRANGE", "s", "a", "1"}) == kNotInt);
  CHECK(f.Run({"GETRANGE", "s", "0", "b"}) == kNotInt);
  CHECK(f.Run({"GETRANGE", "nokey", "a", "1"}) == kNotInt);  // numbers first
  CHECK(f.Run({"GETRANGE", "s", "0"}) == Arity("getrange"));
  CHECK(f.Run({"SUBSTR", "s", "0"}) == Arity("substr"));
}

TEST_CASE("SETRANGE pads with zero bytes and keeps the TTL") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"SETRANGE", "k", "5", "ab"}) == Int(7));
  CHECK(f.Run({"GET", "k"}) == Bulk(std::string("\0\0\0\0\0ab", 7)));
  CHECK(f.Run({"SETRANGE", "k", "0", "XY"}) == Int(7));
  CHECK(f.Run({"GET", "k"}) == Bulk(std::string("XY\0\0\0ab", 7)));
  CHECK(f.Run({"SETRANGE", "k", "6", "123"}) == Int(9));
  CHECK(f.Run({"GET", "k"}) == Bulk(std::string("XY\0\0\0a123", 9)));
  CHECK(f.Run({"SET", "t", "hello", "PX", "100"}) == kOk);
  CHECK(f.Run({"SETRANGE", "t", "1", "E"}) == Int(5));
  CHECK(f.Run({"GET", "t"}) == Bulk("hEllo"));
  CHECK(ExpireAt(f, "t") == now + 100);
}

TEST_CASE("SETRANGE with an empty value changes nothing") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "abc"}) == kOk);
  CHECK(f.Run({"SETRANGE", "k", "1", ""}) == Int(3));
  CHECK(f.Run({"SETRANGE", "k", "100", ""}) == Int(3));
  CHECK(f.Run({"SETRANGE", "nokey", "10", ""}) == Int(0));
  CHECK(f.Run({"SETRANGE", "nokey", "536870911", ""}) == Int(0));
  CHECK(f.Run({"GET", "nokey"}) == kNull);
}

TEST_CASE("SETRANGE errors") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "v"}) == kOk);
  CHECK(f.Run({"SETRANGE", "k", "-1", "a"}) == "-ERR offset is out of range\r\n");
  CHECK(f.Run({"SETRANGE", "k", "-1", ""}) == "-ERR offset is out of range\r\n");
  CHECK(f.Run({"SETRANGE", "k", "abc", "a"}) == kNotInt);
  CHECK(f.Run({"SETRANGE", "k", "536870912", "a"}) == kTooBig);
  CHECK(f.Run({"SETRANGE", "k", "536870911", "ab"}) == kTooBig);
  CHECK(f.Run({"SETRANGE", "nokey", "536870912", "a"}) == kTooBig);
  CHECK(f.Run({"SETRANGE", "k", "9223372036854775807", "ab"}) == kTooBig);
  CHECK(f.Run({"SETRANGE", "k", "0"}) == Arity("setrange"));
  CHECK(f.Run({"GET", "k"}) == Bulk("v"));
  CHECK(f.Run({"GET", "nokey"}) == kNull);
}

// ---- INCR family ---------------------------------------------------------------------------

TEST_CASE("INCR DECR INCRBY DECRBY") {
  CommandFixture f;
  CHECK(f.Run({"INCR", "n"}) == Int(1));
  CHECK(f.Run({"INCR", "n"}) == Int(2));
  CHECK(f.Run({"DECR", "n"}) == Int(1));
  CHECK(f.Run({"DECR", "m"}) == Int(-1));
  CHECK(f.Run({"INCRBY", "n", "10"}) == Int(11));
  CHECK(f.Run({"INCRBY", "n", "-20"}) == Int(-9));
  CHECK(f.Run({"DECRBY", "n", "-9"}) == Int(0));
  CHECK(f.Run({"DECRBY", "n", "5"}) == Int(-5));
  CHECK(f.Run({"GET", "n"}) == Bulk("-5"));
}

TEST_CASE("INCR keeps the TTL") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"SET", "t", "7", "EX", "100"}) == kOk);
  CHECK(f.Run({"INCR", "t"}) == Int(8));
  CHECK(f.Run({"DECRBY", "t", "3"}) == Int(5));
  CHECK(ExpireAt(f, "t") == now + 100'000);
}

TEST_CASE("INCR refuses values that are not strict integers") {
  CommandFixture f;
  for (const char* v :
       {"1.5", " 1", "1 ", "01", "", "+1", "-0", "1e3", "abc", "12345678901234567890", "0x10"}) {
    CAPTURE(v);
    CHECK(f.Run({"SET", "n", v}) == kOk);
    CHECK(f.Run({"INCR", "n"}) == kNotInt);
    CHECK(f.Run({"GET", "n"}) == Bulk(v));
  }
}

TEST_CASE("INCR and DECR overflow") {
  CommandFixture f;
  CHECK(f.Run({"SET", "n", "9223372036854775807"}) == kOk);
  CHECK(f.Run({"INCR", "n"}) == kOverflow);
  CHECK(f.Run({"INCRBY", "n", "1"}) == kOverflow);
  CHECK(f.Run({"INCRBY", "n", "-1"}) == Int(9223372036854775806));
  CHECK(f.Run({"SET", "m", "-9223372036854775808"}) == kOk);
  CHECK(f.Run({"DECR", "m"}) == kOverflow);
  CHECK(f.Run({"DECRBY", "m", "1"}) == kOverflow);
  CHECK(f.Run({"GET", "m"}) == Bulk("-9223372036854775808"));
  CHECK(f.Run({"SET", "z", "0"}) == kOk);
  CHECK(f.Run({"DECRBY", "z", "-9223372036854775808"}) == "-ERR decrement would overflow\r\n");
  CHECK(f.Run({"INCRBY", "z", "9223372036854775808"}) == kNotInt);
  CHECK(f.Run({"INCRBY", "z", "-9223372036854775808"}) == ":-9223372036854775808\r\n");
}

TEST_CASE("INCRBY arity and bad increments") {
  CommandFixture f;
  CHECK(f.Run({"INCR"}) == Arity("incr"));
  CHECK(f.Run({"INCRBY", "n"}) == Arity("incrby"));
  CHECK(f.Run({"INCRBY", "n", "abc"}) == kNotInt);
  CHECK(f.Run({"DECRBY", "n", "1.0"}) == kNotInt);
  CHECK(f.Run({"GET", "n"}) == kNull);
}

TEST_CASE("INCRBYFLOAT formats as Redis") {
  CommandFixture f;
  struct Case {
    const char* start;  // nullptr: no key
    const char* incr;
    const char* want;
  };
  const Case cases[] = {{nullptr, "3", "3"},
                        {nullptr, "10.5", "10.5"},
                        {nullptr, "3.0", "3"},
                        {nullptr, "5.0e3", "5000"},
                        {nullptr, ".5", "0.5"},
                        {nullptr, "5.", "5"},
                        {nullptr, "1.0e-3", "0.001"},
                        {nullptr, "-1.5", "-1.5"},
                        {nullptr, "-0", "0"},
                        {"10.50", "0.1", "10.6"},
                        {"5.0e3", "2.0e2", "5200"},
                        {"3", "1.5", "4.5"},
                        {"100", "-100.25", "-0.25"},
                        {"3.14", "0", "3.14"},
                        {"1", "1.23456789012345678901234567", "2.23456789012345679"}};
  for (const Case& c : cases) {
    CAPTURE(c.incr);
    CHECK(f.Run({"DEL", "f"}).size() > 0);
    if (c.start) CHECK(f.Run({"SET", "f", c.start}) == kOk);
    CHECK(f.Run({"INCRBYFLOAT", "f", c.incr}) == Bulk(c.want));
    CHECK(f.Run({"GET", "f"}) == Bulk(c.want));
  }
}

TEST_CASE("INCRBYFLOAT errors leave the value") {
  CommandFixture f;
  CHECK(f.Run({"SET", "f", "1"}) == kOk);
  for (const char* bad : {"abc", "nan", " 1", "", "1 "}) {
    CAPTURE(bad);
    CHECK(f.Run({"INCRBYFLOAT", "f", bad}) == kNotFloat);
  }
  CHECK(f.Run({"INCRBYFLOAT", "f", "inf"}) == "-ERR increment would produce NaN or Infinity\r\n");
  for (const char* bad : {"abc", "5 ", " 5", "", "1.5.5"}) {
    CAPTURE(bad);
    CHECK(f.Run({"SET", "g", bad}) == kOk);
    CHECK(f.Run({"INCRBYFLOAT", "g", "1"}) == kNotFloat);
    CHECK(f.Run({"GET", "g"}) == Bulk(bad));
  }
  CHECK(f.Run({"SET", "h", "inf"}) == kOk);
  CHECK(f.Run({"INCRBYFLOAT", "h", "1"}) == "-ERR increment would produce NaN or Infinity\r\n");
  CHECK(f.Run({"INCRBYFLOAT", "f"}) == Arity("incrbyfloat"));
  CHECK(f.Run({"GET", "f"}) == Bulk("1"));
}

TEST_CASE("INCRBYFLOAT keeps the TTL; its result is an integer only when integral") {
  CommandFixture f;
  const int64_t now = f.clock().NowMs();
  CHECK(f.Run({"SET", "f", "1", "EX", "100"}) == kOk);
  CHECK(f.Run({"INCRBYFLOAT", "f", "0.5"}) == Bulk("1.5"));
  CHECK(ExpireAt(f, "f") == now + 100'000);
  CHECK(f.Run({"INCRBYFLOAT", "g", "2.0"}) == Bulk("2"));
  CHECK(f.Run({"INCR", "g"}) == Int(3));
  CHECK(f.Run({"INCRBYFLOAT", "g", "0.5"}) == Bulk("3.5"));
  CHECK(f.Run({"INCR", "g"}) == kNotInt);
}

// ---- MGET / MSET / MSETNX ------------------------------------------------------------------

TEST_CASE("MGET and MSET across slots; a later pair wins") {
  CommandFixture f;
  CHECK(f.Run({"MSET", "a", "1", "b", "2", "c", "3", "d", "4", "a", "5"}) == kOk);
  CHECK(f.Run({"MGET", "a", "b", "nokey", "a", "c", "d"}) ==
        "*6\r\n" + Bulk("5") + Bulk("2") + kNull + Bulk("5") + Bulk("3") + Bulk("4"));
  CHECK(f.Run({"MSET", "a", "1", "b"}) == Arity("mset"));
  CHECK(f.Run({"MSET", "a"}) == Arity("mset"));
  CHECK(f.Run({"MSET"}) == Arity("mset"));
  CHECK(f.Run({"MGET"}) == Arity("mget"));
}

TEST_CASE("MGET replies nil for a key of another type") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "v"}) == kOk);
  PutList(f, "l");
  CHECK(f.Run({"MGET", "s", "l"}) == "*2\r\n" + Bulk("v") + kNull);
}

TEST_CASE("MSET drops TTLs and overwrites other types") {
  CommandFixture f;
  CHECK(f.Run({"SET", "a", "1", "EX", "100"}) == kOk);
  PutList(f, "l");
  CHECK(f.Run({"MSET", "a", "2", "l", "3"}) == kOk);
  CHECK(ExpireAt(f, "a") == 0);
  CHECK(f.Run({"GET", "l"}) == Bulk("3"));
}

TEST_CASE("MSET with a key too long writes nothing") {
  CommandFixture f;
  CHECK(f.Run({"MSET", "a", "1", std::string(3000, 'k'), "2"}) ==
        "-ERR key too long (slotkv keeps keys up to 2048 bytes)\r\n");
  CHECK(f.Run({"GET", "a"}) == kNull);
}

TEST_CASE("MSETNX is all or nothing across slots") {
  CommandFixture f;
  REQUIRE(f.state().keyspace->SlotOfKey("a") != f.state().keyspace->SlotOfKey("c"));
  CHECK(f.Run({"MSETNX", "a", "1", "b", "2"}) == Int(1));
  CHECK(f.Run({"MSETNX", "c", "3", "a", "9"}) == Int(0));
  CHECK(f.Run({"GET", "c"}) == kNull);
  CHECK(f.Run({"GET", "a"}) == Bulk("1"));
  CHECK(f.Run({"MSETNX", "x", "1", "x", "2"}) == Int(1));
  CHECK(f.Run({"GET", "x"}) == Bulk("2"));
  CHECK(f.Run({"MSETNX", "a"}) == Arity("msetnx"));
  CHECK(f.Run({"MSETNX", "a", "1", "b"}) == Arity("msetnx"));
}

TEST_CASE("MSETNX in one slot (hash tag), and keys of other types count as existing") {
  CommandFixture f;
  CHECK(f.Run({"MSETNX", "{t}a", "1", "{t}b", "2"}) == Int(1));
  CHECK(f.Run({"MSETNX", "{t}c", "3", "{t}b", "9"}) == Int(0));
  CHECK(f.Run({"MGET", "{t}a", "{t}b", "{t}c"}) == "*3\r\n" + Bulk("1") + Bulk("2") + kNull);
  PutList(f, "l");
  CHECK(f.Run({"MSETNX", "n", "1", "l", "2"}) == Int(0));
  CHECK(f.Run({"GET", "n"}) == kNull);
}

// ---- LCS -----------------------------------------------------------------------------------

TEST_CASE("LCS plain and LEN") {
  CommandFixture f;
  CHECK(f.Run({"MSET", "a", "ohmytext", "b", "mynewtext"}) == kOk);
  CHECK(f.Run({"LCS", "a", "b"}) == Bulk("mytext"));
  CHECK(f.Run({"LCS", "a", "b", "len"}) == Int(6));
  CHECK(f.Run({"LCS", "a", "nokey"}) == kEmpty);
  CHECK(f.Run({"LCS", "nokey", "nokey2", "LEN"}) == Int(0));
  CHECK(f.Run({"LCS", "a", "a"}) == Bulk("ohmytext"));
  CHECK(f.Run({"LCS", "a", "b", "LEN", "MINMATCHLEN", "4"}) == Int(6));
}

TEST_CASE("LCS IDX, MINMATCHLEN, WITHMATCHLEN") {
  CommandFixture f;
  CHECK(f.Run({"MSET", "a", "ohmytext", "b", "mynewtext"}) == kOk);
  const std::string m1 = "*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n";
  const std::string m2 = "*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n";
  const std::string m1_len = "*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n";
  const std::string m2_len = "*3\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n:2\r\n";
  const std::string head = "*4\r\n$7\r\nmatches\r\n";
  const std::string tail = "$3\r\nlen\r\n:6\r\n";
  CHECK(f.Run({"LCS", "a", "b", "IDX"}) == head + "*2\r\n" + m1 + m2 + tail);
  CHECK(f.Run({"LCS", "a", "b", "IDX", "MINMATCHLEN", "4"}) == head + "*1\r\n" + m1 + tail);
  CHECK(f.Run({"LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"}) ==
        head + "*1\r\n" + m1_len + tail);
  CHECK(f.Run({"LCS", "a", "b", "IDX", "WITHMATCHLEN"}) ==
        head + "*2\r\n" + m1_len + m2_len + tail);
  CHECK(f.Run({"LCS", "a", "b", "IDX", "MINMATCHLEN", "-1"}) == head + "*2\r\n" + m1 + m2 + tail);
  CHECK(f.Run({"LCS", "a", "nokey", "IDX"}) == head + "*0\r\n$3\r\nlen\r\n:0\r\n");
}

TEST_CASE("LCS IDX is a map in RESP3") {
  CommandFixture f;
  CHECK(f.Run({"MSET", "a", "ab", "b", "ab"}) == kOk);
  f.client().protocol = 3;
  CHECK(f.Run({"LCS", "a", "b", "IDX"}) ==
        "%2\r\n$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:0\r\n:1\r\n*2\r\n:0\r\n:1\r\n"
        "$3\r\nlen\r\n:2\r\n");
}

TEST_CASE("LCS errors") {
  CommandFixture f;
  CHECK(f.Run({"MSET", "a", "ohmytext", "b", "mynewtext"}) == kOk);
  CHECK(f.Run({"LCS", "a", "b", "LEN", "IDX"}) ==
        "-ERR If you want both the length and indexes, please just use IDX.\r\n");
  CHECK(f.Run({"LCS", "a", "b", "FOO"}) == kSyntax);
  CHECK(f.Run({"LCS", "a", "b", "MINMATCHLEN"}) == kSyntax);
  CHECK(f.Run({"LCS", "a", "b", "MINMATCHLEN", "x"}) == kNotInt);
  CHECK(f.Run({"LCS", "a"}) == Arity("lcs"));
  PutList(f, "l");
  CHECK(f.Run({"LCS", "a", "l", "FOO"}) ==
        "-ERR The specified keys must contain string values\r\n");
}

TEST_CASE("LCS refuses a table larger than proto-max-bulk-len") {
  CommandFixture f;
  f.state().proto_max_bulk_len = 1 << 20;
  CHECK(f.Run({"MSET", "a", std::string(600, 'x'), "b", std::string(600, 'x')}) == kOk);
  CHECK(f.Run({"LCS", "a", "b", "LEN"}) ==
        "-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len\r\n");
  CHECK(f.Run({"MSET", "a", std::string(500, 'x'), "b", std::string(500, 'x')}) == kOk);
  CHECK(f.Run({"LCS", "a", "b", "LEN"}) == Int(500));
}

// ---- across the family ---------------------------------------------------------------------

TEST_CASE("Commands on a key of another type reply WRONGTYPE and leave it") {
  CommandFixture f;
  PutList(f, "l");
  const std::vector<std::vector<std::string>> cmds = {{"GET", "l"},
                                                      {"GETDEL", "l"},
                                                      {"GETEX", "l"},
                                                      {"GETEX", "l", "EX", "0"},
                                                      {"GETSET", "l", "v"},
                                                      {"APPEND", "l", "a"},
                                                      {"STRLEN", "l"},
                                                      {"GETRANGE", "l", "0", "1"},
                                                      {"SUBSTR", "l", "0", "1"},
                                                      {"SETRANGE", "l", "0", "a"},
                                                      {"SETRANGE", "l", "0", ""},
                                                      {"INCR", "l"},
                                                      {"DECR", "l"},
                                                      {"INCRBY", "l", "1"},
                                                      {"DECRBY", "l", "1"},
                                                      {"INCRBYFLOAT", "l", "1"},
                                                      {"SET", "l", "v", "GET"}};
  for (const auto& cmd : cmds) {
    CAPTURE(cmd[0]);
    CHECK(f.Run(cmd) == kWrongType);
  }
  CHECK(ExpireAt(f, "l") == 0);                   // still there
  CHECK(f.Run({"INCRBY", "l", "x"}) == kNotInt);  // the increment is read first
}

TEST_CASE("Reads count keyspace hits and misses, writes do not") {
  CommandFixture f;
  CHECK(f.Run({"SET", "a", "1"}) == kOk);
  CHECK(f.Run({"INCR", "a"}) == Int(2));
  CHECK(f.Run({"APPEND", "a", "0"}) == Int(2));
  CHECK(Hits(f) == 0);
  CHECK(Misses(f) == 0);
  CHECK(f.Run({"GET", "a"}) == Bulk("20"));
  CHECK(f.Run({"STRLEN", "nokey"}) == Int(0));
  CHECK(f.Run({"MGET", "a", "x", "y"}) == "*3\r\n" + Bulk("20") + kNull + kNull);
  CHECK(f.Run({"LCS", "a", "x"}) == kEmpty);
  CHECK(Hits(f) == 3);
  CHECK(Misses(f) == 4);
}

TEST_CASE("Command table rows") {
  CommandFixture f;
  const CommandTable& t = *f.state().table;
  const CommandSpec* mset = t.Find("MSET");
  REQUIRE(mset);
  CHECK(mset->arity == -3);
  CHECK(mset->step == 2);
  CHECK(mset->last_key == -1);
  const CommandSpec* lcs = t.Find("lcs");
  REQUIRE(lcs);
  CHECK(lcs->last_key == 2);
  CHECK(lcs->since == "7.0.0");
  for (const char* name :
       {"append", "decr",   "decrby",      "get",    "getdel", "getex",  "getrange", "getset",
        "incr",   "incrby", "incrbyfloat", "mget",   "mset",   "msetnx", "psetex",   "set",
        "setex",  "setnx",  "setrange",    "strlen", "substr", "lcs"}) {
    CAPTURE(name);
    const CommandSpec* spec = t.Find(name);
    REQUIRE(spec);
    CHECK(spec->group == "string");
    CHECK(!spec->summary.empty());
    CHECK(spec->first_key == 1);
  }
}

}  // namespace
}  // namespace slotkv::command
