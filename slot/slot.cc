// Slot: sequence numbers, point writes, commits and flush steps. Open and Recover are in
// slot_open.cc, the caches' budget in slot_cache.cc, group persistence in slot_flush.cc, held
// values in slot_held.cc, reads in slot_read.cc, scans and active expiry in slot_scan.cc.
//
// slot.seq (SeqFile, seq_file.h), the sequence-number limit and the stream floor:
// No sequence number above `limit` was handed out (by Put/Delete, or taken by Apply) before it
// was durable, so after a restart numbering continues above max(limit, newest seq in the log)
// even when every log file was removed. The limit is raised by kSeqStep when half of the
// numbers it reserved are used (written in the background: a write only waits for it when the
// reservation runs out first). `floor` is a stream_seq the slot is known to have reached: the
// highest seq of a Put or Delete in the log files removed so far (durable before they are
// removed), or SlotOptions::seq_floor; at open stream_seq = max(floor, seq of every Put and
// Delete replayed), never above the truth.
#include "slot/slot.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <optional>

#include "chunk/value_ptr.h"
#include "core/base/buffer.h"
#include "core/base/coding.h"
#include "core/base/hash.h"
#include "slot/slot_impl.h"
#include "slot/value_delta.h"

namespace slotkv::slot {
namespace {

constexpr uint64_t kSeqStep = 1 << 20;

}  // namespace

Slot::Slot(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Slot::~Slot() = default;

Result<uint64_t> Slot::Impl::NextSeq() {
  SLOTKV_RETURN_IF_ERROR(UseSeq(last_seq + 1));
  return last_seq;
}

Status Slot::Impl::UseSeq(uint64_t seq) {
  if (seq + kSeqStep / 2 > seq_file->wanted().limit) {
    // Half of the reservation is used: the next one goes to disk in the background.
    seq_file->Raise({.limit = seq - 1 + kSeqStep});
    seq_file->WriteThen([this](const Status& st) { FailPublish(st); });
  }
  if (seq > seq_file->durable().limit) {  // the reservation ran out before it was durable
    SLOTKV_RETURN_IF_ERROR(seq_file->Write());
  }
  last_seq = std::max(last_seq, seq);
  return Status::OK();
}

void Slot::Impl::RaiseFloorBefore(uint32_t file_no) {
  auto end = file_seqs.lower_bound(file_no);
  for (auto it = file_seqs.begin(); it != end; ++it) seq_file->Raise({.floor = it->second});
  file_seqs.erase(file_seqs.begin(), end);
}

uint32_t Slot::Impl::Track(const wal::Record& record, const wal::LogPos& pos, uint64_t hash,
                           std::optional<LiveKey>* replaced) {
  const uint32_t g = GroupOfHash(hash);
  Group& group = groups[g];
  const size_t map_before = group.map.memory_bytes();
  auto [found, inserted] = group.map.FindOrInsert(record.key, hash);
  if (inserted) {
    ++wal_entries;
    map_bytes += group.map.memory_bytes() - map_before;
    MaybeSizeCaches();
  }
  MapEntry& entry = *found;
  if (!inserted) CountEntry(group, entry, -1);
  // A held version, or one a delta made, is too large to be a paged root.
  const bool splice = record.kind == wal::RecordKind::kPut && (record.type_tag & kSpliceTag);
  if (replaced != nullptr && !inserted && !entry.tombstone && entry.held == 0 && !splice &&
      (entry.type & kSpliceTag) == 0 && MayBeRoot(record.key, entry.type)) {
    *replaced = FromEntry(record.key, hash, entry, group);
  }
  if (!splice) Release(group, entry);  // a delta's writer holds the new version
  entry.pos = pos;
  entry.seq = record.seq;
  entry.tombstone = record.kind == wal::RecordKind::kDelete;
  entry.expire_at_ms = entry.tombstone ? 0 : record.expire_at_ms;
  entry.type = record.type_tag;
  AddToGroup(group, entry);
  stream_seq = std::max(stream_seq, record.seq);
  NoteFileSeq(pos.file_no, record.seq);
  return g;
}

Status Slot::Impl::LogWrite(wal::RecordKind kind, std::string_view key, uint64_t hash,
                            std::string_view value, ValueType type, int64_t expire_at_ms,
                            std::optional<uint64_t> applied_seq) {
  SLOTKV_RETURN_IF_ERROR(LogRecord(kind, key, hash, value, type, expire_at_ms, applied_seq));
  // While the key is in its group map its value is read back from the log; a cached older
  // version must not resurface once the group is flushed.
  value_cache.Erase(key);
  return Status::OK();
}

Status Slot::Impl::LogRecord(wal::RecordKind kind, std::string_view key, uint64_t hash,
                             std::string_view value, ValueType type, int64_t expire_at_ms,
                             std::optional<uint64_t> applied_seq) {
  SLOTKV_RETURN_IF_ERROR(Refusal());
  uint64_t seq = 0;
  if (applied_seq) {
    SLOTKV_RETURN_IF_ERROR(Fail(UseSeq(*applied_seq)));
    seq = *applied_seq;
  } else {
    Result<uint64_t> next = NextSeq();
    if (!next.ok()) return Fail(next.status());
    seq = *next;
  }
  wal::Record& record = scratch;
  record.kind = kind;
  record.seq = seq;
  record.type_tag = static_cast<uint8_t>(type);
  record.expire_at_ms = expire_at_ms;
  record.key.assign(key);
  record.value.assign(value);
  log->BeginUnit();  // the writes up to the next commit are one unit
  SLOTKV_ASSIGN_OR_RETURN(wal::LogPos pos, log->Append(record));
  // While the log's buffer still ends with the record: the tap takes the same bytes.
  TapRecord(record, log->Appended(pos));
  std::optional<LiveKey> replaced;
  const uint32_t g = Track(record, pos, hash, &replaced);
  if (replaced) NoteReplaced(*replaced, kind == wal::RecordKind::kPut, record.type_tag, value);
  unit_open = true;
  wal_pace_bytes += pos.size;
  ReleaseLargeBuffer(&record.value);
  if (!groups[g].due) {
    groups[g].due = true;
    due.push_back(g);
  }
  return Status::OK();
}

Status Slot::Impl::CloseUnit(bool flush) {
  SLOTKV_RETURN_IF_ERROR(LogPending());
  log->EndUnit();
  TapEndUnit();
  if (unit_open) {
    written_since_step = true;
    last_write_us = clock->MonotonicUs();
  }
  unit_open = false;
  if (flush) return RunDueFlushes(kFlushesPerUnit);
  // A log far past its limit is not left to FlushStep alone: the writer's commit flushes too.
  // Writes outran flush steps of one flush each, and the log of a test's load grew to 2.2x
  // its limit. Steps now flush for up to kLimitSliceUs while the log is past its limit.
  if (log->total_bytes() <= HardWalLimit() || log->rotating()) return Status::OK();
  const Status st = KeepWalWithinLimit(counters.flushes, kBackstopFlushes);
  log->EndUnit();  // the marks of those flushes
  return st;
}

Status Slot::Impl::RunDueFlushes(uint64_t max_flushes) {
  // A unit that made many groups due (a page reclaim step, a long MSET) leaves all but
  // max_flushes flushes to the next calls, oldest first: none holds the worker for a burst of
  // flushes.
  const uint64_t flushes = counters.flushes;
  size_t i = 0;
  Status st;
  for (; i < due.size() && st.ok() && counters.flushes - flushes < max_flushes; ++i) {
    groups[due[i]].due = false;
    st = FlushDue(due[i]);
  }
  // A flush put off for its reads (StepFlushes fetches them) stays first: the next step
  // flushes the group whose pages came, not another one that may miss too (three misses in
  // a row make the step read waiting). Only due[i - 1]'s FlushDue can have set flush_blocked.
  if (!flush_blocked.empty()) groups[due[--i]].due = true;
  due.erase(due.begin(), due.begin() + static_cast<ptrdiff_t>(i));
  log->EndUnit();  // the marks of those flushes
  return st;
}

Status Slot::Impl::CheckRecord(std::string_view key, const MapEntry& entry,
                               const wal::Record& record) const {
  if (record.key != key || record.seq != entry.seq) {
    return Status::Corruption("log record at offset " + std::to_string(entry.pos.offset) +
                              " does not hold key " + std::string(key));
  }
  if (record.type_tag & kSpliceTag) {  // its value is the entry's held one
    return Status::Corruption("log record at offset " + std::to_string(entry.pos.offset) +
                              " is a value delta of key " + std::string(key) + " nothing holds");
  }
  return Status::OK();
}

Result<bool> Slot::Impl::HasCell(uint64_t hash, std::string_view key) {
  SLOTKV_ASSIGN_OR_RETURN(auto cell, buckets->Lookup(hash, key));
  return cell.has_value();
}

bool Slot::Impl::NeedsFlush(uint32_t g) const {
  const Group& group = groups[g];
  if (group.bytes >= options.group_flush_bytes) return true;
  uint32_t first = g * options.buckets_per_group;
  uint32_t end = std::min(first + options.buckets_per_group, buckets->bucket_count());
  // Every bucket has a page at least: a smaller map needs no count of the pages (0.17 us per
  // key of MSET -P 1 on a key set that never fills a group: a cache miss and 16 calls).
  if (group.map.size() < uint64_t{end - first} * options.flush_entries_per_page) return false;
  uint64_t pages = 0;
  for (uint32_t b = first; b < end; ++b) pages += buckets->page_count(b);
  return group.map.size() >= pages * options.flush_entries_per_page;
}

Status Slot::Put(std::string_view key, std::string_view value, ValueType type,
                 int64_t expire_at_ms, std::string_view group_key,
                 std::unique_ptr<DecodedPage> decoded) {
  Impl& s = *impl_;
  if (key.size() > kMaxKeyBytes) return Status::InvalidArgument("key too long");
  s.counters.user_bytes_written += key.size() + value.size();
  const uint64_t hash = KeyHash(key);
  if (s.Holdable(key, type, value)) {
    SLOTKV_ASSIGN_OR_RETURN(bool held, s.PutHeld(key, hash, value, type, expire_at_ms, group_key,
                                                 std::nullopt, std::move(decoded)));
    if (held) return Status::OK();
  }
  // A page written whole (not held) compresses now, with its collection's dictionary group,
  // which its internal key does not tell the flush. Anything else is logged raw and compressed
  // when its group flushes (FlushGroup): a write pays no compression, a value overwritten
  // before its flush is never compressed, and a read of it from the log decompresses nothing.
  std::string compressed;
  uint8_t tag = static_cast<uint8_t>(type);
  if (!group_key.empty()) {
    tag = s.CompressInto(group_key, value, tag, &compressed);
  } else if (s.options.dictionaries) {
    s.options.dictionaries->Observe(key, value);
  }
  const bool packed = tag != static_cast<uint8_t>(type);
  SLOTKV_RETURN_IF_ERROR(s.LogRecord(wal::RecordKind::kPut, key, hash,
                                     packed ? std::string_view(compressed) : value,
                                     static_cast<ValueType>(tag), expire_at_ms));
  // A key read lately and written now is likely read again (a collection's root and pages are
  // read and rewritten by every change): keep the new version, so the next read does not read
  // the log back. The write itself is no sighting: a bulk load caches only while the cache has
  // room, never evicting for it (as Redis, a data set that fits in memory is read from
  // memory). s.scratch is the record LogRecord just logged. Either way the cache drops the
  // older version (replacing it in place when it keeps the new one).
  if (s.Cacheable(value.size()) &&
      (s.value_admission.Seen(hash) || s.CacheHasRoom(key.size(), value.size()))) {
    s.CacheValue(s.scratch.key, CachedValue{s.scratch.seq, expire_at_ms,
                                            static_cast<uint8_t>(type), std::string(value)});
  } else {
    s.value_cache.Erase(key);
  }
  return Status::OK();
}

Status Slot::Apply(const wal::Record& record) {
  Impl& s = *impl_;
  if (record.kind != wal::RecordKind::kPut && record.kind != wal::RecordKind::kDelete) {
    return Status::InvalidArgument("slot: Apply takes a Put or a Delete record");
  }
  if (record.key.size() > kMaxKeyBytes) return Status::InvalidArgument("key too long");
  // The master's records follow what this slot logged: a version of its own waiting for the
  // unit's close goes first (a master turned replica).
  SLOTKV_RETURN_IF_ERROR(s.Fail(s.LogPending()));
  const uint64_t hash = KeyHash(record.key);
  if (record.kind == wal::RecordKind::kDelete) {
    return s.LogWrite(wal::RecordKind::kDelete, record.key, hash, {}, ValueType::kString, 0,
                      record.seq);
  }
  s.counters.user_bytes_written += record.key.size() + record.value.size();
  const auto type = static_cast<ValueType>(record.type_tag & ~kSpliceTag);
  std::string spliced;
  std::string_view value = record.value;
  if (record.type_tag & kSpliceTag) {  // a delta against this slot's version of the key
    SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> base, s.CurrentValue(record.key, hash));
    if (!base) {
      return Status::Corruption("a value delta of key " + record.key +
                                " the slot has no version of");
    }
    SLOTKV_RETURN_IF_ERROR(ApplyDelta(*base, record.value, &spliced));
    value = spliced;
  }
  if ((record.type_tag & kCompressedTag) == 0 && s.Holdable(record.key, type, value)) {
    SLOTKV_ASSIGN_OR_RETURN(
        bool held, s.PutHeld(record.key, hash, value, type, record.expire_at_ms, {}, record.seq));
    if (held) return Status::OK();
  }
  // Stored as the master stored it: a compressed value keeps its tag (kCompressedTag); a raw
  // one compresses when its group flushes, with the dictionaries the master sent (a replica
  // trains none on what it is sent: it is not offered to Dictionaries::Observe).
  return s.LogWrite(wal::RecordKind::kPut, record.key, hash, value, type, record.expire_at_ms,
                    record.seq);
}

uint64_t Slot::stream_seq() const { return impl_->stream_seq; }

Result<bool> Slot::Delete(std::string_view key) {
  Impl& s = *impl_;
  uint64_t hash = KeyHash(key);
  uint32_t g = s.GroupOfHash(hash);
  bool live = false;
  bool known = false;  // something to remove (live or expired): a tombstone is worth writing
  std::optional<keybucket::Cell> cell;
  if (const MapEntry* entry = s.groups[g].map.Find(key, hash)) {
    known = !entry->tombstone;
    live = !entry->tombstone && !s.Expired(entry->expire_at_ms);
  } else {
    SLOTKV_ASSIGN_OR_RETURN(cell, s.buckets->Lookup(hash, key));
    known = cell.has_value();
    live = known && !s.Expired(cell->expire_at_ms);
  }
  if (!known) return false;
  SLOTKV_RETURN_IF_ERROR(
      s.LogWrite(wal::RecordKind::kDelete, key, hash, {}, ValueType::kString, 0));
  // A root in the buckets goes over now, not at the group's flush: on a server that writes
  // nothing more that flush never comes, and a DEL of a persisted 10M-member sorted set left
  // its 770k pages for good.
  if (cell && s.MayBeRoot(key, cell->type_tag)) {
    s.NoteReplaced(FromCell(std::move(*cell)), false, 0, {});
    s.groups[g].map.Find(key, hash)->root_noted = true;
  }
  return live;
}

Status Slot::Commit(bool flush) {
  Impl& s = *impl_;
  SLOTKV_RETURN_IF_ERROR(s.Refusal());
  if (!s.held) {
    SLOTKV_RETURN_IF_ERROR(s.Fail(s.CloseUnit(flush)));
    SLOTKV_RETURN_IF_ERROR(s.Fail(s.PublishDue()));
  }
  SLOTKV_RETURN_IF_ERROR(s.Fail(s.log->Commit()));  // held: the units before the held one
  s.TapWritten();
  return Status::OK();
}

void Slot::CommitThen(std::function<void(const Status&)> done) {
  Impl& s = *impl_;
  Status st = s.Refusal();
  if (st.ok() && !s.held) st = s.Fail(s.CloseUnit(/*flush=*/false));
  if (st.ok() && !s.held) st = s.Fail(s.PublishDue());
  if (!st.ok()) {
    done(st);
    return;
  }
  // A failure of the ring's write or fsync is the log's: Refusal adopts it at the next call.
  if (s.tap) {
    // The units it writes are told before the writer hears of them.
    done = [tap = s.tap, id = s.TapTake(), done = std::move(done)](const Status& st) {
      Impl::CommitTap::Done(tap, id, st);
      done(st);
    };
  }
  s.log->CommitThen(std::move(done));
}

bool Slot::flush_due() const {
  const Impl& s = *impl_;
  // Not while a log rotation's syncs are in flight with appendfsync always: a flush's
  // synchronous commit of its mark would do them in place (Log::rotating; the commit after
  // their completion notes the slot again).
  return (!s.due.empty() || (s.written_since_step && s.WalPastLimit())) && !s.held &&
         !s.log->rotating() && !s.fetching;
}

bool Slot::flush_deferrable() const {
  const Impl& s = *impl_;
  return s.log->total_bytes() <= s.HardWalLimit() &&
         s.clock->MonotonicUs() - s.last_write_us >= kWriteQuietUs;
}

Status Slot::FlushStep(std::function<void()> on_fetched) {
  Impl& s = *impl_;
  // The commit that closes the unit comes back; so does the one after a rotation's syncs.
  if (s.held || s.unit_open || s.log->rotating() || s.fetching) return Status::OK();
  SLOTKV_RETURN_IF_ERROR(s.Refusal());
  return s.Fail(s.StepFlushes(std::move(on_fetched)));
}

Result<bool> Slot::IdleFlushStep(std::function<void()> on_fetched) {
  Impl& s = *impl_;
  if (s.held || s.unit_open || s.log->rotating() || s.fetching || s.publishing ||
      s.clock->MonotonicUs() - s.last_write_us < kIdleFlushUs) {
    return false;
  }
  SLOTKV_RETURN_IF_ERROR(s.Refusal());
  const auto n = static_cast<uint32_t>(s.groups.size());
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t g = (s.idle_flush_cursor + i) % n;
    if (s.groups[g].map.size() == 0 && !s.MovesReady(s.groups[g])) continue;
    auto no_wait = s.NoWaitFlushes(on_fetched);
    Status st = s.FlushGroup(g);
    if (!s.flush_blocked.empty()) {  // put off untouched: this group again once fetched
      s.idle_flush_cursor = g;
      s.FetchBlocked(std::move(on_fetched));
      return true;
    }
    s.idle_flush_cursor = (g + 1) % n;
    s.flush_fetch_tries = 0;
    // The log files it freed go. Not KeepWalWithinLimit: its flushes for the log's limit would
    // read with no wait too, and one put off there would be lost here.
    if (st.ok()) st = s.RemoveObsoleteLogFiles();
    s.log->EndUnit();  // the mark of that flush
    SLOTKV_RETURN_IF_ERROR(s.Fail(st));
    return true;
  }
  return false;
}

