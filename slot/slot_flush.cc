// Group persistence: merging a WAL group's map into its buckets, with just-in-time compaction
// of the group's chunk segments riding on the same batch. See the design note in slot.h.
//
// Order of a flush, and why:
//   1. log Commit        the records reach the OS before any data file depends on them
//   2. read the group's buckets; merge the map; drop expired cells; compact segments
//   3. chunk SyncData    values (new and carried forward) are durable before any page names them
//   4. bucket writes + Sync
//   5. chunk Commit      frees segments only once no durable page points at them
//   6. log GroupFlushed  replay may now skip the group's older records
// A crash anywhere before 6 replays the group's records and redoes the flush, which writes the
// same cells again: the group map holds the newest write of each key in log order.
//
// The log's order decides, never the seq: Slot::Apply writes the master's seqs, which may come
// lower than ones applied before, and the later write wins. So the merge lets the map's entry
// replace a cell whatever their seqs, and replay drops, at a mark of group g, the entries
// whose records end by the place g's latest kGroupFlushing record names (a flush persists
// the entries of the map it found that end there, the log's durable end with everysec and no,
// every one with always: slot_kept.cc; and a mark is logged only once every flush before it is
// durable, so also the latest's), not the entries with seq <= the mark's. A mark whose
// kGroupFlushing was in a removed file drops nothing: every record left was logged after that
// flush started.
//
// With appendfsync always every step syncs. Otherwise (everysec, no) the data files are not
// synced per flush, so steps 5 and 6 wait: PublishMarks syncs every data file, then commits
// the chunk frees, then logs the pending marks, once a second with everysec and always before
// log files are removed. A power cut then loses at most what the log lost, and never leaves a
// page pointing at a freed segment. Compaction's copies exist nowhere else: no page points at
// one before a publish synced it (compaction.h). Replay drops only the entries a mark covers
// (logged before the group's kGroupFlushing record), since a late mark can follow newer writes
// of its group.
//
// On a worker the publish does not block it: StartPublish submits the fsyncs to the worker's
// io_uring and FinishPublish commits and logs when they complete. Meanwhile no flush runs
// (FlushDue waits), since the Commit at the end frees every segment released so far, and a
// later flush's pages would not be covered by the fsyncs. A synchronous publish or flush
// (SAVE, shutdown, an fsync policy change) voids the one in flight and covers its marks.
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstring>
#include <iterator>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "chunk/value_ptr.h"
#include "core/base/cleanup.h"
#include "core/base/hash.h"
#include "core/base/io_ring.h"
#include "core/base/no_wait_reads.h"
#include "slot/compaction.h"
#include "slot/slot_impl.h"

