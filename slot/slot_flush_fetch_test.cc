// A worker's flush step whose reads would wait for the disk: fetched through the io_uring, the
// flush put off untouched, and run once the fetch completes (Slot::FlushStep(on_fetched)). And
// one with nothing the log has synced: the log's fsync asked of the io_uring.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/base/fault_fs.h"
#include "core/base/no_wait_reads.h"
#include "core/base/temp_dir.h"
#include "slot/slot_test_util.h"

namespace slotkv::slot {
namespace {

// A slot over FaultFs whose groups were flushed once and which was reopened (its bucket cache
// empty), then written again: each due flush reads bucket pages and log records from files.
struct FetchFixture {
  MemFs mem;
  FaultFs fault{&mem};
  ThreadRing ring;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fault, &clock);
  std::unique_ptr<Slot> slot;

  FetchFixture() {
    slot = OpenOrDie(options);
    Write(0);
    REQUIRE(slot->Flush().ok());
    slot.reset();
    slot = OpenOrDie(options);
    Write(1);
    REQUIRE(slot->flush_due());
  }
  void Write(int version) {
    for (int i = 0; i < 300; ++i) {
      REQUIRE(slot->Put("k" + std::to_string(i), ValueFor(i, version, 40), ValueType::kString)
                  .ok());
    }
    REQUIRE(slot->Commit(/*flush=*/false).ok());
  }
  void CheckValues(int version) {
    for (int i = 0; i < 300; ++i) {
      REQUIRE(GetOrDie(*slot, "k" + std::to_string(i)) == ValueFor(i, version, 40));
    }
  }
};

TEST_CASE_FIXTURE(FetchFixture, "a flush whose reads would wait is fetched, then runs") {
  const uint64_t flushes = slot->Stats().flushes;
  const uint64_t wal_bytes = slot->Stats().wal_bytes;
  fault.MissPageCache(2);
  int fetched = 0;
  REQUIRE(slot->FlushStep([&] { ++fetched; }).ok());
  // Put off having changed nothing: no flush, no record logged, not due until fetched.
  CHECK(slot->failure().ok());
  CHECK(slot->Stats().flushes == flushes);
  CHECK(slot->Stats().flush_fetches == 1);
  CHECK(slot->Stats().wal_bytes == wal_bytes);
  CHECK_FALSE(slot->flush_due());
  REQUIRE(slot->FlushStep([&] { ++fetched; }).ok());  // a step meanwhile does nothing
  CHECK(slot->Stats().flush_fetches == 1);
  CHECK(fetched == 0);
  ring->DrainForTest();
  CHECK(fetched == 1);
  REQUIRE(slot->flush_due());
  fault.Clear();
  REQUIRE(slot->FlushStep([&] { ++fetched; }).ok());
  CHECK(slot->Stats().flushes == flushes + 1);
  CHECK(slot->Stats().flush_fetches == 1);
  int steps = 0;
  while (slot->flush_due()) {
    REQUIRE(slot->FlushStep([&] { ++fetched; }).ok());
    REQUIRE(++steps < 1000);
  }
  CHECK(fetched == 1);
  CheckValues(1);
  slot.reset();
  slot = OpenOrDie(options);
  CheckValues(1);
}

TEST_CASE_FIXTURE(FetchFixture, "after kNoWaitTries fetches in a row the flush reads waiting") {
  const uint64_t flushes = slot->Stats().flushes;
  fault.MissPageCache(1 << 20);  // every no-wait read misses: the fetches never help
  int fetched = 0;
  for (int i = 0; i < kNoWaitTries; ++i) {
    REQUIRE(slot->FlushStep([&] { ++fetched; }).ok());
    CHECK(slot->Stats().flushes == flushes);
    ring->DrainForTest();
    CHECK(fetched == i + 1);
  }
  REQUIRE(slot->FlushStep([&] { ++fetched; }).ok());
  CHECK(slot->Stats().flushes == flushes + 1);
  CHECK(slot->Stats().flush_fetches == kNoWaitTries);
  // A flush that ran starts the count again.
  REQUIRE(slot->FlushStep([&] { ++fetched; }).ok());
  CHECK(slot->Stats().flush_fetches == kNoWaitTries + 1);
  fault.Clear();
  ring->DrainForTest();
  while (slot->flush_due()) REQUIRE(slot->FlushStep([] {}).ok());
  CheckValues(1);
}

TEST_CASE_FIXTURE(FetchFixture, "a slot closed while its flush's fetch flies is not called") {
  fault.MissPageCache(1);
  bool fetched = false;
  REQUIRE(slot->FlushStep([&] { fetched = true; }).ok());
  CHECK(slot->Stats().flush_fetches == 1);
  slot.reset();
  ring->DrainForTest();
  CHECK_FALSE(fetched);
  fault.Clear();
  slot = OpenOrDie(options);
  CheckValues(1);
}

TEST_CASE_FIXTURE(FetchFixture, "an idle flush whose reads would wait is fetched, then runs") {
  clock.AdvanceMs(Slot::kIdleFlushUs / 1000);
  const uint64_t flushes = slot->Stats().flushes;
  const uint64_t wal_bytes = slot->Stats().wal_bytes;
  fault.MissPageCache(2);
  int fetched = 0;
  Result<bool> step = slot->IdleFlushStep([&] { ++fetched; });
  REQUIRE(step.ok());
  CHECK(*step);
  CHECK(slot->failure().ok());
  CHECK(slot->Stats().flushes == flushes);  // put off, nothing logged
  CHECK(slot->Stats().flush_fetches == 1);
  CHECK(slot->Stats().wal_bytes == wal_bytes);
  step = slot->IdleFlushStep([&] { ++fetched; });  // nothing while the fetch flies
  REQUIRE(step.ok());
  CHECK_FALSE(*step);
  ring->DrainForTest();
  CHECK(fetched == 1);
  fault.Clear();
  step = slot->IdleFlushStep([&] { ++fetched; });
  REQUIRE(step.ok());
  CHECK(*step);
  CHECK(slot->Stats().flushes == flushes + 1);
  CHECK(slot->Stats().flush_fetches == 1);
  int steps = 0;
  for (;;) {
    REQUIRE(slot->Commit().ok());  // the owner's commit publishes the marks
    step = slot->IdleFlushStep([&] { ++fetched; });
    REQUIRE(step.ok());
    if (!*step) break;
    REQUIRE(++steps < 1000);
  }
  CHECK(slot->Stats().wal_entries == 0);
  CHECK(slot->Stats().flush_fetches == 1);
  CheckValues(1);
  slot.reset();
  slot = OpenOrDie(options);
  CheckValues(1);
}

TEST_CASE_FIXTURE(FetchFixture, "without on_fetched, or off a worker, the step reads waiting") {
  fault.MissPageCache(1 << 20);
  const uint64_t flushes = slot->Stats().flushes;
  REQUIRE(slot->FlushStep().ok());
  CHECK(slot->Stats().flushes == flushes + 1);
  CHECK(slot->Stats().flush_fetches == 0);
  IoRing::SetCurrent(nullptr);
  REQUIRE(slot->FlushStep([] { FAIL("no fetch without an io_uring"); }).ok());
  CHECK(slot->Stats().flushes == flushes + 2);
  IoRing::SetCurrent(ring.ring.get());
  CHECK(slot->Stats().flush_fetches == 0);
}

// With everysec a worker's flush persists only what the log has synced (slot_kept.cc): with
// nothing synced it asks the ring for the log's fsync and persists nothing; once that is in,
// the next flushes persist what it covered and keep the writes since in their maps.
TEST_CASE("a worker's flush persists what the log synced, asking the ring for the fsync") {
  TempDir dir("slotkv-kept-test");
  std::unique_ptr<Fs> posix = NewPosixFs();  // the ring syncs only a file with a descriptor
  ThreadRing ring;
  ManualClock clock;  // never a second on: the log syncs only when a flush asks
  SlotOptions options = SmallOptions(posix.get(), &clock);
  options.dir = dir.path() + "/slot";
  options.fsync = wal::FsyncPolicy::kEverySec;
  auto slot = OpenOrDie(options);
  auto write = [&](int from, int to, int version) {
    for (int i = from; i < to; ++i) {
      REQUIRE(slot->Put("k" + std::to_string(i), ValueFor(i, version, 40), ValueType::kString)
                  .ok());
    }
    REQUIRE(slot->Commit(/*flush=*/false).ok());
  };
  auto step_all = [&] {
    for (int steps = 0; slot->flush_due(); ++steps) {
      REQUIRE(steps < 1000);
      REQUIRE(slot->FlushStep().ok());
    }
  };
  write(0, 300, 0);
  step_all();
  CHECK(slot->Stats().flushes == 0);
  CHECK(ring->inflight() >= 1);  // the log's fsync, asked by the first flush
  ring->DrainForTest();
  write(0, 150, 1);  // the groups due again; these records are not synced
  step_all();
  const SlotStats stats = slot->Stats();
  CHECK(stats.flushes > 0);
  CHECK(stats.flush_kept_entries > 0);
  CHECK(stats.wal_entries >= 150);
  for (int i = 0; i < 300; ++i) {
    REQUIRE(GetOrDie(*slot, "k" + std::to_string(i)) == ValueFor(i, i < 150 ? 1 : 0, 40));
  }
  ring->DrainForTest();
  slot.reset();
  slot = OpenOrDie(options);
  for (int i = 0; i < 300; ++i) {
    REQUIRE(GetOrDie(*slot, "k" + std::to_string(i)) == ValueFor(i, i < 150 ? 1 : 0, 40));
  }
  REQUIRE(slot->Flush().ok());
  CHECK(slot->Stats().wal_entries == 0);
}

}  // namespace
}  // namespace slotkv::slot
