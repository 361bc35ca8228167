// PosixFs: the real file system through pread/pwrite/fdatasync. Errors carry the path and
// strerror text, e.g. "wal-000001.log: write: No space left on device".
#include <dirent.h>
#include <liburing.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/base/fs.h"
#include "core/base/no_wait_reads.h"

namespace slotkv {
namespace {

Status ErrnoStatus(const std::string& path, const char* op, int err) {
  return Status::IOError(path + ": " + op + ": " + std::strerror(err));
}

// One io_uring per thread, used synchronously by ReadMany: submit a batch, wait for it. Under
// NoWaitReads the reads carry RWF_NOWAIT and those that would wait come back -EAGAIN.
class ReadRing {
 public:
  static constexpr unsigned kDepth = 256;

  // This thread's ring, or nullptr when the kernel refuses io_uring (reads then use pread).
  static ReadRing* ForThisThread() {
    thread_local std::unique_ptr<ReadRing> ring = Create();
    return ring.get();
  }
  ~ReadRing() { io_uring_queue_exit(&ring_); }

  // Submits reads [0, requests.size()) of fd; fills done, or returns the first error. With
  // no_wait, a read the page cache cannot serve is left with done = 0 and added to *blocked.
  int Run(int fd, std::vector<ReadRequest>& requests, bool no_wait,
          std::vector<ReadRequest*>* blocked) {
    size_t next = 0;
    unsigned inflight = 0;
    int first_error = 0;
    while (next < requests.size() || inflight > 0) {
      while (next < requests.size() && inflight < kDepth) {
        io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
        if (sqe == nullptr) break;
        ReadRequest& r = requests[next];
        io_uring_prep_read(sqe, fd, r.buf, static_cast<unsigned>(r.n), r.offset);
        if (no_wait) sqe->rw_flags = RWF_NOWAIT;
        io_uring_sqe_set_data(sqe, &r);
        ++next;
        ++inflight;
      }
      int rc = io_uring_submit_and_wait(&ring_, 1);
      if (rc < 0 && rc != -EINTR) return -rc;
      io_uring_cqe* cqe;
      while (inflight > 0 && io_uring_peek_cqe(&ring_, &cqe) == 0) {
        auto* r = static_cast<ReadRequest*>(io_uring_cqe_get_data(cqe));
        if (no_wait && cqe->res == -EAGAIN) {
          blocked->push_back(r);
        } else if (no_wait && (cqe->res == -EOPNOTSUPP || cqe->res == -EINVAL)) {
          // No RWF_NOWAIT here: left with done = 0, ReadMany finishes it with Read.
        } else if (cqe->res < 0) {
          if (first_error == 0) first_error = -cqe->res;
        } else {
          r->done = static_cast<size_t>(cqe->res);
        }
        io_uring_cqe_seen(&ring_, cqe);
        --inflight;
      }
    }
    return first_error;
  }

 private:
  static std::unique_ptr<ReadRing> Create() {
    auto ring = std::unique_ptr<ReadRing>(new ReadRing());
    if (io_uring_queue_init(kDepth, &ring->ring_, 0) != 0) return nullptr;
    return ring;
  }
  ReadRing() = default;
  io_uring ring_{};
};

class PosixFile : public File {
 public:
  PosixFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {
    struct stat st;
    size_ = fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }
  ~PosixFile() override { close(fd_); }

  Status Write(uint64_t offset, std::string_view data) override {
    const char* p = data.data();
    size_t left = data.size();
    uint64_t at = offset;
    while (left > 0) {
      ssize_t n = pwrite(fd_, p, left, static_cast<off_t>(at));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(path_, "write", errno);
      }
      p += n;
      left -= static_cast<size_t>(n);
      at += static_cast<uint64_t>(n);
    }
    if (at > size_) size_ = at;
    return Status::OK();
  }

  Status Append(std::string_view data) override { return Write(size_, data); }

  Result<size_t> Read(uint64_t offset, size_t n, char* buf) const override {
    NoWaitReads* no_wait = NoWaitReads::Current();
    size_t done = 0;
    while (done < n) {
      ssize_t got;
      if (no_wait != nullptr) {
        iovec v{buf + done, n - done};
        got = preadv2(fd_, &v, 1, static_cast<off_t>(offset + done), RWF_NOWAIT);
        if (got < 0 && errno == EAGAIN) return no_wait->Blocked(fd_, offset + done, n - done);
        if (got < 0 && (errno == EOPNOTSUPP || errno == EINVAL)) {
          // A kernel or file system that cannot tell: this read waits.
          got = pread(fd_, buf + done, n - done, static_cast<off_t>(offset + done));
        }
      } else {
        got = pread(fd_, buf + done, n - done, static_cast<off_t>(offset + done));
      }
      if (got < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(path_, "read", errno);
      }
      if (got == 0) break;
      done += static_cast<size_t>(got);
    }
    return done;
  }

