// FaultFs counts writes and syncs across every file it opened; a fault armed for the n-th call
// fires on exactly that call and is then disarmed.
#include "core/base/fault_fs.h"

#include <algorithm>
#include <cerrno>
#include <mutex>

#include "core/base/io_ring.h"
#include "core/base/no_wait_reads.h"

namespace slotkv {

struct FaultFs::State {
  std::mutex mu;
  int fail_write_in = 0;  // 0 = disarmed; counts down per write
  int short_write_in = 0;
  size_t short_write_bytes = 0;
  int fail_sync_in = 0;
  int fail_remove_in = 0;
  int fail_dir_sync_in = 0;
  int fail_punch_in = 0;
  int misses_left = 0;  // MissPageCache
  bool space_limited = false;
  uint64_t space_left = 0;
  std::string only_paths;  // faults hit only files whose path contains it
  uint64_t writes = 0;
  uint64_t syncs = 0;
  uint64_t dir_syncs = 0;
  uint64_t reads = 0;

  // What the next write of n bytes to path should do: write all, write `*partial` bytes then
  // fail, or fail at once (with *error the errno a ring write would get).
  Status OnWrite(const std::string& path, size_t n, size_t* partial, int* error = nullptr) {
    int ignored;
    if (error == nullptr) error = &ignored;
    *error = EIO;
    std::lock_guard lock(mu);
    ++writes;
    *partial = n;
    if (path.find(only_paths) == std::string::npos) return Status::OK();
    if (fail_write_in > 0 && --fail_write_in == 0) {
      *partial = 0;
      return Status::IOError("injected write failure");
    }
    if (short_write_in > 0 && --short_write_in == 0) {
      *partial = std::min(n, short_write_bytes);
      return Status::IOError("injected short write");
    }
    if (space_limited) {
      if (n > space_left) {
        *partial = 0;
        *error = ENOSPC;
        return Status::IOError("write: No space left on device");
      }
      space_left -= n;
    }
    return Status::OK();
  }

  // A call of path counted down by *fail_in (FailNthRemove, FailNthPunch): the n-th fails.
  Status OnCounted(const std::string& path, int* fail_in, const char* what) {
    std::lock_guard lock(mu);
    if (path.find(only_paths) == std::string::npos) return Status::OK();
    if (*fail_in > 0 && --*fail_in == 0) {
      return Status::IOError(std::string("injected ") + what + " failure");
    }
    return Status::OK();
  }
  Status OnRemove(const std::string& path) { return OnCounted(path, &fail_remove_in, "remove"); }
  Status OnDirSync(const std::string& dir) {
    {
      std::lock_guard lock(mu);
      ++dir_syncs;
    }
    return OnCounted(dir, &fail_dir_sync_in, "directory fsync");
  }
  Status OnPunch(const std::string& path) { return OnCounted(path, &fail_punch_in, "punch"); }

  // Whether the next no-wait read of path misses the page cache (MissPageCache).
  bool OnNoWaitRead(const std::string& path) {
    std::lock_guard lock(mu);
    if (path.find(only_paths) == std::string::npos || misses_left == 0) return false;
    --misses_left;
    return true;
  }

  Status OnSync(const std::string& path) {
    std::lock_guard lock(mu);
    ++syncs;
    if (path.find(only_paths) == std::string::npos) return Status::OK();
    if (fail_sync_in > 0 && --fail_sync_in == 0) {
      return Status::IOError("injected fsync failure");
    }
    return Status::OK();
  }
};

namespace {

class FaultFile : public File {
 public:
  FaultFile(std::unique_ptr<File> base, std::shared_ptr<FaultFs::State> state, std::string path)
      : base_(std::move(base)), state_(std::move(state)), path_(std::move(path)) {}

  Status Write(uint64_t offset, std::string_view data) override {
    size_t partial;
    Status fault = state_->OnWrite(path_, data.size(), &partial);
    if (partial > 0) SLOTKV_RETURN_IF_ERROR(base_->Write(offset, data.substr(0, partial)));
    return fault;
  }