void Slot::Hold() {
  Impl& s = *impl_;
  assert(!s.held);
  // What was written before is its own unit, which the commits during the hold write: those
  // writes were made (and will be acknowledged) apart from the holder's. A failure to log
  // their pending pages fails the slot: their commit reports it.
  s.Fail(s.LogPending()).PermitUnchecked();
  s.log->EndUnit();
  s.TapEndUnit();
  s.unit_open = false;
  s.held = true;
  s.log->Hold();
}

void Slot::Unhold() {
  impl_->held = false;
  impl_->log->Unhold();
}

bool Slot::held() const { return impl_->held; }

void Slot::DeferCompaction(bool defer) { impl_->compaction_deferred = defer; }

// With everysec, flushed data becomes durable (and its marks are logged) once a second.
Status Slot::Impl::PublishDue() {
  constexpr int64_t kPublishEveryUs = 1'000'000;
  SLOTKV_RETURN_IF_ERROR(publish_failure);
  if (!pending_marks.empty() && !publishing && options.fsync == wal::FsyncPolicy::kEverySec &&
      clock->MonotonicUs() - last_publish_us >= kPublishEveryUs && !StartPublish()) {
    SLOTKV_RETURN_IF_ERROR(PublishMarks());
  }
  return Status::OK();
}

