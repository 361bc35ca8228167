// Log: a numbered series of WAL files in one slot directory.
//
//   dir/     := wal-NNNNNN.log ...      NNNNNN = file number, decimal, zero-padded to 6 digits
//                                       (more digits past 999999), starting at 1
//   file     := record*                 records as in wal/record.cc, back to back, no padding
//   tail     := record* (torn | zero*)  only the newest file may end in a torn record or zero
//                                       fill; Open truncates it
//
// Example: a slot with file_bytes = 64 MB after 70 MB of records holds
//   wal-000001.log  (64 MB + the record that crossed the limit)
//   wal-000002.log  (the rest)
// and a LogPos {file_no=2, offset=4096, size=30} names the 30-byte record at byte 4096 of
// wal-000002.log. Records never span files.
//
//   unit     := record* record          every record of a unit but its last has the more bit
//                                       (wal/record.cc); replay applies a unit whole or not at
//                                       all, and a torn tail is cut back to its unit's start
//
// Design: appends go to an in-memory buffer that belongs to the current (newest) file and starts
// at its size. The records appended since BeginUnit are the open unit; Commit closes it and
// hands the buffer to the file in one write. A held log (a transaction holds the slot,
// slot::Slot::Hold) keeps its open unit in the buffer and writes only what is before it. A
// unit never spans files: a new file starts only between units. So a LogPos in the current
// file at or past its size lives in the buffer. On a worker (a thread with an io_uring) and with
// Options::ring_writes, CommitThen hands the buffer to the ring instead: one write in flight at a
// time, its bytes kept in memory (and read from there) until it completes; commits meanwhile share
// the next one. A synchronous path (Commit, Sync, a new file) first writes the bytes in flight
// again itself (Settle: the same bytes at the same offset, so whichever lands last changes
// nothing), so that its fsync covers them. Every live file keeps an open handle for ReadAt. A
// failed write or sync leaves failure set: what reached the file is unknown, so the log refuses
// further writes until it is reopened and replay decides.
#include "wal/log.h"

#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/base/no_wait_reads.h"
#include "wal/log_impl.h"

