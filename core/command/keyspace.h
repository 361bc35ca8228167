// Keyspace: every slot of every database, and Store, the view of one database in one slot that
// command handlers read and write through.
//
// Design. A database is a set of `slots` engine slots (slot::Slot), one per slot range of the
// hash-slot space; database d of slot s lives in `dir/slot-SSSS/db-D/`. Keeping databases apart
// (rather than prefixing every key with its db number) makes DBSIZE a sum of slot counters and
// FLUSHDB a directory removal instead of a delete per key. A database's slot is opened when first
// written (or found on disk at start); reading a slot that was never written finds nothing.
// In pure-memory mode each slot of each database has its own MemFs, so FLUSHDB frees its memory.
//
// `dir/slotkv.meta` records the slot count: the key -> slot map must never change under data.
//
// SWAPDB. A database as clients name it (logical, SELECT's number) lives in a database slot
// of each slot (physical: its directory db-P, its replication stream, its Entry). The map
// from one to the other is one permutation for the whole node, recorded in slotkv.meta
// (SetDbMap) before any slot follows it, and followed per slot by the slot's owner
// (AdoptDbMap), so that a slot never changes its map inside a command step. Every (s, db) this
// class takes is logical, but StreamOffset's; replication names streams physically
// (PhysicalDb, LogicalDb, Store::OfStream).
//
// Thread rule: slot s (in every database) belongs to one worker (s % workers); only that worker
// calls Slot(s, ...), Drop(s, ...) or a Store of slot s. Open runs before the workers start.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/clock.h"
#include "core/base/fs.h"
#include "core/base/status.h"
#include "core/command/write_failures.h"
#include "core/txn/slot_locks.h"
#include "core/txn/watched_keys.h"
#include "slot/slot.h"

namespace slotkv::command {

class Tracking;

// Told of every change of a key (blocking commands wait for them: blocking.h).
class KeyWatcher {
 public:
  virtual ~KeyWatcher() = default;
  // key of database db was written or deleted by the calling worker (its owner).
  virtual void OnKeyChange(uint32_t db, std::string_view key) = 0;
  // Every key of database db in slot was dropped (FLUSHDB, FLUSHALL) by its owner.
  virtual void OnClear(uint32_t db, uint32_t slot) = 0;
};

// Told, on the owner, of what each engine slot commits: the replication streams (repl/), one per
// database of a slot.
class StreamListener {
 public:
  virtual ~StreamListener() = default;
  // Database db of slot s wrote units (its Put and Delete records, wal::Record encoding, whole
  // units) and its stream offset is now seq (slot::Slot::stream_seq).
  virtual void OnUnits(uint32_t s, uint32_t db, std::string units, uint64_t seq) = 0;
  // Database db of slot s was emptied (FLUSHDB, FLUSHALL, a replica's full sync); its offset
  // stays seq.
  virtual void OnClear(uint32_t s, uint32_t db, uint64_t seq) = 0;
};

// Told of every write a command makes through a Store, and of its readers' misses (keyspace
// notifications).
class KeyObserver {
 public:
  virtual ~KeyObserver() = default;
  // Whether anything is to be told (notifications are on): otherwise no call comes.
  virtual bool active() const = 0;
  // Whether OnPut wants `created` (it costs a look-up before the write).
  virtual bool wants_created() const = 0;
  // key of database db was set; created: it did not exist before (false unless
  // wants_created).
  virtual void OnPut(uint32_t db, std::string_view key, bool created) = 0;
  // key of database db, which existed, was removed.
  virtual void OnDelete(uint32_t db, std::string_view key) = 0;
  // A reader's lookup of key of database db found nothing (CountLookup).
  virtual void OnMiss(uint32_t db, std::string_view key) = 0;
};

struct KeyspaceOptions {
  std::string dir;             // data directory (disk mode)
  bool memory = false;         // pure-memory mode: no files at all
  Fs* fs = nullptr;            // disk mode: the file system (must outlive the keyspace)
  uint32_t slots = 16;         // power of two, at most 16384; fixed once the dir has data
  uint32_t databases = 16;
  int workers = 1;             // slot owners: slot s belongs to worker s % workers
  uint64_t cache_budget = 256 << 20;  // maxmemory-cache: all slots' caches together
  size_t compress_min_bytes = 64;     // 0 = no compression (slot/dictionaries.h)
  size_t compress_max_bytes = 1 << 20;  // 0 = no upper bound
  size_t compress_group_chars = 8;
  slot::SlotOptions slot;      // template for every slot (fs, dir, memory are filled in)
  // Slots report their commits to the stream listener (set_stream_listener): replication.
  bool streams = false;
};

class Keyspace {
 public:
  // Opens dir (creating it and slotkv.meta when new) and every database slot found in it.
  // InvalidArgument when dir was created with another slot count; Corruption from a slot.
  static Result<std::unique_ptr<Keyspace>> Open(const KeyspaceOptions& options);
  ~Keyspace();

