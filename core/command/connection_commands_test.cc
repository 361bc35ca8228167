#include <doctest/doctest.h>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

TEST_CASE("PING and ECHO") {
  CommandFixture f;
  CHECK(f.Run({"PING"}) == "+PONG\r\n");
  CHECK(f.Run({"ping", "hi"}) == "$2\r\nhi\r\n");
  CHECK(f.Run({"PING", "a", "b"}) == "-ERR wrong number of arguments for 'ping' command\r\n");
  CHECK(f.Run({"ECHO", "x"}) == "$1\r\nx\r\n");
  CHECK(f.Run({"ECHO"}) == "-ERR wrong number of arguments for 'echo' command\r\n");
}

TEST_CASE("SELECT changes the database of later commands") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "zero"}) == "+OK\r\n");
  CHECK(f.Run({"SELECT", "1"}) == "+OK\r\n");
  CHECK(f.Run({"GET", "k"}) == "$-1\r\n");
  CHECK(f.Run({"SELECT", "16"}) == "-ERR DB index is out of range\r\n");
  CHECK(f.Run({"SELECT", "x"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(f.Run({"SELECT", "0"}) == "+OK\r\n");
  CHECK(f.Run({"GET", "k"}) == "$4\r\nzero\r\n");
}

TEST_CASE("AUTH with and without requirepass") {
  CommandFixture f;
  CHECK(f.Run({"AUTH", "x"}).rfind("-ERR AUTH <password> called without any password", 0) == 0);
  REQUIRE(f.Run({"CONFIG", "SET", "requirepass", "secret"}) == "+OK\r\n");
  f.client().authenticated = false;
  CHECK(f.Run({"GET", "k"}) == "-NOAUTH Authentication required.\r\n");
  CHECK(f.Run({"AUTH", "wrong"}) ==
        "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  CHECK(f.Run({"AUTH", "default", "secret"}) == "+OK\r\n");
  CHECK(f.Run({"GET", "k"}) == "$-1\r\n");
  CHECK(f.Run({"RESET"}) == "+RESET\r\n");
  CHECK(f.Run({"GET", "k"}) == "-NOAUTH Authentication required.\r\n");
}

TEST_CASE("HELLO switches to RESP3 and replies a map") {
  CommandFixture f;
  std::string r = f.Run({"HELLO", "3"});
  CHECK(r.rfind("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n", 0) == 0);
  CHECK(r.find("$5\r\nproto\r\n:3\r\n") != std::string::npos);
  CHECK(f.Run({"GET", "missing"}) == "_\r\n");
  CHECK(f.Run({"HELLO", "4"}) == "-NOPROTO unsupported protocol version\r\n");
  CHECK(f.Run({"HELLO", "2"}).rfind("*14\r\n", 0) == 0);
  CHECK(f.Run({"GET", "missing"}) == "$-1\r\n");
}

TEST_CASE("CLIENT ID, SETNAME, GETNAME and errors") {
  CommandFixture f;
  CHECK(f.Run({"CLIENT", "ID"}) == ":1\r\n");
  CHECK(f.Run({"CLIENT", "GETNAME"}) == "$-1\r\n");
  CHECK(f.Run({"CLIENT", "SETNAME", "worker-1"}) == "+OK\r\n");
  CHECK(f.Run({"CLIENT", "GETNAME"}) == "$8\r\nworker-1\r\n");
  CHECK(f.Run({"CLIENT", "SETNAME", "a b"}) ==
        "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
  CHECK(f.Run({"CLIENT", "NOPE"}) == "-ERR unknown subcommand 'NOPE'. Try CLIENT HELP.\r\n");
  std::string list = f.Run({"CLIENT", "LIST"});
  CHECK(list.find("id=1 addr=127.0.0.1:1 ") != std::string::npos);
  CHECK(list.find("name=worker-1") != std::string::npos);
}

}  // namespace
}  // namespace slotkv::command
