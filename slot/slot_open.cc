// Slot::Open (the files, the log's replay, the held values it rebuilds) and Slot::Recover.
//
// slot.meta, written once when the slot is created (before any other file), then read:
//   meta_file := magic:"SKVS" version:fixed32(1) buckets_per_group:fixed32 crc32:fixed32
//   crc32 = Checksum(the 12 bytes before it)
// The grouping decides which log records a GroupFlushed record covers, so it can never change
// for an existing slot; the options' value is used only at creation.
#include <algorithm>
#include <optional>

#include "core/base/coding.h"
#include "core/base/hash.h"
#include "slot/slot.h"
#include "slot/slot_impl.h"

namespace slotkv::slot {
namespace {

// Keys per bucket at creation: a 4 KiB page holds about 90 cells of a 16-byte key, so the
// estimate fills pages to about 70%, leaving room before the first splits.
constexpr uint64_t kKeysPerBucket = 64;
constexpr char kSeqFile[] = "slot.seq";
constexpr char kMetaFile[] = "slot.meta";
constexpr char kMetaMagic[] = "SKVS";

// Reads the slot's grouping, or records `wanted` when the slot is new.
Result<uint32_t> LoadBucketsPerGroup(Fs* fs, const std::string& dir, uint32_t wanted) {
  std::string path = JoinPath(dir, kMetaFile);
  if (!fs->Exists(path)) {
    if (fs->Exists(JoinPath(dir, "buckets.meta"))) {
      return Status::Corruption(path + ": missing in an existing slot");
    }
    std::string meta(kMetaMagic, 4);
    PutFixed32(&meta, 1);
    PutFixed32(&meta, wanted);
    PutFixed32(&meta, Checksum(meta));
    SLOTKV_RETURN_IF_ERROR(fs->WriteFileAtomic(path, meta));
    return wanted;
  }
  SLOTKV_ASSIGN_OR_RETURN(std::string meta, fs->ReadFile(path));
  if (meta.size() != 16 || meta.compare(0, 4, kMetaMagic) != 0 ||
      DecodeFixed32(meta.data() + 4) != 1 || DecodeFixed32(meta.data() + 8) == 0 ||
      Checksum(std::string_view(meta.data(), 12)) != DecodeFixed32(meta.data() + 12)) {
    return Status::Corruption(path + ": damaged");
  }
  return DecodeFixed32(meta.data() + 8);
}

// Recover's test: a write of this size into a scratch file of the slot, removed at once. A disk
// that is still full refuses it, so a failed slot is not reopened only to fail again.
constexpr size_t kProbeBytes = 64 << 10;

Status ProbeWritable(Fs* fs, const std::string& dir) {
  const std::string path = JoinPath(dir, "probe.tmp");
  Status st;
  {
    SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, fs->Open(path));
    st = file->Write(0, std::string(kProbeBytes, '\0'));
  }
  Status removed = fs->Remove(path);
  return st.ok() ? removed : st;
}

}  // namespace

Slot::Impl::~Impl() {
  if (publishing) publishing->slot = nullptr;  // its completions find the slot gone
  if (fetching) fetching->slot = nullptr;
  if (tap) tap->slot = nullptr;
  if (options.wal_pool != nullptr) {
    options.wal_pool->bytes.fetch_sub(wal_pool_told, std::memory_order_relaxed);
  }
}

