#include <doctest/doctest.h>

#include <functional>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

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

TEST_CASE("HSET counts new fields, HGET reads, overwrite keeps order") {
  CommandFixture f;
  CHECK(f.Run({"HSET", "h", "a", "1", "b", "2"}) == Int(2));
  CHECK(f.Run({"HSET", "h", "a", "x", "c", "3"}) == Int(1));
  CHECK(f.Run({"HGET", "h", "a"}) == Bulk("x"));
  CHECK(f.Run({"HGET", "h", "zz"}) == kNull);
  CHECK(f.Run({"HGET", "nokey", "a"}) == kNull);
  CHECK(f.Run({"HGETALL", "h"}) == Arr({"a", "x", "b", "2", "c", "3"}));
  CHECK(f.Run({"TYPE", "h"}) == "+hash\r\n");
}

TEST_CASE("HSET and HMSET with an odd pair count name themselves in the arity error") {
  CommandFixture f;
  CHECK(f.Run({"HSET", "h", "a"}) == Arity("hset"));
  CHECK(f.Run({"HSET", "h", "a", "1", "b"}) == Arity("hset"));
  CHECK(f.Run({"HMSET", "h", "a", "1", "b"}) == Arity("hmset"));
  CHECK(f.Run({"HMSET", "h", "a", "1"}) == kOk);
  CHECK(f.Run({"HGET", "h"}) == Arity("hget"));
  CHECK(f.Run({"HDEL", "h"}) == Arity("hdel"));
  CHECK(f.Run({"EXISTS", "h"}) == Int(1));
}

TEST_CASE("HSETNX sets only a new field") {
  CommandFixture f;
  CHECK(f.Run({"HSETNX", "h", "a", "1"}) == Int(1));
  CHECK(f.Run({"HSETNX", "h", "a", "2"}) == Int(0));
  CHECK(f.Run({"HGET", "h", "a"}) == Bulk("1"));
}

TEST_CASE("HDEL of the last field deletes the key") {
  CommandFixture f;
  CHECK(f.Run({"HSET", "h", "a", "1", "b", "2"}) == Int(2));
  CHECK(f.Run({"HDEL", "h", "a", "a", "zz"}) == Int(1));
  CHECK(f.Run({"EXISTS", "h"}) == Int(1));
  CHECK(f.Run({"HDEL", "h", "b"}) == Int(1));
  CHECK(f.Run({"EXISTS", "h"}) == Int(0));
  CHECK(f.Run({"HDEL", "h", "b"}) == Int(0));
}

TEST_CASE("writes keep the TTL") {
  CommandFixture f;
  CHECK(f.Run({"HSET", "h", "a", "1"}) == Int(1));
  CHECK(f.Run({"EXPIRE", "h", "100"}) == Int(1));
  CHECK(f.Run({"HSET", "h", "b", "2"}) == Int(1));
  CHECK(f.Run({"HINCRBY", "h", "n", "1"}) == Int(1));
  CHECK(f.Run({"HINCRBYFLOAT", "h", "x", "1.5"}) == Bulk("1.5"));
  CHECK(f.Run({"HDEL", "h", "a"}) == Int(1));
  CHECK(f.Run({"HSETNX", "h", "c", "1"}) == Int(1));
  CHECK(f.Run({"TTL", "h"}) == Int(100));
}

