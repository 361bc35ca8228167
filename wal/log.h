// Log: one slot's write-ahead log, a numbered series of files `wal-NNNNNN.log` in the slot's
// directory. Records are appended to the newest file; a new file starts once the current one
// passes Options::file_bytes, and the full one is synced then, whatever the policy: on a worker
// through its io_uring, the new file taking writes meanwhile but none of it counting as durable
// until that sync and the directory's are done (so a power cut can tear only the newest two
// files, the older only when the newer holds nothing durable). Files are removed whole, oldest
// first, once the slot says nothing in them is needed (RemoveFilesBefore).
//
// Units: the records appended from BeginUnit until the unit closes form one unit, which replay
// applies whole or not at all: a write torn by a crash inside a unit loses the whole unit.
// Outside BeginUnit each record is a unit of its own. EndUnit, Commit, CommitThen, Sync and
// StartNewFile close the open unit, unless the log is held (Hold): then the unit stays open, in
// memory, through them all (EndUnit aside) until Unhold, and they write only the units before
// it.
//
// Group commit: Append() only buffers in memory; Commit() writes the closed units with one
// write and, per the fsync policy, syncs them; on a worker, CommitThen does the same through the worker's
// io_uring. A writer acknowledges a request only after Commit() returned OK for it (or
// CommitThen answered OK): with kAlways the record is then on disk, otherwise it is in the OS
// and survives the process being killed.
//
// After a failed write or sync the log refuses every further Append/Commit with the same
// IOError until it is reopened: what reached the file is unknown.
//
// Thread rule: one owner thread (the slot's worker) calls everything.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/clock.h"
#include "core/base/fs.h"
#include "core/base/status.h"
#include "wal/record.h"

namespace slotkv::wal {

enum class FsyncPolicy { kAlways, kEverySec, kNo };

// Where a record lives, so a reader can fetch it again.
// Fields ordered so the struct packs into 16 bytes: one sits in every unpersisted key's entry.
struct LogPos {
  uint64_t offset = 0;  // of the record header in the file
  uint32_t file_no = 0;
  uint32_t size = 0;    // whole encoded record, header included

  bool operator==(const LogPos&) const = default;
};

// Whether the record at pos ends at or before `end` (a place: its size is not used).
inline bool EndsBy(const LogPos& pos, const LogPos& end) {
  return pos.file_no < end.file_no ||
         (pos.file_no == end.file_no && pos.offset + pos.size <= end.offset);
}

struct LogStats {
  uint64_t records_appended = 0;
  uint64_t bytes_written = 0;  // bytes handed to the file system
  uint64_t syncs = 0;
  uint64_t files_removed = 0;
};

class Log {
 public:
  struct Options {
    Fs* fs = nullptr;          // must outlive the Log
    std::string dir;           // the slot directory (exists)
    FsyncPolicy fsync = FsyncPolicy::kEverySec;
    uint64_t file_bytes = 64 << 20;
    // CommitThen on a thread with an io_uring writes through it (else pwrite, then the fsync
    // through the ring as below).
    bool ring_writes = false;
    Clock* clock = nullptr;    // for everysec; SystemClock() when null
  };

  // Called for each valid record in log order during Open.
  using Visitor = std::function<Status(const Record&, const LogPos&)>;

  // Opens the log in options.dir, replaying every record of every file in order through visit
  // (a visitor error stops Open and is returned). A damaged tail of the newest file (incomplete
  // record, zero fill, or a bad record that reaches the end of the file) is truncated and
  // counted in truncated_tail_bytes(); so is one of the file before it when the newest took
  // writes before that file's rotation syncs completed and does not say they did (its first
  // record is kRotationPending and no kRotationSynced follows, or it is unreadable), and then
  // the newest file is emptied too (the log ends at the tear). Damage
  // anywhere else returns Corruption naming the file and offset, e.g. "wal-000002.log at
  // offset 4096: checksum mismatch".
  static Result<std::unique_ptr<Log>> Open(const Options& options, const Visitor& visit);

  ~Log();

