#include <doctest/doctest.h>

#include <string>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

// Expected replies are redis-server 7.0.15's.
TEST_CASE("SORT sorts numbers, ties by bytes; ALPHA, DESC and LIMIT") {
  CommandFixture f;
  CHECK(f.Run({"RPUSH", "l", "3", "1.5", "-2", "01", "1", "inf"}) == ":6\r\n");
  CHECK(f.Run({"SORT", "l"}) ==
        "*6\r\n$2\r\n-2\r\n$2\r\n01\r\n$1\r\n1\r\n$3\r\n1.5\r\n$1\r\n3\r\n$3\r\ninf\r\n");
  CHECK(f.Run({"SORT", "l", "DESC", "LIMIT", "1", "2"}) == "*2\r\n$1\r\n3\r\n$3\r\n1.5\r\n");
  CHECK(f.Run({"SORT", "l", "ALPHA", "LIMIT", "-5", "2"}) == "*2\r\n$2\r\n-2\r\n$2\r\n01\r\n");
  CHECK(f.Run({"SORT", "l", "LIMIT", "9", "1"}) == "*0\r\n");
  CHECK(f.Run({"RPUSH", "l", "x"}) == ":7\r\n");
  CHECK(f.Run({"SORT", "l"}) == "-ERR One or more scores can't be converted into double\r\n");
  CHECK(f.Run({"SORT", "nope"}) == "*0\r\n");
}

TEST_CASE("SORT BY and GET patterns read keys on every worker") {
  CommandFixture f;
  CHECK(f.Run({"SADD", "s", "a", "b", "c", "d"}) == ":4\r\n");
  CHECK(f.Run({"MSET", "w_a", "3", "w_b", "1", "w_c", "2", "o_a", "A", "o_c", "C"}) == "+OK\r\n");
  CHECK(f.Run({"HSET", "h_b", "f", "B"}) == ":1\r\n");
  // d has no weight: 0, first.
  CHECK(f.Run({"SORT", "s", "BY", "w_*", "GET", "#", "GET", "o_*", "GET", "h_*->f"}) ==
        "*12\r\n$1\r\nd\r\n$-1\r\n$-1\r\n$1\r\nb\r\n$-1\r\n$1\r\nB\r\n"
        "$1\r\nc\r\n$1\r\nC\r\n$-1\r\n$1\r\na\r\n$1\r\nA\r\n$-1\r\n");
  CHECK(f.Run({"SORT", "s", "BY", "w_*", "DESC", "GET", "noglob"}) ==
        "*4\r\n$-1\r\n$-1\r\n$-1\r\n$-1\r\n");
  CHECK(f.Run({"SORT", "s", "BY", "w_*", "STORE", "dst"}) == ":4\r\n");
  CHECK(f.Run({"LRANGE", "dst", "0", "-1"}) ==
        "*4\r\n$1\r\nd\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\na\r\n");
  // A set stored without sorting is sorted ALPHA.
  CHECK(f.Run({"SORT", "s", "BY", "nosort", "DESC", "STORE", "dst"}) == ":4\r\n");
  CHECK(f.Run({"LRANGE", "dst", "0", "-1"}) ==
        "*4\r\n$1\r\nd\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n");
  CHECK(f.Run({"SORT", "nope", "STORE", "dst"}) == ":0\r\n");
  CHECK(f.Run({"EXISTS", "dst"}) == ":0\r\n");
}

TEST_CASE("SORT BY nosort keeps a list's and a sorted set's order") {
  CommandFixture f;
  CHECK(f.Run({"RPUSH", "l", "b", "c", "a"}) == ":3\r\n");
  CHECK(f.Run({"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "0", "2"}) ==
        "*2\r\n$1\r\na\r\n$1\r\nc\r\n");
  CHECK(f.Run({"ZADD", "z", "3", "x", "1", "y", "2", "z"}) == ":3\r\n");
  CHECK(f.Run({"SORT", "z", "BY", "nosort", "LIMIT", "1", "5"}) == "*2\r\n$1\r\nz\r\n$1\r\nx\r\n");
}

TEST_CASE("SORT errors") {
  CommandFixture f;
  CHECK(f.Run({"SET", "str", "1"}) == "+OK\r\n");
  CHECK(f.Run({"SORT", "str"}) ==
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  CHECK(f.Run({"SORT", "l", "LIMIT", "1"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"SORT", "l", "LIMIT", "a", "1"}) ==
        "-ERR value is not an integer or out of range\r\n");
  CHECK(f.Run({"SORT_RO", "l", "STORE", "x"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "SORT", "l", "BY", "store", "STORE", "d"}) ==
        "*2\r\n$1\r\nl\r\n$1\r\nd\r\n");
}

}  // namespace
}  // namespace slotkv::command
