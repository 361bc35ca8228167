// Slot: one shard of the keyspace and the API every command reaches storage through.
//
// Design. A slot composes a write-ahead log (wal::Log), an on-disk hash table of key cells
// (keybucket::BucketStore) and append-only value segments (chunk::ChunkStore). Buckets are cut
// into WAL groups, runs of `buckets_per_group` consecutive buckets. A write gets the next
// sequence number, is appended to the log and lands in its group's in-memory map (a GroupMap:
// the newest version of each recently written key and where its record is; the value itself
// stays in the log and is read back in one batch when the group is persisted). When
// a group's map reaches `flush_entries_per_page` entries per bucket page of the group, or
// `group_flush_bytes`, the group is persisted in one batch at the next Commit (two such
// flushes per commit at most, the other due groups at the next ones; after a CommitThen, one
// per FlushStep, which a worker runs in handlers of their own): its buckets are read,
// merged with the map (long values appended to chunk segments owned by the group, short ones
// inline, expired cells dropped), the group's mostly-dead segments are compacted against those
// same cells, the buckets are written (splitting when full), the files are synced in a safe order
// (every flush with appendfsync always; see slot_flush.cc), and a GroupFlushed record in the
// log tells replay that the group's older records are persisted.
// Log files are removed once no group needs their records; when the log comes within a file of
// `wal_max_bytes`, the groups pinning the oldest file are flushed early, one every so many
// bytes appended (all of them within half a file), and up to 4 per write past it. The slots of
// a database share a WalPool: a slot may borrow what the others leave unused, up to
// kWalBorrow times its share (one hot collection then flushes a group per few hundred writes,
// not per fifty: LPUSH 32k -> 38k rps on one list).
//
// Held values: a page of a paged collection (of any size: a tree's top node changes with every
// write of its collection), or a one-value collection of at least kHoldMinBytes, written again
// since its group's flush is logged raw and kept in memory while its group map names it; its
// next version is logged as a delta against the held one (slot/value_delta.h; the record's type
// tag carries kSpliceTag), so an HSET on a page logs tens of bytes, not the page. The held copy
// serves reads and the flush, which compresses it; replay rebuilds it from the full record and
// the deltas after it (a group's flush always ends a chain: the next write of a key after its
// group's flush is a full record). Held bytes and their decoded forms count as group map
// memory and stay within half the cache budget (a write past that is logged whole,
// compressed; the forms a command hands over pass it until its unit's close drops them). A replica applies a delta
// to its own version of the key and holds the result. A page written again in the open unit
// is held as its new version but logged once, as a delta against the version the log has, when
// the unit closes (Commit, Hold) or a full sync reads it (ScanStored): a list's top nodes
// change with every push, and a unit holds ~8 pushes at -P 1. A held page may also keep its decoded
// form (core/types/decoded_page.h), handed over by the write that made it: any other write of
// the key, the group's flush or a reset drops it.
//
// Reads: group map (then the log) -> value cache -> bucket page (page cache or one read) ->
// chunk record (segment cache or one read). MultiGet does the same for many keys with one
// batch of reads per stage. Metadata (exists, type, TTL) never reads chunks.
//
// Durability: Put/Delete only buffer the log record; the caller acknowledges writes after
// Commit() returns OK (one write, and one fsync with appendfsync always, per batch). An
// acknowledged write survives SIGKILL in every fsync mode and power loss with kAlways.
//
// Thread rule: a Slot is owned by one worker thread; only that thread calls it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/clock.h"
#include "core/base/fs.h"
#include "core/base/status.h"
#include "slot/dictionaries.h"
#include "slot/slot_stats.h"
#include "core/types/decoded_page.h"
#include "core/types/value_type.h"
#include "wal/log.h"