  Status Append(std::string_view data) override { return Write(base_->Size(), data); }

  Result<size_t> Read(uint64_t offset, size_t n, char* buf) const override {
    {
      std::lock_guard lock(state_->mu);
      ++state_->reads;
    }
    NoWaitReads* no_wait = NoWaitReads::Current();
    if (no_wait != nullptr && state_->OnNoWaitRead(path_)) return no_wait->Blocked(-1, offset, n);
    return base_->Read(offset, n, buf);
  }

  Status ReadMany(std::vector<ReadRequest>& requests) const override {
    {
      std::lock_guard lock(state_->mu);
      state_->reads += requests.size();
    }
    NoWaitReads* no_wait = NoWaitReads::Current();
    if (no_wait == nullptr) return base_->ReadMany(requests);
    // As PosixFs: the others are read, every miss is noted.
    std::vector<ReadRequest> rest;
    std::vector<size_t> rest_at;
    Status missed;
    for (size_t i = 0; i < requests.size(); ++i) {
      requests[i].done = 0;
      if (state_->OnNoWaitRead(path_)) {
        missed = no_wait->Blocked(-1, requests[i].offset, requests[i].n);
      } else {
        rest.push_back(requests[i]);
        rest_at.push_back(i);
      }
    }
    Status st = base_->ReadMany(rest);
    for (size_t k = 0; k < rest.size(); ++k) requests[rest_at[k]].done = rest[k].done;
    SLOTKV_RETURN_IF_ERROR(st);
    return missed;
  }

  Status Sync() override {
    SLOTKV_RETURN_IF_ERROR(state_->OnSync(path_));
    return base_->Sync();
  }

  // The ring's I/O meets the same faults: a fault is answered from the ring (IoRing::Fail),
  // after the part a short write writes.
  int NativeHandle() const override { return base_->NativeHandle(); }
  void RingWrite(IoRing& ring, uint64_t offset, std::shared_ptr<const std::string> bytes,
                 std::function<void(int error)> done) override {
    size_t partial;
    int error;
    Status fault = state_->OnWrite(path_, bytes->size(), &partial, &error);
    if (fault.ok()) {
      base_->RingWrite(ring, offset, std::move(bytes), std::move(done));
      return;
    }
    if (partial > 0) {
      Status st = base_->Write(offset, std::string_view(*bytes).substr(0, partial));
      st.PermitUnchecked();  // the write fails either way
    }
    ring.Fail(error, std::move(done));
  }
  void RingSync(IoRing& ring, std::function<void(int error)> done) override {
    if (!state_->OnSync(path_).ok()) {
      ring.Fail(EIO, std::move(done));
      return;
    }
    base_->RingSync(ring, std::move(done));
  }

  Status Truncate(uint64_t size) override { return base_->Truncate(size); }
  Status PunchHole(uint64_t offset, uint64_t len) override {
    SLOTKV_RETURN_IF_ERROR(state_->OnPunch(path_));
    return base_->PunchHole(offset, len);
  }
  void RingPunchHole(IoRing& ring, uint64_t offset, uint64_t len,
                     std::function<void(int error)> done) override {
    if (!state_->OnPunch(path_).ok()) {
      ring.Fail(EIO, std::move(done));
      return;
    }
    base_->RingPunchHole(ring, offset, len, std::move(done));
  }
  uint64_t Size() const override { return base_->Size(); }
  void AdviseRandomAccess() override { base_->AdviseRandomAccess(); }

