// TempDir: a fresh directory for a test (mkdtemp of <parent>/<prefix>-XXXXXX), removed with
// everything in it when the TempDir goes, also when the test stops at a failed REQUIRE. Aborts
// when the directory cannot be made: for tests only.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace slotkv {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix, const std::string& parent = "/tmp") {
    std::string name = parent + "/" + prefix + "-XXXXXX";
    if (mkdtemp(name.data()) == nullptr) {
      std::perror(("mkdtemp " + name).c_str());
      std::abort();
    }
    path_ = std::move(name);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace slotkv