namespace slotkv::slot {
namespace {

using keybucket::Cell;

Status DecodePtr(const Cell& cell, chunk::ValuePtr* ptr) {
  if (!chunk::DecodeValuePtr(cell.payload, ptr)) {
    return Status::Corruption("bad value pointer in the cell of key " + cell.key);
  }
  return Status::OK();
}

// Every value pointer the cells of a group's buckets hold: after a failed flush its pages may
// be old or new, each (some were written, maybe not synced), and after a restart they may name
// places a power cut lost, so the live bytes of its runs are recounted from the pages
// themselves: they are the only references to the group's runs.
Status PointersOf(const GroupCells& group_cells, std::vector<chunk::ValuePtr>* referenced) {
  for (const BucketCells& bc : group_cells.cells) {
    for (const Cell& cell : bc.cells) {
      if (!cell.is_pointer) continue;
      SLOTKV_RETURN_IF_ERROR(DecodePtr(cell, &referenced->emplace_back()));
    }
  }
  return Status::OK();
}

}  // namespace

Status Slot::Impl::FlushDue(uint32_t g) {
  if (publishing) return Status::OK();
  const uint64_t flushes = counters.flushes;
  if (NeedsFlush(g)) SLOTKV_RETURN_IF_ERROR(FlushGroup(g));
  return KeepWalWithinLimit(flushes);
}

Status Slot::Impl::KeepWalWithinLimit(uint64_t flushes, int past_limit_budget) {
  if (publishing) return Status::OK();
  SLOTKV_ASSIGN_OR_RETURN(const bool unpinned, EnforceWalLimit(past_limit_budget));
  return counters.flushes == flushes && !unpinned ? Status::OK() : RemoveObsoleteLogFiles();
}

Status Slot::Impl::FlushGroup(uint32_t g) {
  CancelPublish();
  Group& group = groups[g];
  if (group.map.empty() && !MovesReady(group)) return Status::OK();
  // Only records the log has synced are persisted (slot_kept.cc).
  std::optional<wal::LogPos> upto;
  SLOTKV_ASSIGN_OR_RETURN(const bool any, PersistUpto(g, &upto));
  if (!any) return Status::OK();
  auto persists = [&upto](const MapEntry& e) { return !upto || wal::EndsBy(e.pos, *upto); };
  const auto flush_start = std::chrono::steady_clock::now();
  const uint32_t first = g * options.buckets_per_group;
  const uint32_t end = std::min(first + options.buckets_per_group, buckets->bucket_count());
  GroupCells group_cells{.buckets = buckets.get(), .first = first, .cells = {}};
  group_cells.cells.resize(end - first);
  std::vector<BucketCells>& bucket_cells = group_cells.cells;

  // The values to persist: from the value cache when it holds that version as logged (it
  // holds a key's newest version or nothing, and a value logged raw is cached as is), else
  // read back from the log, in one batch (one read per record was half of the flush's time
  // under an engine_bench load of 3M keys, larger than the cache: 4.9 of 10 s). `now` is fixed
  // for the whole merge so that this pass and the next agree on what has expired.
  const int64_t now = clock->NowMs();
  // An expired collection is persisted all the same: ActiveExpireStep's delete of it hands a
  // paged root over (TakeDiscardedRoots).
  auto live = [now](const MapEntry& e) {
    return !e.tombstone && (e.expire_at_ms == 0 || e.expire_at_ms > now ||
                            IsCollection(TypeOf(static_cast<ValueType>(e.type))));
  };
  constexpr size_t kNoValue = SIZE_MAX;
  struct Pending {
    std::string_view key;  // in the group map, which does not change during the flush
    uint64_t hash;
    const MapEntry* entry;
    size_t value;  // in values, or kNoValue (held, or not live)
  };
  std::vector<Pending> pending;
  std::vector<std::string> values;

  // Every read comes first, before anything changes: with flush_no_wait (a worker's flush
  // step) a read the page cache cannot serve makes the flush give up here, untouched, while
  // the regions are fetched. Waiting for them on the worker held it for 30-200 ms at a time
  // in a 50M-key load (the longest flushes, and the longest PING waits).
  auto read = [&]() -> Status {
    // A bucket with no cell is neither read nor, unless the map adds to it, written: its
    // count is exact (Open recounts the buckets of a group whose flush a crash cut). Sized
    // for key-estimate, most buckets of a small data set are empty, and reading and comparing
    // their pages was most of a flush (ParseLayout of zero pages: 0.37 us per SET at -P 16).
    ReadMisses misses;
    Status st = buckets->PrefetchBuckets(first, end);
    misses.Take(st);
    SLOTKV_RETURN_IF_ERROR(st);
    pending.reserve(group.map.size());
    std::vector<wal::LogPos> positions;
    std::vector<size_t> to_read;  // the pending index of each position
    group.map.ForEach([&](std::string_view key, uint64_t hash, const MapEntry& entry) {
      if (!persists(entry)) return;
      Pending p{key, hash, &entry, kNoValue};
      if (live(entry) && entry.held == 0) {
        p.value = values.size();
        const CachedValue* cached = value_cache.Peek(key);
        if (cached != nullptr && cached->seq == entry.seq && cached->type == entry.type) {
          values.push_back(cached->value);
        } else {
          values.emplace_back();
          positions.push_back(entry.pos);
          to_read.push_back(pending.size());
        }
      }
      pending.push_back(p);
    });
    std::vector<wal::Record> records;
    st = log->ReadMany(positions, &records);
    misses.Take(st);
    SLOTKV_RETURN_IF_ERROR(st);
    // With no-wait reads, the segments compaction may copy (chosen again after the merge,
    // which may add some) are read here only to reach the page cache; reads that may wait
    // would read them twice.
    if (NoWaitReads::Current() != nullptr) {
      for (uint32_t segment : CompactionRuns(g)) {
        std::vector<chunk::ChunkRecord> unused;
        st = chunks->ReadSegment(segment, &unused);
        misses.Take(st);
        SLOTKV_RETURN_IF_ERROR(st);
      }
    }
    SLOTKV_RETURN_IF_ERROR(misses.status());
    for (uint32_t b = first; b < end; ++b) {
      if (buckets->bucket_cell_count(b) == 0) continue;
      SLOTKV_RETURN_IF_ERROR(buckets->ReadBucket(b, &bucket_cells[b - first].cells));
    }
    for (size_t k = 0; k < records.size(); ++k) {
      const Pending& p = pending[to_read[k]];
      SLOTKV_RETURN_IF_ERROR(CheckRecord(p.key, *p.entry, records[k]));
      values[p.value] = std::move(records[k].value);
    }
    return Status::OK();
  };
  {
    std::optional<NoWaitReads> scope;  // only the reads above: later ones may wait
    if (flush_no_wait && NoWaitReads::Current() == nullptr) scope.emplace();
    Status st = read();
    if (scope && !scope->blocked().empty()) {
      flush_blocked = scope->Take();
      return Status::Busy("flush: its reads would wait for the disk");
    }
    SLOTKV_RETURN_IF_ERROR(st);
  }
  for (BucketCells& bc : bucket_cells) bc.BuildIndex();

  // Logged before any page changes, so that replay after a crash mid-flush recounts the
  // group's buckets (their counts are written after the pages).
  wal::Record flushing;
  flushing.kind = wal::RecordKind::kGroupFlushing;
  flushing.seq = last_seq;
  flushing.group = g;
  if (upto) {
    flushing.upto_file = upto->file_no;
    flushing.upto_offset = upto->offset;
  }
  SLOTKV_RETURN_IF_ERROR(log->Append(flushing).status());
  log->EndUnit();
  SLOTKV_RETURN_IF_ERROR(log->Commit());
  // Places cells name that the chunk table does not hold (slot_kept.cc): never released.
  std::unordered_set<uint64_t> lost;
  if (group.recount) {
    std::vector<chunk::ValuePtr> referenced;
    SLOTKV_RETURN_IF_ERROR(PointersOf(group_cells, &referenced));
    chunks->Recount(g, referenced);
    group.recount = false;
    group.moves.reset();  // the recount found which copies the pages name
    DropLostCells(g, upto, referenced, &group_cells, &lost);
  }

  // A flush that fails takes back what it did to the chunk store (ChunkUndo), and its group's
  // live bytes are recounted by the next flush (PointersOf), since some of its pages may
  // have been written. Kept, a failed flush's retry released the same values again, and a
  // later Commit freed runs that durable pages still pointed at.
  ChunkUndo chunk_undo;
  const chunk::ChunkStore::AddMark before_flush = chunks->Mark();
  group.recount = true;
  Cleanup undo([&] { chunk_undo.Undo(*chunks); });
  auto release = [&](const Cell& cell) -> Status {
    if (!cell.is_pointer) return Status::OK();
    chunk::ValuePtr ptr;
    SLOTKV_RETURN_IF_ERROR(DecodePtr(cell, &ptr));
    // Not a place another group's run (or a free segment, or a run this flush allocated) took
    // after a power cut: the cell was written by a flush the cut lost, and the run it named
    // is gone with it.
    if (!lost.contains(chunk::PlaceOf(ptr)) && chunks->Holds(g, ptr, before_flush)) {
      chunk_undo.Release(*chunks, ptr);
    }
    return Status::OK();
  };

  // Merge the map: the newest write of each key replaces or removes its cell.
  std::vector<std::vector<Cell>> appended(end - first);
  for (const auto& [key, hash, entry_ptr, value_at] : pending) {
    const MapEntry& entry = *entry_ptr;
    const HeldValue* held = live(entry) ? group.HeldOf(entry) : nullptr;
    std::string* logged = value_at != kNoValue ? &values[value_at] : nullptr;
    uint32_t b = buckets->BucketOf(hash) - first;
    BucketCells& bc = bucket_cells[b];
    size_t at = bc.Position(hash, key);
    Cell* old = at == BucketCells::kNone || bc.removed[at] ? nullptr : &bc.cells[at];
    // Before its release, while its chunk is there; not again after Slot::Delete noted it.
    if (old && MayBeRoot(key, old->type_tag) && !entry.root_noted) {
      const std::string_view next = held     ? std::string_view(held->value)
                                    : logged ? std::string_view(*logged)
                                             : std::string_view();
      NoteReplaced(FromCell(Cell(*old)), held != nullptr || logged != nullptr,
                   held ? PlainTag(entry.type) : entry.type, next);
    }
    if (old) {
      SLOTKV_RETURN_IF_ERROR(release(*old));
      bc.removed[at] = true;
    }
    if (entry.tombstone) continue;
    if (logged == nullptr && held == nullptr) {  // expired before it was persisted
      ++counters.expired_keys;
      value_cache.Erase(key);
      continue;
    }
    Cell cell;
    std::string value;
    if (held != nullptr) {
      cell.type_tag = StoreHeld(key, entry, *held, &value);
      // Read while held (a page of a collection being written): its next read-modify-write
      // finds it in the value cache, neither read back nor decompressed.
      if (Cacheable(held->value.size()) && value_admission.Seen(hash)) {
        CacheValue(key, CachedValue{entry.seq, entry.expire_at_ms, PlainTag(entry.type),
                                    held->value});
      }
    } else {
      // Logged raw (Put, Apply): compressed now.
      cell.type_tag = (entry.type & kCompressedTag)
                          ? entry.type
                          : CompressInto(key, *logged, entry.type, &value, /*observed=*/true);
      if (cell.type_tag == entry.type) value = std::move(*logged);
    }
    cell.hash = hash;
    cell.seq = entry.seq;
    cell.expire_at_ms = entry.expire_at_ms;
    cell.key = key;
    if (value.size() <= options.inline_value_bytes) {
      cell.payload = std::move(value);
    } else {
      SLOTKV_ASSIGN_OR_RETURN(chunk::ValuePtr ptr, chunks->Add(g, key, value));
      cell.is_pointer = true;
      chunk::EncodeValuePtr(ptr, &cell.payload);
    }
    if (old) {
      bc.cells[at] = std::move(cell);
      bc.removed[at] = false;
    } else {
      appended[b].push_back(std::move(cell));
    }
  }

  // Drop expired cells, but collections: ActiveExpireStep's delete of one hands a paged root
  // over (TakeDiscardedRoots).
  for (BucketCells& bc : bucket_cells) {
    for (size_t i = 0; i < bc.cells.size(); ++i) {
      if (bc.removed[i] || !Expired(bc.cells[i].expire_at_ms)) continue;
      if (IsCollection(TypeOf(static_cast<ValueType>(bc.cells[i].type_tag)))) continue;
      SLOTKV_RETURN_IF_ERROR(release(bc.cells[i]));
      bc.removed[i] = true;
      ++counters.expired_keys;
      value_cache.Erase(bc.cells[i].key);
    }
  }

  // Just-in-time compaction (compaction.h): the moves of the last one first, once published;
  // then the live values of mostly-dead runs carried forward, in place when the flush syncs.
  // The moves are forgotten whether this flush succeeds or not: a failed one has its next
  // recount the group's live bytes from its pages.
  if (MovesReady(group)) {
    ApplyMoves(*chunks, *group.moves, group_cells, chunk_undo);
    group.moves.reset();
  }
  const std::vector<uint32_t> compacted = CompactionRuns(g);
  const bool in_place = !DefersMarks() || compact_in_place;
  std::unique_ptr<PendingMoves> moves;
  if (!in_place && !compacted.empty()) {
    moves = std::make_unique<PendingMoves>();
    moves->publishes = counters.publishes;
  }
  SLOTKV_RETURN_IF_ERROR(CopyRuns(*chunks, g, compacted, group_cells, chunk_undo, moves.get()));

  SLOTKV_RETURN_IF_ERROR(chunks->SyncData());
  // Without per-flush fsync, values moved in place exist nowhere but in the new segments: make
  // them (and their table entries) durable before any page can point at them.
  if (!compacted.empty() && in_place && DefersMarks()) {
    SLOTKV_RETURN_IF_ERROR(chunks->SyncAll());
  }
  for (uint32_t b = first; b < end; ++b) {
    BucketCells& bc = bucket_cells[b - first];
    if (bc.cells.empty() && appended[b - first].empty()) continue;  // empty and stays so
    std::vector<Cell> out;
    out.reserve(bc.cells.size() + appended[b - first].size());
    for (size_t i = 0; i < bc.cells.size(); ++i) {
      if (!bc.removed[i]) out.push_back(std::move(bc.cells[i]));
    }
    for (Cell& cell : appended[b - first]) out.push_back(std::move(cell));
    SLOTKV_RETURN_IF_ERROR(buckets->WriteBucket(b, out));
  }
  SLOTKV_RETURN_IF_ERROR(buckets->Sync());
  undo.Cancel();
  group.recount = false;
  if (moves != nullptr) group.moves = std::move(moves);

  wal::Record mark;
  mark.kind = wal::RecordKind::kGroupFlushed;
  mark.seq = last_seq;
  mark.group = g;
  if (DefersMarks()) {
    pending_marks.push_back(std::move(mark));  // chunk frees and the mark wait for PublishMarks
  } else {
    SLOTKV_RETURN_IF_ERROR(chunks->Commit());
    SLOTKV_RETURN_IF_ERROR(log->Append(mark).status());
  }
  if (pending.size() == group.map.size()) {
    wal_entries -= group.map.size();
    ResetGroup(group);
    MaybeSizeCaches();
  } else {
    counters.flush_kept_entries += group.map.size() - pending.size();
    SLOTKV_RETURN_IF_ERROR(RetainAfter(g, *upto, /*relog=*/true));
    group.kept_upto = *upto;
  }
  ++counters.flushes;
  counters.flush_usec += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                            flush_start)
          .count());
  return Status::OK();
}

