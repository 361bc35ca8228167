#include "keybucket/bucket_store.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/base/coding.h"
#include "core/base/fault_fs.h"
#include "core/base/hash.h"
#include "core/base/mem_fs.h"
#include "core/base/temp_dir.h"
#include "keybucket/page.h"

namespace slotkv::keybucket {
namespace {

constexpr char kDir[] = "/slot";

Cell MakeCell(const std::string& key, const std::string& payload, uint64_t seq = 1) {
  Cell cell;
  cell.hash = KeyHash(key);
  cell.seq = seq;
  cell.key = key;
  cell.payload = payload;
  return cell;
}

std::string Key(int i) { return "key:" + std::to_string(i); }
std::string Value(int i) { return "v" + std::to_string(i * 7); }

struct Env {
  explicit Env(uint32_t buckets = 16, bool with_faults = false) {
    REQUIRE(mem.CreateDirs(kDir).ok());
    if (with_faults) fault = std::make_unique<FaultFs>(&mem);
    fs = with_faults ? static_cast<Fs*>(fault.get()) : &mem;
    Reopen(buckets);
  }

  void Reopen(uint32_t buckets) {
    store.reset();
    BucketStoreOptions options;
    options.fs = fs;
    options.dir = kDir;
    options.bucket_count = buckets;
    options.page_cache_bytes = cache_bytes;
    options.fsync = fsync;
    Result<std::unique_ptr<BucketStore>> opened = BucketStore::Open(options);
    REQUIRE_MESSAGE(opened.ok(), opened.status().ToString());
    store = std::move(opened).value();
  }

  // Adds cells to their buckets the way the slot does: read the bucket, merge, write it back.
  void Add(const std::vector<Cell>& cells) {
    std::map<uint32_t, std::vector<Cell>> by_bucket;
    for (const Cell& cell : cells) by_bucket[store->BucketOf(cell.hash)].push_back(cell);
    for (auto& [bucket, added] : by_bucket) {
      std::vector<Cell> merged;
      REQUIRE(store->ReadBucket(bucket, &merged).ok());
      merged.insert(merged.end(), added.begin(), added.end());
      Status st = store->WriteBucket(bucket, merged);
      REQUIRE_MESSAGE(st.ok(), st.ToString());
    }
  }

  std::optional<Cell> Get(const std::string& key) {
    Result<std::optional<Cell>> got = store->Lookup(KeyHash(key), key);
    REQUIRE_MESSAGE(got.ok(), got.status().ToString());
    return *got;
  }

  std::vector<Cell> Bucket(uint32_t bucket) {
    std::vector<Cell> cells;
    Status st = store->ReadBucket(bucket, &cells);
    REQUIRE_MESSAGE(st.ok(), st.ToString());
    return cells;
  }

