#include "core/acl/user.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/acl/test_catalog.h"

namespace slotkv::acl {
namespace {

std::vector<std::string> Args(std::initializer_list<const char*> words) {
  return std::vector<std::string>(words.begin(), words.end());
}

struct Fixture {
  Catalog catalog = TestCatalog();
  User user = NewUser("u");

  void Rules(std::initializer_list<const char*> rules) {
    for (const char* r : rules) REQUIRE_FALSE(Apply(user, catalog, r).has_value());
  }
  int Id(std::string_view name) const {
    for (size_t i = 0; i < catalog.size(); ++i) {
      if (catalog[i].name == name) return static_cast<int>(i);
    }
    FAIL("no such command");
    return -1;
  }
  Verdict Run(std::string_view name, const std::vector<std::string>& args,
              std::vector<Call::Key> keys = {}, std::vector<size_t> channels = {}) const {
    Call call{.id = Id(name), .args = args, .keys = std::move(keys),
              .channels = std::move(channels)};
    return Check(user, catalog, call);
  }
};

TEST_CASE("acl: a new user has nothing; the default user everything") {
  Fixture f;
  CHECK(Describe(f.user, f.catalog) == "off resetchannels -@all");
  CHECK(f.Run("get", Args({"get", "k"}), {{1, kRead}}).denial == Denial::kCommand);
  CHECK(f.Run("auth", Args({"auth", "p"})).ok());  // no_auth
  const User d = DefaultUser(f.catalog);
  CHECK(d.unrestricted);
  CHECK(Describe(d, f.catalog) == "on nopass ~* &* +@all");
}

TEST_CASE("acl: categories, commands and subcommands") {
  Fixture f;
  f.Rules({"+@read", "+config|get"});
  CHECK(f.Run("get", Args({"get", "k"})).ok());
  CHECK(f.Run("config|get", Args({"config", "get", "x"})).ok());
  CHECK(f.Run("config|set", Args({"config", "set", "x", "y"})).denial == Denial::kCommand);
  CHECK(DescribeCommands(f.user.selectors[0], f.catalog) == "-@all +@read +config|get");
  f.Rules({"+config", "-config|set"});
  CHECK(DescribeCommands(f.user.selectors[0], f.catalog) ==
        "-@all +@read +config -config|set");
  // Of categories that fit as well, the first in Redis's order is named.
  f.Rules({"+@all", "-@dangerous"});
  CHECK(DescribeCommands(f.user.selectors[0], f.catalog) == "+@all -@admin");
  CHECK(Apply(f.user, f.catalog, "+nosuch") == "Unknown command or category name in ACL");
  CHECK(Apply(f.user, f.catalog, "-@nosuch") == "Unknown command or category name in ACL");
  CHECK(Apply(f.user, f.catalog, "+config|get|x") ==
        "Allowing first-arg of a subcommand is not supported");
  CHECK(Apply(f.user, f.catalog, "+config|") == "Syntax error");
  CHECK(Apply(f.user, f.catalog, "bogus") == "Syntax error");
}

TEST_CASE("acl: first-arg rules") {
  Fixture f;
  f.Rules({"+select|0"});
  CHECK(f.Run("select", Args({"select", "0"})).ok());
  CHECK(f.Run("select", Args({"select", "1"})).denial == Denial::kCommand);
  CHECK(DescribeCommands(f.user.selectors[0], f.catalog) == "-@all +select|0");
  f.Rules({"+select"});  // the whole command: the exception goes
  CHECK(DescribeCommands(f.user.selectors[0], f.catalog) == "-@all +select");
}

TEST_CASE("acl: key patterns with read and write permissions") {
  Fixture f;
  f.Rules({"+@all", "%R~r*", "%W~w*", "~rw*"});
  CHECK(DescribeKeys(f.user.selectors[0]) == "%R~r* %W~w* ~rw*");
  CHECK(f.Run("get", Args({"get", "r1"}), {{1, kRead}}).ok());
  CHECK(f.Run("get", Args({"get", "w1"}), {{1, kRead}}).denial == Denial::kKey);
  CHECK(f.Run("set", Args({"set", "w1", "v"}), {{1, kWrite}}).ok());
  CHECK(f.Run("set", Args({"set", "r1", "v"}), {{1, kWrite | kRead}}).denial == Denial::kKey);
  CHECK(f.Run("del", Args({"del", "w1"}), {{1, 0}}).ok());  // metadata: any pattern
  CHECK(f.Run("del", Args({"del", "zz"}), {{1, 0}}).denial == Denial::kKey);
  f.Rules({"%W~r*"});  // the same pattern again merges its permissions
  CHECK(DescribeKeys(f.user.selectors[0]) == "~r* %W~w* ~rw*");
  CHECK(Apply(f.user, f.catalog, "%X~x") == "Syntax error");
  CHECK(Apply(f.user, f.catalog, "%~x") == "Syntax error");
  f.Rules({"allkeys"});
  CHECK(Apply(f.user, f.catalog, "~x").has_value());
}

TEST_CASE("acl: a full * pattern among others reads back as it was written") {
  Fixture f;
  f.Rules({"%RW~*", "~a*"});
  CHECK(DescribeKeys(f.user.selectors[0]) == "%RW~* ~a*");
  User again = NewUser("u");
  for (const char* r : {"%RW~*", "~a*"}) REQUIRE_FALSE(Apply(again, f.catalog, r));
  CHECK(Describe(again, f.catalog) == Describe(f.user, f.catalog));
  f.Rules({"+select|1", "+select", "+select|2"});  // the whole command: no exception to add
  CHECK(DescribeCommands(f.user.selectors[0], f.catalog) == "-@all +select");
}

TEST_CASE("acl: channels, literal for patterns") {
  Fixture f;
  f.Rules({"+@all", "&news.*"});
  CHECK(f.Run("publish", Args({"publish", "news.a", "m"}), {}, {1}).ok());
  CHECK(f.Run("publish", Args({"publish", "other", "m"}), {}, {1}).denial == Denial::kChannel);
  CHECK(ChannelAllowed(f.user, "news.*", true));
  CHECK_FALSE(ChannelAllowed(f.user, "news.a*", true));
  CHECK(ChannelAllowed(f.user, "news.b", false));
}

TEST_CASE("acl: passwords, hashes and flags") {
  Fixture f;
  f.Rules({"on", ">pw", ">pw",
           "#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"});
  CHECK(f.user.passwords.size() == 2);
  CHECK(f.user.passwords[0] == HashPassword("pw"));
  CHECK(PasswordMatches(f.user, "password"));
  CHECK_FALSE(PasswordMatches(f.user, "nope"));
  CHECK(Apply(f.user, f.catalog, "<nope") ==
        "The password you are trying to remove from the user does not exist");
  CHECK(Apply(f.user, f.catalog, "#abc").has_value());
  f.Rules({"<pw", "nopass"});
  CHECK(PasswordMatches(f.user, "anything"));
  f.Rules({"off"});
  CHECK_FALSE(PasswordMatches(f.user, "anything"));
  f.Rules({"reset"});
  CHECK(Describe(f.user, f.catalog) == "off sanitize-payload resetchannels -@all");
}

TEST_CASE("acl: selectors and the most relevant denial") {
  Fixture f;
  f.Rules({"~a*", "+get", "(~b* +set)"});
  CHECK(Describe(f.user, f.catalog) ==
        "off ~a* resetchannels -@all +@read (~b* resetchannels -@all +set)");
  CHECK(f.Run("set", Args({"set", "b1", "v"}), {{1, kWrite}}).ok());
  // The root denies the command, the selector the key: the key denial is reported.
  const Verdict v = f.Run("set", Args({"set", "a1", "v"}), {{1, kWrite}});
  CHECK(v.denial == Denial::kKey);
  CHECK(v.pos == 1);
  f.Rules({"clearselectors"});
  CHECK(f.Run("set", Args({"set", "b1", "v"}), {{1, kWrite}}).denial == Denial::kCommand);
}

TEST_CASE("acl: selector rules split across arguments are merged") {
  const std::vector<std::string> rules = {"on", "(~a*", "+get)", "(+set)"};
  auto merged = MergeSelectorRules(rules, nullptr);
  REQUIRE(merged);
  CHECK(*merged == std::vector<std::string>{"on", "(~a* +get)", "(+set)"});
  size_t unclosed = 0;
  const std::vector<std::string> bad = {"on", "(~a*", "+get"};
  CHECK_FALSE(MergeSelectorRules(bad, &unclosed));
  CHECK(unclosed == 1);
}

}  // namespace
}  // namespace slotkv::acl
