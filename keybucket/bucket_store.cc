// BucketStore files, all in the slot directory. Integers are little-endian.
//
//   buckets.meta   := magic:"SKVB" version:fixed32 bucket_count:fixed32 checksum:fixed32
//                     (16 bytes, written once by Fs::WriteFileAtomic; checksum = Checksum() of
//                     the first 12 bytes; version = 2; bucket_count >= 1)
//   buckets.depth  := depth:u8{n}, n <= bucket_count; depth[b] is bucket b's split depth
//                     (0..32); bytes past the end of the file read as depth 0
//   buckets.count  := word:fixed32{n}, n <= bucket_count; bits 0-30 of word[b] are the number
//                     of cells in bucket b's pages, bit 31 is set when one of them may have an
//                     expiry time (missing entries read as 0). Written with the depths, after
//                     the pages; a crash in between leaves a stale word only for buckets whose
//                     WAL group flush is then redone, which rewrites it. Version 1 had no bit
//                     31: opening such a store sets it for every bucket with cells, writes the
//                     words, then records version 2.
//   buckets-DD.dat := page{*}, one file per depth DD (two decimal digits); the page of bucket b,
//                     index i (i < 2^DD) is page number (b << DD) + i, at byte offset
//                     pageno * 4096. Pages are in the format of page.cc; a page never written
//                     (a hole, or past the end of the file) reads as zeros: valid and empty.
//
// Worked example: bucket_count 4, bucket 2 split to depth 1, the others at depth 0.
//   buckets.meta   53 4b 56 42 | 01 00 00 00 | 04 00 00 00 | <checksum, 4 bytes>
//   buckets.depth  00 00 01 00
//   buckets-00.dat pages of buckets 0, 1, 3 at offsets 0, 4096, 12288; offset 8192 (bucket 2's
//                  page before its split) punched out by the Sync after the split
//   buckets-01.dat bucket 2's pages 0 and 1 (page numbers 4 and 5) at offsets 16384, 20480
//
// Why the write order is safe: a split writes the new pages into the deeper file, which no
// durable depth points at yet, so the old pages stay intact until Sync() has made the new pages
// durable and then the new depth. Only after that are the old pages punched out. The depth
// file is rewritten in place one byte per bucket; a single-byte update cannot tear.
#include "keybucket/bucket_store.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>

#include "core/base/coding.h"
#include "core/base/hash.h"
#include "core/base/clock_cache.h"
#include "core/base/no_wait_reads.h"
#include "keybucket/page.h"