Result<std::unique_ptr<Slot>> Slot::Open(const SlotOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->clock = options.clock ? options.clock : SystemClock();
  Fs* fs = options.fs;
  SLOTKV_RETURN_IF_ERROR(fs->CreateDirs(options.dir));
  SLOTKV_ASSIGN_OR_RETURN(impl->seq_file, SeqFile::Open(fs, JoinPath(options.dir, kSeqFile)));

  const bool fsync = impl->FsyncEachFlush();
  SLOTKV_ASSIGN_OR_RETURN(
      uint32_t per_group,
      LoadBucketsPerGroup(fs, options.dir, std::max<uint32_t>(1, options.buckets_per_group)));
  impl->options.buckets_per_group = per_group;
  uint64_t wanted = std::max<uint64_t>(per_group, options.key_estimate / kKeysPerBucket);
  keybucket::BucketStoreOptions bucket_options;
  bucket_options.fs = fs;
  bucket_options.dir = options.dir;
  bucket_options.bucket_count = static_cast<uint32_t>(
      std::min<uint64_t>((wanted + per_group - 1) / per_group * per_group,
                         keybucket::kMaxBucketCount));
  bucket_options.page_cache_bytes = options.page_cache_bytes;
  bucket_options.fsync = fsync;
  SLOTKV_ASSIGN_OR_RETURN(impl->buckets, keybucket::BucketStore::Open(bucket_options));

  chunk::ChunkStoreOptions chunk_options;
  chunk_options.fs = fs;
  chunk_options.dir = options.dir;
  chunk_options.segment_bytes = options.segment_bytes;
  chunk_options.big_value_bytes = options.big_value_bytes;
  chunk_options.cache_bytes = options.chunk_cache_bytes;
  chunk_options.fsync = fsync;
  SLOTKV_ASSIGN_OR_RETURN(impl->chunks, chunk::ChunkStore::Open(chunk_options));

  uint32_t buckets = impl->buckets->bucket_count();
  impl->groups.resize((buckets + per_group - 1) / per_group);
  impl->value_cache.SetCapacity(options.value_cache_bytes);

  wal::Log::Options log_options;
  log_options.fs = fs;
  log_options.dir = options.dir;
  log_options.fsync = options.memory ? wal::FsyncPolicy::kNo : options.fsync;
  log_options.file_bytes = options.wal_file_bytes;
  log_options.ring_writes = options.wal_ring_writes;
  log_options.clock = impl->clock;
  Impl* state = impl.get();
  // Per group, the seq of a flush that started (kGroupFlushing) and has no mark yet, and the
  // place the group's latest flush persisted up to, which its kGroupFlushing record names
  // (what a mark covers, see slot_flush.cc).
  std::vector<std::optional<uint64_t>> flushing(impl->groups.size());
  std::vector<std::optional<wal::LogPos>> flushing_pos(impl->groups.size());
  // The root versions replayed writes replaced, with the replacing record (nullopt: a
  // delete): judged by NoteReplaced once the log is open.
  std::vector<std::pair<LiveKey, std::optional<wal::LogPos>>> replaced_in_replay;
  // Per key whose newest records are deltas: the chain of records since its whole value.
  std::unordered_map<std::string, std::vector<wal::LogPos>> chains;
  auto replay = [state, &flushing, &flushing_pos, &replaced_in_replay, &chains](
                    const wal::Record& record, const wal::LogPos& pos) -> Status {
    state->last_seq = std::max(state->last_seq, record.seq);
    if (record.kind == wal::RecordKind::kGroupFlushed ||
        record.kind == wal::RecordKind::kGroupFlushing) {
      if (record.group >= state->groups.size()) {
        return Status::Corruption("log names group " + std::to_string(record.group) +
                                  " of a slot with " + std::to_string(state->groups.size()));
      }
      std::optional<uint64_t>& started = flushing[record.group];
      if (record.kind == wal::RecordKind::kGroupFlushing) {
        started = record.seq;
        // Older logs name no place: their flushes persisted every record before this one.
        flushing_pos[record.group] =
            record.upto_file != 0
                ? wal::LogPos{.offset = record.upto_offset, .file_no = record.upto_file}
                : pos;
        return Status::OK();
      }
      if (started && record.seq >= *started) started.reset();
      // No kGroupFlushing before the mark: it is in a removed file, before every record here.
      if (flushing_pos[record.group]) {
        SLOTKV_RETURN_IF_ERROR(
            state->RetainAfter(record.group, *flushing_pos[record.group], /*relog=*/false));
      }
      return Status::OK();
    }
    const uint64_t hash = KeyHash(record.key);
    if (record.kind == wal::RecordKind::kPut && (record.type_tag & kSpliceTag)) {
      auto chain = chains.find(record.key);
      if (chain == chains.end()) {
        // No version before it: the group's flush covered it, its file is gone and a mark
        // further on drops this delta too (else HoldReplayed finds the chain without a base).
        const MapEntry* base = state->groups[state->GroupOfHash(hash)].map.Find(record.key, hash);
        const wal::LogPos from = base != nullptr && !base->tombstone ? base->pos : kNoBase;
        chain = chains.emplace(record.key, std::vector<wal::LogPos>{from}).first;
      }
      chain->second.push_back(pos);
    } else if (!chains.empty()) {
      chains.erase(record.key);
    }
    std::optional<LiveKey> replaced;
    state->Track(record, pos, hash, &replaced);
    if (replaced) {
      std::optional<wal::LogPos> next;
      if (record.kind == wal::RecordKind::kPut) next = pos;
      replaced_in_replay.emplace_back(std::move(*replaced), next);
    }
    return Status::OK();
  };
  SLOTKV_ASSIGN_OR_RETURN(impl->log, wal::Log::Open(log_options, replay));
  // Pages may name values the chunk table never counted: with everysec the kernel may write a
  // page back before the publish synced the chunks, and a power cut may take the log's record
  // of that flush too. So every group's next flush recounts its live bytes from its pages
  // first, as after a failed flush, and releases only what the table holds (an everysec
  // power-cut test lost values that way); the flush reads those pages anyway.
  for (Group& group : impl->groups) group.recount = true;
  // A crash may have come between such a flush's page sync and its count write. Before any
  // read of a bucket: a lookup trusts a count of 0 (BucketStore::Lookup).
  for (uint32_t g = 0; g < flushing.size(); ++g) {
    if (!flushing[g]) continue;
    const uint32_t first = g * per_group;
    const uint32_t end = std::min(first + per_group, buckets);
    for (uint32_t b = first; b < end; ++b) SLOTKV_RETURN_IF_ERROR(impl->buckets->Recount(b));
  }
  SLOTKV_RETURN_IF_ERROR(impl->HoldReplayed(chains));
  for (auto& [old, next] : replaced_in_replay) {
    if (!next) {
      impl->NoteReplaced(old, false, 0, {});
      continue;
    }
    std::vector<wal::Record> records;
    Status st = impl->log->ReadMany({*next}, &records);
    if (!st.ok()) {
      std::fprintf(stderr, "slot %s: a replayed write of key %s: %s\n", options.dir.c_str(),
                   old.key.c_str(), st.ToString().c_str());
      continue;
    }
    impl->NoteReplaced(old, true, records[0].type_tag, records[0].value);
  }
  SeqFile& seq = *impl->seq_file;
  impl->last_seq = std::max({impl->last_seq, seq.durable().limit, options.seq_floor});
  if (options.seq_floor > seq.durable().floor) {  // kept for the opens that do not pass it
    seq.Raise({options.seq_floor, options.seq_floor});
    SLOTKV_RETURN_IF_ERROR(seq.Write());
  }
  impl->stream_seq = std::max(impl->stream_seq, seq.durable().floor);
  if (options.on_commit) {
    impl->tap = std::make_shared<Impl::CommitTap>();
    impl->tap->slot = impl.get();
    impl->tap->open_seq = impl->tap->closed_seq = impl->stream_seq;
  }
  return std::unique_ptr<Slot>(new Slot(std::move(impl)));
}

