#include "chunk/chunk_store.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/base/cleanup.h"
#include "core/base/fault_fs.h"
#include "core/base/hash.h"
#include "core/base/io_ring.h"
#include "core/base/mem_fs.h"

namespace slotkv::chunk {
namespace {

#define ASSERT_OK(expr)                      \
  do {                                       \
    const ::slotkv::Status _s = (expr);      \
    REQUIRE_MESSAGE(_s.ok(), _s.ToString()); \
  } while (0)

constexpr uint32_t kSeg = 256;
const std::string kDir = "slot";

// A store over MemFs with small segments, so a few values span several segments.
class StoreTest {
 public:
  StoreTest() { ASSERT_OK(fs_.CreateDirs(kDir)); }

  ChunkStoreOptions Options(Fs* fs = nullptr) {
    ChunkStoreOptions o;
    o.fs = fs != nullptr ? fs : &fs_;
    o.dir = kDir;
    o.segment_bytes = kSeg;
    o.big_value_bytes = 4096;
    o.cache_bytes = 8 * kSeg;
    return o;
  }
  std::unique_ptr<ChunkStore> Open(const ChunkStoreOptions& o) {
    auto store = ChunkStore::Open(o);
    REQUIRE_MESSAGE(store.ok(), store.status().ToString());
    return std::move(store).value();
  }
  std::unique_ptr<ChunkStore> Open() { return Open(Options()); }

  ValuePtr Add(ChunkStore* store, uint32_t group, const std::string& key,
               const std::string& value) {
    auto ptr = store->Add(group, key, value);
    REQUIRE_MESSAGE(ptr.ok(), ptr.status().ToString());
    return *ptr;
  }
  std::string Read(ChunkStore* store, const ValuePtr& ptr, const std::string& key) {
    auto value = store->Read(ptr, key);
    REQUIRE_MESSAGE(value.ok(), value.status().ToString());
    return *value;
  }
  // Whether segment of chunks.dat reads as zeros (a hole).
  bool Punched(uint32_t segment) {
    auto file = fs_.Open(JoinPath(kDir, "chunks.dat"));
    REQUIRE(file.ok());
    std::string bytes(kSeg, 'x');
    auto n = (*file)->Read(uint64_t{segment} * kSeg, kSeg, bytes.data());
    REQUIRE(n.ok());
    return bytes.substr(0, *n) == std::string(*n, '\0');
  }
  // Writes bytes into the store's file name at offset, behind the store's back.
  void WriteAt(const std::string& name, uint64_t offset, const std::string& bytes) {
    auto file = fs_.Open(JoinPath(kDir, name));
    REQUIRE(file.ok());
    ASSERT_OK((*file)->Write(offset, bytes));
  }
  void FlipByte(const std::string& name, uint64_t offset) {
    auto file = fs_.Open(JoinPath(kDir, name));
    REQUIRE(file.ok());
    char c = 0;
    auto n = (*file)->Read(offset, 1, &c);
    REQUIRE((n.ok() && *n == 1));
    WriteAt(name, offset, std::string(1, static_cast<char>(c ^ 0x40)));
  }

  MemFs fs_;
};

// A value whose record (key "k") is exactly `record` bytes long.
std::string ValueForRecord(size_t record) {
  // 4 crc + 8 key hash + varint length + value.
  size_t v = record - 12 - 1;
  if (v >= 128) v -= 1;
  return std::string(v, 'v');
}

std::string Value(size_t n, uint64_t seed) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>('a' + (seed * 7 + i) % 26);
  return v;
}

TEST_CASE_FIXTURE(StoreTest, "values of every size read back before and after Commit") {
  auto store = Open();
  const std::vector<size_t> sizes = {0, 1, 200, ValueForRecord(kSeg).size(), 3 * kSeg, 5000};
  std::vector<ValuePtr> ptrs;
  for (size_t i = 0; i < sizes.size(); ++i) {
    ptrs.push_back(Add(store.get(), 1, "k", Value(sizes[i], i)));
  }
  CHECK(ptrs[3].length == kSeg);
  CHECK(ptrs[3].offset == 0);
  CHECK(ptrs[5].kind == ValuePtr::Kind::kBigFile);
  for (size_t i = 0; i < sizes.size(); ++i)
    CHECK(Read(store.get(), ptrs[i], "k") == Value(sizes[i], i));
  ASSERT_OK(store->Commit());
  for (size_t i = 0; i < sizes.size(); ++i)
    CHECK(Read(store.get(), ptrs[i], "k") == Value(sizes[i], i));
  // 0, 1 and 200 share segment 0; the exact fit takes one segment, 3x segment a run of four.
  CHECK(store->stats().segments_used == 1 + 1 + 4);
}

TEST_CASE_FIXTURE(StoreTest, "many values read back through the segment cache") {
  auto store = Open();
  std::vector<ValuePtr> ptrs;
  for (uint64_t i = 0; i < 2000; ++i) {
    ptrs.push_back(Add(store.get(), i % 4, "key" + std::to_string(i), Value(i % 300, i)));
    if (i % 500 == 499) ASSERT_OK(store->Commit());
  }
  for (int round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < 2000; ++i) {
      REQUIRE(Read(store.get(), ptrs[i], "key" + std::to_string(i)) == Value(i % 300, i));
    }
  }
  CHECK(store->stats().cache_hits > 0);
  CHECK(store->stats().cache_misses > 0);
}

