// PosixFs: the real file system through pread/pwrite/fdatasync. Errors carry the path and
// strerror text, e.g. "wal-000001.log: write: No space left on device".
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/fs.h"

namespace slotkv {
namespace {

Status ErrnoStatus(const std::string& path, const char* op, int err) {
  return Status::IOError(path + ": " + op + ": " + std::strerror(err));
}

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
    size_t done = 0;
    while (done < n) {
      ssize_t got = pread(fd_, buf + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(path_, "read", errno);
      }
      if (got == 0) break;
      done += static_cast<size_t>(got);
    }
    return done;
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

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
};

class PosixFs : public Fs {
 public:
  Result<std::unique_ptr<File>> Open(const std::string& path) override {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
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
    if (unlink(path.c_str()) != 0) return ErrnoStatus(path, "unlink", errno);
    return Status::OK();
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (rename(from.c_str(), to.c_str()) != 0) return ErrnoStatus(from, "rename", errno);
    return Status::OK();
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