  uint32_t slots() const { return options_.slots; }
  bool memory() const { return options_.memory; }
  uint32_t databases() const { return options_.databases; }
  Clock* clock() const { return clock_; }
  // The slot a key belongs to (its Redis hash slot, scaled to the slot count).
  uint32_t SlotOfKey(std::string_view key) const;

  // Where logical database db of slot s lives (its database slot, directory and stream), and
  // which logical database lives in database slot physical. Any thread.
  uint32_t PhysicalDb(uint32_t s, uint32_t db) const {
    return physical_[size_t{s} * options_.databases + db].load(std::memory_order_relaxed);
  }
  uint32_t LogicalDb(uint32_t s, uint32_t physical) const {
    return logical_[size_t{s} * options_.databases + physical].load(std::memory_order_relaxed);
  }
  // The recorded map: map[db] = the database slot of logical database db. Any thread.
  std::vector<uint32_t> db_map() const;
  // Records map as the node's map, durably (slotkv.meta) before any slot follows it
  // (AdoptDbMap); InvalidArgument unless it names each database once. Any thread; one caller at a time (SWAPDB holds
  // every slot; a replica's link takes its master's).
  Status SetDbMap(std::vector<uint32_t> map);
  // Slot s follows the recorded map. For each logical database whose data changes: WATCHed
  // keys present before or after are touched, clients blocked on its keys in s are told
  // (KeyWatcher::OnClear), as Redis's SWAPDB does. On s's owner, outside a command step's
  // use of s.
  void AdoptDbMap(uint32_t s);

  // Database db of slot s; when it was never written, nullptr (create=false) or a new empty
  // one (create=true).
  Result<slot::Slot*> Get(uint32_t s, uint32_t db, bool create);
  // A key a caller is about to run a command on (Prefetch).
  struct KeyRef {
    uint32_t slot;
    std::string_view key;
    bool write;
  };
  // Starts loading what commands on these keys of database db read first into the CPU's cache
  // (slot::Slot::Prefetch: every key's index slots, then their entries), so that their misses
  // overlap rather than come one after the other: SET -P 16 (remote batches) user CPU per
  // request 3.43 -> 3.07 us, MSET of 10 keys 40.9 -> 37.0 us. Nothing for fewer than two keys.
  // REQUIRES: on the owner of every key's slot.
  void Prefetch(uint32_t db, const std::vector<KeyRef>& keys);
  // Removes every key of database db in slot s (FLUSHDB): the slot's files are renamed away
  // atomically, then deleted. Its stream offset becomes floor (by default one past the old
  // one: the emptying is an event of the stream) and the stream listener is told; the
  // database's next slot numbers its writes above it.
  Status Drop(uint32_t s, uint32_t db, std::optional<uint64_t> floor = std::nullopt);
  // The stream offset of database slot `stream` of slot s (physical: PhysicalDb): its slot's
  // stream_seq, or the floor a dropped one left. On the owner (or before the workers start).
  uint64_t StreamOffset(uint32_t s, uint32_t stream) const;
  // A replica's full sync of database db of slot s builds its master's data beside the live
  // data, which keeps serving (stale) reads meanwhile. BeginStaging starts it empty (dropping
  // an earlier one); while it runs, Store::Apply writes to a staging slot opened on the first
  // write (dir/slot-SSSS/sync-D/); FinishStaging swaps that in for the live database (whose
  // files go as Drop's do; an empty one when nothing came) with its stream offset at least
  // floor. A sync dir found at Open is a cut-off sync's partial copy: removed. AbortStaging
  // drops a sync that will not finish (the node was promoted): the live data stays. On s's
  // owner; FinishStaging only once the staging slot's writes are committed
  // (Store::FinishStaging).
  Status BeginStaging(uint32_t s, uint32_t db);
  Status FinishStaging(uint32_t s, uint32_t db, uint64_t floor);
  Status AbortStaging(uint32_t s, uint32_t db) { return DropStaging(s, db); }
  bool staging(uint32_t s, uint32_t db) const { return entries_[At(s, db)].staging_active; }
  // The staging slot of database db of slot s, opened when create; nullptr when none.
  Result<slot::Slot*> StagingSlot(uint32_t s, uint32_t db, bool create);
  // Where slots report their commits (KeyspaceOptions::streams); set before the workers start.
  void set_stream_listener(StreamListener* listener) { stream_listener_ = listener; }