 private:
  std::unique_ptr<File> base_;
  std::shared_ptr<FaultFs::State> state_;
  const std::string path_;
};

}  // namespace

FaultFs::FaultFs(Fs* base) : base_(base), state_(std::make_shared<State>()) {}
FaultFs::~FaultFs() = default;

void FaultFs::FailNthWrite(int n) {
  std::lock_guard lock(state_->mu);
  state_->fail_write_in = n;
}

void FaultFs::ShortNthWrite(int n, size_t bytes) {
  std::lock_guard lock(state_->mu);
  state_->short_write_in = n;
  state_->short_write_bytes = bytes;
}

void FaultFs::FailNthSync(int n) {
  std::lock_guard lock(state_->mu);
  state_->fail_sync_in = n;
}

void FaultFs::FailNthDirSync(int n) {
  std::lock_guard lock(state_->mu);
  state_->fail_dir_sync_in = n;
}

void FaultFs::FailNthRemove(int n) {
  std::lock_guard lock(state_->mu);
  state_->fail_remove_in = n;
}

void FaultFs::FailNthPunch(int n) {
  std::lock_guard lock(state_->mu);
  state_->fail_punch_in = n;
}

void FaultFs::MissPageCache(int n) {
  std::lock_guard lock(state_->mu);
  state_->misses_left = n;
}

void FaultFs::SetSpaceLimit(uint64_t bytes) {
  std::lock_guard lock(state_->mu);
  state_->space_limited = true;
  state_->space_left = bytes;
}

void FaultFs::OnlyPaths(std::string part) {
  std::lock_guard lock(state_->mu);
  state_->only_paths = std::move(part);
}

void FaultFs::Clear() {
  std::lock_guard lock(state_->mu);
  state_->only_paths.clear();
  state_->fail_write_in = 0;
  state_->short_write_in = 0;
  state_->fail_sync_in = 0;
  state_->fail_remove_in = 0;
  state_->fail_dir_sync_in = 0;
  state_->fail_punch_in = 0;
  state_->misses_left = 0;
  state_->space_limited = false;
}

uint64_t FaultFs::writes() const {
  std::lock_guard lock(state_->mu);
  return state_->writes;
}

uint64_t FaultFs::syncs() const {
  std::lock_guard lock(state_->mu);
  return state_->syncs;
}

uint64_t FaultFs::dir_syncs() const {
  std::lock_guard lock(state_->mu);
  return state_->dir_syncs;
}

uint64_t FaultFs::reads() const {
  std::lock_guard lock(state_->mu);
  return state_->reads;
}

Result<std::unique_ptr<File>> FaultFs::Open(const std::string& path) {
  SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, base_->Open(path));
  return std::unique_ptr<File>(new FaultFile(std::move(file), state_, path));
}

bool FaultFs::Exists(const std::string& path) { return base_->Exists(path); }
Status FaultFs::CreateDirs(const std::string& dir) { return base_->CreateDirs(dir); }
Result<std::vector<std::string>> FaultFs::List(const std::string& dir) {
  return base_->List(dir);
}
Status FaultFs::Remove(const std::string& path) {
  SLOTKV_RETURN_IF_ERROR(state_->OnRemove(path));
  return base_->Remove(path);
}
Status FaultFs::Rename(const std::string& from, const std::string& to) {
  return base_->Rename(from, to);
}
Status FaultFs::SyncDir(const std::string& dir) {
  SLOTKV_RETURN_IF_ERROR(state_->OnDirSync(dir));
  return base_->SyncDir(dir);
}
int FaultFs::OpenDir(const std::string& dir) { return base_->OpenDir(dir); }

void FaultFs::RingUnlink(IoRing& ring, int dir_fd, const std::string& dir, std::string name,
                         std::function<void(int error)> done) {
  if (!state_->OnRemove(JoinPath(dir, name)).ok()) {
    ring.Fail(EIO, std::move(done));
    return;
  }
  base_->RingUnlink(ring, dir_fd, dir, std::move(name), std::move(done));
}

void FaultFs::RingSyncDir(IoRing& ring, int dir_fd, const std::string& dir,
                          std::function<void(int error)> done) {
  if (!state_->OnDirSync(dir).ok()) {
    ring.Fail(EIO, std::move(done));
    return;
  }
  base_->RingSyncDir(ring, dir_fd, dir, std::move(done));
}

}  // namespace slotkv