wal::FsyncPolicy Slot::fsync_policy() const { return impl_->options.fsync; }

Status Slot::SetFsyncPolicy(wal::FsyncPolicy fsync) {
  Impl& s = *impl_;
  if (s.options.fsync == fsync) return Status::OK();
  if (s.held) return Status::Busy("slot: a unit is held open");
  SLOTKV_RETURN_IF_ERROR(s.Refusal());
  if (s.options.memory) {
    s.options.fsync = fsync;
    return Status::OK();
  }
  SLOTKV_RETURN_IF_ERROR(s.Fail(s.ChangeFsync(fsync)));
  s.TapWritten();  // ChangeFsync synced every closed unit
  return Status::OK();
}

Status Slot::Impl::ChangeFsync(wal::FsyncPolicy fsync) {
  // Everything written so far becomes durable first, so no flush is left half under each rule.
  SLOTKV_RETURN_IF_ERROR(chunks->SyncAll());
  SLOTKV_RETURN_IF_ERROR(buckets->SyncAll());
  SLOTKV_RETURN_IF_ERROR(CloseUnit());
  SLOTKV_RETURN_IF_ERROR(PublishMarks());
  log->EndUnit();
  SLOTKV_RETURN_IF_ERROR(log->Sync());
  options.fsync = fsync;
  log->set_fsync(fsync);
  buckets->set_fsync(FsyncEachFlush());
  chunks->set_fsync(FsyncEachFlush());
  return Status::OK();
}