  // The fsync policy of every slot (CONFIG SET appendfsync). Any thread may set it; a slot
  // adopts it (AdoptFsync, on its owner) before its next write and at the periodic commit.
  void SetFsync(wal::FsyncPolicy fsync) { fsync_.store(static_cast<int>(fsync)); }
  // The memory for every slot's caches together (CONFIG SET maxmemory-cache). Any thread may
  // set it; each database slot that takes a share gets one by its use (RebalanceCaches; an
  // equal one until the first rebalance after it joins), adopted (AdoptCache, on its owner)
  // before its next write and at the periodic commit, and at open. Every open slot takes one
  // but those opened ahead of need (Preopen), until their first write: an empty slot leaves
  // the budget to those holding data (a data set under one hash tag keeps it).
  void SetCacheBudget(uint64_t bytes) { cache_budget_.store(bytes); }
  uint64_t cache_budget() const { return cache_budget_.load(); }
  // Slots destroyed so far (a FLUSHDB's, a full sync's): a Slot* kept across handlers
  // (net::Worker's due flushes) is valid only while this has not changed.
  uint64_t slots_closed() const { return slots_closed_.load(std::memory_order_acquire); }
  // An equal share of the budget: a slot's before the first rebalance that counts it.
  size_t CacheShare() const {
    return static_cast<size_t>(cache_budget_.load() /
                               std::max<uint64_t>(1, sharing_slots_.load()));
  }
  // Gives the live slot of (s, db), when open, its share; one that takes none yet takes one
  // when `take` (a write), else keeps what it has (the periodic commit).
  void AdoptCache(uint32_t s, uint32_t db, bool take = true);
  // The budget's division by use (cache_shares.h). The owner of each open slot notes its
  // demand at the once-a-second commit (NoteCacheDemand: lookups, decayed; its footprint as
  // the cap when it read almost nothing from its files). RebalanceCaches, from any worker's
  // commit and at most once in 900 ms, divides the budget among the slots taking a share.
  // Within an unchanged budget a share falls by at most an eighth per rebalance (evicting is
  // the owner's work: a quarter of 256 MB of 200-byte values is ~200k entries), and rises by
  // what that leaves; after a smaller budget or a new slot each goes straight to its part.
  void NoteCacheDemand(uint32_t s, uint32_t db);
  void RebalanceCaches();
  // Opens the live slot of (s, db) when it is not, taking no cache share (see SetCacheBudget):
  // a worker opens database 0's slots this way at start, one per handler, so the first writes
  // of a load find them open. Opening takes 3-5 ms (files, fsyncs, cache indexes), and the
  // first read of a `redis-cli --pipe` load named keys of every slot: its owner opened eight
  // in one handler and other clients waited 25-57 ms.
  Status Preopen(uint32_t s, uint32_t db);

