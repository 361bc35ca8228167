// ChunkStore across crashes and faults: power cuts, torn writes, failed I/O, what SyncData and
// Commit make durable, and runs refilled after their fill.
#include <doctest/doctest.h>

#include <vector>

#include "chunk/chunk_store_test_util.h"
#include "core/base/fault_fs.h"

namespace slotkv::chunk {
namespace {

TEST_CASE_FIXTURE(StoreTest, "power cut after Commit keeps committed values") {
  std::vector<ValuePtr> committed;
  uint64_t used = 0;
  {
    auto store = Open();
    for (uint64_t i = 0; i < 40; ++i) {
      committed.push_back(Add(store.get(), i % 3, "c" + std::to_string(i), Value(70, i)));
    }
    committed.push_back(Add(store.get(), 0, "cbig", Value(5000, 100)));
    ASSERT_OK(store->Commit());
    used = store->stats().segments_used;
    // An uncommitted flush: some of it reaches chunks.dat (sealed runs), none is synced.
    for (uint64_t i = 0; i < 40; ++i)
      Add(store.get(), i % 3, "u" + std::to_string(i), Value(90, i));
    Add(store.get(), 5, "ubig", Value(5000, 1));
  }
  fs_.SimulatePowerCutForTest();
  auto store = Open();
  CHECK(store->stats().segments_used == used);
  for (uint64_t i = 0; i < 40; ++i)
    CHECK(Read(store.get(), committed[i], "c" + std::to_string(i)) == Value(70, i));
  CHECK(Read(store.get(), committed[40], "cbig") == Value(5000, 100));
  ValuePtr p = Add(store.get(), 9, "after", "v");
  ASSERT_OK(store->Commit());
  CHECK(Read(store.get(), p, "after") == "v");
}

TEST_CASE_FIXTURE(StoreTest, "segments of a flush that never committed are dropped at Open") {
  ValuePtr kept;
  {
    auto store = Open();
    kept = Add(store.get(), 1, "kept", "v");
    ASSERT_OK(store->Commit());
    // Big enough that runs are sealed (written) before the store goes away uncommitted.
    for (uint64_t i = 0; i < 30; ++i) Add(store.get(), 2, "lost", Value(100, i));
  }
  auto file = fs_.Open(JoinPath(kDir, "chunks.dat"));
  REQUIRE(file.ok());
  CHECK((*file)->Size() > kSeg);
  auto store = Open();
  CHECK((*file)->Size() == kSeg);
  CHECK(store->stats().segments_used == 1);
  CHECK(Read(store.get(), kept, "kept") == "v");
  CHECK(Add(store.get(), 2, "again", "w").segment == 1);
}

TEST_CASE_FIXTURE(StoreTest, "torn trailing entry of segments.meta is ignored at Open") {
  ValuePtr kept;
  {
    auto store = Open();
    kept = Add(store.get(), 1, "kept", "v");
    ASSERT_OK(store->Commit());
  }
  auto file = fs_.Open(JoinPath(kDir, "segments.meta"));
  REQUIRE(file.ok());
  ASSERT_OK((*file)->Append(std::string(20, 'x')));
  auto store = Open();
  CHECK(Read(store.get(), kept, "kept") == "v");
  CHECK(store->stats().segments_used == 1);
}

TEST_CASE_FIXTURE(StoreTest, "failed chunk write is IOError from Commit, and Commit can retry") {
  FaultFs faulty(&fs_);
  auto store = Open(Options(&faulty));
  ValuePtr p = Add(store.get(), 1, "k", "v");
  faulty.FailNthWrite(1);
  CHECK(store->Commit().IsIOError());
  faulty.Clear();
  ASSERT_OK(store->Commit());
  CHECK(Read(store.get(), p, "k") == "v");
  store.reset();
  store = Open();
  CHECK(Read(store.get(), p, "k") == "v");
}

TEST_CASE_FIXTURE(StoreTest, "failed segment table write or sync is IOError") {
  FaultFs faulty(&fs_);
  auto store = Open(Options(&faulty));
  Add(store.get(), 1, "k", "v");
  faulty.FailNthWrite(2);  // the first write is the segment, the second the table
  CHECK(store->Commit().IsIOError());
  Add(store.get(), 1, "k", "w");
  faulty.FailNthSync(1);
  CHECK(store->Commit().IsIOError());
}

TEST_CASE_FIXTURE(StoreTest, "failed big file write is IOError from Add") {
  FaultFs faulty(&fs_);
  auto store = Open(Options(&faulty));
  faulty.FailNthWrite(1);
  auto p = store->Add(1, "k", Value(5000, 1));
  CHECK(p.status().IsIOError());
  CHECK(store->disk_bytes() == 0);
}

TEST_CASE("SyncData records new runs but keeps older runs' live bytes until Commit") {
  StoreTest t;
  std::vector<ValuePtr> old;
  {
    auto store = t.Open();
    for (int i = 0; i < 4; ++i) old.push_back(t.Add(store.get(), 1, "k", "old value"));
    ASSERT_OK(store->Commit());
    // The next flush replaces every old value, then dies after SyncData, before its bucket
    // pages (which still point at the old values) are durable.
    for (const ValuePtr& ptr : old) store->Release(ptr);
    ValuePtr fresh = t.Add(store.get(), 1, "k", "new value");
    ASSERT_OK(store->SyncData());
    auto reopened = t.Open();
    CHECK(t.Read(reopened.get(), fresh, "k") == "new value");
  }
  auto store = t.Open();
  t.Add(store.get(), 2, "other", "x");
  ASSERT_OK(store->Commit());  // a Commit must not free the old run: pages still point at it
  for (const ValuePtr& ptr : old) CHECK(t.Read(store.get(), ptr, "k") == "old value");
}

TEST_CASE_FIXTURE(StoreTest, "SyncData writes a fresh run's table entry once") {
  auto store = Open();
  Add(store.get(), 1, "a", "x");
  ASSERT_OK(store->SyncData());
  uint64_t before = store->stats().bytes_written;
  const ValuePtr b = Add(store.get(), 2, "b", "y");
  ASSERT_OK(store->SyncData());
  // The new segment's one record (no padding) and its 32-byte entry; group 1's entry is not
  // written again.
  CHECK(store->stats().bytes_written - before == b.length + 32);
}

TEST_CASE("a run recorded by SyncData keeps its live bytes on disk until Commit") {
  // With deferred Commits (appendfsync everysec) a run stays fresh across flushes: a later
  // flush that releases its values must not write the lowered live bytes before Commit.
  StoreTest t;
  std::vector<ValuePtr> old;
  {
    auto store = t.Open();
    for (int i = 0; i < 4; ++i) old.push_back(t.Add(store.get(), 1, "k", "old value"));
    ASSERT_OK(store->SyncData());  // flush 1: pages then point at the run
    for (const ValuePtr& ptr : old) store->Release(ptr);
    t.Add(store.get(), 2, "k2", "new value");
    ASSERT_OK(store->SyncData());  // flush 2 dies before its pages are durable
  }
  auto store = t.Open();
  t.Add(store.get(), 3, "other", "x");
  ASSERT_OK(store->Commit());  // must not free the run flush 1's pages point at
  for (const ValuePtr& ptr : old) CHECK(t.Read(store.get(), ptr, "k") == "old value");
}

TEST_CASE_FIXTURE(StoreTest, "a later flush fills the unused end of its group's newest run") {
  auto store = Open();
  const ValuePtr a = Add(store.get(), 1, "a", "first");
  const ValuePtr other = Add(store.get(), 2, "o", "other group");
  ASSERT_OK(store->Commit());
  const uint64_t before = store->stats().bytes_written;
  const ValuePtr b = Add(store.get(), 1, "b", "second");
  CHECK(b.segment == a.segment);
  CHECK(b.offset == a.offset + a.length);
  CHECK(Read(store.get(), b, "b") == "second");  // from the open run, before it is written
  ASSERT_OK(store->SyncData());
  // Only the new record and the head's entry (its fill) are written, not a whole segment.
  CHECK(store->stats().bytes_written - before == b.length + 32);  // 32: one segments.meta entry
  ASSERT_OK(store->Commit());
  CHECK(store->stats().segments_used == 2);
  // A record that no longer fits goes to a fresh segment.
  const ValuePtr c = Add(store.get(), 1, "c", Value(kSeg - 40, 1));
  CHECK(c.segment != a.segment);
  CHECK(c.segment != other.segment);
  ASSERT_OK(store->Commit());
  store.reset();
  store = Open();  // fills survive a reopen: the newest run is c's, which has room for this
  const ValuePtr d = Add(store.get(), 1, "d", "x");
  CHECK(d.segment == c.segment);
  ASSERT_OK(store->Commit());
  CHECK(Read(store.get(), a, "a") == "first");
  CHECK(Read(store.get(), b, "b") == "second");
  CHECK(Read(store.get(), c, "c") == Value(kSeg - 40, 1));
  CHECK(Read(store.get(), d, "d") == "x");
  CHECK(Read(store.get(), other, "o") == "other group");
  std::vector<ChunkRecord> records;
  ASSERT_OK(store->ReadSegment(a.segment, &records));
  REQUIRE(records.size() == 2);
  CHECK(records[1].ptr == b);
}

TEST_CASE_FIXTURE(StoreTest, "a refilled segment in the cache reads back old and new records") {
  auto store = Open();
  const ValuePtr a = Add(store.get(), 1, "a", "first");
  ASSERT_OK(store->Commit());
  CHECK(Read(store.get(), a, "a") == "first");  // cached at Seal
  const ValuePtr b = Add(store.get(), 1, "b", "second");
  ASSERT_OK(store->Commit());
  const uint64_t misses = store->stats().cache_misses;
  CHECK(Read(store.get(), a, "a") == "first");
  CHECK(Read(store.get(), b, "b") == "second");
  CHECK(store->stats().cache_misses == misses);
}

TEST_CASE_FIXTURE(StoreTest, "bytes past a run's fill (a torn append) are ignored, then overwritten") {
  ValuePtr a;
  {
    auto store = Open();
    a = Add(store.get(), 1, "a", "first");
    ASSERT_OK(store->Commit());
  }
  // An append that was cut before it became durable left half a record after the fill.
  WriteAt("chunks.dat", uint64_t{a.segment} * kSeg + a.length, std::string(20, '\x5a'));
  auto store = Open();
  std::vector<ChunkRecord> records;
  ASSERT_OK(store->ReadSegment(a.segment, &records));
  CHECK(records.size() == 1);
  const ValuePtr b = Add(store.get(), 1, "b", "second");
  CHECK(b.offset == a.length);
  ASSERT_OK(store->Commit());
  records.clear();
  ASSERT_OK(store->ReadSegment(a.segment, &records));
  REQUIRE(records.size() == 2);
  CHECK(records[1].value == "second");
  CHECK(Read(store.get(), b, "b") == "second");
}

TEST_CASE_FIXTURE(StoreTest, "a run to be freed is not refilled, so values moved out of it stay") {
  auto store = Open();
  std::vector<ValuePtr> ptrs;
  for (uint64_t i = 0; i < 6; ++i) ptrs.push_back(Add(store.get(), 1, "k", Value(20, i)));
  ASSERT_OK(store->Commit());
  for (size_t i = 1; i < ptrs.size(); ++i) store->Release(ptrs[i]);
  ASSERT_OK(store->Commit());
  const std::vector<uint32_t> candidates = store->CompactionCandidates(1, 8);
  REQUIRE(candidates == std::vector<uint32_t>{ptrs[0].segment});
  std::vector<ChunkRecord> records;
  ASSERT_OK(store->ReadSegment(candidates[0], &records));
  store->FreeSegment(candidates[0]);
  const ValuePtr moved = Add(store.get(), 1, "k", records[0].value);
  CHECK(moved.segment != ptrs[0].segment);
  ASSERT_OK(store->Commit());
  CHECK(store->stats().segments_used == 1);
  CHECK(Read(store.get(), moved, "k") == Value(20, 0));
}

}  // namespace
}  // namespace slotkv::chunk
