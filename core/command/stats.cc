#include "core/command/stats.h"

namespace slotkv::command {

void ErrorStats::Add(std::string_view code) {
  std::lock_guard lock(mu_);
  if (disabled_) return;
  auto it = counts_.find(code);
  if (it != counts_.end()) {
    ++it->second;
    return;
  }
  if (counts_.size() >= kMaxCodes) {
    counts_.clear();
    counts_.emplace("ERRORSTATS_DISABLED", 1);
    disabled_ = true;
    return;
  }
  counts_.emplace(std::string(code), 1);
}

std::vector<std::pair<std::string, uint64_t>> ErrorStats::Snapshot() const {
  std::lock_guard lock(mu_);
  return {counts_.begin(), counts_.end()};
}

void ErrorStats::Reset() {
  std::lock_guard lock(mu_);
  counts_.clear();
  disabled_ = false;
}

}  // namespace slotkv::command