bool Slot::empty() const {
  return impl_->buckets->cell_count() == 0 && impl_->wal_entries == 0;
}

Status Slot::Impl::ResolveBases(Group& group) {
  Status failure;
  group.map.ForEach([&](std::string_view key, uint64_t hash, MapEntry& entry) {
    if (!failure.ok() || entry.base != BaseState::kUnknown) return;
    Result<bool> has = HasCell(hash, key);
    if (!has.ok()) {
      failure = has.status();
      return;
    }
    CountEntry(group, entry, -1);
    entry.base = *has ? BaseState::kPresent : BaseState::kAbsent;
    CountEntry(group, entry, 1);
  });
  return failure;
}

Result<uint64_t> Slot::KeyCount() {
  Impl& s = *impl_;
  int64_t count = static_cast<int64_t>(s.buckets->cell_count());
  for (Group& group : s.groups) {
    if (group.unknown_base > 0) SLOTKV_RETURN_IF_ERROR(s.ResolveBases(group));
    count += group.key_delta;
  }
  return static_cast<uint64_t>(count);
}

Result<bool> Slot::ResolveKeyCount(int64_t slice_us) {
  Impl& s = *impl_;
  const int64_t until = s.clock->MonotonicUs() + slice_us;
  bool resolved_one = false;  // each call makes progress, whatever the clock says
  for (Group& group : s.groups) {
    if (group.unknown_base == 0) continue;
    if (resolved_one && s.clock->MonotonicUs() >= until) return false;
    SLOTKV_RETURN_IF_ERROR(s.ResolveBases(group));
    resolved_one = true;
  }
  return true;
}

