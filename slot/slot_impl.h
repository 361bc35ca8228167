// Internal state of a Slot, shared by slot.cc (open, reads, writes), slot_flush.cc (group
// persistence and compaction) and slot_scan.cc (scan, active expiry). Not a public header.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "chunk/chunk_store.h"
#include "core/base/cleanup.h"
#include "core/base/clock_cache.h"
#include "core/base/doorkeeper.h"
#include "core/base/inline_key.h"
#include "core/base/no_wait_reads.h"
#include "keybucket/bucket_store.h"
#include "slot/compaction.h"
#include "slot/group_map.h"
#include "slot/seq_file.h"
#include "slot/slot.h"
#include "wal/log.h"

namespace slotkv::slot {

// A collection value held in memory while its group map names it (MapEntry::held; "held
// values" in slot.h): the log has it as a full record and deltas, so this copy serves reads
// and the flush. Held values are pages, or one-value collections of at least kHoldMinBytes,
// never paged roots.
struct HeldValue {
  std::string value;      // raw, never compressed; empty once released
  std::string group_key;  // the compression group of a page ("" = the key's own)
  uint64_t version = 0;   // set by each Hold: DecodedPage::version
  std::unique_ptr<DecodedPage> decoded;  // value's decoded form (core/types/decoded_page.h)
  size_t decoded_bytes = 0;              // its memory_bytes when kept
  // A page written again in the open unit is logged once, when the unit closes (Impl::pending):
  // until then `base` is the version the log has, which that record is a delta against.
  bool pending = false;
  std::string base;
  // Written as its decoded form only (Slot::PutDecoded): `value` is an older version until
  // Materialize encodes `decoded`. Lent: `decoded` is out with a command (TakeDecoded).
  bool stale = false;
  bool lent = false;

  // The heap blocks of value and base (Impl::held_bytes sums them).
  size_t memory_bytes() const { return HeapBytes(value) + HeapBytes(base); }
};

// The base of a chain of value deltas that replay found without one (log files are numbered
// from 1).
inline constexpr wal::LogPos kNoBase{};

struct Group {
  GroupMap map;  // keyed by KeyHash
  std::vector<HeldValue> held;  // MapEntry::held's; slots of released ones stay until reset
  uint64_t bytes = 0;                 // log bytes of the records in map
  uint32_t oldest_file = UINT32_MAX;  // oldest log file holding a record in map
  // What map adds to the buckets' cell count, kept up to date by CountEntry so that KeyCount
  // looks only at entries it has not resolved: over the entries whose base is known, live keys
  // minus keys the buckets hold; and how many entries have an unknown base.
  int64_t key_delta = 0;
  uint64_t unknown_base = 0;
  // An entry with an expiry time was tracked since the map was last empty: active expiry looks
  // at the map (Slot::Impl::groups_with_ttl counts these groups).
  bool ttl = false;
  // Written since the last commit: its flush, when due, runs at the commit (Slot::Impl::due).
  bool due = false;
  // A flush of the group failed: its runs' live bytes are recounted by the next (FlushGroup).
  bool recount = false;
  // The log's durable end when a flush last left entries in the map (their records were not
  // durable yet; file_no 0: none left): every entry is logged after it, so no flush persists
  // anything until the log's durable end moves on.
  wal::LogPos kept_upto;
  // A compaction's copies waiting for a publish (compaction.h); kept across the group's
  // flushes (ResetGroup) until one applies them.
  std::unique_ptr<PendingMoves> moves;

