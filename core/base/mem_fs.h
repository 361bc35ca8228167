// MemFs: files in memory. Pure-memory mode runs the engine over it, and tests use it to model a
// power cut: each file remembers the bytes it had at its last Sync(), and
// SimulatePowerCutForTest() rolls every file back to them. Namespace operations (create, remove,
// rename) count as durable at once. Thread-safe.
#pragma once

#include <initializer_list>
#include <memory>
#include <string_view>

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

  // Every file loses the bytes written since its last Sync(), but those whose path contains one
  // of written_back: the kernel wrote their pages back before the cut, as it may at any time.
  // Open File handles stay usable.
  void SimulatePowerCutForTest(std::initializer_list<std::string_view> written_back = {});
  // Bytes held by all files.
  uint64_t TotalBytes() const;

 struct State;  // shared with open files; internal

 private:
  std::shared_ptr<State> state_;
};

}  // namespace slotkv