  Status ReadMany(std::vector<ReadRequest>& requests) const override {
    ReadRing* ring = requests.size() > 1 ? ReadRing::ForThisThread() : nullptr;
    if (ring == nullptr) return File::ReadMany(requests);
    for (ReadRequest& r : requests) r.done = 0;
    NoWaitReads* no_wait = NoWaitReads::Current();
    std::vector<ReadRequest*> blocked;
    if (int err = ring->Run(fd_, requests, no_wait != nullptr, &blocked); err != 0) {
      return ErrnoStatus(path_, "read", err);
    }
    // Every region that would wait is noted, so that one fetch brings them all.
    Status status;
    for (ReadRequest* r : blocked) status = no_wait->Blocked(fd_, r->offset, r->n);
    // A read may come back short before the end of the file: finish it with pread (which
    // stops at the end). size_ is not asked: writes through an io_uring do not move it.
    for (ReadRequest& r : requests) {
      if (r.done < r.n &&
          std::find(blocked.begin(), blocked.end(), &r) == blocked.end()) {
        Result<size_t> more = Read(r.offset + r.done, r.n - r.done, r.buf + r.done);
        if (!more.ok()) {
          if (status.ok() || !more.status().IsBusy()) status = more.status();
          continue;
        }
        r.done += *more;
      }
    }
    return status;
  }

  Status Sync() override {
    if (fdatasync(fd_) != 0) return ErrnoStatus(path_, "fdatasync", errno);
    return Status::OK();
  }

  Status Truncate(uint64_t size) override {
    if (ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      return ErrnoStatus(path_, "ftruncate", errno);
    }
    size_ = size;
    return Status::OK();
  }

  Status PunchHole(uint64_t offset, uint64_t len) override {
    if (len == 0) return Status::OK();
    if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                  static_cast<off_t>(len)) != 0) {
      if (errno == EOPNOTSUPP) {
        // No hole punching on this file system: zero the range so it reads as a hole would.
        return Write(offset, std::string(len, '\0'));
      }
      return ErrnoStatus(path_, "fallocate", errno);
    }
    return Status::OK();
  }

  uint64_t Size() const override { return size_; }

  void AdviseRandomAccess() override { posix_fadvise(fd_, 0, 0, POSIX_FADV_RANDOM); }
  int NativeHandle() const override { return fd_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
};

class PosixFs : public Fs {
 public:
  Result<std::unique_ptr<File>> Open(const std::string& path) override {
    // O_NOATIME: on a file written all the time (relatime), each read would update its
    // access time, a journalled inode change that waits while ext4 commits its journal:
    // reads of the flushes of a 50M-key load stalled 27-37 ms. Refused (EPERM) on a file
    // another user owns: opened without then.
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOATIME, 0644);
    if (fd < 0 && errno == EPERM) fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus(path, "open", errno);
    return std::unique_ptr<File>(new PosixFile(path, fd));
  }

  bool Exists(const std::string& path) override { return access(path.c_str(), F_OK) == 0; }

  Status CreateDirs(const std::string& dir) override {
    for (size_t pos = 1; pos <= dir.size(); ++pos) {
      if (pos != dir.size() && dir[pos] != '/') continue;
      std::string prefix = dir.substr(0, pos);
      if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
        return ErrnoStatus(prefix, "mkdir", errno);
      }
    }
    return Status::OK();
  }

  Result<std::vector<std::string>> List(const std::string& dir) override {
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return ErrnoStatus(dir, "opendir", errno);
    std::vector<std::string> names;
    while (struct dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
    }
    closedir(d);
    return names;
  }

  Status Remove(const std::string& path) override {
    if (::remove(path.c_str()) != 0) return ErrnoStatus(path, "remove", errno);
    return Status::OK();
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (rename(from.c_str(), to.c_str()) != 0) return ErrnoStatus(from, "rename", errno);
    return Status::OK();
  }

  int OpenDir(const std::string& dir) override {
    return open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }

  Status SyncDir(const std::string& dir) override {
    int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(dir, "open", errno);
    int rc = fsync(fd);
    int err = errno;
    close(fd);
    if (rc != 0) return ErrnoStatus(dir, "fsync", err);
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<Fs> NewPosixFs() { return std::make_unique<PosixFs>(); }

}  // namespace slotkv
