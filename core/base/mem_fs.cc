// MemFs keeps each file as two strings: the bytes written, and the bytes as of the last Sync.
// A power cut copies the second over the first. Sync copies the whole file; pure-memory mode
// never syncs (the engine runs with fsync off), so only power-cut tests pay for the copy.
#include "core/base/mem_fs.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

namespace slotkv {

struct MemFs::State {
  struct FileData {
    std::string data;
    std::string synced;
  };
  mutable std::mutex mu;
  std::map<std::string, std::shared_ptr<FileData>> files;
  std::set<std::string> dirs;
};

namespace {


class MemFile : public File {
 public:
  MemFile(std::shared_ptr<MemFs::State> state, std::shared_ptr<MemFs::State::FileData> data)
      : state_(std::move(state)), file_(std::move(data)) {}

  Status Write(uint64_t offset, std::string_view data) override {
    std::lock_guard lock(state_->mu);
    std::string& bytes = file_->data;
    if (bytes.size() < offset + data.size()) bytes.resize(offset + data.size(), '\0');
    std::copy(data.begin(), data.end(), bytes.begin() + static_cast<ptrdiff_t>(offset));
    return Status::OK();
  }

  Status Append(std::string_view data) override {
    std::lock_guard lock(state_->mu);
    file_->data.append(data);
    return Status::OK();
  }

  Result<size_t> Read(uint64_t offset, size_t n, char* buf) const override {
    std::lock_guard lock(state_->mu);
    const std::string& bytes = file_->data;
    if (offset >= bytes.size()) return size_t{0};
    size_t count = std::min<size_t>(n, bytes.size() - offset);
    std::copy_n(bytes.data() + offset, count, buf);
    return count;
  }

  Status Sync() override {
    std::lock_guard lock(state_->mu);
    file_->synced = file_->data;
    return Status::OK();
  }

  Status Truncate(uint64_t size) override {
    std::lock_guard lock(state_->mu);
    file_->data.resize(size, '\0');
    return Status::OK();
  }

  Status PunchHole(uint64_t offset, uint64_t len) override {
    std::lock_guard lock(state_->mu);
    std::string& bytes = file_->data;
    if (offset >= bytes.size()) return Status::OK();
    uint64_t end = std::min<uint64_t>(bytes.size(), offset + len);
    std::fill(bytes.begin() + static_cast<ptrdiff_t>(offset),
              bytes.begin() + static_cast<ptrdiff_t>(end), '\0');
    return Status::OK();
  }

  uint64_t Size() const override {
    std::lock_guard lock(state_->mu);
    return file_->data.size();
  }

 private:
  std::shared_ptr<MemFs::State> state_;
  std::shared_ptr<MemFs::State::FileData> file_;
};

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace

MemFs::MemFs() : state_(std::make_shared<State>()) {}
MemFs::~MemFs() = default;

Result<std::unique_ptr<File>> MemFs::Open(const std::string& path) {
  std::lock_guard lock(state_->mu);
  std::string parent = Parent(path);
  if (!parent.empty() && !state_->dirs.count(parent)) {
    return Status::IOError(path + ": open: No such file or directory");
  }
  auto& slot = state_->files[path];
  if (!slot) slot = std::make_shared<State::FileData>();
  return std::unique_ptr<File>(new MemFile(state_, slot));
}

bool MemFs::Exists(const std::string& path) {
  std::lock_guard lock(state_->mu);
  return state_->files.count(path) || state_->dirs.count(path);
}

Status MemFs::CreateDirs(const std::string& dir) {
  std::lock_guard lock(state_->mu);
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos == dir.size() || dir[pos] == '/') state_->dirs.insert(dir.substr(0, pos));
  }
  return Status::OK();
}

Result<std::vector<std::string>> MemFs::List(const std::string& dir) {
  std::lock_guard lock(state_->mu);
  if (!state_->dirs.count(dir)) return Status::IOError(dir + ": opendir: No such directory");
  std::vector<std::string> names;
  std::string prefix = dir + "/";
  auto add_children = [&](const std::string& path) {
    if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
        path.find('/', prefix.size()) == std::string::npos) {
      names.push_back(path.substr(prefix.size()));
    }
  };
  for (const auto& [path, data] : state_->files) add_children(path);
  for (const auto& path : state_->dirs) add_children(path);
  return names;
}

Status MemFs::Remove(const std::string& path) {
  std::lock_guard lock(state_->mu);
  if (state_->files.erase(path) == 0 && state_->dirs.erase(path) == 0) {
    return Status::IOError(path + ": remove: No such file or directory");
  }
  return Status::OK();
}

Status MemFs::Rename(const std::string& from, const std::string& to) {
  std::lock_guard lock(state_->mu);
  auto it = state_->files.find(from);
  if (it != state_->files.end()) {
    state_->files[to] = it->second;
    state_->files.erase(it);
    return Status::OK();
  }
  if (!state_->dirs.count(from)) {
    return Status::IOError(from + ": rename: No such file or directory");
  }
  // A directory: every path under it moves.
  const std::string prefix = from + "/";
  auto moved = [&](const std::string& path) { return to + path.substr(from.size()); };
  decltype(state_->files) files;
  for (auto& [path, data] : state_->files) {
    files[path.compare(0, prefix.size(), prefix) == 0 ? moved(path) : path] = data;
  }
  std::set<std::string> dirs;
  for (const std::string& path : state_->dirs) {
    dirs.insert(path == from || path.compare(0, prefix.size(), prefix) == 0 ? moved(path) : path);
  }
  state_->files = std::move(files);
  state_->dirs = std::move(dirs);
  return Status::OK();
}

Status MemFs::SyncDir(const std::string&) { return Status::OK(); }

void MemFs::SimulatePowerCutForTest(std::initializer_list<std::string_view> written_back) {
  std::lock_guard lock(state_->mu);
  for (auto& [path, file] : state_->files) {
    const std::string& name = path;  // clang 14 cannot capture a structured binding
    const bool kept = std::any_of(written_back.begin(), written_back.end(), [&](auto part) {
      return name.find(part) != std::string::npos;
    });
    if (kept) {
      file->synced = file->data;
    } else {
      file->data = file->synced;
    }
  }
}

uint64_t MemFs::TotalBytes() const {
  std::lock_guard lock(state_->mu);
  uint64_t total = 0;
  for (const auto& [path, file] : state_->files) total += file->data.size();
  return total;
}

}  // namespace slotkv