  // Buffers record as the next record of the open unit (starting one when none is open);
  // returns where it will live. Readable through ReadAt at once.
  Result<LogPos> Append(const Record& record);
  // The bytes of the record the last Append placed at pos, as encoded (wal/record.h), until
  // the next call that changes the log. REQUIRES: pos is what that Append returned.
  std::string_view Appended(const LogPos& pos) const;
  // Opens a unit (a no-op when one is open): the records appended from now on are one unit.
  void BeginUnit();
  // Closes the open unit (a no-op when none is open), held or not: the next write takes it.
  void EndUnit();
  // Keeps the open unit (and what is appended until Unhold) one unit through commits.
  void Hold();
  void Unhold();
  // Writes buffered records to the file; syncs per policy (kAlways: always; kEverySec: when the
  // last sync is at least a second old; kNo: never).
  Status Commit();
  // Commit, then done(status) once the buffered records are written and durable per the
  // policy. On a thread whose io_uring is up (IoRing::Current, a worker) and a file that has a
  // descriptor, the write (with Options::ring_writes) and with kAlways the fsync go through
  // the ring and done runs from their completion, so the thread serves other work meanwhile;
  // the records stay readable from memory until written. One write and one fsync are in
  // flight at a time: commits arriving during one share the next (group commit). Otherwise
  // done runs before this returns.
  // The synchronous calls (Commit, Sync, Append starting a new file) write the bytes of a ring
  // write in flight again themselves first. done is called exactly once, also when the log is
  // destroyed first (its destructor then writes and syncs what they wait for).
  // REQUIRES: the thread that calls everything else.
  void CommitThen(std::function<void(const Status&)> done);
  // Writes buffered records and syncs now, whatever the policy.
  Status Sync();
  // Changes the fsync policy (CONFIG SET appendfsync); the next Commit follows it.
  void set_fsync(FsyncPolicy fsync);
  // Reads back the record at pos (from the buffer or the file) and checks its checksum.
  Result<Record> ReadAt(const LogPos& pos) const;

  // Reads back the records at positions into (*records)[i], as ReadAt would, with one batch of
  // reads per file.
  Status ReadMany(const std::vector<LogPos>& positions, std::vector<Record>* records) const;

  // Closes the current file (written out and synced) and starts the next one, so that
  // RemoveFilesBefore can take every record so far; nothing when the current file is empty.
  // Busy while held with a unit open.
  Status StartNewFile();
  // Removes every file numbered below file_no (never the current file).
  Status RemoveFilesBefore(uint32_t file_no);
  // RemoveFilesBefore once every record appended so far is durable (records in later files may
  // supersede those in the removed ones). On a thread with an io_uring (a worker) the fsync goes
  // through it and the files go from its completion (not at all if the log is destroyed
  // first); otherwise Sync, then RemoveFilesBefore, before this returns.
  Status RemoveFilesBeforeWhenDurable(uint32_t file_no);

  // How far the log is durable (synced): every record of the files before durable_end().file_no
  // and, of that file, those that end at or before its offset (size is 0). After Open every
  // replayed record is (Open syncs what may not be). It enters a new file only once the
  // rotation's syncs of the one before are done.
  LogPos durable_end() const;
  // Makes what was written durable soon, whatever the policy: on a thread with an io_uring (a
  // worker) by starting an fsync through it, unless one is in flight or nothing waits for one;
  // elsewhere by syncing now.
  Status SyncSoon();

  uint32_t current_file_no() const;
  uint32_t oldest_file_no() const;
  // Bytes of all files, buffered bytes included.
  uint64_t total_bytes() const;
  uint64_t truncated_tail_bytes() const;
  // The first write or sync error (sticky; OK while none).
  const Status& failure() const;
  // Whether no write or fsync of this log is in flight through the io_uring.
  bool idle() const;
  // Whether a rotation's syncs are out through the io_uring and a synchronous Commit would do
  // them in place (kAlways: it syncs; other commits write into the new file meanwhile).
  bool rotating() const;
  // Whether the next Append starts a new file (the current one reached file_bytes and no unit
  // is open in it).
  bool full() const;
  const LogStats& stats() const;

 private:
  struct Impl;
  explicit Log(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace slotkv::wal