std::vector<uint32_t> Slot::Impl::CompactionRuns(uint32_t g) const {
  if (compaction_deferred || (groups[g].moves != nullptr && !MovesReady(groups[g]))) return {};
  return chunks->CompactionCandidates(g, kCompactRunsPerFlush);
}

Status Slot::Impl::RemoveObsoleteLogFiles() {
  uint32_t oldest = log->current_file_no();
  for (const Group& group : groups) oldest = std::min(oldest, group.oldest_file);
  if (oldest <= log->oldest_file_no()) return Status::OK();
  // The marks of the flushes that freed these files (and the data they vouch for) must be
  // durable before the records they cover disappear.
  if (publishing) return Status::OK();                       // FinishPublish comes back here
  // From FinishPublish (an io_uring completion) between a write and its commit: the commit and
  // sync below would close the writer's unit in the log, cutting it in two. The next flush's
  // call removes the files.
  if (unit_open && !held) return Status::OK();
  if (!pending_marks.empty() && StartPublish()) return Status::OK();  // as it does for this one
  SLOTKV_RETURN_IF_ERROR(PublishMarks());
  // The stream position those files vouch for outlives them (slot.cc, slot.seq).
  RaiseFloorBefore(oldest);
  if (options.memory || !seq_file->async()) {  // no io_uring here
    SLOTKV_RETURN_IF_ERROR(seq_file->Write());
    if (!options.memory) return log->RemoveFilesBeforeWhenDurable(oldest);
    SLOTKV_RETURN_IF_ERROR(log->Commit());
    return log->RemoveFilesBefore(oldest);
  }
  // On a worker slot.seq is synced through the io_uring, then the log (RemoveFilesBefore-
  // WhenDurable, from the completion, writes only closed units). Later calls until then would
  // only ask for the same.
  if (oldest <= removing_before) return Status::OK();
  removing_before = oldest;
  seq_file->WriteThen([this, oldest](const Status& st) {
    FailPublish(st.ok() ? log->RemoveFilesBeforeWhenDurable(oldest) : st);
  });
  return Status::OK();
}