TEST_CASE_FIXTURE(StoreTest, "interleaved groups never share a segment") {
  auto store = Open();
  std::map<uint32_t, std::set<uint32_t>> segments;
  for (uint64_t i = 0; i < 200; ++i) {
    const uint32_t group = 1 + i % 2;
    ValuePtr p = Add(store.get(), group, "g" + std::to_string(group), Value(i % 120, i));
    for (uint32_t s = p.segment; s <= p.segment + (p.offset + p.length - 1) / kSeg; ++s) {
      segments[group].insert(s);
    }
  }
  ASSERT_OK(store->Commit());
  for (uint32_t s : segments[1]) CHECK(segments[2].count(s) == 0);
  for (auto& [group, segs] : segments) {
    for (uint32_t s : segs) {
      std::vector<ChunkRecord> records;
      ASSERT_OK(store->ReadSegment(s, &records));
      for (const ChunkRecord& r : records) CHECK(r.key_hash == KeyHash("g" + std::to_string(group)));
    }
  }
}

TEST_CASE_FIXTURE(StoreTest, "ReadSegment lists every record of a run in order with its pointer") {
  auto store = Open();
  std::vector<ValuePtr> ptrs;
  ptrs.push_back(Add(store.get(), 1, "a", Value(2 * kSeg, 1)));  // a run of 3 segments
  ptrs.push_back(Add(store.get(), 1, "b", Value(10, 2)));        // packed after it
  ptrs.push_back(Add(store.get(), 1, "c", Value(20, 3)));
  CHECK(ptrs[1].segment == ptrs[0].segment + 2);
  ASSERT_OK(store->Commit());
  std::vector<ChunkRecord> records;
  ASSERT_OK(store->ReadSegment(ptrs[0].segment + 1, &records));  // any segment of the run
  REQUIRE(records.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(records[i].key_hash == KeyHash(std::string(1, static_cast<char>('a' + i))));
    CHECK(records[i].ptr == ptrs[i]);
  }
  CHECK(records[2].value == Value(20, 3));
}

TEST_CASE_FIXTURE(StoreTest, "reopen keeps values and the recorded segment size") {
  std::vector<ValuePtr> ptrs;
  {
    auto store = Open();
    for (uint64_t i = 0; i < 50; ++i) {
      ptrs.push_back(Add(store.get(), 3, "k" + std::to_string(i), Value(i * 13, i)));
    }
    ptrs.push_back(Add(store.get(), 3, "big", Value(5000, 99)));
    ASSERT_OK(store->Commit());
  }
  ChunkStoreOptions o = Options();
  o.segment_bytes = 4 * kSeg;
  auto store = Open(o);
  for (uint64_t i = 0; i < 50; ++i)
    CHECK(Read(store.get(), ptrs[i], "k" + std::to_string(i)) == Value(i * 13, i));
  CHECK(Read(store.get(), ptrs[50], "big") == Value(5000, 99));
  const uint64_t before = store->disk_bytes();
  Add(store.get(), 4, "new", "x");
  ASSERT_OK(store->Commit());
  CHECK(store->disk_bytes() == before + kSeg);
  // Big ids keep increasing across the reopen.
  CHECK(Add(store.get(), 4, "big2", Value(5000, 2)).big_id == ptrs[50].big_id + 1);
}

TEST_CASE_FIXTURE(StoreTest, "flipped byte in a record is Corruption on Read") {
  ValuePtr p;
  {
    auto store = Open();
    p = Add(store.get(), 1, "key", "some value");
    ASSERT_OK(store->Commit());
  }
  FlipByte("chunks.dat", uint64_t{p.segment} * kSeg + p.offset + p.length - 2);
  auto store = Open();
  auto value = store->Read(p, "key");
  CHECK(value.status().IsCorruption());
  CHECK(value.status().message().find("checksum") != std::string_view::npos);
}