  // Paged collections (collection_pages.h): the member count above which a hash or set is
  // paged, the members per page and the bytes of pages a copy moves per step (CONFIG SET
  // paged-collection-threshold, paged-page-members, paged-copy-batch-bytes). Any thread sets
  // them.
  void SetPaging(uint32_t threshold, uint32_t page_members, size_t copy_batch_bytes) {
    paged_threshold_.store(threshold);
    page_members_.store(page_members);
    copy_batch_bytes_.store(copy_batch_bytes);
  }
  uint32_t paged_threshold() const { return paged_threshold_.load(std::memory_order_relaxed); }
  uint32_t page_members() const { return page_members_.load(std::memory_order_relaxed); }
  size_t copy_batch_bytes() const { return copy_batch_bytes_.load(std::memory_order_relaxed); }
  // Whether database db of slot s may have pages of dropped collections to reclaim: set when
  // a slot opens and when a collection is queued, cleared by the reclaim step that finds the
  // queue empty. On the owner.
  bool reclaim_pending(uint32_t s, uint32_t db) const {
    return entries_[At(s, db)].reclaim_pending;
  }
  void set_reclaim_pending(uint32_t s, uint32_t db, bool pending) {
    entries_[At(s, db)].reclaim_pending = pending;
  }

  // The ids of the paged collections that running commands are copying into database db of
  // slot s (collection_pages.h BeginCopy). On the owner.
  std::vector<uint64_t>& copies(uint32_t s, uint32_t db) { return entries_[At(s, db)].copies; }
  // Whether database db of slot s may hold the ranges of a copy no command runs any more: set
  // when a slot opens (after a crash) and when a copy fails, cleared by the reclaim step that
  // queued them. On the owner.
  bool cut_copies(uint32_t s, uint32_t db) const { return entries_[At(s, db)].cut_copies; }
  void set_cut_copies(uint32_t s, uint32_t db, bool possible) {
    entries_[At(s, db)].cut_copies = possible;
  }

  // The internal-key count of database db of slot s as collection_pages.cc last read or wrote
  // it (nullopt: read it from the slot), so counting keys (DBSIZE, INFO, metrics) reads
  // nothing. On the owner.
  std::optional<uint64_t>& internal_keys(uint32_t s, uint32_t db) {
    return entries_[At(s, db)].internal_keys;
  }

  // The zstd dictionaries of every slot (dir/dicts/, or in memory).
  slot::Dictionaries* dictionaries() const { return dictionaries_.get(); }

  // The watcher Store::Put and Delete tell of changed keys (set once, before the workers
  // start; nullptr = none).
  void set_watcher(KeyWatcher* watcher) { watcher_ = watcher; }
  KeyWatcher* watcher() const { return watcher_; }
  // The client-side caching Store::Put and Delete tell of changed keys (tracking.h; set once,
  // before the workers start).
  void set_tracking(Tracking* tracking) { tracking_ = tracking; }
  Tracking* tracking() const { return tracking_; }

  wal::FsyncPolicy fsync() const { return static_cast<wal::FsyncPolicy>(fsync_.load()); }
  // A held slot (a transaction's open unit) adopts the policy after its holder is done.
  Status AdoptFsync(slot::Slot* slot) {
    return slot->fsync_policy() == fsync() || slot->held() ? Status::OK()
                                                           : slot->SetFsyncPolicy(fsync());
  }

  // Who holds each slot (transactions, multi-key commands), and the WATCHed keys of each
  // slot; slot s's entries are used on s's owner only.
  txn::SlotLocks& locks() { return locks_; }
  txn::WatchedKeys& watched() { return watched_; }
  int workers() const { return options_.workers; }

  // The failure of database db of slot s while it refuses writes after an I/O failure
  // (slot::Slot::failure), for refusing a write before it runs (dispatch's Admit); nullopt
  // while it takes writes. Any thread.
  std::optional<std::string> Refusal(uint32_t s, uint32_t db) const;
  // Database slots refusing writes now (INFO persistence, /health). Any thread.
  int refusals() const { return refusing_count_.load(std::memory_order_relaxed); }

