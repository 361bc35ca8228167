// A slot's writes between two commits are one WAL unit: a crash leaves all of them or none,
// and no flush persists part of one. A held slot keeps its unit open through commits.
#include <doctest/doctest.h>

#include "core/base/fault_fs.h"
#include "slot/slot_test_util.h"

namespace slotkv::slot {
namespace {

TEST_CASE("a commit torn by the file system loses the whole unit") {
  // The unit is two 30-byte records: cut inside either.
  for (size_t written : {size_t{5}, size_t{29}, size_t{31}, size_t{59}}) {
    CAPTURE(written);
    MemFs mem;
    FaultFs fault(&mem);
    ManualClock clock;
    SlotOptions options = SmallOptions(&fault, &clock);
    {
      auto slot = OpenOrDie(options);
      REQUIRE(slot->Put("a", "0", ValueType::kString).ok());
      REQUIRE(slot->Commit().ok());
      REQUIRE(slot->Put("a", "1", ValueType::kString).ok());
      REQUIRE(slot->Put("b", "1", ValueType::kString).ok());
      fault.ShortNthWrite(1, written);
      CHECK(slot->Commit().IsIOError());
    }
    fault.Clear();
    auto slot = OpenOrDie(options);
    CHECK(GetOrDie(*slot, "a") == "0");
    CHECK(GetOrDie(*slot, "b") == "<absent>");
  }
}

TEST_CASE("a group made due by a write flushes at the commit, not inside the unit") {
  MemFs fs;
  ManualClock clock;
  auto slot = OpenOrDie(SmallOptions(&fs, &clock));
  int i = 0;
  // Far more writes than any group's threshold (4 entries per page), one unit.
  for (; i < 400; ++i) {
    REQUIRE(slot->Put("k" + std::to_string(i), "v", ValueType::kString).ok());
  }
  CHECK(slot->Stats().flushes == 0);
  REQUIRE(slot->Commit().ok());
  CHECK(slot->Stats().flushes > 0);
}

TEST_CASE("a held slot keeps its unit out of the log until it is released and committed") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  {
    auto slot = OpenOrDie(options);
    REQUIRE(slot->Put("before", "1", ValueType::kString).ok());
    REQUIRE(slot->Commit().ok());
    slot->Hold();
    CHECK(slot->held());
    for (int i = 0; i < 200; ++i) {
      REQUIRE(slot->Put("k" + std::to_string(i), "v", ValueType::kString).ok());
      REQUIRE(slot->Commit().ok());  // another writer's commit on this worker: a no-op here
    }
    CHECK(GetOrDie(*slot, "k7") == "v");  // readable in memory
    CHECK(slot->Stats().flushes == 0);
    CHECK(slot->Flush().IsBusy());
    CHECK(slot->SetFsyncPolicy(wal::FsyncPolicy::kNo).IsBusy());
  }  // closed while held: the unit was never acknowledged
  {
    auto slot = OpenOrDie(options);
    CHECK(GetOrDie(*slot, "before") == "1");
    CHECK(GetOrDie(*slot, "k7") == "<absent>");
    slot->Hold();
    REQUIRE(slot->Put("x", "1", ValueType::kString).ok());
    REQUIRE(slot->Put("y", "1", ValueType::kString).ok());
    slot->Unhold();
    REQUIRE(slot->Commit().ok());
  }
  auto slot = OpenOrDie(options);
  CHECK(GetOrDie(*slot, "x") == "1");
  CHECK(GetOrDie(*slot, "y") == "1");
}

TEST_CASE("writes made before a hold are committed apart from the held unit") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  {
    auto slot = OpenOrDie(options);
    REQUIRE(slot->Put("before", "1", ValueType::kString).ok());  // another client's, in turn
    slot->Hold();
    REQUIRE(slot->Put("held", "1", ValueType::kString).ok());
    REQUIRE(slot->Commit().ok());  // the worker's commit: acknowledges "before"
  }
  auto slot = OpenOrDie(options);
  CHECK(GetOrDie(*slot, "before") == "1");
  CHECK(GetOrDie(*slot, "held") == "<absent>");
}

}  // namespace
}  // namespace slotkv::slot