void Slot::Impl::ResetGroup(Group& group) {
  map_bytes -= group.map.memory_bytes();
  for (const HeldValue& h : group.held) {
    held_bytes -= h.memory_bytes();
    decoded_bytes -= h.decoded_bytes;
    pending_bytes -= h.base.size();
  }
  if (group.ttl) --groups_with_ttl;
  std::unique_ptr<PendingMoves> moves = std::move(group.moves);
  group = Group();
  group.moves = std::move(moves);
}

Status Slot::failure() const { return impl_->Failure(); }

SlotStats Slot::Stats() const {
  const Impl& s = *impl_;
  SlotStats stats = s.counters;
  stats.failed = failure().ok() ? 0 : 1;
  stats.disk_bytes_written = s.log->stats().bytes_written +
                             s.buckets->stats().page_bytes_written +
                             s.chunks->stats().bytes_written;
  stats.disk_bytes = s.log->total_bytes() + s.buckets->disk_bytes() + s.chunks->disk_bytes();
  stats.wal_entries = s.wal_entries;
  stats.wal_map_bytes = s.MapMemory();
  stats.wal_bytes = s.log->total_bytes();
  stats.wal_truncated_bytes += s.log->truncated_tail_bytes();
  const keybucket::BucketStoreStats& b = s.buckets->stats();
  const chunk::ChunkStoreStats& c = s.chunks->stats();
  stats.bucket_splits = b.splits;
  stats.bucket_cache_hits = b.cache_hits;
  stats.bucket_cache_misses = b.pages_read;
  stats.bucket_cache_bytes = b.cache_bytes;
  stats.chunk_segments_used = c.segments_used;
  stats.chunk_segments_free = c.segments_free;
  stats.compacted_segments = c.compacted_segments;
  stats.compacted_bytes = c.compacted_bytes;
  stats.chunk_cache_hits = c.cache_hits;
  stats.chunk_cache_misses = c.cache_misses;
  stats.chunk_cache_bytes = c.cache_bytes;
  stats.value_cache_hits = s.value_cache.hits();
  stats.value_cache_misses = s.value_cache.misses();
  stats.value_cache_bytes = s.value_cache.size_bytes();
  stats.cache_budget_bytes = s.cache_budget;
  return stats;
}

}  // namespace slotkv::slot
