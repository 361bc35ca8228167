// Log::Impl: a Log's state and the steps its parts share. Internal to wal/: log.cc appends,
// commits, reads and removes files; log_replay.cc opens the files and replays them.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "core/base/buffer.h"
#include "core/base/coding.h"
#include "core/base/hash.h"
#include "core/base/io_ring.h"
#include "wal/log.h"

namespace slotkv::wal {

// "wal-NNNNNN.log" for file_no.
std::string FileName(uint32_t file_no);
// The number in "wal-NNNNNN.log", or 0 when name is not a WAL file.
uint32_t ParseFileName(std::string_view name);
// Corruption naming the file and offset.
Status CorruptionAt(uint32_t file_no, uint64_t offset, std::string_view reason);
// Why DecodeRecord said kCorrupt for in (which holds the whole declared record).
std::string_view CorruptReason(std::string_view in);

struct Log::Impl {
  Status CheckPos(const LogPos& pos) const;
  Result<Record> DecodeAt(const LogPos& pos, std::string_view in) const;
  // Whether the record at pos is in memory (buffered, or in the ring write in flight), with
  // its bytes in *bytes then. REQUIRES: CheckPos(pos) is OK.
  bool InMemory(const LogPos& pos, std::string_view* bytes) const;
  struct LiveFile {
    std::unique_ptr<File> file;
    uint64_t size = 0;  // bytes written or handed to the ring (the buffer not included)
  };

  Options options;
  Clock* clock = nullptr;
  std::map<uint32_t, LiveFile> files;  // never empty after Open; the last is the current file
  // The sum of the sizes of the files before the current one (only the current file grows),
  // for the set of files `older_of` names: (count, first, current). Log::total_bytes.
  mutable uint64_t older_bytes = 0;
  mutable std::tuple<size_t, uint32_t, uint32_t> older_of{0, 0, 0};
  uint32_t current_no = 0;
  std::string buffer;     // encoded records not yet written, to follow files[current_no]
  // File offsets (in the current file) of the records of the open unit, at the buffer's end
  // (empty when none is open: outside BeginUnit each record is a unit of its own).
  std::vector<uint64_t> unit;
  bool unsynced = false;  // bytes reached the current file since its last sync
  int64_t last_sync_us = 0;
  // How far the log is durable: every byte of the files before durable.file_no, and of that
  // file the bytes before durable.offset (Log::durable_end). Only rises.
  LogPos durable;
  Status failure;  // first write/sync error; sticky
  // The fsync in flight through the thread's io_uring, if any (everysec, or kAlways commits),
  // shared with its completion, which may come after the log is gone.
  struct RingSync {
    Impl* log = nullptr;  // nullptr once the log is destroyed
    bool inflight = false;
    int error = 0;        // errno of a failed ring fsync; sticky
    Status closed;        // the destructor's own sync, when it ran with a ring fsync in flight
    std::vector<std::function<void(const Status&)>> current;  // durable with the one in flight
    std::vector<std::function<void(const Status&)>> next;     // need the one after it
    LogPos covers;  // what the one in flight makes durable (WrittenEnd at its start)
  };
  std::shared_ptr<RingSync> ring_sync = MakeRingSync();
  // The write in flight through the thread's io_uring, if any (CommitThen on a worker),
  // shared with its completion, which may come after the log is gone.
  struct RingWrite {
    Impl* log = nullptr;  // nullptr once the log is destroyed
    std::shared_ptr<const std::string> bytes;  // in flight; null when none
    uint32_t file_no = 0;
    uint64_t offset = 0;
    bool settled = false;  // written again synchronously (Settle)
    Status closed;         // what the destructor made of it, when it ran with one in flight
    std::vector<std::function<void(const Status&)>> current;  // written with the one in flight
    std::vector<std::function<void(const Status&)>> next;     // need the one after it
  };
  std::shared_ptr<RingWrite> ring_write = MakeRingWrite();
  // A rotation's syncs in flight through the thread's io_uring (Rotate): the old file's
  // fdatasync and the directory's fsync (the new file's name). The new file takes writes
  // meanwhile, so a power cut may tear the newest two files (replay then ends the log at the
  // older one's tear); nothing of the new file counts as durable until they complete
  // (RaiseDurable), commits that must be durable (kAlways) wait for them (SyncThen), and a
  // synchronous sync does them itself first (SettleRotation), as does the next rotation: at
  // most two files are ever unsynced. Shared with the completion, which may come after the log
  // is gone.
  struct RingRotation {
    Impl* log = nullptr;    // nullptr once the log is destroyed
    bool inflight = false;
    bool settled = false;   // synced again synchronously (SettleRotation)
    uint32_t file_no = 0;   // the old file
    bool sync_file = false;  // the old file had bytes no finished fsync covered
    int error = 0;          // errno of a failed ring sync
    Status closed;          // what the destructor made of the waiting commits
    LogPos synced_after;    // the furthest completed sync of the new file, durable with them
    bool mark_synced = false;  // completed: kRotationSynced goes into the buffer when it may
    std::vector<std::function<void(const Status&)>> waiting;  // SyncThen's, to run again
  };
  std::shared_ptr<RingRotation> ring_rotation = MakeRingRotation();

