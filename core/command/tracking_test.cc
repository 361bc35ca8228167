#include "core/command/tracking.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

std::string Bulk(const std::string& s) { return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n"; }

// The RESP3 push of an invalidation of key.
std::string Invalidation(const std::string& key) {
  return ">2\r\n" + Bulk("invalidate") + "*1\r\n" + Bulk(key);
}

// The messages client got, in order.
std::vector<std::string> Got(CommandFixture& f, uint64_t client) {
  std::vector<std::string> out;
  for (const auto& [id, bytes] : f.Delivered()) {
    if (id == client) out.push_back(bytes);
  }
  return out;
}

TEST_CASE("a tracked read is invalidated once, by a write from another client on any worker") {
  CommandFixture f;
  const uint64_t me = f.client().id;
  CHECK(f.Run({"CLIENT", "TRACKING", "ON"}) == "+OK\r\n");
  std::vector<std::string> keys;
  for (int i = 0; i < 12; ++i) keys.push_back("key:" + std::to_string(i));
  for (const std::string& k : keys) CHECK(f.Run({"GET", k}) == "$-1\r\n");
  CHECK(f.state().tracking->keys() == 12);
  CHECK(f.state().tracking->items() == 12);
  for (const std::string& k : keys) CHECK(f.Start({"SET", k, "v"}).Get() == "+OK\r\n");
  std::vector<std::string> want;
  for (const std::string& k : keys) want.push_back(Invalidation(k));
  std::vector<std::string> got = Got(f, me);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  CHECK(got == want);
  CHECK(f.state().tracking->keys() == 0);
  // One-shot: written again without a read, nothing more.
  CHECK(f.Start({"SET", keys[0], "w"}).Get() == "+OK\r\n");
  CHECK(Got(f, me).size() == 12);
}

TEST_CASE("NOLOOP skips the client's own writes; OPTIN tracks only after CACHING YES") {
  CommandFixture f;
  const uint64_t me = f.client().id;
  CHECK(f.Run({"CLIENT", "TRACKING", "ON", "NOLOOP"}) == "+OK\r\n");
  CHECK(f.Run({"GET", "a"}) == "$-1\r\n");
  CHECK(f.Run({"SET", "a", "1"}) == "+OK\r\n");
  CHECK(Got(f, me).empty());
  CHECK(f.Run({"CLIENT", "TRACKING", "OFF"}) == "+OK\r\n");
  CHECK(f.Run({"CLIENT", "TRACKING", "ON", "OPTIN"}) == "+OK\r\n");
  CHECK(f.Run({"GET", "b"}) == "$-1\r\n");  // not tracked
  CHECK(f.Run({"CLIENT", "CACHING", "YES"}) == "+OK\r\n");
  CHECK(f.Run({"GET", "c"}) == "$-1\r\n");  // tracked
  CHECK(f.Run({"GET", "d"}) == "$-1\r\n");  // the word was used up
  for (const char* k : {"b", "c", "d"}) f.Start({"SET", k, "v"}).Get();
  CHECK(Got(f, me) == std::vector<std::string>{Invalidation("c")});
  CHECK(f.Run({"CLIENT", "CACHING", "NO"}) ==
        "-ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.\r\n");
}

TEST_CASE("BCAST tells writes of matching keys without reads; FLUSHALL tells everything") {
  CommandFixture f;
  const uint64_t me = f.client().id;
  CHECK(f.Run({"CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "user:", "PREFIX", "cart:"}) ==
        "+OK\r\n");
  CHECK(f.Run({"CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "user:1"}) ==
        "-ERR Prefix 'user:1' overlaps with an existing prefix 'user:'. Prefixes for a single "
        "client must not overlap.\r\n");
  CHECK(f.state().tracking->prefixes() == 2);
  f.Start({"SET", "user:7", "x"}).Get();
  f.Start({"SET", "other", "x"}).Get();
  f.Start({"DEL", "cart:3"}).Get();  // nothing deleted: no write
  f.Start({"LPUSH", "cart:3", "x"}).Get();
  CHECK(Got(f, me) == std::vector<std::string>{Invalidation("user:7"), Invalidation("cart:3")});
  CHECK(f.Run({"FLUSHALL"}) == "+OK\r\n");
  CHECK(Got(f, me).back() == ">2\r\n" + Bulk("invalidate") + "_\r\n");
  CHECK(f.Run({"CLIENT", "TRACKINGINFO"}) ==
        "*6\r\n" + Bulk("flags") + "*2\r\n" + Bulk("on") + Bulk("bcast") + Bulk("redirect") +
            ":0\r\n" + Bulk("prefixes") + "*2\r\n" + Bulk("cart:") + Bulk("user:"));
}

TEST_CASE("tracking off forgets the client: its keys tell nobody") {
  CommandFixture f;
  const uint64_t me = f.client().id;
  CHECK(f.Run({"CLIENT", "TRACKING", "ON"}) == "+OK\r\n");
  CHECK(f.Run({"MGET", "x", "y"}) == "*2\r\n$-1\r\n$-1\r\n");
  CHECK(f.Run({"CLIENT", "GETREDIR"}) == ":0\r\n");
  CHECK(f.Run({"CLIENT", "TRACKING", "OFF"}) == "+OK\r\n");
  CHECK(f.Run({"CLIENT", "GETREDIR"}) == ":-1\r\n");
  CHECK(f.state().tracking->clients() == 0);
  f.Start({"SET", "x", "1"}).Get();
  CHECK(Got(f, me).empty());
}

}  // namespace
}  // namespace slotkv::command
