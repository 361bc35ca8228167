#include <doctest/doctest.h>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

std::string Confirm(const std::string& what, const std::string& name, int64_t count) {
  return "*3\r\n" + Bulk(what) + Bulk(name) + Int(count);
}

TEST_CASE("SUBSCRIBE and PSUBSCRIBE count together; SSUBSCRIBE apart; PUBLISH counts receivers") {
  CommandFixture f;
  CHECK(f.Run({"SUBSCRIBE", "a", "b"}) ==
        Confirm("subscribe", "a", 1) + Confirm("subscribe", "b", 2));
  CHECK(f.Run({"PSUBSCRIBE", "a*"}) == Confirm("psubscribe", "a*", 3));
  CHECK(f.Run({"SSUBSCRIBE", "s"}) == Confirm("ssubscribe", "s", 1));
  CHECK(f.Start({"PUBLISH", "a", "hi"}).Get() == Int(2));
  CHECK(f.Start({"SPUBLISH", "s", "x"}).Get() == Int(1));
  const auto delivered = f.Delivered();
  REQUIRE(delivered.size() == 3);
  CHECK(delivered[0].second == "*3\r\n" + Bulk("message") + Bulk("a") + Bulk("hi"));
  CHECK(delivered[1].second == "*4\r\n" + Bulk("pmessage") + Bulk("a*") + Bulk("a") + Bulk("hi"));
  CHECK(delivered[2].second == "*3\r\n" + Bulk("smessage") + Bulk("s") + Bulk("x"));
  CHECK(delivered[0].first == f.client().id);
}

TEST_CASE("a subscribed RESP2 client runs only the Pub/Sub commands, PING, QUIT and RESET") {
  CommandFixture f;
  CHECK(f.Run({"SUBSCRIBE", "a"}) == Confirm("subscribe", "a", 1));
  CHECK(f.Run({"GET", "k"}) ==
        Err("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
            "RESET are allowed in this context"));
  CHECK(f.Run({"PING"}) == "*2\r\n" + Bulk("pong") + Bulk(""));
  CHECK(f.Run({"UNSUBSCRIBE"}) == Confirm("unsubscribe", "a", 0));
  CHECK(f.Run({"UNSUBSCRIBE"}) == "*3\r\n" + Bulk("unsubscribe") + kNull + Int(0));
  CHECK(f.Run({"GET", "k"}) == kNull);
}

TEST_CASE("RESET drops every subscription") {
  CommandFixture f;
  CHECK(f.Run({"PSUBSCRIBE", "x*"}) == Confirm("psubscribe", "x*", 1));
  CHECK(f.Run({"RESET"}) == "+RESET\r\n");
  CHECK(f.Run({"PUBSUB", "NUMPAT"}) == Int(0));
  CHECK(f.Start({"PUBLISH", "xy", "m"}).Get() == Int(0));
}

}  // namespace
}  // namespace slotkv::command
