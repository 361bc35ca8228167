// Publishing flush marks on the real file system with a worker's io_uring (everysec): the
// data-file fsyncs are submitted, not waited for, and no flush runs until they complete.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/base/fault_fs.h"
#include "core/base/fs.h"
#include "core/base/io_ring.h"
#include "core/base/temp_dir.h"
#include "slot/slot_test_util.h"

namespace slotkv::slot {
namespace {

// A slot directory on the real file system, an io_uring made current as on a worker, and a
// slot that has published once already (through the ring, the directory with the files: the
// first publish after Open syncs it too) and then flushed again. Through FaultFs, which can fail
// the ring's fsyncs as it fails others.
struct RingSlot {
  TempDir dir{"slotkv-slot-test"};  // removed last, after the destructor's body
  std::unique_ptr<Fs> posix = NewPosixFs();
  FaultFs fs{posix.get()};
  ThreadRing ring;
  ManualClock clock;
  SlotOptions options;
  std::unique_ptr<Slot> slot;
  int keys = 0;  // key:0 .. key:<keys-1> written, version 0

  RingSlot() {
    options = SmallOptions(&fs, &clock);
    options.dir = JoinPath(dir.path(), "slot-0000");
    options.fsync = wal::FsyncPolicy::kEverySec;
    slot = OpenOrDie(options);
    WriteUntilFlushes(1);
    CommitAfterASecond();
    REQUIRE(Stats().publishes == 0);  // submitted, not waited for
    ring->DrainForTest();
    REQUIRE(Stats().publishes == 1);
    WriteUntilFlushes(Stats().flushes + 1);
  }

  SlotStats Stats() const { return slot->Stats(); }
  static std::string Key(int i) { return "key:" + std::to_string(i); }
  // Writes n keys, each committed (a group's flush runs at the commit that closes the unit
  // whose writes made it due).
  void Write(int n) {
    for (int i = 0; i < n; ++i, ++keys) {
      REQUIRE(slot->Put(Key(keys), ValueFor(keys, 0, 100), ValueType::kString, 0).ok());
      REQUIRE(slot->Commit().ok());
    }
  }
  void WriteUntilFlushes(uint64_t flushes) {
    while (Stats().flushes < flushes) Write(1);
  }
  void CommitAfterASecond() {
    clock.AdvanceMs(1000);
    REQUIRE(slot->Commit().ok());
  }
  void CheckAll() {
    for (int i = 0; i < keys; ++i) REQUIRE(GetOrDie(*slot, Key(i)) == ValueFor(i, 0, 100));
  }
  void Reopen() {
    slot.reset();
    ring->DrainForTest();
    slot = OpenOrDie(options);
  }
};

TEST_CASE("everysec publishes through the worker's io_uring; no flush runs until it completes") {
  RingSlot t;
  t.CommitAfterASecond();
  CHECK(t.Stats().publishes == 1);  // submitted, not waited for
  // Every group reaches its flush threshold meanwhile, and waits.
  const uint64_t flushes = t.Stats().flushes;
  t.Write(400);
  REQUIRE(t.slot->Commit().ok());
  CHECK(t.Stats().flushes == flushes);
  t.ring->DrainForTest();
  CHECK(t.Stats().publishes == 2);
  CHECK(t.Stats().publish_wait_usec == 0);  // the manual clock: only a synchronous one adds
  // Completed: the next write flushes its group.
  t.Write(1);
  CHECK(t.Stats().flushes > flushes);
  REQUIRE(t.slot->Commit().ok());
  t.CheckAll();
  t.Reopen();
  t.CheckAll();
}

TEST_CASE("publishes that must sync the directory (after Open, after a split) use the ring too") {
  RingSlot t;  // its first publish, after Open, went through the ring
  // A split creates a deeper page file, whose name the next publish makes durable.
  const int before = t.keys;
  uint64_t published = 0;
  while (t.Stats().bucket_splits == 0) {
    REQUIRE(t.keys - before < 20000);
    t.Write(50);
    published = t.Stats().publishes;
    t.CommitAfterASecond();
    if (t.Stats().bucket_splits > 0) CHECK(t.Stats().publishes == published);  // submitted
    t.ring->DrainForTest();  // so flushes go on
  }
  CHECK(t.Stats().publishes == published + 1);
  t.WriteUntilFlushes(t.Stats().flushes + 1);
  published = t.Stats().publishes;
  t.CommitAfterASecond();
  CHECK(t.Stats().publishes == published);  // submitted, not waited for
  t.ring->DrainForTest();
  CHECK(t.Stats().publishes == published + 1);
  t.CheckAll();
  t.Reopen();
  t.CheckAll();
}

TEST_CASE("a synchronous flush voids the publish in flight and publishes its marks itself") {
  RingSlot t;
  t.CommitAfterASecond();
  REQUIRE(t.Stats().publishes == 1);
  REQUIRE(t.slot->Flush().ok());
  CHECK(t.Stats().publishes == 2);
  CHECK(t.Stats().wal_entries == 0);
  t.ring->DrainForTest();  // the voided completion does nothing
  CHECK(t.Stats().publishes == 2);
  t.Write(50);
  REQUIRE(t.slot->Commit().ok());
  t.CheckAll();
  t.Reopen();
  t.CheckAll();
}

TEST_CASE("a slot closed with a publish in flight replays what it had not published") {
  RingSlot t;
  t.CommitAfterASecond();
  REQUIRE(t.Stats().publishes == 1);
  t.Reopen();  // the completions come after the slot is gone
  t.CheckAll();
  t.Write(50);
  REQUIRE(t.slot->Commit().ok());
  t.Reopen();
  t.CheckAll();
}

TEST_CASE("a publish whose ring fsync fails stops the slot's writes until it recovers") {
  RingSlot t;
  t.ring->DrainForTest();  // no publish in flight
  t.WriteUntilFlushes(t.Stats().flushes + 1);  // marks to publish
  t.fs.OnlyPaths("chunks");  // a data file of the publish, not the log
  t.fs.FailNthSync(1);
  const uint64_t publishes = t.Stats().publishes;
  t.CommitAfterASecond();  // submits the publish: its first fsync fails
  t.ring->DrainForTest();
  CHECK(t.Stats().publishes == publishes);
  Status refused = t.slot->Put("after", "x", ValueType::kString);
  CHECK(refused.IsUnavailable());
  CHECK(refused.message() == "IO error: publish: fdatasync: Input/output error");
  CHECK(t.slot->failure().ToString() == "IO error: publish: fdatasync: Input/output error");
  CHECK(t.Stats().failed == 1);
  t.CheckAll();  // reads go on
  REQUIRE(t.slot->Recover().ok());
  t.Write(50);
  t.CheckAll();
  t.Reopen();
  t.CheckAll();
}

}  // namespace
}  // namespace slotkv::slot