 private:
  // SlotOptions::on_failure of entry index; logs each change.
  void SetRefusal(size_t index, const Status& failure);
  explicit Keyspace(const KeyspaceOptions& options);
  // The entry of logical database db of slot s.
  size_t At(uint32_t s, uint32_t db) const {
    return size_t{s} * options_.databases + PhysicalDb(s, db);
  }
  // Every slot follows map (Open).
  void FollowDbMap(const std::vector<uint32_t>& map);
  // slotkv.meta's text for the slot count and map.
  std::string MetaText(const std::vector<uint32_t>& map) const;
  // Below, db is physical (a database slot).
  std::string DbDir(uint32_t s, uint32_t db) const;
  std::string SyncDir(uint32_t s, uint32_t db) const;
  // Opens the live slot of entry (s, db), or its staging slot.
  Result<std::unique_ptr<slot::Slot>> OpenSlot(uint32_t s, uint32_t db, bool staging = false);
  void AdoptCacheAt(size_t index, bool take);
  // Counts a live or staging slot destroyed (sharing_slots_ when it took a share,
  // slots_closed_).
  void SlotClosed(bool shared);
  // Closes and removes a staging slot.
  Status DropStaging(uint32_t s, uint32_t db);
  Status RemoveTree(const std::string& dir);

  struct Entry {
    std::unique_ptr<Fs> mem_fs;  // pure-memory mode only
    std::unique_ptr<slot::Slot> slot;
    bool shares_cache = false;  // slot is counted in sharing_slots_
    uint64_t seq_floor = 0;  // the stream offset a dropped slot left
    bool reclaim_pending = true;  // reclaim_pending()
    std::vector<uint64_t> copies;  // copies()
    bool cut_copies = true;  // cut_copies()
    std::optional<uint64_t> internal_keys;  // internal_keys()
    // A replica's full sync (BeginStaging .. FinishStaging).
    bool staging_active = false;
    std::unique_ptr<Fs> staging_fs;  // pure-memory mode only
    std::unique_ptr<slot::Slot> staging;
  };
  StreamListener* stream_listener_ = nullptr;
  KeyspaceOptions options_;
  Clock* clock_;
  // Before entries_: the slots use them until they are destroyed.
  std::unique_ptr<slot::Dictionaries> dictionaries_;
  // [db]: the log bytes of the database's slots, which one hot slot may borrow from.
  std::unique_ptr<slot::WalPool[]> wal_pools_;
  std::vector<Entry> entries_;  // [s * databases + physical db]
  // [s * databases + db]: PhysicalDb and LogicalDb, written by s's owner (AdoptDbMap).
  std::unique_ptr<std::atomic<uint32_t>[]> physical_;
  std::unique_ptr<std::atomic<uint32_t>[]> logical_;
  mutable std::mutex db_map_mu_;
  std::vector<uint32_t> db_map_;  // db_map(), under db_map_mu_
  std::vector<uint64_t> drops_;  // per slot: names the trash dirs of Drop
  std::atomic<int> fsync_;
  KeyWatcher* watcher_ = nullptr;
  Tracking* tracking_ = nullptr;
  std::atomic<uint64_t> cache_budget_;
  std::atomic<uint32_t> paged_threshold_{512};
  std::atomic<uint32_t> page_members_{64};
  std::atomic<size_t> copy_batch_bytes_{1 << 20};
  std::atomic<uint64_t> sharing_slots_{0};  // open slots that take a cache share
  // Per entry, what RebalanceCaches reads and writes across workers.
  struct CacheDemand {
    uint64_t last_lookups = 0;     // the owner's, as of its last note
    uint64_t last_file_reads = 0;  // the owner's
    std::atomic<bool> sharing{false};  // Entry::shares_cache, for other threads
    std::atomic<uint64_t> weight{0};
    std::atomic<uint64_t> cap{UINT64_MAX};
    std::atomic<uint64_t> share{0};  // 0: not rebalanced since it joined
  };
  std::unique_ptr<CacheDemand[]> demand_;
  // The owner's, when its slot stops sharing (closed, dropped).
  void ResetDemand(size_t index);
  std::mutex rebalance_mu_;
  int64_t rebalanced_at_us_ = INT64_MIN / 2;  // under rebalance_mu_
  std::atomic<uint64_t> slots_closed_{0};  // slots_closed()
  txn::SlotLocks locks_;
  txn::WatchedKeys watched_;
  std::unique_ptr<std::atomic<bool>[]> refusing_;  // [entry]
  std::atomic<int> refusing_count_{0};
  mutable std::mutex refusal_mu_;
  std::vector<std::string> refusal_text_;  // [entry], under refusal_mu_
};

// The keys of one database in one slot, as a command sees them. Writes go to the slot's WAL
// buffer and the slot joins `dirty` (and the command's WriteTrace, when given); the worker
// commits its dirty slots before any reply of the batch leaves (group commit). A write while a
// transaction holds the slot (txn::Holder) holds the engine slot's unit open for the holder,
// which commits it when it ends; every write marks the key's WATCHers dirty.
// Thread rule: used on the slot's owner only, for the duration of one command step.
class Store {
 public:
  Store(Keyspace* keyspace, uint32_t slot, uint32_t db, std::vector<slot::Slot*>* dirty,
        WriteTrace* trace = nullptr)
      : keyspace_(keyspace), slot_(slot), db_(db), dirty_(dirty), trace_(trace) {}

