#include "core/script/functions.h"

#include <doctest/doctest.h>

#include "core/base/mem_fs.h"

namespace slotkv::script {
namespace {

const std::string kLib =
    "#!lua name=lib\n"
    "redis.register_function('f', function(keys, args) return args[1] end)\n"
    "redis.register_function{function_name='g', callback=function() return 1 end, "
    "flags={'no-writes'}, description='d'}";

TEST_CASE("a library loads, is listed, found, dumped, and kept on disk") {
  MemFs fs;
  REQUIRE(fs.CreateDirs("/d").ok());
  {
    Functions functions(&fs, "/d/functions.rdb");
    REQUIRE(functions.Open().ok());
    Result<std::string> name = functions.Load(kLib, false);
    REQUIRE(name.ok());
    CHECK(*name == "lib");
    CHECK(functions.Load(kLib, false).status().message() == "ERR Library 'lib' already exists");
    CHECK(functions.Load(kLib, true).ok());
    REQUIRE(functions.List().size() == 1);
    CHECK(functions.List()[0].functions.size() == 2);
    CHECK(functions.Find("g")->no_writes);
    CHECK_FALSE(functions.Find("f")->no_writes);
    CHECK_FALSE(functions.Find("h"));
  }
  Functions reopened(&fs, "/d/functions.rdb");
  REQUIRE(reopened.Open().ok());
  CHECK(reopened.Find("f"));
  const std::string dump = reopened.Dump();
  CHECK(static_cast<uint8_t>(dump[0]) == 0xF5);
  REQUIRE(reopened.Flush().ok());
  CHECK_FALSE(reopened.Find("f"));
  REQUIRE(reopened.Restore(dump, "APPEND").ok());
  CHECK(reopened.Find("f"));
  std::string damaged = dump;
  damaged[3] ^= 1;
  CHECK(reopened.Restore(damaged, "REPLACE").message() ==
        "ERR DUMP payload version or checksum are wrong");
}

TEST_CASE("a damaged functions file stops the open") {
  MemFs fs;
  REQUIRE(fs.CreateDirs("/d").ok());
  REQUIRE(fs.WriteFileAtomic("/d/functions.rdb", "garbage-garbage").ok());
  Functions functions(&fs, "/d/functions.rdb");
  CHECK(functions.Open().IsCorruption());
}

TEST_CASE("an interpreter runs a registered function with keys and args") {
  auto vm = LuaVm::Create().value();
  Result<std::vector<LuaVm::Function>> loaded = vm->LoadLibrary(Functions::Body(kLib));
  REQUIRE(loaded.ok());
  CHECK(loaded->at(1).flags == std::vector<std::string>{"no-writes"});
  CHECK(loaded->at(1).description == "d");
  struct NoHost : Host {
    std::string Call(std::vector<std::string>, int) override { return "+OK\r\n"; }
    void Log(int, std::string_view) override {}
  } host;
  CHECK(vm->RunFunction("f", {"k"}, {"a"}, host, 2) == "$1\r\na\r\n");
  vm->DropFunctions();
  CHECK(vm->LoadLibrary(Functions::Body(kLib)).ok());  // registered again after the drop
}

}  // namespace
}  // namespace slotkv::script
