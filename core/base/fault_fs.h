// FaultFs: wraps another Fs and fails chosen calls, so tests can check that every layer turns an
// I/O failure into the right Status. Counters cover all files opened through this Fs. Its files
// and directories have the base's descriptors, so I/O through the io_uring (File::RingWrite,
// RingSync, RingPunchHole, Fs::RingUnlink, Fs::RingSyncDir) is possible, and meets the same
// faults.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/base/fs.h"

namespace slotkv {

class FaultFs : public Fs {
 public:
  explicit FaultFs(Fs* base);  // base must outlive this
  ~FaultFs() override;

  // The n-th Write/Append from now (1 = the next) fails with IOError and writes nothing.
  void FailNthWrite(int n);
  // The n-th Write/Append from now writes only `bytes` bytes, then fails with IOError.
  void ShortNthWrite(int n, size_t bytes);
  // The n-th Sync (or ring fsync) from now fails with IOError (EIO).
  void FailNthSync(int n);
  // The n-th SyncDir (or ring directory fsync) from now fails with IOError (EIO). Counted
  // apart from file syncs (dir_syncs()).
  void FailNthDirSync(int n);
  // The n-th Remove (or ring unlink) from now fails with IOError (EIO) and removes nothing.
  void FailNthRemove(int n);
  // The n-th PunchHole (or ring punch) from now fails with IOError (EIO) and punches nothing.
  void FailNthPunch(int n);
  // The next n reads made in a NoWaitReads scope (a Read, or one request of a ReadMany) miss
  // the page cache as PosixFs's would: Busy, the region noted with no descriptor (its fetch
  // fails; the retry reads again). Reads outside a scope are not counted.
  void MissPageCache(int n);
  // Writes fail with IOError "No space left on device" once `bytes` more bytes were written
  // (the write that crosses the limit writes nothing).
  void SetSpaceLimit(uint64_t bytes);
  // Arms the faults above only for files whose path contains part ("" = every file; the
  // default). Calls on other files still count in writes() and syncs().
  void OnlyPaths(std::string part);
  // Removes every armed fault (and the path filter).
  void Clear();

  uint64_t writes() const;
  uint64_t syncs() const;
  uint64_t dir_syncs() const;
  uint64_t reads() const;  // File::Read calls

  Result<std::unique_ptr<File>> Open(const std::string& path) override;
  bool Exists(const std::string& path) override;
  Status CreateDirs(const std::string& dir) override;
  Result<std::vector<std::string>> List(const std::string& dir) override;
  Status Remove(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status SyncDir(const std::string& dir) override;
  int OpenDir(const std::string& dir) override;
  void RingUnlink(IoRing& ring, int dir_fd, const std::string& dir, std::string name,
                  std::function<void(int error)> done) override;
  void RingSyncDir(IoRing& ring, int dir_fd, const std::string& dir,
                   std::function<void(int error)> done) override;

  struct State;

 private:
  Fs* base_;
  std::shared_ptr<State> state_;
};

}  // namespace slotkv