  std::shared_ptr<RingSync> MakeRingSync() {
    auto rs = std::make_shared<RingSync>();
    rs->log = this;
    return rs;
  }
  std::shared_ptr<RingWrite> MakeRingWrite() {
    auto rw = std::make_shared<RingWrite>();
    rw->log = this;
    return rw;
  }
  std::shared_ptr<RingRotation> MakeRingRotation() {
    auto rr = std::make_shared<RingRotation>();
    rr->log = this;
    return rr;
  }
  bool RotationPending() const { return ring_rotation->inflight && !ring_rotation->settled; }
  bool Full() const {
    const uint64_t current_size = Current().size + buffer.size();
    return unit.empty() && current_size > 0 && current_size >= options.file_bytes;
  }

  bool in_unit = false;  // BeginUnit came, EndUnit not yet: appends join the open unit
  bool held = false;     // Hold: the open unit stays open through writes

  void EndUnit() {
    in_unit = false;
    // Every record but the last says that the next one is of the same unit. They are all
    // still in the buffer: nothing of an open unit is ever written.
    for (size_t i = 0; i + 1 < unit.size(); ++i) {
      SetMore(buffer.data() + (unit[i] - Current().size));
    }
    unit.clear();
    MarkSynced();
  }
  void CloseUnitUnlessHeld() {
    if (!held && in_unit) EndUnit();
  }

  // Bytes at the buffer's start that hold closed units (what a write may take).
  size_t closed_bytes() const {
    return unit.empty() ? buffer.size() : static_cast<size_t>(unit.front() - Current().size);
  }
  // Takes the closed units out of the buffer (Current().size is advanced by the caller).
  std::string TakeClosed() {
    const size_t n = closed_bytes();
    if (n == buffer.size()) return std::exchange(buffer, std::string());
    std::string out = buffer.substr(0, n);
    buffer.erase(0, n);
    ReleaseLargeBuffer(&buffer);
    return out;
  }

  // Hands the closed units of the buffer to ring as one write at the end of the current file.
  void StartRingWrite(IoRing* ring) {
    RingWrite& rw = *ring_write;
    rw.bytes = std::make_shared<const std::string>(TakeClosed());
    rw.file_no = current_no;
    rw.offset = Current().size;
    rw.settled = false;
    Current().size += rw.bytes->size();
    Current().file->RingWrite(
        *ring, rw.offset, rw.bytes,
        [rw = ring_write, ring](int error) { OnRingWritten(rw, ring, error); });
  }

  // A ring write completed: its waiters learn the outcome, and those of the next one get it
  // started (or learn the outcome too when a synchronous path wrote their records since).
  static void OnRingWritten(const std::shared_ptr<RingWrite>& rw, IoRing* ring, int error) {
    Impl* log = rw->log;
    Status st = log != nullptr ? log->failure : rw->closed;
    if (error != 0) {
      st = Status::IOError(std::string("wal: write: ") + std::strerror(error));
      if (log != nullptr) log->Fail(st).PermitUnchecked();  // sticky
    } else if (log != nullptr && !rw->settled) {
      log->stats.bytes_written += rw->bytes->size();
      log->unsynced = true;
    }
    rw->bytes.reset();
    std::vector<std::function<void(const Status&)>> done = std::move(rw->current);
    rw->current.clear();
    if (!rw->next.empty()) {
      if (st.ok() && log != nullptr && log->closed_bytes() > 0) {
        rw->current = std::move(rw->next);
        rw->next.clear();
        log->StartRingWrite(ring);
      } else {  // failed, or a synchronous path wrote their records since
        for (auto& fn : rw->next) done.push_back(std::move(fn));
        rw->next.clear();
      }
    }
    for (auto& fn : done) fn(st);
  }

