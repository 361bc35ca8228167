// Compaction with everysec (compaction.h): the copies wait for a publish before any page names
// them, and the group's next flush applies them.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "slot/slot_test_util.h"

namespace slotkv::slot {
namespace {

constexpr int kKeys = 2000;
constexpr size_t kValueBytes = 200;

// A slot of 4 KiB segments (~19 values each: overwrites leave them partly dead) with everysec
// and a log that never fills (so no log file removal publishes behind the test's back).
struct EverysecFixture : Fixture {
  std::map<std::string, std::string> model;
  std::mt19937 rng{17};
  int version = 0;

  EverysecFixture() : Fixture(4096) {
    options.fsync = wal::FsyncPolicy::kEverySec;
    options.wal_file_bytes = 64 << 20;
    options.wal_max_bytes = 256 << 20;
    Reopen();
  }
  static std::string Key(int k) { return "key:" + std::to_string(k); }
  // kKeys random overwrites, committed in batches of 100; the clock does not move.
  void Overwrite() {
    ++version;
    for (int i = 0; i < kKeys; ++i) {
      const int k = static_cast<int>(rng() % kKeys);
      model[Key(k)] = ValueFor(k, version, kValueBytes);
      REQUIRE(slot->Put(Key(k), model[Key(k)], ValueType::kString).ok());
      if (i % 100 == 99) REQUIRE(slot->Commit().ok());
    }
    REQUIRE(slot->Commit().ok());
  }
  // A commit a second on: the log syncs, and the flushes since the last publish are published.
  void Publish() {
    const uint64_t publishes = slot->Stats().publishes;
    clock.AdvanceMs(1000);
    REQUIRE(slot->Commit().ok());
    REQUIRE(slot->Stats().publishes == publishes + 1);
  }
  void CheckAll() {
    for (const auto& [key, value] : model) REQUIRE_MESSAGE(GetOrDie(*slot, key) == value, key);
  }
};

TEST_CASE("everysec: a compaction frees its runs only after a publish and one more flush") {
  EverysecFixture f;
  // Runs written since the last publish are fresh, never compacted: a publish first, and no
  // compaction before it.
  f.slot->DeferCompaction(true);
  for (int round = 0; round < 3; ++round) f.Overwrite();
  f.Publish();
  f.slot->DeferCompaction(false);
  f.Overwrite();  // its flushes copy what is live in the mostly-dead runs
  CHECK(f.slot->Stats().compacted_segments == 0);
  f.CheckAll();
  // The copies are durable now, but no page names them: the runs copied are still in use.
  f.Publish();
  CHECK(f.slot->Stats().compacted_segments == 0);
  f.CheckAll();
  // The groups' next flushes point their cells at the copies and free the runs, which the
  // next publish commits.
  f.Overwrite();
  CHECK(f.slot->Stats().compacted_segments == 0);
  f.Publish();
  CHECK(f.slot->Stats().compacted_segments > 0);
  f.CheckAll();
  f.Reopen();
  f.CheckAll();
}

TEST_CASE("everysec: steady overwrites keep disk use within three times the live data") {
  EverysecFixture f;
  uint64_t live = 0;
  for (int k = 0; k < kKeys; ++k) live += EverysecFixture::Key(k).size() + kValueBytes;
  for (int round = 0; round < 15; ++round) {
    f.Overwrite();
    f.Publish();
  }
  REQUIRE(f.slot->Flush().ok());
  const SlotStats stats = f.slot->Stats();
  CHECK(stats.compacted_segments > 0);
  MESSAGE("disk ", stats.disk_bytes, " live ", live);
  // A run stays fresh (no candidate) until the publish after its flush: a second's writes
  // more than with appendfsync always.
  CHECK(stats.disk_bytes <= 3 * live + 64 * 4096);  // plus the bucket pages themselves
  f.CheckAll();
  f.Reopen();
  f.CheckAll();
}

// The kernel may write a page back at any time after it was written. A power cut that finds the
// log and the bucket pages written back, and the chunk file as last synced, must still find
// every value a page names: no page may name a compaction's copy before a publish synced it
// (the log no longer holds those values).
TEST_CASE("everysec: a power cut keeping the log and bucket pages, not the chunks, loses nothing") {
  EverysecFixture f;
  int cuts = 0;
  uint64_t compacted = 0;
  for (int round = 0; round < 24; ++round) {
    f.Overwrite();
    if (round % 2 == 0) f.Publish();
    if (round % 3 != 2) continue;
    compacted += f.slot->Stats().compacted_segments;
    f.fs.SimulatePowerCutForTest({"wal-", "buckets-"});
    ++cuts;
    f.Reopen();
      f.CheckAll();
  }
  CHECK(cuts == 8);
  CHECK(compacted > 0);
}

TEST_CASE("everysec: Flush applies the pending moves and leaves none") {
  EverysecFixture f;
  for (int round = 0; round < 3; ++round) f.Overwrite();
  f.Publish();
  for (int round = 0; round < 3; ++round) f.Overwrite();  // copies, waiting for a publish
  CHECK(f.slot->Stats().compacted_segments == 0);
  REQUIRE(f.slot->Flush().ok());
  const uint64_t compacted = f.slot->Stats().compacted_segments;
  CHECK(compacted > 0);
  f.CheckAll();
  f.fs.SimulatePowerCutForTest();
  f.Reopen();
  f.CheckAll();
}

}  // namespace
}  // namespace slotkv::slot
