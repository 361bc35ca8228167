// ChunkStore's reads and writes: values of every size, groups apart, segments listed,
// reopened, and damage reported as Corruption.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <vector>

#include "chunk/chunk_store_test_util.h"
#include "core/base/hash.h"

namespace slotkv::chunk {
namespace {

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

}  // namespace
}  // namespace slotkv::chunk