Status Slot::Impl::PublishMarks() {
  CancelPublish();
  if (pending_marks.empty()) return Status::OK();
  const int64_t start_us = clock->MonotonicUs();
  SLOTKV_RETURN_IF_ERROR(chunks->SyncAll());
  SLOTKV_RETURN_IF_ERROR(buckets->SyncAll());
  SLOTKV_RETURN_IF_ERROR(CommitPublished(pending_marks));
  pending_marks.clear();
  last_publish_us = clock->MonotonicUs();
  counters.publish_wait_usec += static_cast<uint64_t>(last_publish_us - start_us);
  return Status::OK();
}

bool Slot::Impl::StartPublish() {
  IoRing* ring = IoRing::Current();
  std::vector<File*> files;
  uint64_t chunk_dir = 0;
  uint64_t bucket_dir = 0;
  if (ring == nullptr || !chunks->SyncHandles(&files, &chunk_dir) ||
      !buckets->SyncHandles(&files, &bucket_dir)) {
    return false;
  }
  // Files created since the directory was last synced (after Open, a split's deeper page
  // file): the directory, which holds both stores, is synced with them.
  int dir_fd = -1;
  if (chunk_dir != 0 || bucket_dir != 0) {
    dir_fd = options.fs->OpenDir(options.dir);
    if (dir_fd < 0) return false;
  }
  auto p = std::make_shared<PublishInFlight>();
  p->slot = this;
  p->marks.swap(pending_marks);
  publishing = p;
  last_publish_us = clock->MonotonicUs();
  // One answer for the fsyncs of the files (and of the directory).
  auto finish = [p, chunk_dir, bucket_dir](int error) {
    Impl* s = p->slot;
    if (s == nullptr) return;
    s->publishing.reset();
    if (error == 0) {
      s->chunks->DirSynced(chunk_dir);
      s->buckets->DirSynced(bucket_dir);
    }
    s->FailPublish(error != 0 ? Status::IOError(std::string("publish: fdatasync: ") +
                                                std::strerror(error))
                              : s->FinishPublish(p->marks));
  };
  auto parts = JoinAnswers(files.size() + (dir_fd >= 0 ? 1 : 0), std::move(finish));
  for (size_t i = 0; i < files.size(); ++i) files[i]->RingSync(*ring, std::move(parts[i]));
  if (dir_fd >= 0) {
    options.fs->RingSyncDir(*ring, dir_fd, options.dir, std::move(parts.back()));
    close(dir_fd);  // the ring syncs a duplicate
  }
  return true;
}