namespace slotkv::wal {
namespace {

constexpr int64_t kEverySecUs = 1'000'000;

}  // namespace

std::string FileName(uint32_t file_no) {
  char name[32];
  std::snprintf(name, sizeof(name), "wal-%06u.log", file_no);
  return name;
}

uint32_t ParseFileName(std::string_view name) {
  constexpr std::string_view kPrefix = "wal-", kSuffix = ".log";
  if (name.size() < kPrefix.size() + 6 + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return 0;
  }
  std::string_view digits = name.substr(kPrefix.size(), name.size() - 8);
  if (digits.size() > 10) return 0;
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n > UINT32_MAX ? 0 : static_cast<uint32_t>(n);
}

Status CorruptionAt(uint32_t file_no, uint64_t offset, std::string_view reason) {
  return Status::Corruption(FileName(file_no) + " at offset " + std::to_string(offset) + ": " +
                            std::string(reason));
}

std::string_view CorruptReason(std::string_view in) {
  const uint32_t length = DecodeFixed32(in.data() + 4);
  if (length > kMaxRecordBody) return "record too large";
  if (DecodeFixed32(in.data()) != Checksum(in.substr(4, 4 + static_cast<size_t>(length)))) {
    return "checksum mismatch";
  }
  return "malformed record";
}

Log::Log(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

// Buffered records that were never committed are dropped: nobody was told they are stored.
Log::~Log() {
  Impl& m = *impl_;
  m.ring_sync->log = nullptr;
  m.ring_write->log = nullptr;
  m.ring_rotation->log = nullptr;
  // Commits waiting on a ring write, fsync or rotation still get their answer, from its
  // completion: make what they wait for durable now, since no later write or fsync of this log
  // will come.
  if (m.ring_sync->inflight || m.ring_write->bytes || m.ring_rotation->inflight) {
    Status st = m.failure;
    if (st.ok() && (m.ring_write->bytes || !m.ring_rotation->waiting.empty())) {
      st = m.WriteBuffer();
    }
    if (st.ok() && (m.unsynced || m.RotationPending())) st = m.SyncCurrent();
    m.ring_sync->closed = st;
    m.ring_write->closed = st;
    m.ring_rotation->closed = st;
  }
}

Result<LogPos> Log::Append(const Record& record) {
  Impl& m = *impl_;
  if (!m.failure.ok()) return m.failure;
  if (m.Full()) SLOTKV_RETURN_IF_ERROR(m.Rotate());
  m.MarkSynced();  // one an open unit put off
  const size_t start = m.buffer.size();
  EncodeRecord(record, &m.buffer);
  const size_t encoded = m.buffer.size() - start;
  if (encoded - kRecordHeaderSize > kMaxRecordBody) {
    m.buffer.resize(start);
    return Status::InvalidArgument("wal: record of " + std::to_string(encoded) +
                                   " bytes is larger than the limit");
  }
  ++m.stats.records_appended;
  if (m.in_unit) m.unit.push_back(m.Current().size + start);
  return LogPos{.offset = m.Current().size + start, .file_no = m.current_no,
                .size = static_cast<uint32_t>(encoded)};
}

std::string_view Log::Appended(const LogPos& pos) const {
  const std::string& buffer = impl_->buffer;
  assert(pos.size <= buffer.size() && pos.file_no == impl_->current_no);
  return std::string_view(buffer).substr(buffer.size() - pos.size);
}

void Log::BeginUnit() { impl_->in_unit = true; }
void Log::EndUnit() { impl_->EndUnit(); }

void Log::Hold() { impl_->held = true; }
void Log::Unhold() { impl_->held = false; }

Status Log::Commit() {
  Impl& m = *impl_;
  if (!m.failure.ok()) return m.failure;
  m.CloseUnitUnlessHeld();
  SLOTKV_RETURN_IF_ERROR(m.CheckRingSync());
  SLOTKV_RETURN_IF_ERROR(m.WriteBuffer());
  return m.SyncPerPolicy();
}

Status Log::Impl::SyncPerPolicy() {
  if (!unsynced) return Status::OK();
  switch (options.fsync) {
    case FsyncPolicy::kAlways:
      return SyncCurrent();
    case FsyncPolicy::kEverySec:
      if (clock->MonotonicUs() - last_sync_us >= kEverySecUs) return SyncEverySec();
      return Status::OK();
    case FsyncPolicy::kNo:
      return Status::OK();
  }
  return Status::OK();
}

void Log::CommitThen(std::function<void(const Status&)> done) {
  Impl& m = *impl_;
  m.CloseUnitUnlessHeld();
  IoRing* ring = IoRing::Current();
  if (ring == nullptr || m.Current().file->NativeHandle() < 0) {
    done(Commit());
    return;
  }
  if (m.options.fsync == FsyncPolicy::kAlways) {
    m.SyncThen(ring, std::move(done));
    return;
  }
  m.WriteThen(ring, [rw = m.ring_write, done = std::move(done)](const Status& st) {
    done(st.ok() && rw->log != nullptr ? rw->log->SyncPerPolicy() : st);
  });
}

void Log::Impl::WriteThen(IoRing* ring, std::function<void(const Status&)> done) {
  Status st = failure;
  if (st.ok()) st = CheckRingSync();
  if (!st.ok()) {
    done(st);
    return;
  }
  if (!options.ring_writes) {
    done(WriteBuffer());
    return;
  }
  RingWrite& rw = *ring_write;
  if (rw.bytes) {
    (closed_bytes() == 0 ? rw.current : rw.next).push_back(std::move(done));
    return;
  }
  if (closed_bytes() == 0) {
    done(Status::OK());
    return;
  }
  rw.current.push_back(std::move(done));
  StartRingWrite(ring);
}

void Log::Impl::SyncThen(IoRing* ring, std::function<void(const Status&)> done) {
  if (RotationPending()) {  // nothing after the old file is durable before it is
    ring_rotation->waiting.push_back(
        [rr = ring_rotation, ring, done = std::move(done)](const Status& st) {
          if (!st.ok() || rr->log == nullptr) {
            done(st);
            return;
          }
          rr->log->SyncThen(ring, done);
        });
    return;
  }
  // A destroyed log answers with what its destructor made durable.
  WriteThen(ring, [rw = ring_write, ring, done = std::move(done)](const Status& st) {
    if (!st.ok() || rw->log == nullptr) {
      done(st);
      return;
    }
    rw->log->FsyncThen(ring, done);
  });
}

void Log::Impl::FsyncThen(IoRing* ring, std::function<void(const Status&)> done) {
  Impl& m = *this;
  RingSync& rs = *m.ring_sync;
  if (!m.unsynced) {
    // Nothing written since the last fsync was started: durable once it completes. (Bytes of
    // an older file are synced by its rotation, which SyncThen waited for.)
    if (rs.inflight) {
      rs.current.push_back(std::move(done));
    } else {
      done(Status::OK());
    }
    return;
  }
  if (rs.inflight) {
    rs.next.push_back(std::move(done));
    return;
  }
  rs.current.push_back(std::move(done));
  m.StartRingSync(ring);
}

void Log::set_fsync(FsyncPolicy fsync) { impl_->options.fsync = fsync; }

Status Log::Sync() {
  Impl& m = *impl_;
  if (!m.failure.ok()) return m.failure;
  m.CloseUnitUnlessHeld();
  SLOTKV_RETURN_IF_ERROR(m.CheckRingSync());
  SLOTKV_RETURN_IF_ERROR(m.WriteBuffer());
  return m.SyncCurrent();
}

// Checks pos against the live files.
Status Log::Impl::CheckPos(const LogPos& pos) const {
  auto it = files.find(pos.file_no);
  if (it == files.end()) return Status::NotFound(FileName(pos.file_no) + " is not a live WAL file");
  if (pos.size < kRecordHeaderSize) {
    return Status::InvalidArgument("wal: LogPos size " + std::to_string(pos.size) + " too small");
  }
  uint64_t end = it->second.size;
  if (pos.file_no == current_no) end += buffer.size();
  if (pos.offset + pos.size > end) {
    return Status::InvalidArgument("wal: LogPos past the end of " + FileName(pos.file_no));
  }
  return Status::OK();
}

Result<Record> Log::Impl::DecodeAt(const LogPos& pos, std::string_view in) const {
  Record record;
  size_t consumed = 0;
  switch (DecodeRecord(in, &record, &consumed)) {
    case DecodeResult::kOk:
      if (consumed != pos.size) return CorruptionAt(pos.file_no, pos.offset, "size mismatch");
      return record;
    case DecodeResult::kIncomplete:
      return CorruptionAt(pos.file_no, pos.offset, "incomplete record");
    case DecodeResult::kCorrupt:
      break;
  }
  return CorruptionAt(pos.file_no, pos.offset, CorruptReason(in));
}

bool Log::Impl::InMemory(const LogPos& pos, std::string_view* bytes) const {
  const RingWrite& rw = *ring_write;
  if (rw.bytes && pos.file_no == rw.file_no && pos.offset >= rw.offset &&
      pos.offset < rw.offset + rw.bytes->size()) {
    *bytes = std::string_view(*rw.bytes).substr(static_cast<size_t>(pos.offset - rw.offset),
                                                 pos.size);
    return true;
  }
  const uint64_t size = files.at(pos.file_no).size;
  if (pos.file_no != current_no || pos.offset < size) return false;
  *bytes = std::string_view(buffer).substr(static_cast<size_t>(pos.offset - size), pos.size);
  return true;
}

Result<Record> Log::ReadAt(const LogPos& pos) const {
  const Impl& m = *impl_;
  SLOTKV_RETURN_IF_ERROR(m.CheckPos(pos));
  std::string_view in_memory;
  if (m.InMemory(pos, &in_memory)) return m.DecodeAt(pos, in_memory);
  std::string from_file(pos.size, '\0');
  SLOTKV_ASSIGN_OR_RETURN(size_t got,
                          m.files.at(pos.file_no).file->Read(pos.offset, pos.size, from_file.data()));
  if (got != pos.size) return CorruptionAt(pos.file_no, pos.offset, "short read");
  return m.DecodeAt(pos, from_file);
}

Status Log::ReadMany(const std::vector<LogPos>& positions, std::vector<Record>* records) const {
  const Impl& m = *impl_;
  records->assign(positions.size(), Record());
  size_t total = 0;
  std::vector<std::string_view> in_memory(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    SLOTKV_RETURN_IF_ERROR(m.CheckPos(positions[i]));
    if (!m.InMemory(positions[i], &in_memory[i])) total += positions[i].size;
  }
  // One batch per file, into one buffer.
  std::string bytes(total, '\0');
  std::map<uint32_t, std::vector<ReadRequest>> batches;
  std::vector<size_t> at(positions.size());
  size_t used = 0;
  for (size_t i = 0; i < positions.size(); ++i) {
    if (!in_memory[i].empty()) continue;
    at[i] = used;
    batches[positions[i].file_no].push_back(
        {.offset = positions[i].offset, .n = positions[i].size, .buf = bytes.data() + used});
    used += positions[i].size;
  }
  // A file's reads that would wait leave the other files' to go on.
  ReadMisses misses;
  for (auto& [file_no, batch] : batches) {
    Status st = m.files.at(file_no).file->ReadMany(batch);
    if (misses.Take(st)) continue;
    SLOTKV_RETURN_IF_ERROR(st);
    for (const ReadRequest& r : batch) {
      if (r.done != r.n) return CorruptionAt(file_no, r.offset, "short read");
    }
  }
  SLOTKV_RETURN_IF_ERROR(misses.status());
  for (size_t i = 0; i < positions.size(); ++i) {
    std::string_view in = !in_memory[i].empty()
                              ? in_memory[i]
                              : std::string_view(bytes).substr(at[i], positions[i].size);
    SLOTKV_ASSIGN_OR_RETURN((*records)[i], m.DecodeAt(positions[i], in));
  }
  return Status::OK();
}

Status Log::StartNewFile() {
  Impl& m = *impl_;
  if (!m.failure.ok()) return m.failure;
  if (m.Current().size + m.buffer.size() == 0) return Status::OK();
  m.CloseUnitUnlessHeld();
  if (!m.unit.empty()) return Status::Busy("wal: a unit is held open");
  return m.Rotate();
}

Status Log::RemoveFilesBefore(uint32_t file_no) { return impl_->RemoveBefore(file_no); }

Status Log::Impl::RemoveBefore(uint32_t file_no) {
  // On a worker the names go through its ring: closing a file that still has its name is cheap,
  // the unlink that frees it is not.
  auto removable = [&](uint32_t no) { return no < file_no && no != current_no; };
  if (files.empty() || !removable(files.begin()->first)) return Status::OK();
  IoRing* ring = IoRing::Current();
  const int dir_fd = ring ? options.fs->OpenDir(options.dir) : -1;
  Status st;
  while (!files.empty()) {
    auto it = files.begin();
    const uint32_t no = it->first;
    if (!removable(no)) break;
    if (dir_fd >= 0) {
      files.erase(it);
      options.fs->RingUnlink(
          *ring, dir_fd, options.dir, FileName(no), [path = PathOf(no)](int error) {
            // A file left behind is taken again at the next Open (its records are covered).
            if (error != 0 && error != ENOENT) {
              std::fprintf(stderr, "wal: removing %s: %s\n", path.c_str(), std::strerror(error));
            }
          });
    } else {
      st = options.fs->Remove(PathOf(no));
      if (!st.ok()) break;
      files.erase(it);
    }
    ++stats.files_removed;
  }
  if (dir_fd >= 0) close(dir_fd);
  return st;
}

Status Log::RemoveFilesBeforeWhenDurable(uint32_t file_no) {
  Impl& m = *impl_;
  IoRing* ring = IoRing::Current();
  if (ring == nullptr || m.Current().file->NativeHandle() < 0) {
    SLOTKV_RETURN_IF_ERROR(Sync());
    return m.RemoveBefore(file_no);
  }
  if (!m.failure.ok()) return m.failure;
  m.SyncThen(ring, [rs = m.ring_sync, file_no](const Status& st) {
    // A failed fsync is already the log's failure; a destroyed log leaves the files to the
    // next open (replay only finds records that were persisted).
    if (!st.ok() || rs->log == nullptr) return;
    Status removed = rs->log->RemoveBefore(file_no);
    if (!removed.ok()) rs->log->Fail(std::move(removed)).PermitUnchecked();  // now sticky
  });
  return Status::OK();
}

LogPos Log::durable_end() const { return impl_->durable; }

Status Log::SyncSoon() {
  Impl& m = *impl_;
  if (!m.failure.ok()) return m.failure;
  SLOTKV_RETURN_IF_ERROR(m.CheckRingSync());
  IoRing* ring = IoRing::Current();
  if (ring == nullptr || m.Current().file->NativeHandle() < 0) {
    return m.unsynced ? m.SyncCurrent() : Status::OK();
  }
  if (!m.ring_sync->inflight && m.unsynced) m.StartRingSync(ring);
  return Status::OK();
}

uint32_t Log::current_file_no() const { return impl_->current_no; }
uint32_t Log::oldest_file_no() const { return impl_->files.begin()->first; }

uint64_t Log::total_bytes() const {
  const Impl& m = *impl_;
  // Files come at the end and go from the front: count, first and current name the set.
  const auto set = std::make_tuple(m.files.size(), m.files.begin()->first, m.current_no);
  if (set != m.older_of) {
    m.older_bytes = 0;
    for (const auto& [no, live] : m.files) m.older_bytes += no == m.current_no ? 0 : live.size;
    m.older_of = set;
  }
  return m.older_bytes + m.Current().size + m.buffer.size();
}

uint64_t Log::truncated_tail_bytes() const { return impl_->truncated_tail_bytes; }
const Status& Log::failure() const { return impl_->failure; }
bool Log::rotating() const {
  return impl_->RotationPending() && impl_->options.fsync == FsyncPolicy::kAlways;
}
bool Log::full() const { return impl_->Full(); }

bool Log::idle() const {
  return !impl_->ring_sync->inflight && !impl_->ring_write->bytes &&
         !impl_->ring_rotation->inflight;
}
const LogStats& Log::stats() const { return impl_->stats; }

}  // namespace slotkv::wal
