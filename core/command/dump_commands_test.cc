#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

// The bulk string of a reply "$<n>\r\n<bytes>\r\n".
std::string BulkOf(const std::string& reply) {
  const size_t start = reply.find("\r\n") + 2;
  return reply.substr(start, reply.size() - start - 2);
}

TEST_CASE("DUMP and RESTORE move every type") {
  CommandFixture f;
  f.Run({"SET", "s", "v"});
  f.Run({"RPUSH", "l", "a", "b"});
  f.Run({"SADD", "st", "1", "x"});
  f.Run({"HSET", "h", "f", "v"});
  f.Run({"ZADD", "z", "1.5", "m"});
  CHECK(f.Run({"DUMP", "nope"}) == "$-1\r\n");
  for (const std::string key : {"s", "l", "st", "h", "z"}) {
    CAPTURE(key);
    const std::string payload = BulkOf(f.Run({"DUMP", key}));
    CHECK(f.Run({"RESTORE", key + "2", "0", payload}) == "+OK\r\n");
    CHECK(f.Run({"TYPE", key + "2"}) == f.Run({"TYPE", key}));
    CHECK(f.Run({"DUMP", key + "2"}) == f.Run({"DUMP", key}));
  }
  CHECK(f.Run({"ZSCORE", "z2", "m"}) == "$3\r\n1.5\r\n");
}

TEST_CASE("RESTORE checks in Redis's order") {
  CommandFixture f;
  f.Run({"SET", "s", "v"});
  const std::string payload = BulkOf(f.Run({"DUMP", "s"}));
  CHECK(f.Run({"RESTORE", "s", "0", payload}) == "-BUSYKEY Target key name already exists.\r\n");
  CHECK(f.Run({"RESTORE", "t", "-1", payload}) == "-ERR Invalid TTL value, must be >= 0\r\n");
  std::string bad = payload;
  bad[1] = static_cast<char>(bad[1] ^ 1);
  CHECK(f.Run({"RESTORE", "t", "0", bad}) == "-ERR DUMP payload version or checksum are wrong\r\n");
  CHECK(f.Run({"RESTORE", "t", "0", payload, "FREQ", "256"}) ==
        "-ERR Invalid FREQ value, must be >= 0 and <= 255\r\n");
  CHECK(f.Run({"RESTORE", "t", "0", payload, "IDLETIME", "1", "FREQ", "1"}) ==
        "-ERR syntax error\r\n");
  CHECK(f.Run({"RESTORE", "s", "1", payload, "REPLACE", "ABSTTL"}) == "+OK\r\n");
  CHECK(f.Run({"EXISTS", "s"}) == ":0\r\n");  // a TTL in the past: REPLACE deleted it
  // A relative TTL that overflows is a past one, as in Redis.
  CHECK(f.Run({"RESTORE", "t", "9223372036854775807", payload}) == "+OK\r\n");
  CHECK(f.Run({"EXISTS", "t"}) == ":0\r\n");
}

TEST_CASE("MIGRATE's keys, and what it refuses before connecting") {
  CommandFixture f;
  const CommandSpec& migrate = *f.state().table->Find("migrate");
  CHECK(CommandTable::Keys(migrate, {"migrate", "h", "1", "k", "0", "10"}) ==
        std::vector<size_t>{3});
  CHECK(CommandTable::Keys(migrate, {"migrate", "h", "1", "", "0", "10", "COPY", "KEYS", "a",
                                     "b"}) == std::vector<size_t>{8, 9});
  CHECK(f.Run({"MIGRATE", "127.0.0.1", "1", "k", "0", "10", "KEYS", "a"}) ==
        "-ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
        "string\r\n");
  CHECK(f.Run({"MIGRATE", "127.0.0.1", "1", "k", "0", "10", "AUTH"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"MIGRATE", "127.0.0.1", "1", "k", "x", "10"}) ==
        "-ERR value is not an integer or out of range\r\n");
  CHECK(f.Run({"MIGRATE", "127.0.0.1", "1", "k", "0", "10"}) == "+NOKEY\r\n");
}

}  // namespace
}  // namespace slotkv::command