  // The write in flight, written again synchronously, so that what follows (a write of the
  // buffer behind it, an fsync) finds its bytes in the file.
  Status Settle() {
    RingWrite& rw = *ring_write;
    if (!rw.bytes || rw.settled) return Status::OK();
    Status st = files.at(rw.file_no).file->Write(rw.offset, *rw.bytes);
    if (!st.ok()) return Fail(std::move(st));
    rw.settled = true;
    stats.bytes_written += rw.bytes->size();
    unsynced = true;  // rw.file_no is the current file: a new file settles first
    return Status::OK();
  }

  // Where the bytes of the current file whose write completed end (not those of a ring write
  // in flight): what a sync started now makes durable.
  LogPos WrittenEnd() const {
    const RingWrite& rw = *ring_write;
    const bool in_flight = rw.bytes && !rw.settled && rw.file_no == current_no;
    return LogPos{.offset = in_flight ? rw.offset : Current().size, .file_no = current_no};
  }
  // Raises durable to `to`, a place a completed sync covers. A place past a file whose
  // rotation's syncs are still out waits for them (synced_after); after a failure (a rotation's
  // sync may be what failed) it stays where it is.
  void RaiseDurable(const LogPos& to) {
    if (!failure.ok()) return;
    RingRotation& rr = *ring_rotation;
    LogPos& raised = RotationPending() && to.file_no > rr.file_no ? rr.synced_after : durable;
    if (!EndsBy(to, raised)) raised = to;
  }
  // The rotation's syncs are done: the old file is whole, and what the new one's syncs covered.
  // The new file says so (MarkSynced).
  void AfterRotationSynced(RingRotation& rr) {
    RaiseDurable(LogPos{.offset = 0, .file_no = rr.file_no + 1});
    RaiseDurable(rr.synced_after);
    rr.mark_synced = true;
    MarkSynced();
  }
  // Appends kRotationSynced once a rotation's syncs completed, when no open unit has records
  // in the buffer (a record between them would split the unit; EndUnit and Append call it
  // again). Commits that waited for the syncs (kAlways) write and sync it with theirs.
  void MarkSynced() {
    RingRotation& rr = *ring_rotation;
    if (!rr.mark_synced || !unit.empty()) return;
    rr.mark_synced = false;
    Record synced;
    synced.kind = RecordKind::kRotationSynced;
    EncodeRecord(synced, &buffer);
  }

  // Submits an fsync of the current file through ring for what was written so far.
  void StartRingSync(IoRing* ring) {
    ring_sync->inflight = true;
    ring_sync->covers = WrittenEnd();
    ++stats.syncs;
    unsynced = false;
    last_sync_us = clock->MonotonicUs();
    Current().file->RingSync(*ring, [rs = ring_sync](int error) { OnRingSynced(rs, error); });
  }

  // A ring fsync completed: its waiters learn the outcome, and those of the next one get it
  // started (or learn the failure too).
  static void OnRingSynced(const std::shared_ptr<RingSync>& rs, int error) {
    rs->inflight = false;
    if (error != 0 && rs->error == 0) rs->error = error;
    Status st = rs->error != 0 ? Status::IOError(std::string("wal: fdatasync: ") +
                                                 std::strerror(rs->error))
                               : rs->closed;
    if (!st.ok() && rs->log != nullptr) rs->log->Fail(st).PermitUnchecked();  // sticky now
    if (error == 0 && rs->log != nullptr) rs->log->RaiseDurable(rs->covers);
    std::vector<std::function<void(const Status&)>> done = std::move(rs->current);
    rs->current.clear();
    if (!rs->next.empty()) {
      IoRing* ring = IoRing::Current();
      if (st.ok() && rs->log != nullptr && rs->log->unsynced && ring != nullptr) {
        rs->current = std::move(rs->next);
        rs->next.clear();
        rs->log->StartRingSync(ring);
      } else {
        // Failed, or already durable (a synchronous sync since, or the destructor's).
        if (st.ok() && rs->log != nullptr && rs->log->unsynced) st = rs->log->SyncCurrent();
        for (auto& fn : rs->next) done.push_back(std::move(fn));
        rs->next.clear();
      }
    }
    for (auto& fn : done) fn(st);
  }
  uint64_t truncated_tail_bytes = 0;
  LogStats stats;