  MemFs mem;
  std::unique_ptr<FaultFs> fault;
  Fs* fs = nullptr;
  size_t cache_bytes = 1 << 20;
  bool fsync = true;
  std::unique_ptr<BucketStore> store;
};

std::vector<Cell> Cells(int from, int to) {
  std::vector<Cell> cells;
  for (int i = from; i < to; ++i) cells.push_back(MakeCell(Key(i), Value(i)));
  return cells;
}

// The first `count` cells, for a one-bucket store (every hash maps to bucket 0).
std::vector<Cell> OneBucketCells(int count) { return Cells(0, count); }

TEST_CASE("lookup finds written cells and misses others") {
  Env env;
  env.Add(Cells(0, 100));
  for (int i = 0; i < 100; ++i) {
    std::optional<Cell> got = env.Get(Key(i));
    REQUIRE(got.has_value());
    CHECK(got->payload == Value(i));
  }
  CHECK_FALSE(env.Get("absent").has_value());
}

TEST_CASE("fresh store reads every bucket as empty") {
  Env env(4);
  for (uint32_t b = 0; b < 4; ++b) CHECK(env.Bucket(b).empty());
  CHECK_FALSE(env.Get("anything").has_value());
  CHECK(env.store->disk_bytes() == 0);  // holes: no page written
}

TEST_CASE("disk_bytes counts the pages of the buckets that hold cells") {
  Env env(4);
  env.Add(Cells(0, 1));
  CHECK(env.store->disk_bytes() == kPageSize);
  uint32_t full = 0;
  while (env.store->bucket_cell_count(full) == 0) ++full;
  REQUIRE(env.store->WriteBucket(full, {}).ok());  // its cells gone
  CHECK(env.store->disk_bytes() == 0);
  env.Add(Cells(0, 200));
  CHECK(env.store->disk_bytes() == 4 * kPageSize);
  REQUIRE(env.store->Sync().ok());
  env.Reopen(4);
  CHECK(env.store->disk_bytes() == 4 * kPageSize);
}

TEST_CASE("rewriting an identical bucket writes no pages") {
  Env env(1);
  env.Add(OneBucketCells(500));
  REQUIRE(env.store->depth(0) > 0);
  std::vector<Cell> cells = env.Bucket(0);
  uint64_t written = env.store->stats().pages_written;
  REQUIRE(env.store->WriteBucket(0, cells).ok());
  CHECK(env.store->stats().pages_written == written);
}

TEST_CASE("changing one cell rewrites only its page") {
  Env env(1);
  env.Add(OneBucketCells(500));
  std::vector<Cell> cells = env.Bucket(0);
  cells[7].payload = "changed";
  uint64_t written = env.store->stats().pages_written;
  REQUIRE(env.store->WriteBucket(0, cells).ok());
  CHECK(env.store->stats().pages_written == written + 1);
  CHECK(env.Get(cells[7].key)->payload == "changed");
}

TEST_CASE("one bucket grows several depths and keeps every cell readable") {
  Env env(1);
  std::vector<uint32_t> depths;
  for (int from = 0; from < 5000; from += 500) {
    env.Add(Cells(from, from + 500));
    depths.push_back(env.store->depth(0));
  }
  CHECK(std::is_sorted(depths.begin(), depths.end()));
  CHECK(depths.back() >= 5);
  CHECK(env.store->stats().splits == depths.back());
  CHECK(env.store->page_count(0) == 1u << depths.back());
  CHECK(env.store->disk_bytes() == (uint64_t{kPageSize} << depths.back()));
  for (int i = 0; i < 5000; ++i) {
    std::optional<Cell> got = env.Get(Key(i));
    REQUIRE(got.has_value());
    CHECK(got->payload == Value(i));
  }
  std::vector<Cell> all = env.Bucket(0);
  CHECK(all.size() == 5000);
}

TEST_CASE("cells keep their relative order inside a page") {
  Env env(1);
  std::vector<Cell> cells = OneBucketCells(40);
  std::reverse(cells.begin(), cells.end());
  REQUIRE(env.store->WriteBucket(0, cells).ok());
  REQUIRE(env.store->depth(0) == 0);
  CHECK(env.Bucket(0) == cells);
}

TEST_CASE("ReadPage returns the cells of one page, the ones PageOf sends there") {
  Env env(1);
  env.Add(OneBucketCells(1000));
  size_t total = 0;
  for (uint32_t index = 0; index < env.store->page_count(0); ++index) {
    std::vector<Cell> cells;
    REQUIRE(env.store->ReadPage(0, index, &cells).ok());
    for (const Cell& cell : cells) CHECK(env.store->PageOf(0, cell.hash) == index);
    total += cells.size();
  }
  CHECK(total == 1000);
  std::vector<Cell> cells;
  CHECK(env.store->ReadPage(0, env.store->page_count(0), &cells).IsInvalidArgument());
}

TEST_CASE("100k keys in 16 buckets all stay readable") {
  Env env(16);
  env.cache_bytes = 4 << 20;
  env.Reopen(16);
  constexpr int kKeys = 100000;
  for (int from = 0; from < kKeys; from += 20000) env.Add(Cells(from, from + 20000));
  size_t total = 0;
  for (uint32_t b = 0; b < 16; ++b) total += env.Bucket(b).size();
  CHECK(total == kKeys);
  for (int i = 0; i < kKeys; ++i) {
    std::optional<Cell> got = env.Get(Key(i));
    REQUIRE(got.has_value());
    REQUIRE(got->payload == Value(i));
  }
  uint64_t pages = 0;
  for (uint32_t b = 0; b < 16; ++b) pages += env.store->page_count(b);
  CHECK(env.store->stats().pages_in_use == pages);
}

TEST_CASE("reopen keeps the recorded bucket count and depths, ignoring options") {
  Env env(8);
  env.Add(Cells(0, 3000));
  REQUIRE(env.store->Sync().ok());
  std::vector<uint32_t> depths;
  for (uint32_t b = 0; b < 8; ++b) depths.push_back(env.store->depth(b));
  REQUIRE(*std::max_element(depths.begin(), depths.end()) > 0);
  env.Reopen(1000);
  CHECK(env.store->bucket_count() == 8);
  for (uint32_t b = 0; b < 8; ++b) CHECK(env.store->depth(b) == depths[b]);
  for (int i = 0; i < 3000; ++i) CHECK(env.Get(Key(i))->payload == Value(i));
}

TEST_CASE("power cut before Sync keeps the old content of a split bucket") {
  Env env(1);
  env.Add(Cells(0, 50));
  REQUIRE(env.store->Sync().ok());
  REQUIRE(env.store->depth(0) == 0);
  std::vector<Cell> before = env.Bucket(0);
  env.Add(Cells(50, 1000));
  REQUIRE(env.store->depth(0) > 0);
  env.mem.SimulatePowerCutForTest();
  env.Reopen(1);
  CHECK(env.store->depth(0) == 0);
  CHECK(env.Bucket(0) == before);
  CHECK_FALSE(env.Get(Key(500)).has_value());
  // Redoing the write, as WAL replay does, works over the leftovers of the lost one.
  env.Add(Cells(50, 1000));
  REQUIRE(env.store->Sync().ok());
  env.Reopen(1);
  CHECK(env.Bucket(0).size() == 1000);
}

TEST_CASE("power cut after Sync keeps the new content of a split bucket") {
  Env env(1);
  env.Add(Cells(0, 50));
  REQUIRE(env.store->Sync().ok());
  env.Add(Cells(50, 1000));
  uint32_t depth = env.store->depth(0);
  REQUIRE(depth > 0);
  REQUIRE(env.store->Sync().ok());
  env.mem.SimulatePowerCutForTest();
  env.Reopen(1);
  CHECK(env.store->depth(0) == depth);
  CHECK(env.Bucket(0).size() == 1000);
  CHECK(env.Get(Key(999))->payload == Value(999));
}

TEST_CASE("Sync punches out the pages a split left behind") {
  Env env(2);
  env.Add(Cells(0, 2000));
  REQUIRE(env.store->Sync().ok());
  REQUIRE(env.store->depth(0) > 0);
  // The depth-0 file holds both buckets' old pages; after the punch they read as zeros.
  Result<std::string> old_file = env.fs->ReadFile(std::string(kDir) + "/buckets-00.dat");
  REQUIRE(old_file.ok());
  CHECK(std::all_of(old_file->begin(), old_file->end(), [](char c) { return c == 0; }));
  CHECK(env.store->disk_bytes() ==
        kPageSize * (env.store->page_count(0) + env.store->page_count(1)));
}

TEST_CASE("cell too large for a page is InvalidArgument and writes nothing") {
  Env env(1);
  env.Add(Cells(0, 10));
  uint64_t written = env.store->stats().pages_written;
  std::vector<Cell> cells = env.Bucket(0);
  cells.push_back(MakeCell("huge", std::string(kPageSize, 'x')));
  CHECK(env.store->WriteBucket(0, cells).IsInvalidArgument());
  CHECK(env.store->stats().pages_written == written);
  CHECK(env.Bucket(0).size() == 10);
}

TEST_CASE("cells sharing all 32 page bits that overflow a page are InvalidArgument") {
  Env env(1);
  std::vector<Cell> cells;
  for (int i = 0; i < 3; ++i) {
    Cell cell = MakeCell("twin" + std::to_string(i), std::string(1500, 'x'));
    cell.hash = 0x12345678'00000000 + static_cast<uint64_t>(i);
    cells.push_back(cell);
  }
  CHECK(env.store->WriteBucket(0, cells).IsInvalidArgument());
  CHECK(env.store->depth(0) == 0);
  CHECK(env.store->stats().pages_written == 0);
}

TEST_CASE("cells differing only in a high page bit split straight to that depth") {
  Env env(1);
  std::vector<Cell> cells;
  for (int i = 0; i < 2; ++i) {
    Cell cell = MakeCell("deep" + std::to_string(i), std::string(3000, 'x'));
    cell.hash = (uint64_t{static_cast<uint64_t>(i)} << 36) + 5;  // differ in page bit 4
    cells.push_back(cell);
  }
  REQUIRE(env.store->WriteBucket(0, cells).ok());
  CHECK(env.store->depth(0) == 5);
  CHECK(env.store->stats().splits == 5);
  for (const Cell& cell : cells) {
    Result<std::optional<Cell>> got = env.store->Lookup(cell.hash, cell.key);
    REQUIRE(got.ok());
    CHECK(*got == cell);
  }
  CHECK(env.Bucket(0).size() == 2);
}

TEST_CASE("cell whose hash maps to another bucket is InvalidArgument") {
  Env env(4);
  Cell cell = MakeCell("k", "v");
  uint32_t wrong = (env.store->BucketOf(cell.hash) + 1) % 4;
  CHECK(env.store->WriteBucket(wrong, {cell}).IsInvalidArgument());
}

TEST_CASE("lookup after a rewrite sees the new value, not the cached page") {
  Env env(1);
  env.Add({MakeCell("k", "old")});
  CHECK(env.Get("k")->payload == "old");
  uint64_t hits = env.store->stats().cache_hits;
  CHECK(env.Get("k")->payload == "old");
  CHECK(env.store->stats().cache_hits == hits + 1);
  REQUIRE(env.store->WriteBucket(0, {MakeCell("k", "new", 2)}).ok());
  CHECK(env.Get("k")->payload == "new");
  CHECK(env.Get("k")->seq == 2);
}

TEST_CASE("zero-byte page cache reads every page from the file") {
  Env env(1);
  env.cache_bytes = 0;
  env.Reopen(1);
  env.Add(Cells(0, 20));
  uint64_t reads = env.store->stats().pages_read;
  CHECK(env.Get(Key(3))->payload == Value(3));
  CHECK(env.Get(Key(4))->payload == Value(4));
  CHECK(env.store->stats().pages_read == reads + 2);
  CHECK(env.store->stats().cache_hits == 0);
}

TEST_CASE("flipped byte in a page file is corruption naming the file and page") {
  Env env(1);
  env.Add(Cells(0, 20));
  REQUIRE(env.store->Sync().ok());
  Result<std::unique_ptr<File>> file = env.fs->Open(std::string(kDir) + "/buckets-00.dat");
  REQUIRE(file.ok());
  REQUIRE((*file)->Write(100, "\xff").ok());
  env.Reopen(1);  // fresh cache
  Result<std::optional<Cell>> got = env.store->Lookup(KeyHash(Key(1)), Key(1));
  REQUIRE(got.status().IsCorruption());
  CHECK(got.status().message() == "buckets-00.dat page 0 (offset 0): page checksum mismatch");
  std::vector<Cell> cells;
  CHECK(env.store->ReadBucket(0, &cells).IsCorruption());
}

TEST_CASE("damaged meta file is corruption") {
  Env env(4);
  REQUIRE(env.fs->WriteFileAtomic(std::string(kDir) + "/buckets.meta", "SKVB garbage....").ok());
  BucketStoreOptions options;
  options.fs = env.fs;
  options.dir = kDir;
  env.store.reset();
  CHECK(BucketStore::Open(options).status().IsCorruption());
}

TEST_CASE("depth byte past 32 is corruption") {
  Env env(4);
  env.store.reset();
  REQUIRE(
      env.fs->WriteFileAtomic(std::string(kDir) + "/buckets.depth", std::string("\0\x21", 2)).ok());
  BucketStoreOptions options;
  options.fs = env.fs;
  options.dir = kDir;
  Result<std::unique_ptr<BucketStore>> opened = BucketStore::Open(options);
  CHECK(opened.status().IsCorruption());
  CHECK(opened.status().message() == "buckets.depth: bad depth 33 at offset 1");
}

TEST_CASE("depth in use whose page file is missing is corruption") {
  Env env(1);
  env.Add(Cells(0, 500));
  REQUIRE(env.store->Sync().ok());
  uint32_t depth = env.store->depth(0);
  REQUIRE(depth > 0);
  env.store.reset();
  char name[32];
  std::snprintf(name, sizeof(name), "/buckets-%02u.dat", depth);
  REQUIRE(env.fs->Remove(std::string(kDir) + name).ok());
  BucketStoreOptions options;
  options.fs = env.fs;
  options.dir = kDir;
  CHECK(BucketStore::Open(options).status().IsCorruption());
}

TEST_CASE("write failure during a split leaves the old pages in use") {
  Env env(1, /*with_faults=*/true);
  env.Add(Cells(0, 50));
  std::vector<Cell> before = env.Bucket(0);
  std::vector<Cell> cells = Cells(0, 1000);
  env.fault->FailNthWrite(3);
  CHECK(env.store->WriteBucket(0, cells).IsIOError());
  CHECK(env.store->depth(0) == 0);
  CHECK(env.Bucket(0) == before);
  REQUIRE(env.store->WriteBucket(0, cells).ok());
  CHECK(env.Bucket(0).size() == 1000);
}

TEST_CASE("split over the leftovers of a failed split punches its empty pages") {
  Env env(1, /*with_faults=*/true);
  // Two big cells per attempt, apart only in page bit 1: both attempts need depth 2.
  auto big = [](const std::string& key, uint64_t page_bits) {
    Cell cell = MakeCell(key, std::string(3000, 'x'));
    cell.hash = page_bits << 32;
    return cell;
  };
  env.fault->FailNthWrite(2);  // page 0 is written, page 2 fails
  CHECK(env.store->WriteBucket(0, {big("y", 0), big("v", 2)}).IsIOError());
  REQUIRE(env.store->depth(0) == 0);
  std::vector<Cell> cells = {big("x", 1), big("w", 3)};
  REQUIRE(env.store->WriteBucket(0, cells).ok());
  REQUIRE(env.store->depth(0) == 2);
  REQUIRE(env.store->Sync().ok());
  env.Reopen(1);  // fresh cache: read what the file holds
  CHECK(env.Bucket(0) == cells);
}

TEST_CASE("failed sync is sticky") {
  Env env(1, /*with_faults=*/true);
  env.Add(Cells(0, 50));
  env.fault->FailNthSync(1);
  CHECK(env.store->Sync().IsIOError());
  CHECK(env.store->Sync().IsIOError());
  CHECK(env.store->WriteBucket(0, Cells(0, 10)).IsIOError());
  CHECK(env.Get(Key(1))->payload == Value(1));  // reads still work
}

TEST_CASE("Sync without fsync records depths but syncs no file") {
  Env env(1, /*with_faults=*/true);
  env.fsync = false;
  env.Reopen(1);
  env.Add(Cells(0, 1000));
  uint64_t syncs = env.fault->syncs();
  REQUIRE(env.store->Sync().ok());
  CHECK(env.fault->syncs() == syncs);
  uint32_t depth = env.store->depth(0);
  env.Reopen(1);
  CHECK(env.store->depth(0) == depth);
  CHECK(env.Bucket(0).size() == 1000);
}

TEST_CASE("store works over the posix file system") {
  TempDir dir("keybucket_test");
  std::unique_ptr<Fs> posix = NewPosixFs();
  BucketStoreOptions options;
  options.fs = posix.get();
  options.dir = dir.path();
  options.bucket_count = 2;
  {
    Result<std::unique_ptr<BucketStore>> opened = BucketStore::Open(options);
    REQUIRE(opened.ok());
    BucketStore& store = **opened;
    for (uint32_t b = 0; b < 2; ++b) {
      std::vector<Cell> cells;
      for (const Cell& cell : Cells(0, 2000)) {
        if (store.BucketOf(cell.hash) == b) cells.push_back(cell);
      }
      REQUIRE(store.WriteBucket(b, cells).ok());
    }
    REQUIRE(store.Sync().ok());
  }
  Result<std::unique_ptr<BucketStore>> reopened = BucketStore::Open(options);
  REQUIRE(reopened.ok());
  for (int i = 0; i < 2000; ++i) {
    Result<std::optional<Cell>> got = (*reopened)->Lookup(KeyHash(Key(i)), Key(i));
    REQUIRE(got.ok());
    REQUIRE(got->has_value());
    CHECK((*got)->payload == Value(i));
  }
}

TEST_CASE("cell counts follow writes and persist with Sync") {
  Env env(8);
  std::vector<Cell> cells;
  for (int i = 0; i < 500; ++i) cells.push_back(MakeCell(Key(i), Value(i)));
  env.Add(cells);
  CHECK(env.store->cell_count() == 500);
  uint64_t sum = 0;
  for (uint32_t b = 0; b < 8; ++b) sum += env.store->bucket_cell_count(b);
  CHECK(sum == 500);
  uint64_t after = 500 - env.store->bucket_cell_count(0);
  CHECK(env.Bucket(0).size() == env.store->bucket_cell_count(0));
  REQUIRE(env.store->WriteBucket(0, {}).ok());
  CHECK(env.store->bucket_cell_count(0) == 0);
  CHECK(env.store->cell_count() == after);
  REQUIRE(env.store->Sync().ok());
  env.Reopen(8);
  CHECK(env.store->cell_count() == after);
  CHECK(env.store->bucket_cell_count(0) == 0);
}

TEST_CASE("expiry flags follow writes, persist with Sync and leave the counts alone") {
  Env env(4);
  Cell timed = MakeCell(Key(1), Value(1));
  timed.expire_at_ms = 123456;
  const uint32_t b = env.store->BucketOf(timed.hash);
  CHECK(env.store->ttl_bucket_count() == 0);
  env.Add({timed, MakeCell(Key(2), Value(2))});
  CHECK(env.store->bucket_has_ttl(b));
  CHECK(env.store->ttl_bucket_count() == 1);
  REQUIRE(env.store->Sync().ok());
  env.Reopen(4);
  CHECK(env.store->bucket_has_ttl(b));
  CHECK(env.store->ttl_bucket_count() == 1);
  CHECK(env.store->cell_count() == 2);
  CHECK(env.store->bucket_cell_count(b) == env.Bucket(b).size());

  // Rewritten without an expiry time: the flag goes, durably.
  std::vector<Cell> cells = env.Bucket(b);
  for (Cell& cell : cells) cell.expire_at_ms = 0;
  REQUIRE(env.store->WriteBucket(b, cells).ok());
  CHECK_FALSE(env.store->bucket_has_ttl(b));
  CHECK(env.store->ttl_bucket_count() == 0);
  REQUIRE(env.store->Sync().ok());
  env.Reopen(4);
  CHECK_FALSE(env.store->bucket_has_ttl(b));
  CHECK(env.store->cell_count() == 2);

  // ClearTtl, as after a read that found none.
  env.Add({timed});
  CHECK(env.store->bucket_has_ttl(b));
  env.store->ClearTtl(b);
  CHECK_FALSE(env.store->bucket_has_ttl(b));
  CHECK(env.store->ttl_bucket_count() == 0);
  REQUIRE(env.store->Sync().ok());
  env.Reopen(4);
  CHECK_FALSE(env.store->bucket_has_ttl(b));
}

TEST_CASE("a bucket count past what the writer makes is corruption, checksum or not") {
  Env env(4);
  env.store.reset();
  for (uint32_t count : {0u, kMaxBucketCount + 1, 0xffffffffu}) {
    CAPTURE(count);
    std::string meta("SKVB", 4);
    PutFixed32(&meta, 2);
    PutFixed32(&meta, count);
    PutFixed32(&meta, Checksum(meta));
    REQUIRE(env.fs->WriteFileAtomic(std::string(kDir) + "/buckets.meta", meta).ok());
    BucketStoreOptions options;
    options.fs = env.fs;
    options.dir = kDir;
    Result<std::unique_ptr<BucketStore>> opened = BucketStore::Open(options);
    REQUIRE(opened.status().IsCorruption());
    CHECK(opened.status().message() == "buckets.meta: bad bucket count " + std::to_string(count));
  }
}

TEST_CASE("a version 1 store opens with every bucket that holds cells flagged, as version 2") {
  Env env(8);
  env.Add(Cells(0, 5));  // no expiry times, and some of the 8 buckets stay empty
  REQUIRE(env.store->Sync().ok());
  env.store.reset();
  // Make it a version 1 store: meta version 1, count words without bit 31 (as they are here).
  const std::string meta_path = std::string(kDir) + "/buckets.meta";
  std::string meta("SKVB", 4);
  PutFixed32(&meta, 1);
  PutFixed32(&meta, 8);
  PutFixed32(&meta, Checksum(meta));
  REQUIRE(env.fs->WriteFileAtomic(meta_path, meta).ok());

  env.Reopen(8);
  uint32_t with_cells = 0;
  for (uint32_t b = 0; b < 8; ++b) {
    CHECK(env.store->bucket_has_ttl(b) == (env.store->bucket_cell_count(b) > 0));
    with_cells += env.store->bucket_cell_count(b) > 0;
  }
  CHECK(env.store->ttl_bucket_count() == with_cells);
  CHECK(env.store->cell_count() == 5);
  Result<std::string> now = env.fs->ReadFile(meta_path);
  REQUIRE(now.ok());
  CHECK(DecodeFixed32(now->data() + 4) == 2);
  // Recorded: a power cut now keeps the flags.
  env.mem.SimulatePowerCutForTest();
  env.Reopen(8);
  CHECK(env.store->ttl_bucket_count() == with_cells);
  CHECK(env.store->cell_count() == 5);
}

TEST_CASE("counts written without Sync are lost by a power cut with the pages") {
  Env env(4);
  env.Add({MakeCell(Key(1), Value(1))});
  REQUIRE(env.store->Sync().ok());
  env.Add({MakeCell(Key(2), Value(2)), MakeCell(Key(3), Value(3))});
  CHECK(env.store->cell_count() == 3);
  env.mem.SimulatePowerCutForTest();
  env.Reopen(4);
  CHECK(env.store->cell_count() == 1);
}

TEST_CASE("prefetch reads a range of buckets in one batch, then ReadBucket hits the cache") {
  Env env(8);
  std::vector<Cell> cells;
  for (int i = 0; i < 3000; ++i) cells.push_back(MakeCell(Key(i), Value(i)));  // some splits
  env.Add(cells);
  REQUIRE(env.store->Sync().ok());
  env.Reopen(8);
  REQUIRE(env.store->PrefetchBuckets(0, 8).ok());
  uint64_t read = env.store->stats().pages_read;
  CHECK(read == env.store->stats().pages_in_use);
  size_t total = 0;
  for (uint32_t b = 0; b < 8; ++b) total += env.Bucket(b).size();
  CHECK(total == 3000);
  CHECK(env.store->stats().pages_read == read);  // all from the cache
  CHECK(env.store->PrefetchBuckets(0, 9).IsInvalidArgument());
}

TEST_CASE("prefetch skips the pages of buckets with no cell") {
  Env env(64);
  const Cell one = MakeCell(Key(1), Value(1));
  env.Add({one});
  REQUIRE(env.store->Sync().ok());
  env.Reopen(64);
  REQUIRE(env.store->PrefetchBuckets(0, 64).ok());
  CHECK(env.store->stats().pages_read == 1);  // the one bucket holding a cell
  CHECK(env.Bucket(env.store->BucketOf(one.hash)).size() == 1);
  CHECK(env.store->stats().pages_read == 1);
}

TEST_CASE("a lookup or key prefetch in a bucket with no cell reads no page") {
  Env env(64);
  const Cell one = MakeCell(Key(1), Value(1));
  env.Add({one});
  REQUIRE(env.store->Sync().ok());
  env.Reopen(64);
  std::vector<uint64_t> empty_hashes;
  for (int i = 2; empty_hashes.size() < 20; ++i) {
    const uint64_t hash = KeyHash(Key(i));
    if (env.store->BucketOf(hash) != env.store->BucketOf(one.hash)) empty_hashes.push_back(hash);
  }
  REQUIRE(env.store->PrefetchKeys(empty_hashes).ok());
  for (int i = 2; i < 200; ++i) {
    if (env.store->BucketOf(KeyHash(Key(i))) != env.store->BucketOf(one.hash)) {
      CHECK_FALSE(env.Get(Key(i)).has_value());
    }
  }
  CHECK(env.store->stats().pages_read == 0);
  CHECK(env.store->stats().cache_hits == 0);
  CHECK(env.Get(Key(1))->payload == Value(1));  // the one bucket holding a cell is read
  CHECK(env.store->stats().pages_read == 1);
}

TEST_CASE("prefetch reports a damaged page as Corruption") {
  Env env(2);
  env.Add({MakeCell(Key(1), Value(1)), MakeCell(Key(2), Value(2))});
  REQUIRE(env.store->Sync().ok());
  auto file = env.mem.Open(JoinPath(kDir, "buckets-00.dat"));
  REQUIRE(file.ok());
  char c;
  REQUIRE((*file)->Read(100, 1, &c).ok());
  REQUIRE((*file)->Write(100, std::string(1, static_cast<char>(c ^ 1))).ok());
  REQUIRE((*file)->Read(4096 + 100, 1, &c).ok());
  REQUIRE((*file)->Write(4096 + 100, std::string(1, static_cast<char>(c ^ 1))).ok());
  env.Reopen(2);
  Status s = env.store->PrefetchBuckets(0, 2);
  CHECK(s.IsCorruption());
  CHECK(s.message().find("buckets-00.dat") != std::string_view::npos);
}

TEST_CASE("prefetching keys reads each of their pages once, then lookups hit the cache") {
  Env env(64);
  std::vector<Cell> cells;
  for (int i = 0; i < 2000; ++i) cells.push_back(MakeCell(Key(i), Value(i)));
  env.Add(cells);
  REQUIRE(env.store->Sync().ok());
  env.Reopen(64);
  std::vector<uint64_t> hashes;
  std::set<std::pair<uint32_t, uint32_t>> pages;
  for (int i = 0; i < 2000; i += 20) {
    uint64_t hash = KeyHash(Key(i));
    hashes.push_back(hash);
    uint32_t bucket = env.store->BucketOf(hash);
    pages.insert({bucket, env.store->PageOf(bucket, hash)});
  }
  REQUIRE(env.store->PrefetchKeys(hashes).ok());
  CHECK(env.store->stats().pages_read == pages.size());
  for (int i = 0; i < 2000; i += 20) CHECK(env.Get(Key(i))->payload == Value(i));
  CHECK(env.store->stats().pages_read == pages.size());
}

}  // namespace
}  // namespace slotkv::keybucket
