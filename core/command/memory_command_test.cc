#include <doctest/doctest.h>

#include <string>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

TEST_CASE("MEMORY USAGE counts the key, a cell's fixed fields and the value") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "hello"}) == "+OK\r\n");
  const std::string usage = f.Run({"MEMORY", "USAGE", "k"});
  CHECK(usage.rfind(":", 0) == 0);
  CHECK(std::stoll(usage.substr(1)) >= 1 + 26 + 5);
  CHECK(f.Run({"MEMORY", "USAGE", "nope"}) == "$-1\r\n");
  CHECK(f.Run({"MEMORY", "USAGE", "k", "SAMPLES", "0"}) == usage);
}

TEST_CASE("MEMORY USAGE of a paged collection grows with its pages") {
  CommandFixture f;
  CHECK(f.Run({"CONFIG", "SET", "paged-collection-threshold", "4", "paged-page-members", "4"}) ==
        "+OK\r\n");
  std::vector<std::string> sadd = {"SADD", "s"};
  for (int i = 0; i < 400; ++i) sadd.push_back("member-" + std::to_string(i));
  CHECK(f.Run(sadd) == ":400\r\n");
  const int64_t all = std::stoll(f.Run({"MEMORY", "USAGE", "s", "SAMPLES", "0"}).substr(1));
  const int64_t sampled = std::stoll(f.Run({"MEMORY", "USAGE", "s"}).substr(1));
  CHECK(all > 400 * 9);  // every member's bytes are in some page
  CHECK(sampled > all / 3);
  CHECK(sampled < all * 3);
}

// Errors and replies as redis-server 7.0.15's.
TEST_CASE("MEMORY errors, HELP, STATS fields, DOCTOR, PURGE") {
  CommandFixture f;
  CHECK(f.Run({"MEMORY", "USAGE", "k", "SAMPLES", "x"}) ==
        "-ERR value is not an integer or out of range\r\n");
  CHECK(f.Run({"MEMORY", "USAGE", "k", "SAMPLES", "-1"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"MEMORY", "USAGE", "k", "foo"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"MEMORY", "USAGE"}) ==
        "-ERR wrong number of arguments for 'memory|usage' command\r\n");
  CHECK(f.Run({"MEMORY", "STATS", "x"}) ==
        "-ERR wrong number of arguments for 'memory|stats' command\r\n");
  CHECK(f.Run({"MEMORY", "foo"}) == "-ERR unknown subcommand 'foo'. Try MEMORY HELP.\r\n");
  CHECK(f.Run({"MEMORY", "HELP"}).rfind("*14\r\n+MEMORY <subcommand>", 0) == 0);
  const std::string stats = f.Run({"MEMORY", "STATS"});
  CHECK(stats.rfind("*58\r\n$14\r\npeak.allocated\r\n:", 0) == 0);
  CHECK(stats.find("fragmentation.bytes\r\n:") != std::string::npos);
  for (const char* field : {"keys.count", "dataset.percentage", "fragmentation.bytes"}) {
    CHECK(stats.find(field) != std::string::npos);
  }
  CHECK(f.Run({"MEMORY", "DOCTOR"}).find("Sam") != std::string::npos);
  CHECK(f.Run({"MEMORY", "PURGE"}) == "+OK\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "MEMORY", "USAGE", "k"}) == "*1\r\n$1\r\nk\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "MEMORY", "STATS"}) ==
        "-ERR The command has no key arguments\r\n");
}

}  // namespace
}  // namespace slotkv::command