  std::string PathOf(uint32_t file_no) const { return JoinPath(options.dir, FileName(file_no)); }
  LiveFile& Current() { return files.at(current_no); }
  const LiveFile& Current() const { return files.at(current_no); }

  Status Fail(Status st) {
    if (failure.ok()) failure = st;
    return st;
  }

  // Makes everything written durable: a rotation's syncs still out (in place), then the
  // current file.
  Status SyncCurrent() {
    SLOTKV_RETURN_IF_ERROR(SettleRotation());
    const LogPos covers = WrittenEnd();
    Status st = Current().file->Sync();
    if (!st.ok()) return Fail(std::move(st));
    RaiseDurable(covers);
    ++stats.syncs;
    unsynced = false;
    last_sync_us = clock->MonotonicUs();
    return Status::OK();
  }

  // everysec: the fsync goes through the thread's io_uring when it has one (a worker), so the
  // worker serves requests while the disk works; one at a time. A failure it reports later
  // fails the log as a failed sync here does (CheckRingSync).
  Status SyncEverySec() {
    IoRing* ring = IoRing::Current();
    if (ring == nullptr || Current().file->NativeHandle() < 0) return SyncCurrent();
    if (ring_sync->inflight) return Status::OK();  // a later Commit syncs what came since
    StartRingSync(ring);
    return Status::OK();
  }

  // done(status) once everything appended so far is written: at once when it is, else from
  // the completion of a ring write (the one in flight when it holds every record, else the
  // next, started here when none is in flight).
  void WriteThen(IoRing* ring, std::function<void(const Status&)> done);
  // WriteThen, then done(status) once everything written is durable: at once when it already
  // is, else from the completion of a ring fsync (the one in flight when it covers every
  // byte, else the next, started here when none is in flight).
  void SyncThen(IoRing* ring, std::function<void(const Status&)> done);
  void FsyncThen(IoRing* ring, std::function<void(const Status&)> done);
  // Syncs what was written per the fsync policy (kAlways: now; kEverySec: when the last sync
  // is a second old, through the ring on a worker; kNo: never).
  Status SyncPerPolicy();
  Status RemoveBefore(uint32_t file_no);

  Status CheckRingSync() {
    if (ring_sync->error == 0) return Status::OK();
    return Fail(Status::IOError(PathOf(current_no) + ": fdatasync: " +
                                std::strerror(ring_sync->error)));
  }

  // Settles the ring write in flight and writes the closed units of the buffer behind it.
  Status WriteBuffer() {
    SLOTKV_RETURN_IF_ERROR(Settle());
    const size_t n = closed_bytes();
    if (n == 0) return Status::OK();
    Status st = Current().file->Write(Current().size, std::string_view(buffer).substr(0, n));
    if (!st.ok()) return Fail(std::move(st));
    Current().size += n;
    stats.bytes_written += n;
    buffer.erase(0, n);
    ReleaseLargeBuffer(&buffer);
    unsynced = true;
    return Status::OK();
  }

  // Creates file_no and makes it the current file; its name is durable unless !sync_dir.
  Status CreateFile(uint32_t file_no, bool sync_dir = true) {
    SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, options.fs->Open(PathOf(file_no)));
    if (sync_dir) SLOTKV_RETURN_IF_ERROR(options.fs->SyncDir(options.dir));
    files[file_no] = LiveFile{std::move(file), 0};
    current_no = file_no;
    unsynced = false;
    return Status::OK();
  }