Status Slot::Recover() {
  Impl& s = *impl_;
  if (failure().ok()) return Status::OK();
  // A failure met in an io_uring completion becomes the slot's (on_failure is told) even when
  // no write came since.
  s.Refusal().PermitUnchecked();
  if (s.held) return Status::Busy("slot: a unit is held open");
  if (!s.log->idle() || s.publishing || s.seq_file->busy()) {
    return Status::Busy("slot: io_uring I/O in flight");
  }
  if (!s.options.memory) SLOTKV_RETURN_IF_ERROR(ProbeWritable(s.options.fs, s.options.dir));
  // The open replays the log from the file: the records of failed commits, never written or
  // written in part (a torn tail, cut), are gone with the old state.
  SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<Slot> fresh, Open(s.options));
  Impl& f = *fresh->impl_;
  f.counters = s.counters;  // cumulative: they go on (the cut tails of earlier logs too)
  f.counters.wal_truncated_bytes += s.log->truncated_tail_bytes();
  ++f.counters.recoveries;
  if (s.cache_budget > 0) fresh->SetCacheBudget(s.cache_budget);
  impl_ = std::move(fresh->impl_);
  if (impl_->options.on_failure) impl_->options.on_failure(Status::OK());
  return Status::OK();
}

}  // namespace slotkv::slot