  // The Store of database slot `stream` of slot: replication names streams physically
  // (Keyspace::PhysicalDb).
  static Store OfStream(Keyspace* keyspace, uint32_t slot, uint32_t stream,
                        std::vector<slot::Slot*>* dirty, WriteTrace* trace = nullptr) {
    return Store(keyspace, slot, keyspace->LogicalDb(slot, stream), dirty, trace);
  }

  uint32_t slot() const { return slot_; }
  uint32_t db() const { return db_; }
  // The same slot in another database (MOVE, COPY ... DB).
  Store InDb(uint32_t db) const {
    Store other(keyspace_, slot_, db, dirty_, trace_);
    other.observer_ = observer_;
    return other;
  }
  // Tells observer of this Store's writes and misses (nullptr: nobody). It must outlive the
  // Store.
  void set_observer(KeyObserver* observer) { observer_ = observer; }
  // Tells the observer that a reader's lookup of key found nothing.
  void Missed(std::string_view key) {
    if (observer_ && observer_->active()) observer_->OnMiss(db_, key);
  }
  uint32_t databases() const { return keyspace_->databases(); }
  int64_t NowMs() const { return keyspace_->clock()->NowMs(); }
  int64_t MonotonicUs() const { return keyspace_->clock()->MonotonicUs(); }

  // As slot::Slot's, for this database; a never-written database reads as empty.
  Result<std::optional<std::string>> Get(std::string_view key, slot::KeyMeta* meta = nullptr);
  // slot::Slot::GetCached: the cached value itself, or nullptr (then Get).
  const std::string* GetCached(std::string_view key, slot::KeyMeta* meta);
  Result<std::optional<slot::KeyMeta>> GetMeta(std::string_view key);
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values,
                  std::vector<slot::KeyMeta>* metas = nullptr);
  // User keys: Get, GetMeta, MultiGet, Put, Delete, Scan and KeyCount take and give the user's
  // keys, stored as internal_keys.h says; internal keys never show in Scan or KeyCount.
  // Put refuses keys longer than kMaxKeyBytes with InvalidArgument("key too long").
  static constexpr size_t kMaxKeyBytes = 2048;
  Status Put(std::string_view key, std::string_view value, ValueType type, int64_t expire_at_ms);
  Result<bool> Delete(std::string_view key);
  // Tells the clients blocked on key (KeyWatcher) that it changed: Put and Delete do, but for
  // a stream written, whose commands decide (XADD does, XACK does not).
  void SignalKey(std::string_view key);
  // Writes a replicated record (kPut or kDelete) with its master's seq (slot::Slot::Apply),
  // telling watchers, WATCH and blocked clients as Put and Delete do; to the staging slot
  // while a full sync of this database runs (Keyspace::BeginStaging).
  Status Apply(const wal::Record& record);
  // A replica's full sync of this database: starts it (dropping what an earlier one staged),
  // and ends it: commits what was staged, swaps it in, and marks the WATCHes of the old data;
  // or drops it (AbortStaging: the live data stays).
  Status BeginStaging();
  Status FinishStaging(uint64_t floor);
  Status AbortStaging();
  Result<slot::ScanResult> Scan(uint64_t cursor, size_t count);
  Result<uint64_t> KeyCount();