  // Closes the current file (written out and synced) and starts the next one. Synced under
  // every policy, kNo included: one sync per file_bytes of log costs little, and it means a
  // power cut can only tear the newest two files (the older one only while its rotation's
  // syncs are out), whose damaged tail replay truncates; a torn older file would stop Open
  // with Corruption. On a worker the syncs go through its io_uring (RingRotation): done in
  // place, they held it 5.4 ms per rotation on average and up to 78 ms during a 10M-key load,
  // while the page cache was being written back; and while commits waited for them, SET
  // -P 16 over a 3M keyspace saw replies 150-365 ms late.
  Status Rotate() {
    // The syncs of the file before this one, in place, first: this file then says they
    // completed (kRotationSynced, also one an open unit put off), before it is written out.
    SLOTKV_RETURN_IF_ERROR(SettleRotation());
    MarkSynced();
    SLOTKV_RETURN_IF_ERROR(WriteBuffer());
    IoRing* ring = IoRing::Current();
    // (A rotation whose syncs a synchronous write settled may still await its completion.)
    const int dir_fd = ring != nullptr && Current().file->NativeHandle() >= 0 &&
                               !ring_rotation->inflight
                           ? options.fs->OpenDir(options.dir)
                           : -1;
    if (dir_fd < 0) {
      if (unsynced) SLOTKV_RETURN_IF_ERROR(SyncCurrent());
      Status st = CreateFile(current_no + 1);
      if (!st.ok()) return Fail(std::move(st));
      return Status::OK();
    }
    RingRotation& rr = *ring_rotation;  // not in flight: no commit waits on it
    rr.inflight = true;
    rr.settled = false;
    rr.file_no = current_no;
    rr.synced_after = LogPos{};
    rr.mark_synced = false;
    rr.sync_file = unsynced || ring_sync->inflight;  // one in flight may predate the last bytes
    Status st = CreateFile(current_no + 1, /*sync_dir=*/false);
    if (!st.ok()) {
      rr.inflight = false;
      close(dir_fd);
      return Fail(std::move(st));
    }
    // The new file says so first: replay may end the log at a tear of the old one only then.
    Record pending;
    pending.kind = RecordKind::kRotationPending;
    EncodeRecord(pending, &buffer);
    ++stats.syncs;
    auto parts = JoinAnswers(rr.sync_file ? 2 : 1, [rr = ring_rotation](int error) {
      OnRotationSynced(rr, error);
    });
    options.fs->RingSyncDir(*ring, dir_fd, options.dir, std::move(parts[0]));
    close(dir_fd);  // the ring syncs a duplicate
    if (rr.sync_file) files.at(rr.file_no).file->RingSync(*ring, std::move(parts[1]));
    return Status::OK();
  }

  // The rotation's syncs, done here when the ring has not finished them.
  Status SettleRotation() {
    RingRotation& rr = *ring_rotation;
    if (!rr.inflight || rr.settled) return Status::OK();
    auto old = files.find(rr.file_no);
    Status st = rr.sync_file && old != files.end() ? old->second.file->Sync() : Status::OK();
    if (st.ok()) st = options.fs->SyncDir(options.dir);
    if (!st.ok()) return Fail(std::move(st));
    rr.settled = true;
    AfterRotationSynced(rr);
    return Status::OK();
  }

  // The rotation's syncs completed: the commits that waited for them go on (or learn the
  // failure, or what the destructor made of them).
  static void OnRotationSynced(const std::shared_ptr<RingRotation>& rr, int error) {
    rr->inflight = false;
    std::vector<std::function<void(const Status&)>> waiting = std::move(rr->waiting);
    rr->waiting.clear();
    Impl* log = rr->log;
    if (log == nullptr) {
      for (auto& done : waiting) done(rr->closed);
      return;
    }
    if (error != 0 && !rr->settled) {
      log->Fail(Status::IOError(std::string("wal: fdatasync: ") + std::strerror(error)))
          .PermitUnchecked();  // sticky now
    } else if (error == 0 && !rr->settled) {
      log->AfterRotationSynced(*rr);
    }
    for (auto& done : waiting) done(log->failure);
  }

  Status Replay(uint32_t file_no, bool may_tear, const Visitor& visit, bool* torn);
  // Truncates file_no to off (a torn tail), logged and counted.
  Status CutTail(uint32_t file_no, uint64_t off, std::string_view reason);
  // Whether file_no may follow a torn file: it is empty, or its first record is unreadable
  // (never synced), or kRotationPending with no kRotationSynced after it. One that starts with
  // another record was created after the file before it was synced, and one that says the
  // syncs completed was too, so a tear there is damage, not a power cut.
  Result<bool> MayFollowTear(uint32_t file_no);
};

}  // namespace slotkv::wal