TEST_CASE("HMGET, HLEN, HSTRLEN, HEXISTS, HKEYS, HVALS") {
  CommandFixture f;
  CHECK(f.Run({"HSET", "h", "a", "hello", "b", ""}) == Int(2));
  CHECK(f.Run({"HMGET", "h", "a", "zz", "b"}) == "*3\r\n$5\r\nhello\r\n$-1\r\n$0\r\n\r\n");
  CHECK(f.Run({"HMGET", "nokey", "a", "b"}) == "*2\r\n$-1\r\n$-1\r\n");
  CHECK(f.Run({"HLEN", "h"}) == Int(2));
  CHECK(f.Run({"HLEN", "nokey"}) == Int(0));
  CHECK(f.Run({"HSTRLEN", "h", "a"}) == Int(5));
  CHECK(f.Run({"HSTRLEN", "h", "zz"}) == Int(0));
  CHECK(f.Run({"HSTRLEN", "nokey", "a"}) == Int(0));
  CHECK(f.Run({"HEXISTS", "h", "b"}) == Int(1));
  CHECK(f.Run({"HEXISTS", "h", "zz"}) == Int(0));
  CHECK(f.Run({"HEXISTS", "nokey", "a"}) == Int(0));
  CHECK(f.Run({"HKEYS", "h"}) == Arr({"a", "b"}));
  CHECK(f.Run({"HVALS", "h"}) == Arr({"hello", ""}));
  CHECK(f.Run({"HKEYS", "nokey"}) == kEmptyArray);
  CHECK(f.Run({"HVALS", "nokey"}) == kEmptyArray);
  CHECK(f.Run({"HGETALL", "nokey"}) == kEmptyArray);
}

TEST_CASE("HGETALL is a map in RESP3, an empty map for a missing key") {
  CommandFixture f;
  CHECK(f.Run({"HSET", "h", "a", "1"}) == Int(1));
  CHECK(f.Run({"HELLO", "3"}).rfind("%", 0) == 0);
  CHECK(f.Run({"HGETALL", "h"}) == "%1\r\n$1\r\na\r\n$1\r\n1\r\n");
  CHECK(f.Run({"HGETALL", "nokey"}) == "%0\r\n");
  CHECK(f.Run({"HKEYS", "nokey"}) == kEmptyArray);
  CHECK(f.Run({"HGET", "h", "zz"}) == "_\r\n");
}

TEST_CASE("every command replies WRONGTYPE on a string key") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "v"}) == kOk);
  const std::vector<std::vector<std::string>> cmds = {
      {"HSET", "s", "a", "1"},  {"HMSET", "s", "a", "1"},   {"HSETNX", "s", "a", "1"},
      {"HDEL", "s", "a"},       {"HINCRBY", "s", "a", "1"}, {"HINCRBYFLOAT", "s", "a", "1"},
      {"HGET", "s", "a"},       {"HMGET", "s", "a"},        {"HLEN", "s"},
      {"HSTRLEN", "s", "a"},    {"HEXISTS", "s", "a"},      {"HKEYS", "s"},
      {"HVALS", "s"},           {"HGETALL", "s"},           {"HRANDFIELD", "s"},
      {"HRANDFIELD", "s", "0"}, {"HSCAN", "s", "0"}};
  for (const auto& c : cmds) {
    INFO(c[0]);
    CHECK(f.Run(c) == kWrongType);
  }
  CHECK(f.Run({"GET", "s"}) == Bulk("v"));
}

TEST_CASE("HINCRBY: parse, overflow, non-integer values") {
  CommandFixture f;
  CHECK(f.Run({"HINCRBY", "h", "n", "5"}) == Int(5));
  CHECK(f.Run({"HINCRBY", "h", "n", "-7"}) == Int(-2));
  CHECK(f.Run({"HINCRBY", "h", "n", "x"}) == kNotInt);
  CHECK(f.Run({"HINCRBY", "h", "n", "1.5"}) == kNotInt);
  CHECK(f.Run({"HSET", "h", "s", "abc", "z", "007", "big", "9223372036854775807"}) == Int(3));
  CHECK(f.Run({"HINCRBY", "h", "s", "1"}) == "-ERR hash value is not an integer\r\n");
  CHECK(f.Run({"HINCRBY", "h", "z", "1"}) == "-ERR hash value is not an integer\r\n");
  CHECK(f.Run({"HINCRBY", "h", "big", "1"}) == "-ERR increment or decrement would overflow\r\n");
  CHECK(f.Run({"HINCRBY", "h", "big", "0"}) == Int(INT64_MAX));
  CHECK(f.Run({"HINCRBY", "nokey", "n", "x"}) == kNotInt);
  CHECK(f.Run({"EXISTS", "nokey"}) == Int(0));
}