namespace slotkv::keybucket {
namespace {

constexpr char kMetaName[] = "buckets.meta";
constexpr char kDepthName[] = "buckets.depth";
constexpr char kCountName[] = "buckets.count";
constexpr char kMetaMagic[] = "SKVB";
constexpr uint32_t kMetaVersion = 2;
constexpr uint32_t kNoTtlBitVersion = 1;  // buckets.count words without the expiry bit
constexpr uint32_t kTtlBit = uint32_t{1} << 31;
constexpr size_t kMetaSize = 16;
constexpr uint32_t kMaxDepth = 32;
// Page numbers stay below 2^51 so byte offsets (pageno * 4096) fit in off_t.
constexpr uint64_t kMaxPages = uint64_t{1} << 51;
// Cache charge of an empty page, cached as "" instead of 4096 zero bytes.
constexpr size_t kEmptyPageCharge = 128;

std::string PageFileName(uint32_t depth) {
  char name[32];
  std::snprintf(name, sizeof(name), "buckets-%02u.dat", depth);
  return name;
}

uint64_t PageNumber(uint32_t depth, uint32_t bucket, uint64_t index) {
  return (uint64_t{bucket} << depth) + index;
}

// Cache key: depth in the top 6 bits, page number below (page numbers are < 2^51).
uint64_t PageId(uint32_t depth, uint64_t pageno) { return (uint64_t{depth} << 58) | pageno; }

// Whether bucket's pages at depth stay inside kMaxPages.
bool DepthAddressable(uint32_t bucket, uint32_t depth) {
  return ((uint64_t{bucket} + 1) << depth) <= kMaxPages;
}

struct Meta {
  uint32_t version;
  uint32_t bucket_count;
};

std::string EncodeMeta(uint32_t bucket_count) {
  std::string meta(kMetaMagic, 4);
  PutFixed32(&meta, kMetaVersion);
  PutFixed32(&meta, bucket_count);
  PutFixed32(&meta, Checksum(meta));
  return meta;
}

Result<Meta> DecodeMeta(std::string_view meta) {
  if (meta.size() != kMetaSize || meta.substr(0, 4) != std::string_view(kMetaMagic, 4) ||
      DecodeFixed32(meta.data() + 12) != Checksum(meta.substr(0, 12))) {
    return Status::Corruption(std::string(kMetaName) + ": damaged");
  }
  uint32_t version = DecodeFixed32(meta.data() + 4);
  uint32_t bucket_count = DecodeFixed32(meta.data() + 8);
  if (version != kMetaVersion && version != kNoTtlBitVersion) {
    return Status::Corruption(std::string(kMetaName) + ": unknown version " +
                              std::to_string(version));
  }
  if (bucket_count == 0 || bucket_count > kMaxBucketCount) {
    return Status::Corruption(std::string(kMetaName) + ": bad bucket count " +
                              std::to_string(bucket_count));
  }
  return Meta{version, bucket_count};
}

// Sort keys for grouping cells into pages: page index above, position in the input below, so
// sorting keeps the given relative order inside each page.
void PageOrder(const std::vector<Cell>& cells, uint32_t depth, std::vector<uint64_t>* order) {
  uint64_t mask = (uint64_t{1} << depth) - 1;
  order->clear();
  for (size_t pos = 0; pos < cells.size(); ++pos) {
    order->push_back((((cells[pos].hash >> 32) & mask) << 32) | pos);
  }
  std::sort(order->begin(), order->end());
}

}  // namespace

struct BucketStore::Impl {
  explicit Impl(const BucketStoreOptions& opts, uint32_t count)
      : options(opts),
        bucket_count(count),
        depths(count, 0),
        counts(count, 0),
        ttl(count, 0),
        cache(opts.page_cache_bytes) {}

  Result<File*> PageFile(uint32_t depth);
  // The bytes of one verified page: from the cache, or read, verified and cached (Corruption
  // naming file and offset when damaged). The view lives until the next
  // call that touches the cache; *scratch backs it on a miss.
  Result<std::string_view> GetPage(uint32_t depth, uint32_t bucket, uint64_t index,
                                   std::string* scratch);
  void CachePage(uint64_t id, std::string bytes, bool empty);
  // Counts, verifies (Corruption naming file and offset) and caches a page read from disk.
  Status AdmitPage(uint32_t depth, uint64_t pageno, std::string page);
  Status DecodeAt(uint32_t depth, uint32_t bucket, uint64_t index, std::vector<Cell>* cells);
  std::string Where(uint32_t depth, uint64_t pageno) const {
    return PageFileName(depth) + " page " + std::to_string(pageno) + " (offset " +
           std::to_string(pageno * kPageSize) + "): ";
  }
  // Uncached pages to read, per depth file.
  using PageBatches = std::map<uint32_t, std::set<uint64_t>>;
  void NoteMissing(uint32_t depth, uint64_t pageno, PageBatches* missing);
  // Reads the pages in one batch per file, verifies them and caches them.
  Status ReadIntoCache(const PageBatches& missing);
  Result<uint32_t> FitDepth(const std::vector<Cell>& cells, uint32_t from) const;
  Status WritePages(uint32_t bucket, uint32_t depth, bool split, const std::vector<Cell>& cells,
                    const std::vector<uint64_t>& order);
  void MarkDepthDirty(uint32_t bucket) {
    dirty_lo = std::min(dirty_lo, bucket);
    dirty_hi = std::max(dirty_hi, bucket + 1);
  }
  void SetCount(uint32_t bucket, uint32_t count, bool has_ttl) {
    if (counts[bucket] == count && ttl[bucket] == has_ttl) return;
    if ((counts[bucket] == 0) != (count == 0)) {
      const uint64_t pages = depths[bucket] <= kMaxDepth ? uint64_t{1} << depths[bucket] : 0;
      pages_with_cells = count != 0 ? pages_with_cells + pages : pages_with_cells - pages;
    }
    total_cells += count;
    total_cells -= counts[bucket];
    counts[bucket] = count;
    ttl_buckets += has_ttl;
    ttl_buckets -= ttl[bucket];
    ttl[bucket] = has_ttl;
    count_dirty_lo = std::min(count_dirty_lo, bucket);
    count_dirty_hi = std::max(count_dirty_hi, bucket + 1);
  }
  Status WriteCounts();