  // entry's held value, or nullptr.
  const HeldValue* HeldOf(const MapEntry& entry) const {
    return entry.held != 0 ? &held[entry.held - 1] : nullptr;
  }
  // Sets oldest_file to the oldest file that holds a record of map, and returns it. It only
  // ever falls between flushes otherwise: a key rewritten over and over keeps its group
  // pinning the file of its first record, and the log limit flushed such groups (a 16 MiB log
  // file of SETs to 100k keys held ~6 live records of each group, and each flush wrote a page
  // per record). Not with held values: the full record that starts a chain of deltas is older
  // than the entry's.
  uint32_t Repin() {
    uint32_t oldest = UINT32_MAX;
    bool chained = false;
    map.ForEach([&](std::string_view, uint64_t, const MapEntry& entry) {
      oldest = std::min(oldest, entry.pos.file_no);
      chained = chained || entry.held != 0 || (entry.type & kSpliceTag) != 0;
    });
    if (!chained) oldest_file = oldest;
    return oldest_file;
  }
};

// Adds (sign 1) or takes away (sign -1) entry's share of its group's key_delta / unknown_base.
inline void CountEntry(Group& group, const MapEntry& entry, int sign) {
  if (entry.base == BaseState::kUnknown) {
    group.unknown_base += static_cast<uint64_t>(sign);
    return;
  }
  group.key_delta +=
      sign * ((entry.tombstone ? 0 : 1) - (entry.base == BaseState::kPresent ? 1 : 0));
}

struct CachedValue {
  uint64_t seq = 0;
  int64_t expire_at_ms = 0;
  uint8_t type = 0;
  std::string value;
};

// A key of a bucket as a scan sees it: its cell, or its group map entry when the map holds a
// newer write (its value then in the log at pos).
struct LiveKey {
  std::string key;
  uint64_t hash = 0;
  uint8_t type_tag = 0;  // as stored: kCompressedTag kept
  int64_t expire_at_ms = 0;
  uint64_t seq = 0;
  const std::string* held = nullptr;  // a map entry's held value (raw), valid until a write
  bool in_log = false;      // a map entry whose value is its log record
  wal::LogPos pos{};        // in_log: where its record is
  bool is_pointer = false;  // a cell whose payload is a chunk pointer, else its inline value
  std::string payload{};
};

LiveKey FromCell(keybucket::Cell&& cell);
LiveKey FromEntry(std::string_view key, uint64_t hash, const MapEntry& entry, const Group& group);

struct Slot::Impl {
  // An everysec publish whose fsyncs run on the worker's io_uring (StartPublish), shared with
  // their completions, which may come after the slot is gone.
  struct PublishInFlight {
    Impl* slot = nullptr;  // nullptr once the slot is gone or CancelPublish voided it
    std::vector<wal::Record> marks;
  };

  // The commit tap (SlotOptions::on_commit): copies of the Put and Delete records the slot logs,
  // kept in units as the log keeps them and handed to on_commit once a commit that writes them
  // succeeded, commits in the order they were made. Shared with the completions of CommitThen,
  // which may come after the slot is gone (then nothing is reported). See slot_tap.cc.
  struct CommitTap {
    // Records taken by a commit (its bytes captured when its write started), waiting for it and
    // for every commit before it.
    struct Taken {
      uint64_t id = 0;
      std::string units;
      uint64_t stream_seq = 0;  // the stream position after units
      bool written = false;     // its commit succeeded
    };

    Impl* slot = nullptr;             // nullptr once the slot is gone
    std::string open;                 // records of the open unit, more bits not yet set
    std::vector<size_t> open_starts;  // where each of them starts in open
    uint64_t open_seq = 0;            // stream position after open (a running max)
    std::string closed;               // whole units no commit has taken yet
    uint64_t closed_seq = 0;          // stream position after closed
    std::deque<Taken> taken;          // in commit order
    uint64_t next_id = 1;

    // The commit of id (Slot::Impl::TapTake) ended with st: on success the entries
    // now at the front that are written go to on_commit; on failure that entry and every later
    // one are dropped, with the units not taken yet.
    static void Done(const std::shared_ptr<CommitTap>& tap, uint64_t id, const Status& st);
  };

  ~Impl();

  SlotOptions options;
  Clock* clock = nullptr;
  std::unique_ptr<wal::Log> log;
  std::unique_ptr<keybucket::BucketStore> buckets;
  std::unique_ptr<chunk::ChunkStore> chunks;
  std::vector<Group> groups;
  ClockCache<InlineKey, CachedValue, StringKeyHash, std::equal_to<>> value_cache{0};
  Doorkeeper value_admission;  // a value read from storage is cached on its second miss
  size_t cache_budget = 0;  // Slot::SetCacheBudget: the caches and the group maps together
  size_t map_bytes = 0;     // memory of every group map (GroupMap::memory_bytes)
  size_t held_bytes = 0;    // of every held value (HeldValue::memory_bytes)
  size_t decoded_bytes = 0;  // of their decoded forms (HeldValue::decoded_bytes)
  uint64_t held_versions = 0;  // the last HeldValue::version given
  std::string delta_scratch;  // reused by PutHeld and LogPending
  // Pages (key, hash) whose held value changed in the open unit since it was last logged
  // (HeldValue::pending; a key may be listed twice, or after its hold ended), and the bytes of
  // their bases: transient, at most HeldLimit() / 4 before LogPending runs early.
  std::vector<std::pair<std::string, uint64_t>> pending;
  size_t pending_bytes = 0;
  // Reused by Get, so a one-key read allocates no vectors (3 allocations a GET).
  std::vector<std::string_view> get_keys;
  std::vector<std::optional<std::string>> get_values;
  std::vector<KeyMeta> get_metas;
  size_t caches_sized_for = 0;  // map_bytes when SizeCaches last ran