Status Slot::Impl::FinishPublish(const std::vector<wal::Record>& marks) {
  SLOTKV_RETURN_IF_ERROR(CommitPublished(marks));
  return RemoveObsoleteLogFiles();
}

Status Slot::Impl::CommitPublished(const std::vector<wal::Record>& marks) {
  // Only now, with the pages durable, may the segments the flushes stopped using be freed.
  SLOTKV_RETURN_IF_ERROR(chunks->Commit());
  for (const wal::Record& mark : marks) SLOTKV_RETURN_IF_ERROR(log->Append(mark).status());
  ++counters.publishes;
  return Status::OK();
}

void Slot::Impl::CancelPublish() {
  if (!publishing) return;
  publishing->slot = nullptr;
  pending_marks.insert(pending_marks.begin(), std::make_move_iterator(publishing->marks.begin()),
                       std::make_move_iterator(publishing->marks.end()));
  publishing.reset();
}

void Slot::Impl::TellWalPool(uint64_t total) {
  if (options.wal_pool == nullptr) return;
  // Unsigned wrap-around adds a shrink as well as a growth.
  options.wal_pool->bytes.fetch_add(total - wal_pool_told, std::memory_order_relaxed);
  wal_pool_told = total;
}

uint64_t Slot::Impl::WalLimit() const {
  const uint64_t share = options.wal_max_bytes;
  if (options.wal_pool == nullptr) return share;
  const uint64_t used = options.wal_pool->bytes.load(std::memory_order_relaxed);
  const uint64_t room = options.wal_pool->max_bytes - std::min(options.wal_pool->max_bytes, used);
  return std::min(share + room, share * kWalBorrow);
}

