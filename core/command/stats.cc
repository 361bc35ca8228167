#include "core/command/stats.h"

namespace slotkv::command {

void InstantaneousMetrics::Sample(int64_t now_ms, const uint64_t (&totals)[kMetrics]) {
  constexpr int64_t kPeriodMs = 100;
  if (last_ms_ != 0 && now_ms - last_ms_ < kPeriodMs) return;
  const int64_t elapsed = now_ms - last_ms_;
  for (size_t m = 0; m < kMetrics; ++m) {
    const uint64_t rate =
        last_ms_ == 0 || elapsed <= 0 ? 0 : (totals[m] - last_[m]) * 1000 / elapsed;
    samples_[m][next_].store(rate, std::memory_order_relaxed);
    last_[m] = totals[m];
  }
  next_ = (next_ + 1) % kSamples;
  last_ms_ = now_ms;
}

uint64_t InstantaneousMetrics::Rate(Metric m) const {
  uint64_t sum = 0;
  for (const std::atomic<uint64_t>& s : samples_[m]) sum += s.load(std::memory_order_relaxed);
  return sum / kSamples;
}

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
