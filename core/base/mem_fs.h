// MemFs: files in memory. Pure-memory mode runs the engine over it, and tests use it to model a
// power cut: each file remembers the bytes it had at its last Sync(), and
// SimulatePowerCutForTest() rolls every file back to them. Namespace operations (create, remove,
// rename) count as durable at once. Thread-safe.
#pragma once

#include <memory>

#include "core/base/fs.h"

namespace slotkv {

class MemFs : public Fs {
 public:
  MemFs();
  ~MemFs() override;

  Result<std::unique_ptr<File>> Open(const std::string& path) override;
  bool Exists(const std::string& path) override;
  Status CreateDirs(const std::string& dir) override;
  Result<std::vector<std::string>> List(const std::string& dir) override;
  Status Remove(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status SyncDir(const std::string& dir) override;

  // Every file loses the bytes written since its last Sync(). Open File handles stay usable.
  void SimulatePowerCutForTest();
  // Bytes held by all files.
  uint64_t TotalBytes() const;

 struct State;  // shared with open files; internal

 private:
  std::shared_ptr<State> state_;
};

}  // namespace slotkv