Result<bool> Slot::Impl::EnforceWalLimit(int past_limit_budget) {
  const uint64_t total = log->total_bytes();
  TellWalPool(total);
  const uint32_t oldest = log->oldest_file_no();
  const uint64_t limit = WalLimit();
  const uint64_t soft = limit - std::min(limit, options.wal_file_bytes);
  // Only older files can be freed by flushing; the current one is never removed.
  if (total <= soft || oldest == log->current_file_no()) {
    wal_pace_bytes = 0;
    return false;
  }
  const uint32_t n = static_cast<uint32_t>(groups.size());
  // New records go to the current file: once no group pins the oldest one, none will, and
  // flushing cannot free it sooner (its removal waits for the marks to be durable).
  if (oldest != wal_limit_file) {
    wal_limit_file = oldest;
    wal_limit_misses = 0;
  }
  if (wal_limit_misses >= n) {
    // Only the removal is left, which a publish in flight, or one completing inside a unit,
    // may have put off (RemoveObsoleteLogFiles): asked again after each file of appends.
    if (wal_pace_bytes < options.wal_file_bytes) return false;
    wal_pace_bytes = 0;
    return true;
  }
  // Within a file of the limit, the groups pinning the oldest file are flushed one at a time,
  // one per file_bytes / (2 * groups) bytes appended: every group gets its turn within half a
  // file of appends, so the oldest file goes before the limit, and the flushes spread over the
  // writes instead of bunching there (a bunch of flushes in one event-loop turn was SET p99.9
  // of 150 ms at 10M keys). Past the limit (the pace fell behind), up to past_limit_budget.
  int budget = past_limit_budget;
  if (total <= limit) {
    const uint64_t step = std::max<uint64_t>(1, options.wal_file_bytes / (2 * uint64_t{n}));
    if (wal_pace_bytes < step) return false;
    wal_pace_bytes -= step;
    budget = 1;
  }
  // Search a bounded stretch of groups from where the last call stopped. Not while a log
  // rotation's syncs are in flight (Log::rotating), nor when a flush's mark would start one:
  // the flush's synchronous commit of its mark would do the syncs in place (StepFlushes
  // starts the rotation instead). In a 10M-key load that was 65 fdatasync and directory
  // fsync pairs on the workers, up to 14 ms each.
  int flushed = 0;
  for (uint32_t i = 0; i < std::min<uint32_t>(n, 256) && flushed < budget && !log->rotating() &&
                       !log->full();
       ++i) {
    uint32_t g = wal_limit_cursor;
    wal_limit_cursor = (wal_limit_cursor + 1) % n;
    if (groups[g].oldest_file != oldest) {
      if (++wal_limit_misses >= n) break;
      continue;
    }
    if (groups[g].Repin() != oldest) {  // its records there were all overwritten: no flush
      if (++wal_limit_misses >= n) break;
      continue;
    }
    wal_limit_misses = 0;
    if (Status st = FlushGroup(g); !st.ok()) {
      if (!flush_blocked.empty()) wal_limit_cursor = g;  // its turn again once fetched
      return st;
    }
    ++flushed;
  }
  return wal_limit_misses >= n;  // no group pins the oldest file now
}

