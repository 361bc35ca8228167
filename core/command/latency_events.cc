#include "core/command/latency_events.h"

#include <algorithm>

#include "core/command/args.h"

namespace slotkv::command {

std::vector<LatencyEvents::Sample> LatencyEvents::Series::InOrder() const {
  std::vector<Sample> out;
  for (size_t j = 0; j < kSamples; ++j) {
    const Sample& s = ring[(next + j) % kSamples];
    if (s.time_s != 0) out.push_back(s);
  }
  return out;
}

void LatencyEvents::Add(std::string_view event, int64_t now_s, int64_t ms) {
  std::lock_guard lock(mu_);
  auto it = series_.find(std::string(event));
  if (it == series_.end()) it = series_.emplace(std::string(event), Series{}).first;
  Series& s = it->second;
  s.max_ms = std::max(s.max_ms, ms);
  Sample& prev = s.ring[(s.next + kSamples - 1) % kSamples];
  if (prev.time_s == now_s) {
    prev.ms = std::max(prev.ms, ms);
    return;
  }
  s.ring[s.next] = Sample{now_s, ms};
  s.next = (s.next + 1) % kSamples;
}

std::map<std::string, LatencyEvents::Series> LatencyEvents::Snapshot() const {
  std::lock_guard lock(mu_);
  return series_;
}

int64_t LatencyEvents::Reset(const std::vector<std::string>& events) {
  std::lock_guard lock(mu_);
  int64_t resets = 0;
  for (auto it = series_.begin(); it != series_.end();) {
    const bool named = std::any_of(events.begin(), events.end(),
                                   [&](const std::string& e) { return Is(e, it->first); });
    if (events.empty() || named) {
      it = series_.erase(it);
      ++resets;
    } else {
      ++it;
    }
  }
  return resets;
}

}  // namespace slotkv::command
