// BucketStore: one slot's on-disk hash table of key cells.
//
// Design. A key goes to bucket `hash % bucket_count`; bucket_count is fixed when the store is
// created (from the key-count estimate) and recorded in `buckets.meta`. A bucket at split depth
// d is 2^d pages; the key's page is `(hash >> 32) & (2^d - 1)`. When a write does not fit, the
// bucket moves to the smallest depth at which every page fits (no cap but the 32 hash bits), so
// a slot's key count is bounded by disk space alone. The pages of all buckets at depth d live
// in the sparse file `buckets-DD.dat` at page number (bucket << d) + index; pages left behind
// by a split are punched out. Per-bucket depths (one byte each) live in `buckets.depth`.
//
// Crash safety. WriteBucket writes pages; a split writes its pages to the deeper file and
// changes the in-memory depth only. Sync() makes the pages durable, then records new depths,
// then frees the pages a split left behind. Killed before Sync, the old depth still points at
// intact old pages; the slot's WAL replay then redoes the write (cells carry seq numbers, so
// redoing is harmless).
//
// Reads go through a page cache (CLOCK by bytes, invalidated per page on write).
// Thread rule: one owner thread (the slot's worker) calls everything.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/fs.h"
#include "core/base/status.h"
#include "keybucket/cell.h"

namespace slotkv::keybucket {

// The most buckets a store is created with: a count read from buckets.meta above it is
// Corruption (never an allocation of what damage says).
inline constexpr uint32_t kMaxBucketCount = 1u << 30;

struct BucketStoreOptions {
  Fs* fs = nullptr;              // must outlive the store
  std::string dir;               // the slot directory (exists)
  uint32_t bucket_count = 1024;  // used only when the store is created; <= kMaxBucketCount
  size_t page_cache_bytes = 16 << 20;
  bool fsync = true;             // Sync() calls File::Sync (false for pure-memory mode)
};

struct BucketStoreStats {
  uint64_t pages_read = 0;        // from the file (cache misses)
  uint64_t pages_written = 0;
  uint64_t page_bytes_written = 0;
  uint64_t cache_hits = 0;
  uint64_t splits = 0;            // depth increases
  uint64_t pages_in_use = 0;      // sum of 2^depth over buckets
  uint64_t cache_bytes = 0;       // page bytes in the cache now
};

class BucketStore {
 public:
  // Opens the store in options.dir, creating it on first use. An existing store keeps its
  // recorded bucket count. Corruption when the metadata is damaged.
  static Result<std::unique_ptr<BucketStore>> Open(const BucketStoreOptions& options);
  ~BucketStore();

  uint32_t bucket_count() const;
  uint32_t BucketOf(uint64_t hash) const;
  uint32_t depth(uint32_t bucket) const;
  // Number of pages of bucket (2^depth).
  uint32_t page_count(uint32_t bucket) const;
  // The page of bucket that holds hash, at the bucket's current depth.
  uint32_t PageOf(uint32_t bucket, uint64_t hash) const;

  // Finds key's cell: reads one page, none when the bucket holds no cell (bucket_cell_count 0).
  // nullopt when absent.
  Result<std::optional<Cell>> Lookup(uint64_t hash, std::string_view key);
  // Appends every cell of bucket (all its pages) to *cells.
  Status ReadBucket(uint32_t bucket, std::vector<Cell>* cells);
  // Reads the uncached pages of buckets [first, end) into the page cache in one batch of reads
  // per file, so that the ReadBucket calls that follow find them there; not those of buckets
  // with no cell (bucket_cell_count 0), which callers need not read. Corruption as Lookup.
  Status PrefetchBuckets(uint32_t first, uint32_t end);
  // The same for the pages holding the given key hashes, so the Lookup calls that follow find
  // them in the cache.
  Status PrefetchKeys(const std::vector<uint64_t>& hashes);
  // Appends the cells of one page of bucket (index < page_count(bucket)) to *cells.
  Status ReadPage(uint32_t bucket, uint32_t index, std::vector<Cell>* cells);
  // Replaces the whole content of bucket with cells (each cell's hash must map to bucket),
  // splitting when needed. Pages whose bytes do not change are not rewritten.
  // InvalidArgument when one cell cannot fit even alone in a page.
  Status WriteBucket(uint32_t bucket, const std::vector<Cell>& cells);
  // Makes every WriteBucket so far durable (see the design note), and frees split leftovers.
  Status Sync();

  // Syncs every page file, the depth and count files and the directory, whatever
  // Options::fsync says. REQUIRES: after Sync() (which writes depths and counts).
  Status SyncAll();
  // The files SyncAll syncs, appended to *files, for a caller that syncs them itself (through
  // io_uring: File::RingSync). *dir_version is 0 when the directory is durable, else the
  // version to hand to DirSynced once the caller has synced the directory too (files were
  // created since the last SyncAll or DirSynced, or since Open). False, with *files unchanged,
  // when SyncAll must run instead: a file has no descriptor (a memory file).
  bool SyncHandles(std::vector<File*>* files, uint64_t* dir_version) const;
  // The directory was synced after SyncHandles gave dir_version: files created before it are
  // durable by name.
  void DirSynced(uint64_t dir_version);
  // Changes Options::fsync while open (the slot's fsync policy changed). REQUIRES: after
  // SyncAll, so nothing written under the old setting is left unsynced.
  void set_fsync(bool fsync);
  // Resizes the page cache, evicting what no longer fits.
  void set_cache_bytes(size_t bytes);

  // Cells in all buckets, as of the last WriteBucket of each (durable with Sync, in
  // buckets.count). Expired cells count until a write drops them.
  uint64_t cell_count() const;
  uint32_t bucket_cell_count(uint32_t bucket) const;
  // Whether bucket may hold a cell with an expiry time: set by a WriteBucket of such a cell,
  // cleared by one without (or by ClearTtl); durable with the count. Buckets of a store made
  // before the flag existed start with it set when they hold cells.
  bool bucket_has_ttl(uint32_t bucket) const;
  // Buckets with bucket_has_ttl: 0 means no key here has an expiry time.
  uint32_t ttl_bucket_count() const;
  // Clears bucket_has_ttl of a bucket the caller read and found without an expiry time
  // (recorded with the next Sync).
  void ClearTtl(uint32_t bucket);
  // Sets bucket's cell count and bucket_has_ttl from its pages (recorded with the next Sync):
  // after a crash between a Sync's page sync and its count write, the pages are newer.
  Status Recount(uint32_t bucket);

  // Bytes the page files take on disk: the pages of the buckets that hold cells. Was every
  // bucket's 2^depth pages: INFO said 1.2 GB where du said 233 MB, the page files being sparse
  // (16 slots of ~16k buckets at the default key estimate, most of them empty).
  uint64_t disk_bytes() const;
  const BucketStoreStats& stats() const;

 private:
  struct Impl;
  explicit BucketStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace slotkv::keybucket