TEST_CASE("HINCRBYFLOAT: format, NaN and infinity, non-float values") {
  CommandFixture f;
  CHECK(f.Run({"HINCRBYFLOAT", "h", "x", "10.5"}) == Bulk("10.5"));
  CHECK(f.Run({"HINCRBYFLOAT", "h", "x", "0.1"}) == Bulk("10.6"));
  CHECK(f.Run({"HINCRBYFLOAT", "h", "x", "-10.6"}) == Bulk("0"));
  CHECK(f.Run({"HINCRBYFLOAT", "h", "e", "5.0e3"}) == Bulk("5000"));
  CHECK(f.Run({"HINCRBYFLOAT", "h", "x", "abc"}) == kNotFloat);
  CHECK(f.Run({"HINCRBYFLOAT", "h", "x", "inf"}) == "-ERR value is NaN or Infinity\r\n");
  CHECK(f.Run({"HINCRBYFLOAT", "h", "x", "nan"}) == kNotFloat);
  CHECK(f.Run({"HSET", "h", "s", "abc", "i", "inf"}) == Int(2));
  CHECK(f.Run({"HINCRBYFLOAT", "h", "s", "1"}) == "-ERR hash value is not a float\r\n");
  CHECK(f.Run({"HINCRBYFLOAT", "h", "i", "1"}) ==
        "-ERR increment would produce NaN or Infinity\r\n");
}

TEST_CASE("HRANDFIELD: no count, counts, WITHVALUES, errors") {
  CommandFixture f;
  CHECK(f.Run({"HRANDFIELD", "nokey"}) == kNull);
  CHECK(f.Run({"HRANDFIELD", "nokey", "3"}) == kEmptyArray);
  CHECK(f.Run({"HSET", "h", "a", "1", "b", "2", "c", "3"}) == Int(3));
  const std::set<std::string> one = {Bulk("a"), Bulk("b"), Bulk("c")};
  CHECK(one.count(f.Run({"HRANDFIELD", "h"})) == 1);
  CHECK(f.Run({"HRANDFIELD", "h", "0"}) == kEmptyArray);
  CHECK(f.Run({"HRANDFIELD", "h", "3"}) == Arr({"a", "b", "c"}));
  CHECK(f.Run({"HRANDFIELD", "h", "10", "WITHVALUES"}) == Arr({"a", "1", "b", "2", "c", "3"}));
  // Two distinct fields, in hash order.
  const std::set<std::string> two = {Arr({"a", "b"}), Arr({"a", "c"}), Arr({"b", "c"})};
  for (int i = 0; i < 20; ++i) CHECK(two.count(f.Run({"HRANDFIELD", "h", "2"})) == 1);
  std::string neg = f.Run({"HRANDFIELD", "h", "-5", "withvalues"});
  CHECK(neg.rfind("*10\r\n", 0) == 0);
  CHECK(f.Run({"HRANDFIELD", "h", "x"}) == kNotInt);
  CHECK(f.Run({"HRANDFIELD", "h", "1", "WITHVALUE"}) == kSyntax);
  CHECK(f.Run({"HRANDFIELD", "h", "1", "WITHVALUES", "x"}) == kSyntax);
  CHECK(f.Run({"HRANDFIELD", "h", "-9223372036854775808"}) ==
        "-ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807\r\n");
  CHECK(f.Run({"HRANDFIELD", "h", "9223372036854775807", "WITHVALUES"}) ==
        "-ERR value is out of range\r\n");
  CHECK(f.Run({"HRANDFIELD", "h", "-9223372036854775807"}).rfind("-ERR value is out of range", 0) ==
        0);  // slotkv's cap on the reply size
}

TEST_CASE("HRANDFIELD WITHVALUES in RESP3 nests pairs; a missing key is an empty array") {
  CommandFixture f;
  CHECK(f.Run({"HSET", "h", "a", "1"}) == Int(1));
  CHECK(f.Run({"HELLO", "3"}).rfind("%", 0) == 0);
  CHECK(f.Run({"HRANDFIELD", "h", "1", "WITHVALUES"}) == "*1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n");
  CHECK(f.Run({"HRANDFIELD", "h", "-2", "WITHVALUES"}) ==
        "*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n");
  CHECK(f.Run({"HRANDFIELD", "nokey", "2"}) == kEmptyArray);
  CHECK(f.Run({"HRANDFIELD", "nokey"}) == "_\r\n");
}