namespace slotkv::slot {

// The log bytes of the slots of one database, which their wal_max_bytes shares add up to
// (max_bytes). Each slot adds the change of its own log's size after its writes and flushes,
// and takes its part back when it closes. Shared by slots on every worker: relaxed atomics,
// a figure to size a limit by, never a lock.
struct WalPool {
  std::atomic<uint64_t> bytes{0};
  uint64_t max_bytes = 0;
};
// How many times its wal_max_bytes share a slot's log may reach while its pool has room.
inline constexpr uint64_t kWalBorrow = 4;

struct SlotOptions {
  Fs* fs = nullptr;          // must outlive the slot (a MemFs for pure-memory mode)
  std::string dir;           // this slot's directory; created when missing
  Clock* clock = nullptr;    // SystemClock() when null
  wal::FsyncPolicy fsync = wal::FsyncPolicy::kEverySec;
  bool memory = false;       // pure-memory mode: never fsync
  // Compresses values (dictionaries.h); shared by the server's slots, must outlive them.
  // nullptr = values stored as given.
  Dictionaries* dictionaries = nullptr;
  // Sizing, used when the slot is created and then recorded on disk: bucket count =
  // key_estimate / 64, rounded up to a multiple of buckets_per_group.
  uint64_t key_estimate = 1 << 20;
  uint32_t buckets_per_group = 16;
  uint32_t flush_entries_per_page = 16;
  uint64_t group_flush_bytes = 1 << 20;
  uint32_t inline_value_bytes = 48;  // longer values go to chunks
  uint32_t segment_bytes = 16384;  // chunk segments: 32 bytes of segment table each
  uint64_t big_value_bytes = 1 << 20;
  uint64_t wal_file_bytes = 16 << 20;
  uint64_t wal_max_bytes = 256 << 20;
  // The database's pool (must outlive the slot); nullptr: the share is the limit.
  WalPool* wal_pool = nullptr;
  // The log's writes go through the worker's io_uring (wal::Log::Options::ring_writes).
  bool wal_ring_writes = false;
  // Per-slot caches at open; SetCacheBudget changes them (the server gives each slot its share
  // of maxmemory-cache).
  size_t value_cache_bytes = 8 << 20;
  size_t page_cache_bytes = 8 << 20;
  size_t chunk_cache_bytes = 4 << 20;
  // Told the failure when the slot fails (Slot::failure) and OK when it recovers, on the
  // owner: the keyspace refuses writes to a failed slot before they run. Empty: nobody.
  std::function<void(const Status&)> on_failure;
  // The commit tap, for the replication stream of the slot. Told, on the owner, the Put and
  // Delete records (Put, Delete, Apply, active expiry) of each commit once its log write
  // succeeded: units, the bytes of whole WAL units encoded as the log encodes them
  // (wal::EncodeRecord; every record of a unit but its last carries wal::kMoreBit; flush
  // records are left out), and the slot's stream_seq after them. Every record is told exactly
  // once, in log order: commits are told in the order they were made (a Commit that finishes
  // while an earlier CommitThen's write is in flight is told after it), a CommitThen before its
  // done runs, a held unit with the commit after Unhold. Never told: the records of a failed
  // commit, of the commits after it and of writes not yet committed when the slot fails
  // (Recover drops them; a replica must then resync), and what completes after the slot is
  // closed. A commit without such records tells nothing. Must not call the slot's write side.
  // Empty: no copy is made.
  std::function<void(std::string units, uint64_t stream_seq)> on_commit;
  // Paged collections (core/command/collection_pages.h). may_hold_root: whether a stored key
  // may hold a collection's root (a user key may, an internal one never). root_id: the id of
  // the paged collection whose root a stored value of a collection type is (decompressed), 0
  // when it is none. With both set, the slot notes each root that a write, a replayed write
  // or a flush replaces with anything but a root of the same collection (a delete, another
  // type, another collection): TakeDiscardedRoots hands them over, and the owner reclaims
  // their pages. Whoever replaced the root need not know it was one (SET over a paged hash, a
  // write over an expired collection that active expiry has not found yet).
  bool (*may_hold_root)(std::string_view key) = nullptr;
  uint64_t (*root_id)(std::string_view value) = nullptr;
  // A slot opened with it numbers its writes above it and reports stream_seq() >= it, now and
  // after later opens (recorded in slot.seq): a database slot re-created after FLUSHDB is given
  // the old slot's stream_seq, so a stream's positions never go back.
  uint64_t seq_floor = 0;
};

// Metadata of a live key, known without reading its value.
struct KeyMeta {
  ValueType type = ValueType::kString;
  int64_t expire_at_ms = 0;  // 0 = no expiry
  uint64_t seq = 0;
};

struct ScanItem {
  std::string key;
  ValueType type;
};

struct ScanResult {
  std::vector<ScanItem> items;
  uint64_t next_cursor = 0;  // 0 = the scan is complete
};

// A live key with its value as stored: a compressed value stays compressed
// (slot/dictionaries.h) and its type tag keeps kCompressedTag. What replication ships.
struct StoredItem {
  std::string key;
  std::string value;
  uint8_t type_tag = 0;
  int64_t expire_at_ms = 0;
  uint64_t seq = 0;
};

struct StoredScan {
  std::vector<StoredItem> items;
  uint64_t next_cursor = 0;  // 0 = the scan is complete
};

class Slot {
 public:
  // Opens (or creates) the slot in options.dir and replays its log. Corruption naming the file
  // and offset when any file is damaged beyond a torn log tail.
  static Result<std::unique_ptr<Slot>> Open(const SlotOptions& options);
  // Closes without flushing: what is not persisted stays in the log and replays next time.
  ~Slot();