  // Internal keys (internal_keys.h), as stored: no watchers, observers or blocked clients are
  // told of their writes. A page compresses with the dictionary group of group_key (its
  // collection's user key; see Slot::Put).
  // A page's decoded form goes with it (Slot::Put, TakeDecoded, KeepDecoded).
  Result<std::optional<std::string>> GetInternal(std::string_view key);
  Status PutInternal(std::string_view key, std::string_view value, ValueType type,
                     std::string_view group_key = {},
                     std::unique_ptr<DecodedPage> decoded = nullptr);
  // Slot::PutDecoded: true when the slot took *decoded as the page's new version.
  Result<bool> PutDecodedInternal(std::string_view key, ValueType type,
                                  std::string_view group_key,
                                  std::unique_ptr<DecodedPage>* decoded);
  Result<bool> DeleteInternal(std::string_view key);
  std::unique_ptr<DecodedPage> TakeDecoded(std::string_view key);
  void KeepDecoded(std::string_view key, std::unique_ptr<DecodedPage> decoded);
  // The slot's internal-key count as last known (Keyspace::internal_keys).
  std::optional<uint64_t>& internal_keys() { return keyspace_->internal_keys(slot_, db_); }
  // This slot has pages to reclaim (collection_pages.h).
  void NoteReclaim() { keyspace_->set_reclaim_pending(slot_, db_, true); }
  // The copies running commands are making into this slot (Keyspace::copies), and whether
  // one may have been cut short (Keyspace::cut_copies).
  std::vector<uint64_t>& copies() { return keyspace_->copies(slot_, db_); }
  bool cut_copies() const { return keyspace_->cut_copies(slot_, db_); }
  void set_cut_copies(bool possible) { keyspace_->set_cut_copies(slot_, db_, possible); }
  // paged-collection-threshold, paged-page-members and paged-copy-batch-bytes.
  uint32_t paged_threshold() const { return keyspace_->paged_threshold(); }
  uint32_t page_members() const { return keyspace_->page_members(); }
  size_t copy_batch_bytes() const { return keyspace_->copy_batch_bytes(); }
  // Removes every key of this database in this slot; its stream offset becomes floor
  // (Keyspace::Drop).
  Status Clear(std::optional<uint64_t> floor = std::nullopt);

 private:
  Result<slot::Slot*> Open(bool create);
  // Before a write to s: a transaction holding this slot keeps s's unit open (Slot::Hold).
  void JoinUnit(slot::Slot* s);
  // After a write to s: s joins dirty_ and the trace.
  // Tells client-side caching that key changed (Tracking::Invalidate).
  void TellTracking(std::string_view key);
  void NoteWrite(slot::Slot* s);
  // Around a write of key to s: the slot adopts the fsync policy and cache share and joins a
  // holder's unit; after it, NoteWrite, key's WATCHers are touched and (type list or sorted
  // set) its blocked clients told.
  Status BeforeWrite(slot::Slot* s);
  void AfterPut(slot::Slot* s, std::string_view key, ValueType type);
  Keyspace* keyspace_;
  uint32_t slot_;
  uint32_t db_;
  std::vector<slot::Slot*>* dirty_;
  WriteTrace* trace_;
  KeyObserver* observer_ = nullptr;
};

}  // namespace slotkv::command