TEST_CASE("HSCAN returns everything with cursor 0; MATCH, COUNT and errors") {
  CommandFixture f;
  CHECK(f.Run({"HSCAN", "nokey", "0", "BAD"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(f.Run({"HSET", "h", "a1", "x", "b1", "y", "a2", "z", "", "e"}) == Int(4));
  CHECK(f.Run({"HSCAN", "h", "0"}) ==
        "*2\r\n$1\r\n0\r\n" + Arr({"a1", "x", "b1", "y", "a2", "z", "", "e"}));
  CHECK(f.Run({"HSCAN", "h", "123", "COUNT", "1", "MATCH", "a*"}) ==
        "*2\r\n$1\r\n0\r\n" + Arr({"a1", "x", "a2", "z"}));
  CHECK(f.Run({"HSCAN", "h", "0", "MATCH", "*"}) ==
        "*2\r\n$1\r\n0\r\n" + Arr({"a1", "x", "b1", "y", "a2", "z", "", "e"}));
  CHECK(f.Run({"HSCAN", "h", "x"}) == "-ERR invalid cursor\r\n");
  CHECK(f.Run({"HSCAN", "nokey", "x"}) == "-ERR invalid cursor\r\n");
  CHECK(f.Run({"HSCAN", "h", "0", "COUNT", "0"}) == kSyntax);
  CHECK(f.Run({"HSCAN", "h", "0", "COUNT", "x"}) == kNotInt);
  CHECK(f.Run({"HSCAN", "h", "0", "MATCH"}) == kSyntax);
  CHECK(f.Run({"HSCAN", "h", "0", "TYPE", "hash"}) == kSyntax);
}

TEST_CASE("keyspace hits and misses count read lookups only") {
  CommandFixture f;
  CHECK(f.Run({"HSET", "h", "a", "1"}) == Int(1));
  CHECK(f.Run({"HINCRBY", "h", "n", "1"}) == Int(1));
  CHECK(f.Run({"HDEL", "zz", "a"}) == Int(0));
  CHECK(Hits(f) == 0);
  CHECK(Misses(f) == 0);
  CHECK(f.Run({"HGET", "h", "a"}) == Bulk("1"));
  CHECK(f.Run({"HLEN", "h"}) == Int(2));
  CHECK(f.Run({"HGETALL", "nokey"}) == kEmptyArray);
  CHECK(f.Run({"HSCAN", "nokey", "0"}) == "*2\r\n$1\r\n0\r\n*0\r\n");
  CHECK(Hits(f) == 2);
  CHECK(Misses(f) == 2);
}

TEST_CASE("a corrupt stored hash replies an error, not a crash") {
  CommandFixture f;
  OnOwner(f, "h", [](Store& store) {
    REQUIRE(store.Put("h", std::string("\x01\x05", 2), ValueType::kHash, 0).ok());
  });
  CHECK(f.Run({"HGET", "h", "a"}).rfind("-ERR Corruption: hash", 0) == 0);
  CHECK(f.Run({"HSET", "h", "a", "1"}).rfind("-ERR Corruption: hash", 0) == 0);
}

TEST_CASE("a hash of 20k fields: HSET in batches, HLEN, HGET, HDEL") {
  CommandFixture f;
  for (int batch = 0; batch < 20; ++batch) {
    std::vector<std::string> cmd = {"HSET", "big"};
    for (int i = 0; i < 1000; ++i) {
      const std::string n = std::to_string(batch * 1000 + i);
      cmd.push_back("f" + n);
      cmd.push_back("v" + n);
    }
    CHECK(f.Run(cmd) == Int(1000));
  }
  CHECK(f.Run({"HLEN", "big"}) == Int(20000));
  CHECK(f.Run({"HGET", "big", "f12345"}) == Bulk("v12345"));
  CHECK(f.Run({"HDEL", "big", "f0", "f19999", "nope"}) == Int(2));
  CHECK(f.Run({"HLEN", "big"}) == Int(19998));
  CHECK(f.Run({"HEXISTS", "big", "f0"}) == Int(0));
}

}  // namespace
}  // namespace slotkv::command