bool Slot::Impl::WalPastLimit() const {
  return log->total_bytes() > WalLimit() && log->oldest_file_no() != log->current_file_no() &&
         !(wal_limit_file == log->oldest_file_no() && wal_limit_misses >= groups.size());
}

Status Slot::Impl::StepFlushes(std::function<void()> on_fetched) {
  // A flush's mark would start the next log file, and the flush's synchronous commit of it do
  // the rotation's syncs in place: the rotation starts here instead, through the io_uring, and
  // the flushes wait for the next step (flush_due() is false until its syncs complete).
  if (log->full()) return log->StartNewFile();
  auto no_wait = NoWaitFlushes(on_fetched);
  const int64_t start = clock->MonotonicUs();
  const bool writing = std::exchange(written_since_step, false);
  const uint64_t flushes_before = counters.flushes;
  Status st = RunDueFlushes(1);
  while (st.ok() && writing && !publishing && WalPastLimit() &&
         clock->MonotonicUs() - start < kLimitSliceUs) {
    const uint64_t flushes = counters.flushes;
    st = KeepWalWithinLimit(flushes);
    if (counters.flushes == flushes) break;  // repins only, or nothing left to flush
  }
  log->EndUnit();  // the marks of those flushes
  if (counters.flushes != flushes_before) flush_fetch_tries = 0;
  if (flush_blocked.empty()) return st;
  FetchBlocked(std::move(on_fetched));
  return Status::OK();
}