TEST_CASE_FIXTURE(StoreTest, "record read under another key is Corruption") {
  auto store = Open();
  ValuePtr p = Add(store.get(), 1, "key", "value");
  ASSERT_OK(store->Commit());
  auto value = store->Read(p, "other");
  CHECK(value.status().IsCorruption());
  CHECK(value.status().message().find("value record key mismatch") != std::string_view::npos);
  ValuePtr big = Add(store.get(), 1, "key", Value(5000, 1));
  CHECK(store->Read(big, "other").status().IsCorruption());
}

TEST_CASE_FIXTURE(StoreTest, "pointer to a free or unknown segment is Corruption") {
  auto store = Open();
  ValuePtr p{.kind = ValuePtr::Kind::kSegments, .segment = 7, .offset = 0, .length = 20};
  CHECK(store->Read(p, "k").status().IsCorruption());
  ValuePtr big{.kind = ValuePtr::Kind::kBigFile, .big_id = 42};
  CHECK(store->Read(big, "k").status().IsCorruption());
}

TEST_CASE_FIXTURE(StoreTest, "damaged segments.meta is Corruption at Open") {
  {
    auto store = Open();
    Add(store.get(), 1, "key", "value");
    Add(store.get(), 2, "key", "value");
    ASSERT_OK(store->Commit());
  }
  FlipByte("segments.meta", 32 + 9);  // live bytes of segment 1
  auto store = ChunkStore::Open(Options());
  CHECK(store.status().IsCorruption());
  CHECK(store.status().message().find("entry 1") != std::string_view::npos);
}

TEST_CASE_FIXTURE(StoreTest, "damaged chunks.meta is Corruption at Open") {
  { auto store = Open(); }
  FlipByte("chunks.meta", 13);
  CHECK(ChunkStore::Open(Options()).status().IsCorruption());
}

TEST_CASE_FIXTURE(StoreTest, "segment table without chunks.meta is Corruption, not a new store") {
  {
    auto store = Open();
    Add(store.get(), 1, "key", "value");
    ASSERT_OK(store->Commit());
  }
  ASSERT_OK(fs_.Remove(JoinPath(kDir, "chunks.meta")));
  CHECK(ChunkStore::Open(Options()).status().IsCorruption());
}

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

TEST_CASE_FIXTURE(StoreTest, "ReadMany reads open, cached, uncached and big values like Read") {
  auto store = Open();
  std::vector<ValuePtr> ptrs;
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < 60; ++i) {  // far more segments than the 8-segment cache holds
    keys.push_back("key" + std::to_string(i));
    ptrs.push_back(Add(store.get(), i % 3, keys.back(), Value(i * 37 % 500, i)));
    if (i == 40) ASSERT_OK(store->Commit());
  }
  keys.push_back("big");
  ptrs.push_back(Add(store.get(), 1, "big", std::string(5000, 'b')));  // >= big_value_bytes
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::string> values;
  ASSERT_OK(store->ReadMany(ptrs, views, &values));
  REQUIRE(values.size() == ptrs.size());
  for (size_t i = 0; i < ptrs.size(); ++i) CHECK(values[i] == Read(store.get(), ptrs[i], keys[i]));
  CHECK(values.back() == std::string(5000, 'b'));
}

TEST_CASE_FIXTURE(StoreTest, "ReadMany reports a damaged record") {
  auto store = Open();
  std::vector<ValuePtr> ptrs;
  for (uint64_t i = 0; i < 40; ++i) ptrs.push_back(Add(store.get(), 0, "k", Value(200, i)));
  ASSERT_OK(store->Commit());
  store.reset();
  const ValuePtr& victim = ptrs[3];
  FlipByte("chunks.dat", uint64_t{victim.segment} * kSeg + victim.offset + victim.length - 1);
  store = Open();
  std::vector<std::string_view> keys(ptrs.size(), "k");
  std::vector<std::string> values;
  Status s = store->ReadMany(ptrs, keys, &values);
  CHECK(s.IsCorruption());
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

TEST_CASE_FIXTURE(StoreTest, "Holds names the group whose run holds a value added before") {
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
  CHECK(store->Holds(1, later, store->Mark()));
  CHECK(store->Holds(1, big_later, store->Mark()));
  store->Release(big);
  ASSERT_OK(store->Commit());
  CHECK_FALSE(store->Holds(1, big, store->Mark()));
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