  // Keys longer than this are refused with InvalidArgument (user keys are limited to 2048
  // bytes by the command layer; escaped and internal keys take a few more).
  static constexpr size_t kMaxKeyBytes = 2048 + 32;

  // Starts loading what a Get (or with `write`, a Put) of key reads first into the CPU's cache:
  // kIndex its value-cache (and group-map) index slots; kEntries, once they are in, the
  // entries they name. A caller about to run several keys' commands takes each key through
  // kIndex, then each through kEntries, so that their cache misses overlap
  // (command::Keyspace::Prefetch).
  enum class PrefetchStage { kIndex, kEntries };
  void Prefetch(std::string_view key, bool write, PrefetchStage stage) const;

  // When the value cache holds key's value (live, uncompressed): the cached string itself,
  // valid until the next call on this slot, and *meta; a cache hit. Otherwise nullptr, and
  // nothing counted: Get answers then. Lets a GET copy the value once, into its reply (the
  // copy out of the cache and its allocation were ~6% of a GET -P 16).
  const std::string* GetCached(std::string_view key, KeyMeta* meta);

  // The value of key and its metadata; nullopt when absent or expired.
  Result<std::optional<std::string>> Get(std::string_view key, KeyMeta* meta = nullptr);
  // The values of keys ((*values)[i] for keys[i], nullopt when absent or expired) and, when
  // metas is given, their metadata. What is not in memory is read in batches: one for the log
  // records, one for the bucket pages, one for the chunk records.
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values,
                  std::vector<KeyMeta>* metas = nullptr);
  // Metadata only (EXISTS, TYPE, TTL): never reads chunks. nullopt when absent or expired.
  Result<std::optional<KeyMeta>> GetMeta(std::string_view key);
  // Sets key to value with its type and absolute expiry (0 = none). Buffered: see Commit.
  // Compression groups the value by group_key when given (a page of a collection by the
  // collection's key: internal keys say nothing of what they hold), else by key.
  // decoded: value's decoded form, kept with value when it is held (TakeDecoded).
  Status Put(std::string_view key, std::string_view value, ValueType type,
             int64_t expire_at_ms = 0, std::string_view group_key = {},
             std::unique_ptr<DecodedPage> decoded = nullptr);
  // Writes key's new version as its decoded form only, when key is a held page whose unit is
  // open or may open (logged like a Put, once, when the unit closes): true, *decoded taken.
  // false with nothing done otherwise (Put the bytes). The slot encodes it when the bytes are
  // needed (a read, the unit's close); lent out by TakeDecoded it is the only current form,
  // and one never given back (KeepDecoded, Put, PutDecoded) fails the slot when next needed.
  Result<bool> PutDecoded(std::string_view key, ValueType type, std::string_view group_key,
                          std::unique_ptr<DecodedPage>* decoded);
  // The decoded form kept with key's held value (Put, KeepDecoded), or null; taking it leaves
  // none kept. It always decodes the key's current value.
  std::unique_ptr<DecodedPage> TakeDecoded(std::string_view key);
  // Gives back a form TakeDecoded gave, unchanged: kept again when key's held value is still
  // the version it decodes (decoded->version), else dropped.
  void KeepDecoded(std::string_view key, std::unique_ptr<DecodedPage> decoded);
  // Removes key; returns whether a live key was removed. Buffered: see Commit.
  Result<bool> Delete(std::string_view key);
  // Writes record (a kPut or kDelete of the master's stream, as on_commit told it there) with
  // its own seq instead of a new one: a replica applying its master's writes. Otherwise as Put
  // or Delete (buffered until Commit, in the open unit, held with it, tapped, refused while
  // failed); a Put's value and type tag are stored as given (no compression), a Delete is
  // logged even when the key is absent. Records may come with a seq lower than earlier ones
  // (a full sync interleaving the stream): the later call wins for the key, now and after a
  // restart (the log's order decides, never the seq). Later Puts are numbered above every seq
  // applied. InvalidArgument for another kind or a key longer than kMaxKeyBytes.
  Status Apply(const wal::Record& record);
  // Makes the buffered writes reach the OS, and the disk per the fsync policy. Acknowledge
  // writes only after this returns OK. !flush: leaves the due flushes to FlushStep (below).
  Status Commit(bool flush = true);
  // Units: the writes between two commits are one WAL unit, which a crash leaves whole or
  // not at all (wal::Log). Flushes that writes make due run at the Commit that closes their
  // unit, or after a CommitThen in FlushStep, so no flush persists part of a unit.
  //
  // Starts a unit that stays open through commits until Unhold: Commit and CommitThen write
  // only the writes made before Hold (their own unit) and what no unit holds; the holder
  // acknowledges its writes after the commit that follows Unhold. Flushes wait; Flush and
  // SetFsyncPolicy are Busy. A transaction holds the slots it writes (txn::Holder), so its
  // writes to one slot are one unit. REQUIRES: !held().
  void Hold();
  // Ends the hold: the next Commit writes the unit.
  void Unhold();
  bool held() const;