bool Slot::Impl::MayFlushNoWait(const std::function<void()>& on_fetched) const {
  return on_fetched && IoRing::Current() != nullptr && flush_fetch_tries < kNoWaitTries;
}

void Slot::Impl::FetchBlocked(std::function<void()> on_fetched) {
  // The flush that met the disk changed nothing: it runs again once its reads are in the page
  // cache, from a step the completion asks for, and the worker serves requests meanwhile.
  ++flush_fetch_tries;
  ++counters.flush_fetches;
  auto f = std::make_shared<FetchInFlight>();
  f->slot = this;
  fetching = f;
  IoRing::Current()->Fetch(std::exchange(flush_blocked, {}),
                           [f, on_fetched = std::move(on_fetched)] {
                             if (f->slot == nullptr) return;
                             f->slot->fetching.reset();
                             on_fetched();
                           });
}

Status Slot::Flush() {
  Impl& s = *impl_;
  if (s.held) return Status::Busy("slot: a unit is held open");
  SLOTKV_RETURN_IF_ERROR(s.Refusal());
  SLOTKV_RETURN_IF_ERROR(s.Fail(s.FlushAll()));
  s.TapWritten();  // FlushAll synced every closed unit
  return Status::OK();
}

Status Slot::Impl::FlushAll() {
  Impl& s = *this;
  SLOTKV_RETURN_IF_ERROR(s.CloseUnit());
  // Every record durable, so that the flushes below persist every entry (FlushGroup).
  if (!s.options.memory) SLOTKV_RETURN_IF_ERROR(s.log->Sync());
  // Pending moves become ready (their copies synced: they wait for the marks of the flushes
  // that made them), so that every group's flush applies them; and these flushes leave none.
  if (std::any_of(s.groups.begin(), s.groups.end(),
                  [](const Group& group) { return group.moves != nullptr; })) {
    SLOTKV_RETURN_IF_ERROR(s.PublishMarks());
  }
  s.compact_in_place = true;
  Cleanup in_place([&s] { s.compact_in_place = false; });
  for (uint32_t g = 0; g < s.groups.size(); ++g) SLOTKV_RETURN_IF_ERROR(s.FlushGroup(g));
  // Also records the expiry flags that steps cleared since the last group flush.
  SLOTKV_RETURN_IF_ERROR(s.buckets->Sync());
  SLOTKV_RETURN_IF_ERROR(s.PublishMarks());
  s.log->EndUnit();
  SLOTKV_RETURN_IF_ERROR(s.options.memory ? s.log->Commit() : s.log->Sync());
  // Every record is in bucket and chunk files now: a fresh log file lets all the old ones go.
  SLOTKV_RETURN_IF_ERROR(s.log->StartNewFile());
  s.RaiseFloorBefore(s.log->current_file_no());
  SLOTKV_RETURN_IF_ERROR(s.seq_file->Write());
  return s.log->RemoveFilesBefore(s.log->current_file_no());
}

}  // namespace slotkv::slot