  uint64_t last_seq = 0;
  // slot.seq: no seq above its durable limit is handed out; its floor is the highest seq of
  // a Put or Delete in the log files removed so far (or SlotOptions::seq_floor).
  std::unique_ptr<SeqFile> seq_file;
  // Log files below it go once slot.seq and the log are durable (RemoveObsoleteLogFiles).
  uint32_t removing_before = 0;
  uint64_t stream_seq = 0;  // Slot::stream_seq()
  // Per live log file, the highest seq of a Put or Delete in it (the floor of its removal).
  std::map<uint32_t, uint64_t> file_seqs;
  std::shared_ptr<CommitTap> tap;  // null without SlotOptions::on_commit
  uint64_t wal_entries = 0;
  uint32_t expire_cursor = 0;
  uint32_t groups_with_ttl = 0;  // groups with Group::ttl set
  uint32_t wal_limit_cursor = 0;  // where EnforceWalLimit resumes its search
  // The oldest log file EnforceWalLimit last searched for, and the groups it passed since
  // one pinned it: after a whole round without one, the file only waits for its removal.
  uint32_t wal_limit_file = UINT32_MAX;
  uint32_t wal_limit_misses = 0;
  uint64_t wal_pool_told = 0;  // this log's bytes as last added to options.wal_pool
  uint64_t wal_pace_bytes = 0;    // log bytes appended that EnforceWalLimit has not paced yet
  // GroupFlushed marks of flushes whose data files are not synced yet (everysec, no): a mark
  // may reach the log only after the data it vouches for is durable (see slot_flush.cc).
  std::vector<wal::Record> pending_marks;
  int64_t last_publish_us = 0;
  std::shared_ptr<PublishInFlight> publishing;  // nullptr when no publish is in flight
  // A flush step's reads that would have waited for the disk, being fetched through the
  // worker's io_uring (StepFlushes); shared with the fetch's completion, which may come after
  // the slot is gone. The step's flush waits for it: flush_due() is false meanwhile.
  struct FetchInFlight {
    Impl* slot = nullptr;  // nullptr once the slot is gone
  };
  std::shared_ptr<FetchInFlight> fetching;
  // Set by StepFlushes on a worker: FlushGroup's reads do not wait for the disk. What they
  // could not take from the page cache lands in flush_blocked, and FlushGroup answers Busy
  // having changed nothing.
  bool flush_no_wait = false;
  std::vector<BlockedRead> flush_blocked;
  // No-wait tries of the flush step's flush in a row that met the disk: after kNoWaitTries the
  // next one reads waiting (pages evicted again before the retry came).
  int flush_fetch_tries = 0;
  // Sticky: a failed publish fsync leaves the data files unknown, a failed slot.seq write
  // its values.
  Status publish_failure;
  Status failure;  // Slot::failure() when the log's and the publish's are OK
  wal::Record scratch;            // reused by writes, so a Put allocates nothing for it
  // Groups written since the last commit (Group::due): a flush may only take records of closed
  // units, so a due flush waits for the commit that closes the writer's unit.
  std::vector<uint32_t> due;
  std::vector<std::string> discarded_roots;  // NoteReplaced's, for TakeDiscardedRoots
  bool held = false;  // Slot::Hold: the open unit stays open through commits
  bool compaction_deferred = false;  // Slot::DeferCompaction
  // FlushAll's flushes compact in place, syncing their copies (compaction.h): none is left
  // waiting for a publish.
  bool compact_in_place = false;
  bool unit_open = false;  // a write since the slot last closed the log's unit
  SlotStats counters;      // the cumulative counters; Stats() fills in the rest

  uint32_t GroupOfBucket(uint32_t bucket) const { return bucket / options.buckets_per_group; }
  uint32_t GroupOfHash(uint64_t hash) const { return GroupOfBucket(buckets->BucketOf(hash)); }
  // Whether every flush syncs the data files (appendfsync always, not pure-memory).
  bool FsyncEachFlush() const {
    return !options.memory && options.fsync == wal::FsyncPolicy::kAlways;
  }
  // Whether flush marks and chunk frees wait for PublishMarks (everysec, no; not pure-memory,
  // where there is no disk to wait for).
  bool DefersMarks() const { return !options.memory && !FsyncEachFlush(); }
  bool Expired(int64_t expire_at_ms) const {
    return expire_at_ms != 0 && expire_at_ms <= clock->NowMs();
  }