  BucketStoreOptions options;
  uint32_t bucket_count;
  std::vector<uint8_t> depths;
  std::unique_ptr<File> depth_file;
  std::vector<uint32_t> counts;
  uint64_t total_cells = 0;
  // Pages of the buckets that hold cells (disk_bytes): an empty bucket's pages are holes of a
  // sparse page file, never written (or written empty once its cells went: not counted).
  uint64_t pages_with_cells = 0;
  std::vector<uint8_t> ttl;  // 1: the bucket may hold a cell with an expiry time
  uint32_t ttl_buckets = 0;  // buckets with ttl set
  std::unique_ptr<File> count_file;
  uint32_t count_dirty_lo = UINT32_MAX;  // buckets [count_dirty_lo, count_dirty_hi) changed count
  uint32_t count_dirty_hi = 0;
  std::array<std::unique_ptr<File>, kMaxDepth + 1> page_files;
  std::array<bool, kMaxDepth + 1> unsynced{};  // page file written since the last Sync
  bool new_files = false;                      // a file was created since the last Sync
  DirVersion dir;
  uint32_t dirty_lo = UINT32_MAX;              // buckets [dirty_lo, dirty_hi) changed depth
  uint32_t dirty_hi = 0;
  struct Leftover {
    uint32_t depth;
    uint32_t bucket;
  };
  std::vector<Leftover> leftovers;  // regions left behind by splits, punched by Sync
  ClockCache<uint64_t, std::string> cache;
  BucketStoreStats stats;
  Status failed;  // sticky: a failed sync leaves the files in an unknown state
};

Result<File*> BucketStore::Impl::PageFile(uint32_t depth) {
  if (!page_files[depth]) {
    std::string path = JoinPath(options.dir, PageFileName(depth));
    if (!options.fs->Exists(path)) {
      new_files = true;
      dir.Created();
    }
    SLOTKV_ASSIGN_OR_RETURN(page_files[depth], options.fs->Open(path));
    page_files[depth]->AdviseRandomAccess();  // lookups read single pages
  }
  return page_files[depth].get();
}

Result<std::string_view> BucketStore::Impl::GetPage(uint32_t depth, uint32_t bucket, uint64_t index,
                                                    std::string* scratch) {
  static const std::string kZeroPage(kPageSize, '\0');
  uint64_t pageno = PageNumber(depth, bucket, index);
  if (const std::string* cached = cache.Lookup(PageId(depth, pageno))) {
    ++stats.cache_hits;
    return cached->empty() ? std::string_view(kZeroPage) : std::string_view(*cached);
  }
  SLOTKV_ASSIGN_OR_RETURN(File * file, PageFile(depth));
  scratch->assign(kPageSize, '\0');
  // A short read is a hole or the end of the file: the rest stays zero.
  Result<size_t> read = file->Read(pageno * kPageSize, kPageSize, scratch->data());
  if (!read.ok()) return read.status();
  SLOTKV_RETURN_IF_ERROR(AdmitPage(depth, pageno, *scratch));
  return std::string_view(*scratch);
}

Status BucketStore::Impl::AdmitPage(uint32_t depth, uint64_t pageno, std::string page) {
  ++stats.pages_read;
  // Pages are verified once, when read: the cache holds only verified pages.
  Status verified = VerifyPage(page);
  if (!verified.ok()) {
    return Status::Corruption(Where(depth, pageno) + std::string(verified.message()));
  }
  // A verified page with no version byte is all zeros: never written, or emptied.
  const bool empty = page[4] == 0;
  CachePage(PageId(depth, pageno), std::move(page), empty);
  return Status::OK();
}

void BucketStore::Impl::CachePage(uint64_t id, std::string bytes, bool empty) {
  if (empty) {
    cache.Insert(id, std::string(), kEmptyPageCharge);
  } else {
    const size_t charge = kCacheEntryBytes + HeapBytes(bytes);
    cache.Insert(id, std::move(bytes), charge);
  }
}

Status BucketStore::Impl::DecodeAt(uint32_t depth, uint32_t bucket, uint64_t index,
                                   std::vector<Cell>* cells) {
  std::string scratch;
  SLOTKV_ASSIGN_OR_RETURN(std::string_view page, GetPage(depth, bucket, index, &scratch));
  Status st = DecodePage(page, cells, /*verified=*/true);
  if (!st.ok()) {
    return Status::Corruption(Where(depth, PageNumber(depth, bucket, index)) +
                              std::string(st.message()));
  }
  return Status::OK();
}

Result<uint32_t> BucketStore::Impl::FitDepth(const std::vector<Cell>& cells, uint32_t from) const {
  std::vector<size_t> footprints(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    footprints[i] = CellFootprint(cells[i]);
    if (footprints[i] > PageCapacity()) {
      return Status::InvalidArgument("cell of " + std::to_string(footprints[i]) +
                                     " bytes does not fit in a page");
    }
  }
  std::vector<uint64_t> order;
  for (uint32_t depth = from; depth <= kMaxDepth; ++depth) {
    PageOrder(cells, depth, &order);
    bool fits = true;
    size_t used = 0;
    for (size_t i = 0; i < order.size() && fits; ++i) {
      if (i > 0 && (order[i] >> 32) != (order[i - 1] >> 32)) used = 0;
      used += footprints[order[i] & UINT32_MAX];
      fits = used <= PageCapacity();
    }
    if (fits) return depth;
  }
  return Status::InvalidArgument("cells sharing all 32 page bits of their hash overflow a page");
}

// Writes bucket's pages at depth. In place (!split), only pages whose bytes change are written.
// For a split every page of the new region is set: non-empty pages written, empty ones punched
// (a crash before an earlier Sync may have left bytes there) unless past the end of the file.
Status BucketStore::Impl::WritePages(uint32_t bucket, uint32_t depth, bool split,
                                     const std::vector<Cell>& cells,
                                     const std::vector<uint64_t>& order) {
  SLOTKV_ASSIGN_OR_RETURN(File * file, PageFile(depth));
  uint64_t pages = uint64_t{1} << depth;
  std::string encoded(kPageSize, '\0');
  std::string scratch;
  std::vector<const Cell*> group;
  size_t next = 0;
  uint64_t empty_from = 0;  // start of the current run of empty pages (split only)
  for (uint64_t index = 0; index <= pages; ++index) {
    group.clear();
    while (next < order.size() && (order[next] >> 32) == index) {
      group.push_back(&cells[order[next++] & UINT32_MAX]);
    }
    uint64_t pageno = PageNumber(depth, bucket, index);
    if (split && (index == pages || !group.empty())) {
      // Close the run of empty pages [empty_from, index).
      uint64_t begin = PageNumber(depth, bucket, empty_from) * kPageSize;
      uint64_t end = std::min(pageno * kPageSize, file->Size());
      if (begin < end) SLOTKV_RETURN_IF_ERROR(file->PunchHole(begin, end - begin));
      for (uint64_t e = empty_from; e < index; ++e) {
        CachePage(PageId(depth, PageNumber(depth, bucket, e)), std::string(), true);
      }
      empty_from = index + 1;
    }
    if (index == pages) break;
    if (split && group.empty()) continue;
    SLOTKV_RETURN_IF_ERROR(EncodePage(group, encoded.data()));
    if (!split) {
      SLOTKV_ASSIGN_OR_RETURN(std::string_view current, GetPage(depth, bucket, index, &scratch));
      if (current == encoded) continue;
    }
    uint64_t id = PageId(depth, pageno);
    Status st = file->Write(pageno * kPageSize, encoded);
    unsynced[depth] = true;
    if (!st.ok()) {
      cache.Erase(id);  // the page may be torn
      return st;
    }
    ++stats.pages_written;
    stats.page_bytes_written += kPageSize;
    CachePage(id, encoded, group.empty());
  }
  if (split) unsynced[depth] = true;
  return Status::OK();
}

BucketStore::BucketStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BucketStore::~BucketStore() = default;

Result<std::unique_ptr<BucketStore>> BucketStore::Open(const BucketStoreOptions& options) {
  if (options.fs == nullptr) return Status::InvalidArgument("BucketStoreOptions.fs is null");
  Fs* fs = options.fs;
  std::string meta_path = JoinPath(options.dir, kMetaName);
  uint32_t bucket_count;
  uint32_t version = kMetaVersion;
  if (fs->Exists(meta_path)) {
    SLOTKV_ASSIGN_OR_RETURN(std::string meta, fs->ReadFile(meta_path));
    SLOTKV_ASSIGN_OR_RETURN(Meta decoded, DecodeMeta(meta));
    bucket_count = decoded.bucket_count;
    version = decoded.version;
  } else {
    if (options.bucket_count == 0 || options.bucket_count > kMaxBucketCount) {
      return Status::InvalidArgument("bucket_count " + std::to_string(options.bucket_count));
    }
    bucket_count = options.bucket_count;
    SLOTKV_RETURN_IF_ERROR(fs->WriteFileAtomic(meta_path, EncodeMeta(bucket_count)));
  }
  auto impl = std::make_unique<Impl>(options, bucket_count);

  std::string depth_path = JoinPath(options.dir, kDepthName);
  impl->new_files = !fs->Exists(depth_path);
  SLOTKV_ASSIGN_OR_RETURN(impl->depth_file, fs->Open(depth_path));
  uint64_t size = impl->depth_file->Size();
  if (size > bucket_count) {
    return Status::Corruption(std::string(kDepthName) + ": longer than the bucket count");
  }
  char* bytes = reinterpret_cast<char*>(impl->depths.data());
  SLOTKV_ASSIGN_OR_RETURN(size_t n, impl->depth_file->Read(0, size, bytes));
  if (n != size) return Status::IOError(std::string(kDepthName) + ": short read");

  std::string count_path = JoinPath(options.dir, kCountName);
  impl->new_files = impl->new_files || !fs->Exists(count_path);
  SLOTKV_ASSIGN_OR_RETURN(impl->count_file, fs->Open(count_path));
  uint64_t count_size = impl->count_file->Size();
  if (count_size > uint64_t{bucket_count} * 4 || count_size % 4 != 0) {
    return Status::Corruption(std::string(kCountName) + ": size does not match the bucket count");
  }
  std::string count_bytes(count_size, '\0');
  SLOTKV_ASSIGN_OR_RETURN(size_t counted, impl->count_file->Read(0, count_size, count_bytes.data()));
  if (counted != count_size) return Status::IOError(std::string(kCountName) + ": short read");
  for (uint32_t b = 0; b < count_size / 4; ++b) {
    const uint32_t word = DecodeFixed32(count_bytes.data() + 4 * b);
    const bool has_ttl = version == kNoTtlBitVersion ? word != 0 : (word & kTtlBit) != 0;
    impl->SetCount(b, word & ~kTtlBit, has_ttl);
  }
  if (version == kMetaVersion) {  // as on disk: nothing to write
    impl->count_dirty_lo = UINT32_MAX;
    impl->count_dirty_hi = 0;
  }
  if (version == kNoTtlBitVersion) {
    // Every bucket with cells may hold one with an expiry time (the loop set the bit): say so
    // on disk before the version that reads the bit is recorded.
    SLOTKV_RETURN_IF_ERROR(impl->WriteCounts());
    SLOTKV_RETURN_IF_ERROR(impl->count_file->Sync());
    SLOTKV_RETURN_IF_ERROR(fs->WriteFileAtomic(meta_path, EncodeMeta(bucket_count)));
  }

  std::array<bool, kMaxDepth + 1> in_use{};
  for (uint32_t b = 0; b < bucket_count; ++b) {
    uint32_t depth = impl->depths[b];
    if (depth > kMaxDepth || !DepthAddressable(b, depth)) {
      return Status::Corruption(std::string(kDepthName) + ": bad depth " + std::to_string(depth) +
                                " at offset " + std::to_string(b));
    }
    in_use[depth] = true;
    impl->stats.pages_in_use += uint64_t{1} << depth;
  }
  // A split creates its file before the new depth can be recorded, so a depth in use without
  // its file means the directory lost it.
  for (uint32_t depth = 1; depth <= kMaxDepth; ++depth) {
    std::string path = JoinPath(options.dir, PageFileName(depth));
    if (in_use[depth] && !fs->Exists(path)) {
      return Status::Corruption(PageFileName(depth) + ": missing, but buckets use depth " +
                                std::to_string(depth));
    }
  }
  return std::unique_ptr<BucketStore>(new BucketStore(std::move(impl)));
}

uint32_t BucketStore::bucket_count() const { return impl_->bucket_count; }

uint32_t BucketStore::BucketOf(uint64_t hash) const {
  return static_cast<uint32_t>(hash % impl_->bucket_count);
}

uint32_t BucketStore::depth(uint32_t bucket) const { return impl_->depths[bucket]; }

uint32_t BucketStore::page_count(uint32_t bucket) const {
  return static_cast<uint32_t>(uint64_t{1} << impl_->depths[bucket]);
}

uint32_t BucketStore::PageOf(uint32_t bucket, uint64_t hash) const {
  uint64_t mask = (uint64_t{1} << impl_->depths[bucket]) - 1;
  return static_cast<uint32_t>((hash >> 32) & mask);
}

Result<std::optional<Cell>> BucketStore::Lookup(uint64_t hash, std::string_view key) {
  uint32_t bucket = BucketOf(hash);
  if (impl_->counts[bucket] == 0) return std::optional<Cell>();  // its pages hold no cell
  uint32_t depth = impl_->depths[bucket];
  uint32_t index = PageOf(bucket, hash);
  std::string scratch;
  SLOTKV_ASSIGN_OR_RETURN(std::string_view page, impl_->GetPage(depth, bucket, index, &scratch));
  Cell cell;
  Result<bool> found = FindInPage(page, hash, key, &cell, /*verified=*/true);
  if (!found.ok()) {
    return Status::Corruption(impl_->Where(depth, PageNumber(depth, bucket, index)) +
                              std::string(found.status().message()));
  }
  if (!*found) return std::optional<Cell>();
  return std::optional<Cell>(std::move(cell));
}

Status BucketStore::ReadBucket(uint32_t bucket, std::vector<Cell>* cells) {
  if (bucket >= impl_->bucket_count) return Status::InvalidArgument("bucket out of range");
  uint32_t depth = impl_->depths[bucket];
  for (uint64_t index = 0; index < (uint64_t{1} << depth); ++index) {
    SLOTKV_RETURN_IF_ERROR(impl_->DecodeAt(depth, bucket, index, cells));
  }
  return Status::OK();
}

void BucketStore::Impl::NoteMissing(uint32_t depth, uint64_t pageno, PageBatches* missing) {
  if (!cache.Contains(PageId(depth, pageno))) (*missing)[depth].insert(pageno);
}

Status BucketStore::Impl::ReadIntoCache(const PageBatches& missing) {
  ReadMisses misses;
  for (const auto& [depth, pagenos] : missing) {
    SLOTKV_ASSIGN_OR_RETURN(File * file, PageFile(depth));
    // Each page is read into the string the cache keeps: no copy.
    std::vector<std::string> pages(pagenos.size());
    std::vector<ReadRequest> batch;
    batch.reserve(pagenos.size());
    for (uint64_t pageno : pagenos) {
      std::string& page = pages[batch.size()];
      page.assign(kPageSize, '\0');
      batch.push_back({.offset = pageno * kPageSize, .n = kPageSize, .buf = page.data()});
    }
    Status st = file->ReadMany(batch);
    // Pages that would wait leave the other depths' to go on. None of the batch is kept: a
    // page not read is all zeros, like a hole.
    if (misses.Take(st)) continue;
    SLOTKV_RETURN_IF_ERROR(st);
    for (size_t i = 0; i < batch.size(); ++i) {
      // A short read is a hole or the end of the file: those bytes stay zero.
      SLOTKV_RETURN_IF_ERROR(AdmitPage(depth, batch[i].offset / kPageSize, std::move(pages[i])));
    }
  }
  return misses.status();
}

Status BucketStore::PrefetchBuckets(uint32_t first, uint32_t end) {
  Impl& s = *impl_;
  if (first > end || end > s.bucket_count) return Status::InvalidArgument("bucket out of range");
  Impl::PageBatches missing;
  for (uint32_t bucket = first; bucket < end; ++bucket) {
    if (s.counts[bucket] == 0) continue;  // its pages hold no cell
    uint32_t depth = s.depths[bucket];
    for (uint64_t index = 0; index < (uint64_t{1} << depth); ++index) {
      s.NoteMissing(depth, PageNumber(depth, bucket, index), &missing);
    }
  }
  return s.ReadIntoCache(missing);
}

Status BucketStore::PrefetchKeys(const std::vector<uint64_t>& hashes) {
  Impl& s = *impl_;
  Impl::PageBatches missing;
  for (uint64_t hash : hashes) {
    uint32_t bucket = BucketOf(hash);
    if (s.counts[bucket] == 0) continue;  // Lookup reads no page of it
    uint32_t depth = s.depths[bucket];
    s.NoteMissing(depth, PageNumber(depth, bucket, PageOf(bucket, hash)), &missing);
  }
  return s.ReadIntoCache(missing);
}

Status BucketStore::ReadPage(uint32_t bucket, uint32_t index, std::vector<Cell>* cells) {
  if (bucket >= impl_->bucket_count || index >= page_count(bucket)) {
    return Status::InvalidArgument("page out of range");
  }
  return impl_->DecodeAt(impl_->depths[bucket], bucket, index, cells);
}

Status BucketStore::WriteBucket(uint32_t bucket, const std::vector<Cell>& cells) {
  Impl& s = *impl_;
  if (!s.failed.ok()) return s.failed;
  if (bucket >= s.bucket_count) return Status::InvalidArgument("bucket out of range");
  if (cells.size() >= kTtlBit) return Status::InvalidArgument("too many cells");
  for (const Cell& cell : cells) {
    if (BucketOf(cell.hash) != bucket) {
      return Status::InvalidArgument("cell hash does not map to bucket " + std::to_string(bucket));
    }
  }
  uint32_t old_depth = s.depths[bucket];
  SLOTKV_ASSIGN_OR_RETURN(uint32_t depth, s.FitDepth(cells, old_depth));
  if (!DepthAddressable(bucket, depth)) {
    return Status::InvalidArgument("bucket " + std::to_string(bucket) + " too deep at depth " +
                                   std::to_string(depth));
  }
  std::vector<uint64_t> order;
  PageOrder(cells, depth, &order);
  bool split = depth != old_depth;
  SLOTKV_RETURN_IF_ERROR(s.WritePages(bucket, depth, split, cells, order));
  const bool has_ttl = std::any_of(cells.begin(), cells.end(),
                                   [](const Cell& cell) { return cell.expire_at_ms != 0; });
  s.SetCount(bucket, static_cast<uint32_t>(cells.size()), has_ttl);
  if (split) {
    // Readers switch to the new pages now; the old ones stay on disk until Sync has made the
    // new depth durable.
    for (uint64_t index = 0; index < (uint64_t{1} << old_depth); ++index) {
      s.cache.Erase(PageId(old_depth, PageNumber(old_depth, bucket, index)));
    }
    s.leftovers.push_back({old_depth, bucket});
    s.depths[bucket] = static_cast<uint8_t>(depth);
    s.MarkDepthDirty(bucket);
    s.stats.splits += depth - old_depth;
    s.stats.pages_in_use += (uint64_t{1} << depth) - (uint64_t{1} << old_depth);
    // SetCount counted the bucket's pages at the old depth (it holds cells: it split).
    s.pages_with_cells += (uint64_t{1} << depth) - (uint64_t{1} << old_depth);
  }
  return Status::OK();
}

Status BucketStore::Sync() {
  Impl& s = *impl_;
  if (!s.failed.ok()) return s.failed;
  // 1. New pages durable (and the names of files created for them).
  if (s.options.fsync) {
    for (uint32_t depth = 0; depth <= kMaxDepth; ++depth) {
      if (!s.unsynced[depth] || !s.page_files[depth]) continue;
      Status st = s.page_files[depth]->Sync();
      if (!st.ok()) {
        s.failed = st;
        return st;
      }
    }
    if (s.new_files) {
      Status st = s.options.fs->SyncDir(s.options.dir);
      if (!st.ok()) {
        s.failed = st;
        return st;
      }
    }
  }
  s.unsynced.fill(false);
  s.new_files = false;
  // 2. Then the depths that point at them.
  if (s.dirty_lo < s.dirty_hi) {
    std::string_view span(reinterpret_cast<const char*>(s.depths.data()) + s.dirty_lo,
                          s.dirty_hi - s.dirty_lo);
    SLOTKV_RETURN_IF_ERROR(s.depth_file->Write(s.dirty_lo, span));
    if (s.options.fsync) {
      Status st = s.depth_file->Sync();
      if (!st.ok()) {
        s.failed = st;
        return st;
      }
    }
    s.dirty_lo = UINT32_MAX;
    s.dirty_hi = 0;
  }
  SLOTKV_RETURN_IF_ERROR(s.WriteCounts());
  // 3. Only now may the pages that splits left behind go.
  while (!s.leftovers.empty()) {
    Impl::Leftover left = s.leftovers.back();
    std::string path = JoinPath(s.options.dir, PageFileName(left.depth));
    if (!s.page_files[left.depth] && !s.options.fs->Exists(path)) {
      s.leftovers.pop_back();  // never written: nothing to free
      continue;
    }
    SLOTKV_ASSIGN_OR_RETURN(File * file, s.PageFile(left.depth));
    uint64_t begin = PageNumber(left.depth, left.bucket, 0) * kPageSize;
    uint64_t end = std::min(file->Size(), begin + (uint64_t{kPageSize} << left.depth));
    if (begin < end) SLOTKV_RETURN_IF_ERROR(file->PunchHole(begin, end - begin));
    s.leftovers.pop_back();
  }
  return Status::OK();
}

Status BucketStore::Impl::WriteCounts() {
  if (count_dirty_lo >= count_dirty_hi) return Status::OK();
  std::string span;
  span.reserve(4 * (count_dirty_hi - count_dirty_lo));
  for (uint32_t b = count_dirty_lo; b < count_dirty_hi; ++b) {
    PutFixed32(&span, counts[b] | (ttl[b] ? kTtlBit : 0));
  }
  SLOTKV_RETURN_IF_ERROR(count_file->Write(uint64_t{count_dirty_lo} * 4, span));
  if (options.fsync) {
    Status st = count_file->Sync();
    if (!st.ok()) {
      failed = st;
      return st;
    }
  }
  count_dirty_lo = UINT32_MAX;
  count_dirty_hi = 0;
  return Status::OK();
}

Status BucketStore::SyncAll() {
  Impl& s = *impl_;
  if (!s.failed.ok()) return s.failed;
  for (auto& file : s.page_files) {
    if (file) SLOTKV_RETURN_IF_ERROR(file->Sync());
  }
  SLOTKV_RETURN_IF_ERROR(s.depth_file->Sync());
  SLOTKV_RETURN_IF_ERROR(s.count_file->Sync());
  SLOTKV_RETURN_IF_ERROR(s.options.fs->SyncDir(s.options.dir));
  s.dir.SyncedNow();
  return Status::OK();
}

bool BucketStore::SyncHandles(std::vector<File*>* files, uint64_t* dir_version) const {
  const Impl& s = *impl_;
  *dir_version = s.dir.Unsynced();
  const size_t start = files->size();
  for (const auto& file : s.page_files) {
    if (file) files->push_back(file.get());
  }
  files->push_back(s.depth_file.get());
  files->push_back(s.count_file.get());
  if (std::none_of(files->begin() + static_cast<ptrdiff_t>(start), files->end(),
                   [](const File* f) { return f->NativeHandle() < 0; })) {
    return true;
  }
  files->resize(start);
  return false;
}

void BucketStore::DirSynced(uint64_t dir_version) { impl_->dir.Synced(dir_version); }

uint64_t BucketStore::cell_count() const { return impl_->total_cells; }

uint32_t BucketStore::bucket_cell_count(uint32_t bucket) const { return impl_->counts[bucket]; }

bool BucketStore::bucket_has_ttl(uint32_t bucket) const { return impl_->ttl[bucket] != 0; }

uint32_t BucketStore::ttl_bucket_count() const { return impl_->ttl_buckets; }

void BucketStore::ClearTtl(uint32_t bucket) {
  Impl& s = *impl_;
  s.SetCount(bucket, s.counts[bucket], false);
}

Status BucketStore::Recount(uint32_t bucket) {
  std::vector<Cell> cells;
  SLOTKV_RETURN_IF_ERROR(ReadBucket(bucket, &cells));
  const bool has_ttl = std::any_of(cells.begin(), cells.end(),
                                   [](const Cell& c) { return c.expire_at_ms != 0; });
  impl_->SetCount(bucket, static_cast<uint32_t>(cells.size()), has_ttl);
  return Status::OK();
}

uint64_t BucketStore::disk_bytes() const { return impl_->pages_with_cells * kPageSize; }

const BucketStoreStats& BucketStore::stats() const {
  impl_->stats.cache_bytes = impl_->cache.size_bytes();
  return impl_->stats;
}

void BucketStore::set_fsync(bool fsync) { impl_->options.fsync = fsync; }

void BucketStore::set_cache_bytes(size_t bytes) { impl_->cache.SetCapacity(bytes); }

}  // namespace slotkv::keybucket
