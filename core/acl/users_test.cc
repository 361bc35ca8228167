#include "core/acl/users.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "core/base/temp_dir.h"

namespace slotkv::acl {
namespace {

Catalog SmallCatalog() {
  Catalog c;
  c.push_back({.name = "get", .categories = CategoryBits("read string fast")});
  c.push_back({.name = "set", .categories = CategoryBits("write string slow")});
  return c;
}

std::string Line(const Users& users, std::string_view name) {
  return Describe(*users.Get(name), users.catalog());
}

TEST_CASE("acl users: SETUSER applies all rules or none, and moves the version") {
  Users users(SmallCatalog());
  CHECK_FALSE(users.auth_required());
  const uint64_t v = users.version();
  const std::vector<std::string> good = {"on", ">pw", "+get"};
  CHECK(users.SetUser("alice", good) == "");
  CHECK(users.version() > v);
  CHECK(Line(users, "alice") == "on #" + HashPassword("pw") + " resetchannels -@all +@read");
  const std::vector<std::string> bad = {"+set", "bogus"};
  CHECK(users.SetUser("alice", bad) == "ERR Error in ACL SETUSER modifier 'bogus': Syntax error");
  CHECK(users.SetUser("bob", bad) != "");
  CHECK(users.Get("bob") == nullptr);
  CHECK(Line(users, "alice") == "on #" + HashPassword("pw") + " resetchannels -@all +@read");
  const std::vector<std::string> open = {"(~a*", "+get"};
  CHECK(users.SetUser("alice", open) ==
        "ERR Unmatched parenthesis in acl selector starting at '(~a*'.");
  CHECK(users.SetUser("a b", good) == "ERR Usernames can't contain spaces or null characters");
  CHECK(users.Delete("alice"));
  CHECK_FALSE(users.Delete("alice"));
  CHECK_FALSE(users.Delete("default"));
}

TEST_CASE("acl users: requirepass is the default user's password") {
  Users users(SmallCatalog());
  users.SetDefaultPassword("secret");
  CHECK(users.auth_required());
  CHECK(PasswordMatches(*users.Default(), "secret"));
  users.SetDefaultPassword("");
  CHECK_FALSE(users.auth_required());
  CHECK(Line(users, "default") == "on nopass ~* &* +@all");
}

TEST_CASE("acl users: SAVE then LOAD gives the same users; a bad file changes nothing") {
  TempDir dir("acl-users");
  const std::string path = dir.path() + "/users.acl";
  Users users(SmallCatalog());
  const std::vector<std::string> rules = {"on", ">pw", "%R~k*", "+get", "(~s* +set)"};
  REQUIRE(users.SetUser("alice", rules) == "");
  REQUIRE(users.Save(path));
  Users again(SmallCatalog());
  std::vector<std::string> dropped;
  REQUIRE(again.Load(path, &dropped) == "");
  CHECK(dropped.empty());
  CHECK(Line(again, "alice") == Line(users, "alice"));
  CHECK(Line(again, "default") == "on nopass ~* &* +@all");
  std::ofstream(path) << "user alice on +nosuch\nuser bob bogus\nuser alice off\n";
  const std::string error = again.Load(path, &dropped);
  CHECK(error == "ERR " + path + ":1: Error in applying operation '+nosuch': Unknown command "
                 "or category name in ACL. " + path + ":2: Syntax error. WARNING: Duplicate "
                 "user 'alice' found on line 3. WARNING: ACL errors detected, no change to the "
                 "previously active ACL rules was performed");
  CHECK(Line(again, "alice") == Line(users, "alice"));
  std::ofstream(path) << "user carol on nopass\r\n\n";
  REQUIRE(again.Load(path, &dropped) == "");
  CHECK(dropped == std::vector<std::string>{"alice"});
  CHECK(again.Get("alice") == nullptr);
  CHECK(again.Load(dir.path() + "/none", nullptr).starts_with("ERR Error loading ACLs"));
}

TEST_CASE("acl log: alike denials are counted together and move to the front") {
  Log log;
  auto entry = [](std::string object, int64_t t) {
    return LogEntry{.object = std::move(object), .username = "u", .time_ms = t,
                    .client_info = "id=" + std::to_string(t)};
  };
  log.Add(entry("get", 1000), 128);
  log.Add(entry("set", 1001), 128);
  log.Add(entry("get", 1002), 128);
  std::vector<LogEntry> all = log.Latest(10);
  REQUIRE(all.size() == 2);
  CHECK(all[0].object == "get");
  CHECK(all[0].count == 2);
  CHECK(all[0].client_info == "id=1002");
  log.Add(entry("get", 100000), 128);  // over a minute later: a new entry
  CHECK(log.Latest(10).size() == 3);
  for (int i = 0; i < 5; ++i) log.Add(entry("k" + std::to_string(i), 1), 4);
  CHECK(log.Latest(10).size() == 4);
  log.Reset();
  CHECK(log.Latest(10).empty());
}

}  // namespace
}  // namespace slotkv::acl