  // Slot::failure(): this slot's, the log's or the publish's.
  const Status& Failure() const {
    if (!failure.ok()) return failure;
    if (!log->failure().ok()) return log->failure();
    return publish_failure;
  }
  // The refusal of every write-side call once the slot failed (Unavailable, its message the
  // failure's), else OK. A failure the log or a publish met in an io_uring completion becomes
  // the slot's (and is counted) here.
  Status Refusal() {
    if (failure.ok()) Fail(Failure()).PermitUnchecked();  // it is the refusal below
    return failure.ok() ? Status::OK() : Status::Unavailable(failure.ToString());
  }
  // SetFsyncPolicy's work on a slot on disk.
  Status ChangeFsync(wal::FsyncPolicy fsync);
  // Records st (unless OK, Busy or a refusal) as the slot's failure when it has none yet,
  // counting it; returns st.
  Status Fail(Status st) {
    if (st.ok() || st.IsBusy() || st.IsUnavailable()) return st;
    ++counters.write_failures;
    if (failure.ok()) {
      failure = st;
      if (options.on_failure) options.on_failure(failure);
    }
    TapDrop();  // what was not written is never reported; Recover starts a new tap
    return st;
  }
  // Hands out the next sequence number, recording a new limit on disk when needed.
  Result<uint64_t> NextSeq();
  // Takes seq as handed out (Slot::Apply): raises the limit on disk when seq passes it.
  Status UseSeq(uint64_t seq);
  // Before the log files numbered below file_no are removed: raises slot.seq's floor to the
  // highest seq of a Put or Delete in them (the caller makes it durable first).
  void RaiseFloorBefore(uint32_t file_no);
  // Records the failure of I/O an io_uring completion reported (a publish's fsyncs, a slot.seq
  // write): Refusal makes it the slot's at the next call.
  void FailPublish(Status st) {
    if (!st.ok() && publish_failure.ok()) publish_failure = std::move(st);
  }
  // Records a logged Put or Delete (hash = KeyHash(record.key)) in its group map, for writes and
  // replay alike; returns the group.
  // *replaced (when given) takes the entry the record replaced, when that may be a root a
  // write can discard (a collection under a key that may hold one: NoteReplaced's to judge).
  uint32_t Track(const wal::Record& record, const wal::LogPos& pos, uint64_t hash,
                 std::optional<LiveKey>* replaced = nullptr);
  // Whether key's version of stored type tag may be a root (SlotOptions::root_id).
  bool MayBeRoot(std::string_view key, uint8_t type_tag) const {
    return options.root_id != nullptr && options.may_hold_root != nullptr &&
           IsCollection(TypeOf(static_cast<ValueType>(type_tag))) && options.may_hold_root(key);
  }
  // Version old of its key is replaced by a Put of next_value (stored, with its type tag
  // next_type) or, when next_put is false, by a delete: notes old's value in discarded_roots
  // when it is a paged root that the new version does not carry on. A failure to read a value
  // is logged, not returned: a write or a flush never fails for it (the pages would leak).
  void NoteReplaced(const LiveKey& old, bool next_put, uint8_t next_type,
                    std::string_view next_value);
  // Logs a Put or Delete of key (hash = KeyHash(key)) into the open unit, tracks it, drops the
  // key's cached value, copies it into the tap and notes the group for CloseUnit. The record
  // takes the next sequence number, or `seq` when given (Slot::Apply). Buffered until Commit.
  Status LogWrite(wal::RecordKind kind, std::string_view key, uint64_t hash,
                  std::string_view value, ValueType type, int64_t expire_at_ms,
                  std::optional<uint64_t> seq = std::nullopt);
  // LogWrite but for the cached value, which the caller drops or replaces (Put: one cache
  // operation per write instead of an erase and an insert).
  Status LogRecord(wal::RecordKind kind, std::string_view key, uint64_t hash,
                   std::string_view value, ValueType type, int64_t expire_at_ms,
                   std::optional<uint64_t> seq = std::nullopt);
  // Whether value, of key with this type, is held (and its next versions logged as deltas): a
  // page of any size, or a one-value collection of at least kHoldMinBytes (never a paged root).
  bool Holdable(std::string_view key, ValueType type, std::string_view value) const;
  // Bytes the held values may take: half the cache budget (8 MiB without one).
  size_t HeldLimit() const;
  // After a unit's close logged keys: drops their decoded forms, which PutDecoded keeps past
  // HeldLimit while they are a page's only current form, until held and decoded bytes are
  // back within it (the held bytes serve the next command; it decodes them again).
  void DropDecodedPastLimit(const std::vector<std::pair<std::string, uint64_t>>& keys);
  // Forgets h's decoded form and its bytes.
  void DropDecoded(HeldValue& h);
  // Runs change, which may resize h's strings, keeping held_bytes their blocks' sum.
  template <class Change>
  void Recount(HeldValue& h, Change&& change) {
    held_bytes -= h.memory_bytes();
    change();
    held_bytes += h.memory_bytes();
  }
  // The group maps with their held values: what the caches leave room for.
  size_t MapMemory() const { return map_bytes + held_bytes + decoded_bytes; }
  // Logs a holdable Put (Holdable) of key: as a delta against its held version when that is
  // small, else whole and raw, then holds value. False, with nothing written, for the key's
  // first write since its group's flush, or when a new hold would pass HeldLimit. `seq` as for
  // LogWrite.
  Result<bool> PutHeld(std::string_view key, uint64_t hash, std::string_view value,
                       ValueType type, int64_t expire_at_ms, std::string_view group_key,
                       std::optional<uint64_t> seq,
                       std::unique_ptr<DecodedPage> decoded = nullptr);
  // Whether a Put of key (type, expire_at_ms) over its held version may wait for the unit's
  // close to be logged (Defer): a page (nothing reads a page's seq: RENAME compares a user
  // key's) whose metadata stays as logged.
  bool Deferrable(std::string_view key, const MapEntry& entry, ValueType type,
                  int64_t expire_at_ms) const;
  // Holds value as key's new version without logging it: the unit's close logs one delta
  // from the version logged last (LogPending). A tree's top nodes change with every command
  // on their collection: LPUSH on one list logged ~3 page deltas per command, 8-25 commands a
  // unit at -P 1.
  Status Defer(Group& group, MapEntry& entry, std::string_view key, uint64_t hash,
               std::string_view value, std::string_view group_key,
               std::unique_ptr<DecodedPage> decoded);
  // Lists h (key's) as pending, its value as the base, unless it is already.
  void MarkPending(HeldValue& h, std::string_view key, uint64_t hash);
  // LogPending (mid-command) once the pending bases pass a quarter of HeldLimit.
  Status LogPendingPastLimit();
  // Makes a stale held value current: encodes its decoded form. Corruption (and the slot
  // fails) when a command took that form and dropped it.
  Status Materialize(Group& group, HeldValue& h, std::string_view key);
  // Logs every pending page (a delta against its base, or whole when that is not smaller) in
  // the open unit. Runs before the unit closes (CloseUnit, Slot::Hold), before a full sync
  // reads values (ScanStored) and before a write that cannot wait (a replica's, or new
  // metadata) goes to a pending key. mid_command: called while a command runs (a write, or
  // the bases passing their limit), whose lent pages (TakeDecoded) stay pending; otherwise a
  // lent page was dropped and fails the slot (Materialize).
  Status LogPending(bool mid_command = false);
  // Logs h, the pending version of key (entry's, in group): a delta against its base, or whole
  // when that is not smaller. Either way h is pending no more.
  Status LogHeld(Group& group, std::string_view key, uint64_t hash, const MapEntry& entry,
                 HeldValue& h);
  // Holds value for key's map entry (held or not before) in group, as a new version, with
  // its decoded form when given (KeepDecoded).
  void Hold(Group& group, MapEntry& entry, std::string_view value, std::string_view group_key,
            std::unique_ptr<DecodedPage> decoded = nullptr);
  // Starts h's next version, grouped by group_key: a new version number, the decoded form of
  // the last one dropped.
  void NewVersion(HeldValue& h, std::string_view group_key);
  // Keeps decoded with h (as version h.version) unless it takes more than HeldLimit leaves
  // beside the held values (which it never displaces); only_form: whatever its size (the
  // page's only current form, PutDecoded).
  void KeepDecoded(HeldValue& h, std::unique_ptr<DecodedPage> decoded, bool only_form = false);
  // The held value of key, or nullptr.
  HeldValue* HeldOf(std::string_view key);
  // The stored form of a held value at its flush: compressed into *out with its group (a page's
  // collection key, else the key; a page a replica holds has none and stays raw); returns the
  // cell's type tag.
  uint8_t StoreHeld(std::string_view key, const MapEntry& entry, const HeldValue& held,
                    std::string* out);
  // Compresses value into *out with the dictionary of group (counted) and returns type's tag
  // with kCompressedTag; returns type unchanged when it does not compress. observed: offered
  // for training when written (Dictionaries::Observe).
  uint8_t CompressInto(std::string_view group, std::string_view value, uint8_t type,
                       std::string* out, bool observed = false);
  // Drops the held value of entry, if any.
  void Release(Group& group, MapEntry& entry);
  // Replay: rebuilds the held value of each key whose newest record is a delta, from the
  // chain of records (full record first, or kNoBase when replay found none) that made it. A
  // chain whose key has a newer write or is gone is skipped.
  Status HoldReplayed(
      const std::unordered_map<std::string, std::vector<wal::LogPos>>& chains);
  // The newest version of key, expired or not, decompressed; nullopt when deleted or absent.
  Result<std::optional<std::string>> CurrentValue(std::string_view key, uint64_t hash);
  // Corruption unless record is the write entry names.
  Status CheckRecord(std::string_view key, const MapEntry& entry, const wal::Record& record) const;
  // Caches the newest value of key (or drops the cached one when value is too large to keep).
  // The cache's rule: it holds a key's newest version or nothing (reads trust a hit).
  void CacheValue(std::string_view key, CachedValue value);
  // Whether cached keeps that rule: the group map names no other version of key (asserted).
  bool NewestCached(std::string_view key, const CachedValue& cached) const;
  // Whether the value cache keeps values of this size.
  static bool Cacheable(size_t value_bytes);
  // What the value cache charges for an entry whose key and value take these heap bytes.
  static size_t CacheCharge(size_t key_bytes, size_t value_bytes);
  // Whether the value cache has room for such a value without evicting (about: CacheValue
  // charges the allocations, this their lengths).
  bool CacheHasRoom(size_t key_bytes, size_t value_bytes) const;
  // Whether key has a cell in the bucket pages (live or expired).
  Result<bool> HasCell(uint64_t hash, std::string_view key);
  // Learns whether the buckets hold each key of the group's map whose base is unknown
  // (KeyCount).
  Status ResolveBases(Group& group);

