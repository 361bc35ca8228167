// Fs: the file-system interface every slotkv module does its I/O through, so the same engine
// runs over real files (PosixFs), over memory (MemFs: pure-memory mode and tests) and under
// injected faults (FaultFs). Paths are plain strings joined with '/'.
//
// Thread rule: an Fs may be shared by threads; a File is used by one thread at a time (its
// slot's owner).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace slotkv {

class IoRing;

// One read of a batch (File::ReadMany).
struct ReadRequest {
  uint64_t offset = 0;
  size_t n = 0;
  char* buf = nullptr;
  size_t done = 0;  // out: bytes read; fewer than n only at the end of the file
};

// An open file: positional reads and writes, plus append at the end.
class File {
 public:
  virtual ~File() = default;

  // Writes data at offset, extending the file when needed (a gap reads as zeros).
  // OK means the bytes reached the OS (they survive the process being killed), not the disk:
  // durable only after Sync() returns OK.
  [[nodiscard]] virtual Status Write(uint64_t offset, std::string_view data) = 0;
  // Writes data at the current end of the file.
  [[nodiscard]] virtual Status Append(std::string_view data) = 0;
  // Reads up to n bytes at offset into buf; fewer only at the end of the file.
  // Returns the count read (0 at or past the end).
  [[nodiscard]] virtual Result<size_t> Read(uint64_t offset, size_t n, char* buf) const = 0;
  // Performs every read of requests, as Read would, in as few system calls as the
  // implementation can (the posix one submits them together through io_uring when the kernel
  // allows). Returns the first error.
  [[nodiscard]] virtual Status ReadMany(std::vector<ReadRequest>& requests) const;
  // Makes every byte written so far durable (fdatasync).
  [[nodiscard]] virtual Status Sync() = 0;
  [[nodiscard]] virtual Status Truncate(uint64_t size) = 0;
  // Frees the disk space of [offset, offset+len); the range then reads as zeros.
  [[nodiscard]] virtual Status PunchHole(uint64_t offset, uint64_t len) = 0;
  virtual uint64_t Size() const = 0;
  // Hints that reads will be random, so the OS should not read ahead; a no-op where the
  // implementation has no such notion.
  virtual void AdviseRandomAccess() {}
  // The OS file descriptor, for I/O submitted elsewhere (the Ring calls below); -1 when the
  // file has none (memory files): its I/O stays in the calls above.
  virtual int NativeHandle() const { return -1; }
  // Write and Sync through the calling worker's io_uring: done(0 or the errno) from a later
  // IoRing::Reap. Wrappers override them to see that I/O too (FaultFs).
  // REQUIRES: NativeHandle() >= 0.
  virtual void RingWrite(IoRing& ring, uint64_t offset, std::shared_ptr<const std::string> bytes,
                         std::function<void(int error)> done);
  virtual void RingSync(IoRing& ring, std::function<void(int error)> done);
  // PunchHole through the io_uring, answered as above. A file with no descriptor (memory files)
  // punches in place and answers from a later Reap all the same. EOPNOTSUPP reaches done: the
  // caller falls back to PunchHole, which zeroes the range.
  virtual void RingPunchHole(IoRing& ring, uint64_t offset, uint64_t len,
                             std::function<void(int error)> done);
};

class Fs {
 public:
  virtual ~Fs() = default;

  // Opens path for reading and writing, creating it (empty) when it does not exist.
  [[nodiscard]] virtual Result<std::unique_ptr<File>> Open(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  // Creates dir and its missing parents; OK when it exists.
  [[nodiscard]] virtual Status CreateDirs(const std::string& dir) = 0;
  // Names (not paths) of the entries of dir, unsorted.
  [[nodiscard]] virtual Result<std::vector<std::string>> List(const std::string& dir) = 0;
  // Removes a file or an empty directory.
  [[nodiscard]] virtual Status Remove(const std::string& path) = 0;
  // Replaces `to` atomically with `from`.
  [[nodiscard]] virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // Makes the creations, removals and renames in dir durable.
  [[nodiscard]] virtual Status SyncDir(const std::string& dir) = 0;
  // A descriptor of dir, owned by the caller, for work submitted elsewhere on dir (IoRing: its
  // fsync, unlinks of its files); -1 where the file system has none (memory).
  virtual int OpenDir(const std::string& dir) { return -1; }
  // Removes the file `name` of dir through the calling worker's io_uring, dir_fd being
  // OpenDir(dir): done(0 or the errno) from a later IoRing::Reap.
  virtual void RingUnlink(IoRing& ring, int dir_fd, const std::string& dir, std::string name,
                          std::function<void(int error)> done);
  // SyncDir(dir) through the calling worker's io_uring, dir_fd being OpenDir(dir) (a duplicate
  // is taken): done(0 or the errno) from a later IoRing::Reap.
  virtual void RingSyncDir(IoRing& ring, int dir_fd, const std::string& dir,
                           std::function<void(int error)> done);

  // Reads a whole file; NotFound when it does not exist.
  [[nodiscard]] Result<std::string> ReadFile(const std::string& path);
  // Replaces path with data atomically and durably (write temp, sync, rename, sync dir).
  [[nodiscard]] Status WriteFileAtomic(const std::string& path, std::string_view data);
};

// Whether the names of the files a store created in its directory are durable. Each creation
// is a new version; a sync of the directory makes the versions it covered durable. A store
// starts unsure (one version not synced): its directory may have been changed before a crash.
class DirVersion {
 public:
  void Created() { ++version_; }
  // 0 when every creation is durable, else the version a directory sync started now covers.
  uint64_t Unsynced() const { return synced_ == version_ ? 0 : version_; }
  // A directory sync covering version completed (0: nothing to record).
  void Synced(uint64_t version) { synced_ = std::max(synced_, version); }
  // The directory was synced just now, in place.
  void SyncedNow() { synced_ = version_; }

 private:
  uint64_t version_ = 1;
  uint64_t synced_ = 0;
};

// The real file system (pread/pwrite/fdatasync).
std::unique_ptr<Fs> NewPosixFs();

// "a/b" from ("a", "b").
std::string JoinPath(std::string_view dir, std::string_view name);

}  // namespace slotkv
