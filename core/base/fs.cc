#include "core/base/fs.h"

#include "core/base/io_ring.h"

namespace slotkv {

void File::RingWrite(IoRing& ring, uint64_t offset, std::shared_ptr<const std::string> bytes,
                     std::function<void(int error)> done) {
  ring.Write(NativeHandle(), offset, std::move(bytes), std::move(done));
}

void File::RingSync(IoRing& ring, std::function<void(int error)> done) {
  ring.Sync(NativeHandle(), std::move(done));
}

void File::RingPunchHole(IoRing& ring, uint64_t offset, uint64_t len,
                         std::function<void(int error)> done) {
  if (NativeHandle() >= 0) {
    ring.PunchHole(NativeHandle(), offset, len, std::move(done));
    return;
  }
  ring.Fail(PunchHole(offset, len).ok() ? 0 : EIO, std::move(done));
}

void Fs::RingUnlink(IoRing& ring, int dir_fd, const std::string& dir, std::string name,
                    std::function<void(int error)> done) {
  ring.Unlink(dir_fd, std::move(name), std::move(done));
}

void Fs::RingSyncDir(IoRing& ring, int dir_fd, const std::string& dir,
                     std::function<void(int error)> done) {
  ring.Sync(dir_fd, std::move(done));
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  std::string path(dir);
  if (!path.empty() && path.back() != '/') path.push_back('/');
  path.append(name);
  return path;
}

Status File::ReadMany(std::vector<ReadRequest>& requests) const {
  for (ReadRequest& r : requests) {
    SLOTKV_ASSIGN_OR_RETURN(r.done, Read(r.offset, r.n, r.buf));
  }
  return Status::OK();
}

Result<std::string> Fs::ReadFile(const std::string& path) {
  if (!Exists(path)) return Status::NotFound(path);
  SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, Open(path));
  std::string data(file->Size(), '\0');
  SLOTKV_ASSIGN_OR_RETURN(size_t n, file->Read(0, data.size(), data.data()));
  data.resize(n);
  return data;
}

Status Fs::WriteFileAtomic(const std::string& path, std::string_view data) {
  std::string tmp = path + ".tmp";
  {
    SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, Open(tmp));
    SLOTKV_RETURN_IF_ERROR(file->Truncate(0));
    SLOTKV_RETURN_IF_ERROR(file->Append(data));
    SLOTKV_RETURN_IF_ERROR(file->Sync());
  }
  SLOTKV_RETURN_IF_ERROR(Rename(tmp, path));
  size_t slash = path.rfind('/');
  return SyncDir(slash == std::string::npos ? "." : path.substr(0, slash));
}

}  // namespace slotkv