  // Closes the log's open unit, then (flush) runs the flushes the writes of this unit and
  // earlier ones made due, up to kFlushesPerUnit (RunDueFlushes); !flush leaves them to
  // Slot::FlushStep, even those of a log past its limit, unless it is past HardWalLimit: then
  // kBackstopFlushes of them (KeepWalWithinLimit). REQUIRES: !held.
  static constexpr uint64_t kFlushesPerUnit = 2;
  static constexpr int kBackstopFlushes = 2;
  Status CloseUnit(bool flush = true);
  // Slot::FlushStep's work: a due flush (RunDueFlushes(1)), then, while the log is past its
  // limit (WalPastLimit) and writes came since the last step, more of the flushes that bring
  // it back, for up to kLimitSliceUs. Without writes a log up to a quarter past its limit
  // waits for the next ones: flushed right after a 10M-key load, the backlog made the GETs
  // that followed wait (p99 2.1 -> 7.8 ms).
  // During a 10M-key `redis-cli --pipe` load every slot's log passed its limit at once, and a
  // worker's commit handler ran 4 flushes for each of its 8 dirty slots (the writer's commit
  // did them): PINGs waited up to 186 ms.
  static constexpr int64_t kLimitSliceUs = 2000;
  // A flush whose reads would wait (flush_no_wait) starts fetching them instead, calls
  // on_fetched from the fetch's completion and returns OK.
  Status StepFlushes(std::function<void()> on_fetched = {});
  // Whether the flushes about to run may read without waiting (flush_no_wait): with on_fetched,
  // an io_uring on this thread, and fewer than kNoWaitTries fetches in a row behind.
  bool MayFlushNoWait(const std::function<void()>& on_fetched) const;
  // Sets flush_no_wait for the flushes of the caller's scope (MayFlushNoWait); the guard it
  // returns clears it.
  auto NoWaitFlushes(const std::function<void()>& on_fetched) {
    flush_no_wait = MayFlushNoWait(on_fetched);
    return Cleanup([this] { flush_no_wait = false; });
  }
  // After flushes run with flush_no_wait: when one met the disk (flush_blocked), fetches its
  // reads through the ring (fetching until done) and calls on_fetched once they are in.
  void FetchBlocked(std::function<void()> on_fetched);
  // Whether the log is past its limit with a group still pinning its oldest file (what
  // EnforceWalLimit can flush).
  bool WalPastLimit() const;
  bool written_since_step = false;  // a unit closed since the last StepFlushes
  int64_t last_write_us = 0;         // when a unit last closed (Slot::flush_deferrable)
  uint32_t idle_flush_cursor = 0;    // the group Slot::IdleFlushStep looks at first
  // Where a writer's commit flushes itself instead of leaving it to FlushStep: a quarter past
  // WalLimit, which the flush steps keep the log under unless writes outrun them.
  uint64_t HardWalLimit() const { return WalLimit() + WalLimit() / 4; }
  // Runs up to max_flushes of the due groups' flushes, oldest first (FlushDue; their marks
  // form the next unit, closed too). REQUIRES: !held, no unit open.
  Status RunDueFlushes(uint64_t max_flushes);
  // After a write to group g: flushes it when due and keeps the log within wal_max_bytes,
  // then removes the log files no group needs. Nothing while a publish is in flight: its
  // completion commits the chunk frees, which must not include those of a later flush.
  Status FlushDue(uint32_t g);
  // FlushDue's second half: EnforceWalLimit(past_limit_budget), then removes the log files no
  // group needs when any flush ran since counters.flushes was `flushes`, or EnforceWalLimit
  // says to.
  Status KeepWalWithinLimit(uint64_t flushes, int past_limit_budget = 1);
  // Persists group g (see slot.h), voiding a publish in flight (CancelPublish). A group with
  // nothing in its map is flushed only to apply its ready moves.
  Status FlushGroup(uint32_t g);
  // Whether group's pending moves (compaction.h) may be applied: a publish completed since.
  bool MovesReady(const Group& group) const {
    return group.moves != nullptr && counters.publishes > group.moves->publishes;
  }
  // The runs group g's flush compacts: none while compaction is deferred or the group's moves
  // wait for a publish (ready ones are applied first).
  std::vector<uint32_t> CompactionRuns(uint32_t g) const;
  // Slot::Flush's work.
  Status FlushAll();
  // Flushes groups that pin the oldest log file when the log is within a file of wal_max_bytes
  // (one, paced by wal_pace_bytes) or over it (up to past_limit_budget); a group whose records
  // there were all overwritten since is repinned instead (Group::Repin). Returns whether the
  // caller should remove the files no group pins: no flush's removal covers a file freed by
  // repins alone.
  Result<bool> EnforceWalLimit(int past_limit_budget);
  // Brings options.wal_pool up to this log's size, total (Log::total_bytes).
  void TellWalPool(uint64_t total);
  // The log size EnforceWalLimit keeps to: the share, plus what the pool has left, up to
  // kWalBorrow shares.
  uint64_t WalLimit() const;
  // Removes the log files no group map needs once the marks that freed them are logged and
  // durable: after a publish, which it starts through io_uring when it can (its completion
  // comes back here).
  Status RemoveObsoleteLogFiles();
  // Syncs the data files, then commits the chunk frees and appends the pending marks to the
  // log, the marks of a publish in flight first (it is voided).
  Status PublishMarks();
  // Starts a publish (StartPublish, else PublishMarks) when everysec's second has passed and
  // marks wait; returns the sticky publish failure.
  Status PublishDue();
  // PublishMarks with the fsyncs submitted to the thread's io_uring; the rest runs when they
  // complete (FinishPublish). False when there is no ring or a store cannot (SyncHandles).
  // REQUIRES: !pending_marks.empty(), no publish in flight.
  bool StartPublish();
  // The fsyncs of a publish completed: CommitPublished, then removes the log files its marks
  // freed.
  Status FinishPublish(const std::vector<wal::Record>& marks);
  // With the data files synced: commits the chunk frees, then appends marks to the log.
  Status CommitPublished(const std::vector<wal::Record>& marks);
  // Voids the publish in flight, if any: its marks return to pending_marks, to be published
  // after a later sync covers the flushes that come meanwhile.
  void CancelPublish();
  // Empties group g but for the entries whose records do not end by `upto` (wal::EndsBy), which
  // stay, with their held values. Replay of a GroupFlushed mark passes the place its flush
  // persisted up to (see slot_flush.cc); a flush, the log's durable end, and `relog`: a held
  // value kept whose record is a delta is logged whole again, so that its chain of deltas
  // starts after `upto` (replay drops its older records with the rest, and their log file may
  // go: a chain kept, a page written by every command would pin it for good).
  Status RetainAfter(uint32_t g, const wal::LogPos& upto, bool relog);
  // Sets *upto to where group g's flush persists entries up to (nullopt: all of them) and
  // returns whether any is there; when none is, the log syncs soon (now without an io_uring)
  // and the next flush finds them. See slot_kept.cc.
  Result<bool> PersistUpto(uint32_t g, std::optional<wal::LogPos>* upto);
  // Adds to *lost the places of `referenced` (every pointer group g's cells hold) that the
  // chunk table does not hold (a power cut lost them, or a failed flush took them back), and
  // removes such a cell of a key whose entry the flush keeps (one not ending by *upto). Before
  // the flush adds anything.
  void DropLostCells(uint32_t g, const std::optional<wal::LogPos>& upto,
                     const std::vector<chunk::ValuePtr>& referenced, GroupCells* group_cells,
                     std::unordered_set<uint64_t>* lost);
  // Logs key's held value (the entry's current version) whole, as a record of the entry's seq
  // that is not a write (no tap), and points the entry at it.
  Status Relog(std::string_view key, const std::string& value, MapEntry* entry);
  // Appends bucket b's live keys (not expired) to *live: Scan's and ScanStored's walk.
  Status BucketKeys(uint32_t b, std::vector<LiveKey>* live);
  // Whether group g has reached its flush threshold (entries per page, or bytes).
  bool NeedsFlush(uint32_t g) const;
  // Empties group g, its map's memory leaving map_bytes.
  void ResetGroup(Group& group);
  // Adds entry, which names its record now, to its group's figures: counts, expiry tracking,
  // log bytes and oldest file (Track, RetainAfter).
  void AddToGroup(Group& group, const MapEntry& entry) {
    CountEntry(group, entry, 1);
    NoteTtl(group, entry);
    group.bytes += entry.pos.size;
    group.oldest_file = std::min(group.oldest_file, entry.pos.file_no);
  }
  // Log file file_no holds a record of seq (file_seqs).
  void NoteFileSeq(uint32_t file_no, uint64_t seq) {
    uint64_t& file_seq = file_seqs[file_no];
    file_seq = std::max(file_seq, seq);
  }
  // Tracking entry in group: notes an expiry time for active expiry.
  void NoteTtl(Group& group, const MapEntry& entry) {
    if (entry.expire_at_ms == 0 || group.ttl) return;
    group.ttl = true;
    ++groups_with_ttl;
  }
  // Whether active expiry looks at the group map of bucket b with b: b is its group's first
  // bucket and the map took a write with an expiry time.
  bool MapTurn(uint32_t b) const {
    return groups[GroupOfBucket(b)].ttl && b % options.buckets_per_group == 0;
  }
  // Adds to *doomed the keys of bucket b (when it may hold an expiry time; its page read) and,
  // when b is the first bucket of its group, of the group's map, that have expired. Clears the
  // bucket's flag when no cell there has an expiry time.
  Status ExpiredKeys(uint32_t b, std::vector<LiveKey>* doomed);
  // *out = stored (a value as stored with type tag tag), decompressed when the tag says so.
  Status Raw(std::string_view stored, uint8_t tag, std::string* out) const;
  // The stored value of k (read from the log or the chunks when not inline), decompressed.
  Result<std::string> ValueOf(const LiveKey& k);
  // Sizes the caches to what the group maps leave of cache_budget, but at least an eighth of
  // it: 40% values, 40% bucket pages, 20% chunk segments. Evicts what no longer fits.
  void SizeCaches();
  // The commit tap (slot_tap.cc); each a no-op without on_commit.
  // Copies a logged Put or Delete (encoded: the log's bytes of it) into the tap's open unit.
  void TapRecord(const wal::Record& record, std::string_view encoded);
  // The log closed the open unit: so does the tap (more bits set on all its records but the
  // last).
  void TapEndUnit();
  // A commit starts its write: takes the closed units; its id for CommitTap::Done.
  uint64_t TapTake();
  // A synchronous commit path wrote every closed unit: takes and reports them.
  void TapWritten();
  // A failure: drops the units no commit took.
  void TapDrop();
  // SizeCaches when the maps grew or shrank by more than 1/32 of cache_budget since it last
  // ran (never before SetCacheBudget).
  void MaybeSizeCaches();
};

}  // namespace slotkv::slot