  // While deferred, group flushes compact no segment. For a mass delete (the pages of a large
  // collection reclaimed): its segments empty wholly and free without copying; compacting them
  // half-way copied values about to die and synced the chunk file on the worker at each flush
  // (PING p99 9 ms while a 10M-member sorted set went, 2.3 ms without).
  void DeferCompaction(bool defer);

  // Commit, then done(status) once the writes reach the OS, and the disk per the policy: on a
  // worker whose io_uring is up, the log's write (and fsync with appendfsync always) go
  // through the ring and done runs from their completion (wal::Log::CommitThen); otherwise
  // before this returns. done is called exactly once, even if the slot is closed first.
  void CommitThen(std::function<void(const Status&)> done);
  // CommitThen runs none of the flushes its unit made due, nor those of a log past its limit
  // (but two for one a quarter past it): a worker runs them in handlers of their own
  // (FlushStep) while flush_due(), so its replies do not wait for them, and the requests of
  // other clients interleave with them (its periodic CommitThen too). A step runs one due
  // flush, then, while the log is past its limit and writes came since the last step, flushes
  // towards it for up to 2 ms; when the log's file is full it only starts the next file (a
  // flush's mark would, and do the rotation's syncs in place). FlushStep does nothing while a
  // unit is open or held, or, with appendfsync always, a log rotation's syncs are in flight
  // (the commit that closes the unit, or the next one, comes back to it); a failure fails the
  // slot as a failed Commit does.
  bool flush_due() const;
  // Whether the flushes due can wait while other requests come: no write came for
  // kWriteQuietUs and the log is within a quarter past its limit (where writers' commits
  // flush too). Only the group maps' memory (in the cache budget) and the log's size wait
  // with them; after a 10M-key load, 1700 flushes ran among the GETs that followed.
  bool flush_deferrable() const;
  static constexpr int64_t kWriteQuietUs = 100'000;
  // With on_fetched, on a thread whose io_uring is up (a worker), the step's flush reads
  // nothing that would wait for the disk: such reads are fetched through the ring instead,
  // the flush is put off (nothing changed), flush_due() is false until the fetch completes,
  // and on_fetched is called then (not if the slot is gone): a 50M-key load's flushes waited
  // 30-200 ms for pages on the worker. After kNoWaitTries such fetches in a row (the pages
  // evicted before the retry), the step reads waiting.
  Status FlushStep(std::function<void()> on_fetched = {});
  // On a slot no write reached for kIdleFlushUs: flushes one group that holds writes or
  // compaction moves ready to apply (the next after the last one this flushed), so that what
  // only the log holds is persisted without waiting for more writes: a DEL's page deletes
  // keep those pages' chunk segments live until flushed, and an idle server kept them (and
  // the log files) for good. True when it flushed.
  // Does nothing when FlushStep would not; a failure fails the slot. Its reads do not wait for
  // the disk as FlushStep's (on_fetched likewise): read waiting, an idle flush held the
  // worker up to 88 ms while a DEL's page deletes drained. True also when it started a fetch.
  Result<bool> IdleFlushStep(std::function<void()> on_fetched = {});
  static constexpr int64_t kIdleFlushUs = 5'000'000;

