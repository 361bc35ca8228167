#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

using namespace std::string_literals;

const std::string kNotHll = "-WRONGTYPE Key is not a valid HyperLogLog string value.\r\n";
const std::string kBadHll = "-INVALIDOBJ Corrupted HLL object detected\r\n";

// PFADD key e:from .. e:(to-1), one element per command.
void AddRange(CommandFixture& f, const std::string& key, int from, int to) {
  for (int i = from; i < to; ++i) f.Run({"PFADD", key, "e:" + std::to_string(i)});
}

TEST_CASE("PFADD creates, PFCOUNT counts, as Redis 7.0.15") {
  CommandFixture f;
  CHECK(f.Run({"PFCOUNT", "h"}) == ":0\r\n");
  CHECK(f.Run({"EXISTS", "h"}) == ":0\r\n");  // PFCOUNT creates nothing
  CHECK(f.Run({"PFADD", "h"}) == ":1\r\n");
  CHECK(f.Run({"PFADD", "h"}) == ":0\r\n");
  CHECK(f.Run({"TYPE", "h"}) == "+string\r\n");
  CHECK(f.Run({"PFADD", "h", "a", "b", "c"}) == ":1\r\n");
  CHECK(f.Run({"PFADD", "h", "a"}) == ":0\r\n");
  CHECK(f.Run({"PFCOUNT", "h"}) == ":3\r\n");
  // The count is cached in the header, valid: Redis's bytes after PFCOUNT.
  CHECK(f.Run({"GET", "h"}) ==
        "$27\r\nHYLL\x01\0\0\0\x03\0\0\0\0\0\0\0\x60\xf3\x80\x50\xb1\x84\x4b\xfb\x80\x42\x5a\r\n"s);
}

TEST_CASE("PFCOUNT of several keys and PFMERGE take the union") {
  CommandFixture f;
  AddRange(f, "m1", 0, 500);
  AddRange(f, "m2", 300, 900);
  CHECK(f.Run({"PFCOUNT", "m1", "m2", "missing"}) == ":899\r\n");
  CHECK(f.Run({"PFMERGE", "m3", "m1", "m2"}) == "+OK\r\n");
  CHECK(f.Run({"STRLEN", "m3"}) == ":1716\r\n");
  CHECK(f.Run({"PFCOUNT", "m3"}) == ":899\r\n");
  CHECK(f.Run({"PFMERGE", "empty"}) == "+OK\r\n");
  CHECK(f.Run({"PFCOUNT", "empty"}) == ":0\r\n");
  CHECK(f.Run({"PFMERGE", "m1", "m2"}) == "+OK\r\n");  // the destination merges too
  CHECK(f.Run({"PFCOUNT", "m1"}) == ":899\r\n");
}

TEST_CASE("HLL commands reject other values") {
  CommandFixture f;
  f.Run({"SET", "s", "foo"});
  f.Run({"RPUSH", "l", "x"});
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"PFADD", "s", "a"}, {"PFCOUNT", "s"}, {"PFCOUNT", "h", "s"},
        {"PFMERGE", "d", "s"}}) {
    CAPTURE(cmd[0]);
    CHECK(f.Run(cmd) == kNotHll);
  }
  CHECK(f.Run({"PFADD", "l", "a"}).starts_with("-WRONGTYPE Operation against"));
  CHECK(f.Run({"PFMERGE", "l"}).starts_with("-WRONGTYPE Operation against"));
  // Sparse opcodes covering too few registers (XZERO:16129), the cache marked stale.
  f.Run({"SET", "bad", "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\x00"s});
  CHECK(f.Run({"PFCOUNT", "bad"}) == kBadHll);
  CHECK(f.Run({"PFMERGE", "d", "bad"}) == kBadHll);
  CHECK(f.Run({"EXISTS", "d"}) == ":0\r\n");
}

TEST_CASE("HyperLogLog rows of the command table") {
  CommandFixture f;
  const CommandTable& t = *f.state().table;
  struct Row {
    const char* name;
    uint32_t flags;
    int last;
  };
  for (const Row& r : {Row{"pfadd", kWrite | kDenyOom | kFast, 1},
                       Row{"pfcount", kReadOnly, -1}, Row{"pfmerge", kWrite | kDenyOom, -1}}) {
    const CommandSpec* spec = t.Find(r.name);
    REQUIRE(spec != nullptr);
    CHECK(spec->arity == -2);
    CHECK(spec->flags == r.flags);
    CHECK(spec->first_key == 1);
    CHECK(spec->last_key == r.last);
    CHECK(spec->group == "hyperloglog");
  }
}

}  // namespace
}  // namespace slotkv::command
