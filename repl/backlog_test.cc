#include "repl/backlog.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace slotkv::repl {
namespace {

std::vector<std::string> After(const Backlog& b, uint64_t offset) {
  std::vector<std::string> out;
  b.ForEachAfter(offset, [&](std::string_view f) { out.emplace_back(f); });
  return out;
}

TEST_CASE("a backlog hands a replica exactly the frames after its offset") {
  Backlog b(10, 1000);
  CHECK(b.Covers(10));
  CHECK_FALSE(b.Covers(9));
  CHECK_FALSE(b.Covers(11));
  CHECK(After(b, 10).empty());
  b.Append(12, "a");
  b.Append(13, "b");
  b.Append(20, "c");
  CHECK(b.Covers(10));
  CHECK(b.Covers(20));
  CHECK_FALSE(b.Covers(21));
  CHECK(After(b, 10) == std::vector<std::string>{"a", "b", "c"});
  CHECK(After(b, 12) == std::vector<std::string>{"b", "c"});
  // An offset between events (a replica that applied a unit of the middle): what follows it.
  CHECK(After(b, 15) == std::vector<std::string>{"c"});
  CHECK(After(b, 20).empty());
}

TEST_CASE("past its capacity a backlog drops the oldest frames and moves its start") {
  Backlog b(0, 10);
  b.Append(1, std::string(4, 'a'));
  b.Append(2, std::string(4, 'b'));
  CHECK(b.start() == 0);
  b.Append(3, std::string(4, 'c'));  // 12 bytes: the first goes
  CHECK(b.start() == 1);
  CHECK(b.bytes() == 8);
  CHECK_FALSE(b.Covers(0));
  CHECK(After(b, 1) == std::vector<std::string>{"bbbb", "cccc"});
  b.Append(4, std::string(30, 'd'));  // larger than the capacity: kept alone
  CHECK(b.start() == 3);
  CHECK(b.Covers(3));
  CHECK(After(b, 3).size() == 1);
  b.Reset(7);
  CHECK(b.Covers(7));
  CHECK_FALSE(b.Covers(4));
  CHECK(b.bytes() == 0);
}

TEST_CASE("a backlog trimmed to a share keeps its newest frames") {
  Backlog b(0, 1000);
  for (uint64_t i = 1; i <= 10; ++i) b.Append(i, std::string(10, 'x'));
  REQUIRE(b.bytes() == 100);
  b.TrimTo(35);
  CHECK(b.bytes() == 30);
  CHECK(b.start() == 7);
  CHECK_FALSE(b.Covers(6));
  CHECK(After(b, 7).size() == 3);
  b.TrimTo(0);  // the newest frame stays
  CHECK(b.bytes() == 10);
  CHECK(b.Covers(9));
  CHECK(After(b, 9).size() == 1);
}

}  // namespace
}  // namespace slotkv::repl