  // Up to about count live keys from cursor (0 starts a scan). A key present for the whole
  // scan is returned at least once, whatever is written meanwhile. Whole buckets are returned,
  // so a call may return more than count.
  Result<ScanResult> Scan(uint64_t cursor, size_t count);
  // Scan with every key's stored value and metadata (a full sync), each bucket read once: the
  // buckets of a call are fetched in one batch of reads, the chunk records and log records
  // they point at in one more each. Nothing enters the value cache.
  Result<StoredScan> ScanStored(uint64_t cursor, size_t count);
  // Looks at up to max_buckets buckets that may hold a key with an expiry time (continuing
  // where the last step stopped; the others are passed without reading, at most a round per
  // call) and deletes the expired keys found there; a group map that took a write with an
  // expiry time is looked at with its group's first bucket. A slot where no key has one costs
  // nothing. Returns how many were deleted; on_expired (when set) is told each key deleted and
  // its type. A flush leaves expired collections to this step (it drops other expired keys
  // itself): the step's delete is what hands a paged root over (TakeDiscardedRoots).
  using OnExpired = std::function<void(std::string_view key, ValueType type)>;
  Result<size_t> ActiveExpireStep(size_t max_buckets, const OnExpired& on_expired = {});
  // The roots discarded since the last call (SlotOptions::root_id), as stored values
  // (decompressed), oldest first. A root discarded by a flush is noted once the flush ran; one
  // discarded in a group map at its write (or its replay at open: a root noted before a crash
  // may be noted again).
  std::vector<std::string> TakeDiscardedRoots();
  // Persists every group and syncs: afterwards the log holds nothing that replay would need.
  // Busy while held.
  Status Flush();

  // Failures. A commit, flush or sync that fails stops the slot's writes: from then on Put,
  // Delete, Commit, CommitThen, Flush and SetFsyncPolicy refuse with Unavailable (its message
  // is the failure's), so nothing written before the failure is acknowledged by a later
  // commit and nothing more piles up in memory; reads go on. OK while the slot is healthy.
  Status failure() const;
  // Reopens a failed slot from its files, as a restart would: what its failed commits carried
  // (never acknowledged) is dropped, what was acknowledged is read back from the log, and
  // writes are taken again. First a 64 KiB write to a scratch file must succeed: while the
  // fault lasts (a disk still full), its error or the open's (the slot stays failed); Busy
  // while held or while io_uring I/O of the slot is in flight. OK on a healthy slot.
  Status Recover();

  // The highest seq of a Put or Delete this slot holds (Put, Delete, Apply; writes not yet
  // committed included), at least SlotOptions::seq_floor. Exact across reopens: never above
  // what the slot holds, and not below it either once log files were removed (slot.seq keeps
  // the floor of what they held); after Recover, what the log kept.
  uint64_t stream_seq() const;

  wal::FsyncPolicy fsync_policy() const;
  // Changes the fsync policy while open (CONFIG SET appendfsync). Leaving a deferring policy
  // (everysec, no) for always first makes the deferred flushes durable.
  Status SetFsyncPolicy(wal::FsyncPolicy fsync);

  // Keys in the slot, expired-but-not-reclaimed ones included (as Redis's DBSIZE). Reads the
  // bucket pages of keys written since its last call and not yet flushed, to learn whether
  // the buckets hold them; the count of the others is kept up to date as writes come.
  Result<uint64_t> KeyCount();
  // Reads, for about slice_us (a group at a time, one at least), the bucket pages KeyCount
  // would read; true once none is left, so that KeyCount reads nothing. The owner serves
  // other requests between slices: after 1M SETs over 3M keys, KeyCount (INFO keyspace,
  // DBSIZE, /metrics) held each worker 190 ms.
  Result<bool> ResolveKeyCount(int64_t slice_us);
  // The slices an owner gives it between requests, and how many before KeyCount finishes in
  // place (writes meanwhile may keep adding keys to resolve).
  static constexpr int64_t kKeyCountSliceUs = 1000;
  static constexpr int kKeyCountSlices = 100;
  // Whether the slot holds nothing: no cell in its buckets and no write waiting in a group map
  // (a delete waiting there counts as something). Reads nothing.
  bool empty() const;
  SlotStats Stats() const;

  // Caps the three caches and the group maps of unpersisted writes at bytes together: the
  // caches get what the maps leave (at least an eighth of bytes), 40% values, 40% bucket
  // pages, 20% chunk segments, resized as the maps grow and shrink; what no longer fits is
  // evicted at once. The maps themselves are bounded by wal_max_bytes, not by this.
  void SetCacheBudget(size_t bytes);
  // The last SetCacheBudget (0 before any).
  size_t cache_budget() const;
  // What the budget's division by use reads (core/command/cache_shares.h): lookups in the
  // three caches so far, the reads from files among them, and the bytes under the budget now
  // (caches and maps).
  struct CacheUse {
    uint64_t lookups = 0;
    uint64_t file_reads = 0;
    uint64_t bytes = 0;
  };
  CacheUse cache_use() const;
  // Gives back, for about slice_us, the disk blocks of free chunk segments past what is kept
  // for reuse (chunk::ChunkStore::TrimFree): what a large free left, which the flushes'
  // commits punch only a little of at a time. The owner calls it between requests.
  Status TrimFreeSpace(int64_t slice_us);

 private:
  struct Impl;
  explicit Slot(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace slotkv::slot
