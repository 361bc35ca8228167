#include <doctest/doctest.h>

#include <string>

#include "core/command/command_test_util.h"
#include "core/command/monitor.h"

namespace slotkv::command {
namespace {

// Lines as redis-server 7.0.15 writes them.
TEST_CASE("MonitorLine quotes as sdscatrepr and redacts credentials") {
  CommandFixture f;
  const CommandTable& t = *f.state().table;
  CHECK(MonitorLine(1700000000000042, 3, "127.0.0.1:5000", *t.Find("set"),
                    {"SET", "a\"b\\c\n", std::string("\x01\xff\t\r\a\b ~", 8)}) ==
        "+1700000000.000042 [3 127.0.0.1:5000] \"SET\" \"a\\\"b\\\\c\\n\" "
        "\"\\x01\\xff\\t\\r\\a\\b ~\"\r\n");
  CHECK(MonitorLine(1000000, 0, "lua", *t.Find("auth"), {"auth", "u", "p"}) ==
        "+1.000000 [0 lua] \"auth\" \"(redacted)\" \"(redacted)\"\r\n");
  CHECK(
      MonitorLine(0, 0, "a", *t.Find("hello"), {"HELLO", "3", "AUTH", "u", "p", "SETNAME", "n"}) ==
      "+0.000000 [0 a] \"HELLO\" \"3\" \"AUTH\" \"(redacted)\" \"(redacted)\" \"SETNAME\" "
      "\"n\"\r\n");
  CHECK(MonitorLine(0, 0, "a", *t.Find("migrate"),
                    {"MIGRATE", "h", "1", "k", "0", "5", "AUTH", "p", "AUTH2", "u", "q"}) ==
        "+0.000000 [0 a] \"MIGRATE\" \"h\" \"1\" \"k\" \"0\" \"5\" \"AUTH\" \"(redacted)\" "
        "\"AUTH2\" \"(redacted)\" \"(redacted)\"\r\n");
}

TEST_CASE("MONITOR replies OK once, and nothing when repeated") {
  CommandFixture f;
  CHECK(f.Run({"MONITOR"}) == "+OK\r\n");
  CHECK(f.Run({"MONITOR"}).empty());
  CHECK(f.state().pubsub->monitored());
  CHECK(f.Run({"RESET"}) == "+RESET\r\n");
  CHECK(!f.state().pubsub->monitored());
  CHECK(f.Run({"MULTI"}) == "+OK\r\n");
  CHECK(f.Run({"MONITOR"}) == "+QUEUED\r\n");
  CHECK(f.Run({"EXEC"}) == "*1\r\n-ERR MONITOR isn't allowed for DENY BLOCKING client\r\n");
}

}  // namespace
}  // namespace slotkv::command
