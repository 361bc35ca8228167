#include "core/command/command_table.h"

#include <doctest/doctest.h>

#include <set>

namespace slotkv::command {
namespace {

TEST_CASE("lookup ignores case and misses unknown names") {
  auto table = BuildCommandTable();
  REQUIRE(table->Find("get") != nullptr);
  CHECK(table->Find("GeT") == table->Find("get"));
  CHECK(table->Find("nosuchcommand") == nullptr);
  CHECK(table->Find(std::string(100, 'x')) == nullptr);
}

TEST_CASE("arity: exact for positive, at least for negative") {
  CommandSpec exact{.name = "x", .arity = 2};
  CHECK(CommandTable::ArityOk(exact, 2));
  CHECK_FALSE(CommandTable::ArityOk(exact, 3));
  CommandSpec at_least{.name = "y", .arity = -3};
  CHECK_FALSE(CommandTable::ArityOk(at_least, 2));
  CHECK(CommandTable::ArityOk(at_least, 3));
  CHECK(CommandTable::ArityOk(at_least, 9));
}

TEST_CASE("key positions follow first, last and step") {
  auto table = BuildCommandTable();
  CHECK(CommandTable::KeyPositions(*table->Find("get"), 2) == std::vector<size_t>{1});
  CHECK(CommandTable::KeyPositions(*table->Find("mset"), 7) == std::vector<size_t>{1, 3, 5});
  CHECK(CommandTable::KeyPositions(*table->Find("del"), 4) == std::vector<size_t>{1, 2, 3});
  CHECK(CommandTable::KeyPositions(*table->Find("ping"), 1).empty());
}

TEST_CASE("containers name their subcommand") {
  auto table = BuildCommandTable();
  CHECK(CommandTable::FullName(*table->Find("client"), {"CLIENT", "LiSt"}) == "client|list");
  CHECK(CommandTable::FullName(*table->Find("config"), {"config", "get", "x"}) == "config|get");
  CHECK(CommandTable::FullName(*table->Find("get"), {"GET", "k"}) == "get");
}

TEST_CASE("every row is well formed") {
  auto table = BuildCommandTable();
  std::set<std::string_view> names;
  for (const CommandSpec& spec : table->all()) {
    CAPTURE(spec.name);
    CHECK(names.insert(spec.name).second);
    CHECK(spec.id == static_cast<int>(&spec - table->all().data()));
    CHECK((spec.run == nullptr) != (spec.run_async == nullptr));
    // A row run on one slot's owner has exactly one key.
    if (spec.run) CHECK((spec.first_key > 0 && spec.first_key == spec.last_key));
    CHECK(spec.arity != 0);
    CHECK(!spec.group.empty());
    CHECK(!spec.summary.empty());
    CHECK(!spec.since.empty());
    CHECK(((spec.flags & kWrite) == 0 || (spec.flags & kReadOnly) == 0));
  }
  CHECK(table->size() >= 70);
}

TEST_CASE("every row and subcommand row that names keys has Redis's key spec flags") {
  auto table = BuildCommandTable();
  size_t ids = 0;
  table->ForEachRow([&](const CommandSpec& row) {
    CAPTURE(row.name);
    ++ids;
    const bool keys = row.first_key > 0 || row.keys != nullptr;
    CHECK(keys == !row.key_specs.empty());
    for (const CommandSpec& sub : row.subcommands) {
      CHECK(sub.name.starts_with(std::string(row.name) + "|"));
      CHECK(sub.id >= static_cast<int>(table->size()));
      CHECK(table->FindFull(sub.name) == &sub);
    }
  });
  CHECK(ids == table->id_count());
  const std::vector<std::string> call = {"CONFIG", "get", "maxmemory"};
  CHECK(CommandTable::Resolve(*table->Find("config"), call).name == "config|get");
  const std::vector<std::string> unknown = {"CONFIG", "nosuch"};
  CHECK(CommandTable::Resolve(*table->Find("config"), unknown).name == "config");
  CHECK(CommandTable::CallFlags(*table->Find("xgroup"),
                                {"xgroup", "create", "k", "g", "$"}) == (kWrite | kDenyOom));
}

}  // namespace
}  // namespace slotkv::command
