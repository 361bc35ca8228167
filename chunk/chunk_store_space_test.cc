// ChunkStore's space: frees at Commit and reuse, punched free segments, compaction
// candidates and rounds, big-value files, run stamps and what a group holds.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

#include "chunk/chunk_store_test_util.h"
#include "core/base/cleanup.h"
#include "core/base/fault_fs.h"
#include "core/base/hash.h"
#include "core/base/io_ring.h"

namespace slotkv::chunk {
namespace {

TEST_CASE_FIXTURE(StoreTest, "fully released segment is freed at Commit and then reused") {
  auto store = Open();
  std::vector<ValuePtr> ptrs;
  for (uint64_t i = 0; i < 5; ++i) ptrs.push_back(Add(store.get(), 1, "k", Value(30, i)));
  Add(store.get(), 2, "other", "x");
  ASSERT_OK(store->Commit());
  CHECK(store->stats().segments_used == 2);
  for (const ValuePtr& p : ptrs) store->Release(p);
  CHECK(store->stats().segments_used == 2);  // freed only at Commit
  ASSERT_OK(store->Commit());
  CHECK(store->stats().segments_used == 1);
  CHECK(store->stats().segments_free == 1);
  CHECK(store->disk_bytes() == 2 * kSeg);  // the free one keeps its blocks for reuse
  ValuePtr again = Add(store.get(), 3, "n", "y");
  CHECK(again.segment == ptrs[0].segment);
  ASSERT_OK(store->Commit());
  CHECK(store->stats().segments_free == 0);
  CHECK(Read(store.get(), again, "n") == "y");
}

TEST_CASE_FIXTURE(StoreTest, "free segments past a reserve are punched, the highest first") {
  auto store = Open();
  // 400 segments of one value each; then every other one freed, and later the rest.
  std::vector<ValuePtr> ptrs;
  for (uint64_t i = 0; i < 400; ++i) {
    ptrs.push_back(Add(store.get(), static_cast<uint32_t>(i + 1), "k", Value(200, i)));
  }
  ASSERT_OK(store->Commit());
  CHECK(ptrs[399].segment == 399);
  for (size_t i = 1; i < ptrs.size(); i += 2) store->Release(ptrs[i]);
  ASSERT_OK(store->Commit());
  // A Commit punches for 2 ms: the rest (a loaded machine under ASan) here.
  ASSERT_OK(store->TrimFree(std::chrono::seconds(10)));
  // 200 free, 200 used: the 64 lowest free ones keep their blocks (allocation reuses the
  // lowest first), the other 136 are punched.
  CHECK(store->stats().segments_free == 200);
  CHECK(store->disk_bytes() == (200 + 64) * uint64_t{kSeg});
  CHECK(Punched(399));
  CHECK(Punched(129));
  CHECK(!Punched(127));
  CHECK(!Punched(1));
  CHECK(!Punched(0));
  // The rest freed: the reserve stays the 64 lowest.
  for (size_t i = 0; i < ptrs.size(); i += 2) store->Release(ptrs[i]);
  ASSERT_OK(store->Commit());
  ASSERT_OK(store->TrimFree(std::chrono::seconds(10)));
  CHECK(store->stats().segments_used == 0);
  CHECK(store->disk_bytes() == 64 * uint64_t{kSeg});
  CHECK(Punched(64));
  CHECK(!Punched(63));
  // A reused segment is written whole again.
  ValuePtr again = Add(store.get(), 1, "n", "y");
  CHECK(again.segment == 0);
  ASSERT_OK(store->Commit());
  CHECK(Read(store.get(), again, "n") == "y");
  // Reopened, the store cannot tell punched free segments from kept ones: TrimFree punches
  // past the reserve again.
  store.reset();
  store = Open();
  CHECK(store->disk_bytes() == 400 * uint64_t{kSeg});
  ASSERT_OK(store->TrimFree(std::chrono::seconds(10)));
  CHECK(store->disk_bytes() == (1 + 64) * uint64_t{kSeg});
  CHECK(Read(store.get(), again, "n") == "y");
}

// On a worker (a thread with an io_uring) the punches go through the ring; MemFs punches in
// place and answers from the next Reap, which is when the run is usable again.

TEST_CASE_FIXTURE(StoreTest, "with an io_uring, punched runs are out of use until done") {
  std::string why;
  std::unique_ptr<IoRing> ring = IoRing::Create(16, &why);
  REQUIRE_MESSAGE(ring != nullptr, why);
  IoRing::SetCurrent(ring.get());
  Cleanup unset([] { IoRing::SetCurrent(nullptr); });
  FaultFs fault(&fs_);
  auto store = Open(Options(&fault));
  std::vector<ValuePtr> ptrs;
  for (uint32_t i = 0; i < 400; ++i) ptrs.push_back(Add(store.get(), i + 1, "k", Value(200, i)));
  ASSERT_OK(store->Commit());
  for (const ValuePtr& ptr : ptrs) store->Release(ptr);
  ASSERT_OK(store->Commit());
  // 64 kept; 64..399 is one run, being punched.
  CHECK(store->disk_bytes() == 64 * uint64_t{kSeg});
  std::vector<ValuePtr> again;
  for (uint32_t i = 0; i < 65; ++i) again.push_back(Add(store.get(), 1000 + i, "n", "v"));
  CHECK(again[63].segment == 63);
  CHECK(again[64].segment == 400);  // not 64: its punch is in flight
  ASSERT_OK(store->Commit());
  ring->DrainForTest();
  CHECK(Punched(399));
  ValuePtr after = Add(store.get(), 2000, "n", "w");
  CHECK(after.segment == 64);  // usable again
  ASSERT_OK(store->Commit());
  CHECK(Read(store.get(), after, "n") == "w");
  CHECK(Read(store.get(), again[64], "n") == "v");

  // A punch that fails is reported by the next call that punches; its run is usable again.
  for (const ValuePtr& ptr : again) store->Release(ptr);
  store->Release(after);
  fault.FailNthPunch(1);
  ASSERT_OK(store->Commit());  // submits the punch
  ring->DrainForTest();
  Status st = store->TrimFree(std::chrono::milliseconds(1));
  CHECK(st.IsIOError());
  CHECK(store->TrimFree(std::chrono::milliseconds(1)).ok());  // reported once
  ValuePtr last;
  for (uint32_t i = 0; i < 70; ++i) last = Add(store.get(), 3000 + i, "m", "z");
  CHECK(last.segment == 69);  // the failed run's segments were handed out again
  ASSERT_OK(store->Commit());
  CHECK(Read(store.get(), last, "m") == "z");

  // A store closed while its punches fly: their completions touch nothing (ASan would see).
  std::vector<ValuePtr> more;
  for (uint32_t i = 0; i < 100; ++i) more.push_back(Add(store.get(), 4000 + i, "o", "q"));
  ASSERT_OK(store->Commit());
  for (const ValuePtr& ptr : more) store->Release(ptr);
  ASSERT_OK(store->Commit());
  CHECK(ring->inflight() > 0);
  store.reset();
  ring->DrainForTest();
  store = Open(Options(&fault));
  CHECK(Read(store.get(), last, "m") == "z");
}

TEST_CASE_FIXTURE(StoreTest, "freed segment is not reused before Commit") {
  auto store = Open();
  ValuePtr old = Add(store.get(), 1, "k", "v");
  ASSERT_OK(store->Commit());
  store->Release(old);
  ValuePtr fresh = Add(store.get(), 2, "k", "w");
  CHECK(fresh.segment != old.segment);
  store->FreeSegment(fresh.segment);  // freeing a segment of this flush keeps it unusable too
  ValuePtr third = Add(store.get(), 2, "k", "z");
  CHECK(third.segment != old.segment);
  CHECK(third.segment != fresh.segment);
  CHECK(Read(store.get(), old, "k") == "v");  // still readable until Commit
  ASSERT_OK(store->Commit());
  CHECK(store->stats().segments_used == 1);
  CHECK(Add(store.get(), 1, "k", "u").segment == old.segment);
}

TEST_CASE_FIXTURE(StoreTest, "compaction candidates are empty while values are live") {
  auto store = Open();
  for (uint64_t i = 0; i < 100; ++i) Add(store.get(), 1, "k" + std::to_string(i), Value(40, i));
  CHECK(store->CompactionCandidates(1, 10).empty());
  ASSERT_OK(store->Commit());
  CHECK(store->CompactionCandidates(1, 10).empty());
  CHECK(store->CompactionCandidates(2, 10).empty());
}

TEST_CASE_FIXTURE(StoreTest, "segments written since the last Commit are not candidates") {
  auto store = Open();
  std::vector<ValuePtr> ptrs;
  for (uint64_t i = 0; i < 20; ++i) ptrs.push_back(Add(store.get(), 1, "k", Value(40, i)));
  for (size_t i = 0; i + 1 < ptrs.size(); ++i) store->Release(ptrs[i]);
  CHECK(store->CompactionCandidates(1, 10).empty());
  ASSERT_OK(store->Commit());
  CHECK_FALSE(store->CompactionCandidates(1, 10).empty());
}

// A flush that deletes most keys of group 1 and overwrites some, then one compaction round as
// the slot runs it. (Overwrites alone keep a group under the 2x rule: fully dead segments are
// freed at Commit, so only the mostly-dead ones stay, and the new copies are all live.)

TEST_CASE_FIXTURE(StoreTest, "compaction round frees mostly dead segments and keeps live values") {
  auto store = Open();
  struct Live {
    ValuePtr ptr;
    uint64_t seq;
  };
  std::map<std::string, Live> live;
  uint64_t seq = 0;
  auto put = [&](const std::string& key) {
    ++seq;
    if (auto it = live.find(key); it != live.end()) store->Release(it->second.ptr);
    live[key] = Live{Add(store.get(), 1, key, Value(50, seq)), seq};
  };
  auto del = [&](const std::string& key) {
    store->Release(live.at(key).ptr);
    live.erase(key);
  };
  for (int i = 0; i < 100; ++i) put("k" + std::to_string(i));
  ASSERT_OK(store->Commit());
  CHECK(store->CompactionCandidates(1, 100).empty());
  for (int i = 0; i < 100; ++i) {
    if (i % 10 == 5) put("k" + std::to_string(i));
    if (i % 10 != 0 && i % 10 != 5) del("k" + std::to_string(i));
  }
  ASSERT_OK(store->Commit());
  const std::vector<uint32_t> candidates = store->CompactionCandidates(1, 1000);
  REQUIRE_FALSE(candidates.empty());
  CHECK(store->CompactionCandidates(1, 2).size() == 2);
  const uint64_t used_before = store->stats().segments_used;

  for (uint32_t segment : candidates) {
    std::vector<ChunkRecord> records;
    ASSERT_OK(store->ReadSegment(segment, &records));
    for (const ChunkRecord& r : records) {
      auto it = std::find_if(live.begin(), live.end(),
                             [&](const auto& kv) { return KeyHash(kv.first) == r.key_hash; });
      if (it == live.end() || !(it->second.ptr == r.ptr)) continue;  // dead
      it->second.ptr = Add(store.get(), 1, it->first, r.value);
    }
    store->FreeSegment(segment);
  }
  ASSERT_OK(store->Commit());
  CHECK(store->stats().segments_used < used_before);  // their blocks stay for reuse (ApplyFrees)
  CHECK(store->stats().compacted_segments >= candidates.size());
  for (const auto& [key, l] : live) CHECK(Read(store.get(), l.ptr, key) == Value(50, l.seq));
  // After reopen the index is rebuilt and the values still read.
  store.reset();
  store = Open();
  for (const auto& [key, l] : live) CHECK(Read(store.get(), l.ptr, key) == Value(50, l.seq));
}

TEST_CASE_FIXTURE(StoreTest, "20 MB value round trips and its file goes away after Release") {
  ChunkStoreOptions o = Options();
  o.big_value_bytes = 1 << 20;
  auto store = Open(o);
  const std::string value = Value(20 << 20, 7);
  ValuePtr p = Add(store.get(), 1, "huge", value);
  REQUIRE(p.kind == ValuePtr::Kind::kBigFile);
  const std::string path = JoinPath(kDir, "big-" + std::to_string(p.big_id) + ".val");
  ASSERT_OK(store->Commit());
  CHECK(fs_.Exists(path));
  CHECK(store->disk_bytes() > value.size());
  CHECK(Read(store.get(), p, "huge") == value);
  store->Release(p);
  CHECK(fs_.Exists(path));  // only at Commit
  ASSERT_OK(store->Commit());
  CHECK_FALSE(fs_.Exists(path));
  CHECK(store->disk_bytes() == 0);
}

TEST_CASE_FIXTURE(StoreTest, "release of a pointer into a free segment is ignored") {
  auto store = Open();
  ValuePtr p = Add(store.get(), 1, "k", "v");
  ASSERT_OK(store->Commit());
  store->Release(p);
  ASSERT_OK(store->Commit());
  store->Release(p);  // a stale pointer must not underflow anything
  store->Release(ValuePtr{.kind = ValuePtr::Kind::kSegments, .segment = 1000, .length = 5});
  ASSERT_OK(store->Commit());
  CHECK(store->stats().live_bytes == 0);
  CHECK(store->stats().segments_used == 0);
}

TEST_CASE_FIXTURE(StoreTest, "a run's stamp changes when it is appended to or freed and reused") {
  auto store = Open();
  const ValuePtr a = Add(store.get(), 1, "a", "first");
  Add(store.get(), 2, "o", "other group");
  ASSERT_OK(store->Commit());
  const ChunkStore::RunStamp sealed = store->Stamp(a.segment);
  CHECK(sealed.alloc_seq != 0);
  CHECK(sealed.fill == a.length);
  // Reopened and appended to: the open run's end counts before it is sealed.
  const ValuePtr b = Add(store.get(), 1, "b", "second");
  REQUIRE(b.segment == a.segment);
  const ChunkStore::RunStamp appended = store->Stamp(a.segment);
  CHECK(appended.alloc_seq == sealed.alloc_seq);
  CHECK(appended.fill == a.length + b.length);
  ASSERT_OK(store->Commit());
  CHECK(store->Stamp(a.segment) == appended);
  // Freed (its values released), then handed out again.
  store->Release(a);
  store->Release(b);
  ASSERT_OK(store->Commit());
  CHECK(store->Stamp(a.segment) == ChunkStore::RunStamp{});
  ASSERT_OK(store->Commit());  // the free is durable: reusable
  const ValuePtr c = Add(store.get(), 1, "c", "first");
  REQUIRE(c.segment == a.segment);
  CHECK(store->Stamp(c.segment).alloc_seq > sealed.alloc_seq);
}

TEST_CASE_FIXTURE(StoreTest, "Holds names a value of the group added before, within its run's fill") {
  auto store = Open();
  const ValuePtr a = Add(store.get(), 1, "a", "first");
  const ValuePtr big = Add(store.get(), 1, "big", Value(8000, 1));
  REQUIRE(big.kind == ValuePtr::Kind::kBigFile);
  ASSERT_OK(store->Commit());
  const ChunkStore::AddMark mark = store->Mark();
  CHECK(store->Holds(1, a, mark));
  CHECK_FALSE(store->Holds(2, a, mark));
  CHECK(store->Holds(1, big, mark));
  ValuePtr nowhere = a;
  nowhere.segment += 7;  // past the table: a run a power cut lost
  CHECK_FALSE(store->Holds(1, nowhere, mark));
  // Added after the mark: a fresh run, a new big file.
  const ValuePtr later = Add(store.get(), 1, "later", Value(2 * kSeg, 2));  // a fresh run
  REQUIRE(later.segment != a.segment);
  const ValuePtr big_later = Add(store.get(), 1, "big2", Value(8000, 2));
  CHECK_FALSE(store->Holds(1, later, mark));
  CHECK_FALSE(store->Holds(1, big_later, mark));
  CHECK(store->Holds(1, big_later, store->Mark()));
  CHECK_FALSE(store->Holds(1, later, store->Mark()));  // past its run's fill until sealed
  ASSERT_OK(store->SyncData());
  CHECK(store->Holds(1, later, store->Mark()));
  ValuePtr past_fill = later;  // a record a power cut lost with the fill that counted it
  past_fill.offset += later.length;
  CHECK_FALSE(store->Holds(1, past_fill, store->Mark()));
  store->Release(big);
  ASSERT_OK(store->Commit());
  CHECK_FALSE(store->Holds(1, big, store->Mark()));
}

}  // namespace
}  // namespace slotkv::chunk
