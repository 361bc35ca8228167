#include "core/command/acl_check.h"

#include <doctest/doctest.h>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

// [(position, access)] of a call's keys.
std::vector<std::pair<size_t, uint8_t>> KeysOf(const CommandTable& table,
                                               std::vector<std::string> args) {
  const acl::Call call = AclCall(*table.Find(args[0]), args);
  std::vector<std::pair<size_t, uint8_t>> out;
  for (const acl::Call::Key& k : call.keys) out.emplace_back(k.pos, k.access);
  return out;
}

using P = std::vector<std::pair<size_t, uint8_t>>;
constexpr uint8_t R = acl::kRead, W = acl::kWrite, RW = acl::kRead | acl::kWrite;

TEST_CASE("acl check: the catalog has every row and subcommand row by id") {
  std::unique_ptr<CommandTable> table = BuildCommandTable();
  const acl::Catalog catalog = BuildAclCatalog(*table);
  REQUIRE(catalog.size() == table->id_count());
  const CommandSpec* get = table->FindFull("config|get");
  REQUIRE(get != nullptr);
  const acl::CommandInfo& info = catalog[static_cast<size_t>(get->id)];
  CHECK(info.name == "config|get");
  CHECK(catalog[static_cast<size_t>(info.parent)].name == "config");
  CHECK((info.categories & acl::CategoryBit("dangerous")) != 0);
  CHECK(catalog[static_cast<size_t>(table->Find("auth")->id)].no_auth);
}

TEST_CASE("acl check: how calls use their keys, as Redis's key specs") {
  std::unique_ptr<CommandTable> t = BuildCommandTable();
  CHECK(KeysOf(*t, {"GET", "k"}) == P{{1, R}});
  CHECK(KeysOf(*t, {"SET", "k", "v"}) == P{{1, W}});
  CHECK(KeysOf(*t, {"SET", "k", "v", "GET"}) == P{{1, RW}});
  CHECK(KeysOf(*t, {"INCR", "k"}) == P{{1, RW}});
  CHECK(KeysOf(*t, {"STRLEN", "k"}) == P{{1, 0}});
  CHECK(KeysOf(*t, {"COPY", "a", "b"}) == P{{1, R}, {2, W}});
  CHECK(KeysOf(*t, {"LMOVE", "a", "b", "LEFT", "RIGHT"}) == P{{1, RW}, {2, W}});
  CHECK(KeysOf(*t, {"SUNIONSTORE", "d", "a", "b"}) == P{{1, W}, {2, R}, {3, R}});
  CHECK(KeysOf(*t, {"MSET", "a", "1", "b", "2"}) == P{{1, W}, {3, W}});
  CHECK(KeysOf(*t, {"OBJECT", "ENCODING", "k"}) == P{{2, 0}});
  CHECK(KeysOf(*t, {"XINFO", "STREAM", "k"}) == P{{2, R}});
  CHECK(KeysOf(*t, {"SPUBLISH", "ch", "m"}).empty());  // a channel, not a key
}

TEST_CASE("acl check: channels of the publishing and subscribing commands") {
  std::unique_ptr<CommandTable> t = BuildCommandTable();
  const std::vector<std::string> pub = {"PUBLISH", "ch", "m"};
  CHECK(AclCall(*t->Find("publish"), pub).channels == std::vector<size_t>{1});
  const std::vector<std::string> psub = {"PSUBSCRIBE", "a*", "b*"};
  const acl::Call call = AclCall(*t->Find("psubscribe"), psub);
  CHECK(call.channels == std::vector<size_t>{1, 2});
  CHECK(call.channel_patterns);
  const std::vector<std::string> unsub = {"UNSUBSCRIBE", "a"};
  CHECK(AclCall(*t->Find("unsubscribe"), unsub).channels.empty());
}

TEST_CASE("acl check: a restricted user is refused, logged, and let through after SETUSER") {
  CommandFixture f;
  CHECK(f.Run({"ACL", "SETUSER", "u", "on", "nopass", "~k*", "+get"}) == "+OK\r\n");
  CHECK(f.Run({"AUTH", "u", "x"}) == "+OK\r\n");
  CHECK(f.Run({"GET", "k1"}) == "$-1\r\n");
  CHECK(f.Run({"GET", "x"}) ==
        "-NOPERM this user has no permissions to access one of the keys used as arguments\r\n");
  CHECK(f.Run({"SET", "k1", "v"}) ==
        "-NOPERM this user has no permissions to run the 'set' command\r\n");
  const std::vector<acl::LogEntry> log = f.state().acl_log->Latest(10);
  REQUIRE(log.size() == 2);
  CHECK(log[0].object == "set");
  CHECK(log[1].object == "x");
  CHECK(log[1].reason == acl::Denial::kKey);
  f.state().users->SetUser("u", std::vector<std::string>{"+set"});
  CHECK(f.Run({"SET", "k1", "v"}) == "+OK\r\n");
}

}  // namespace
}  // namespace slotkv::command
