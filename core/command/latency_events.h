// The latency monitor (LATENCY LATEST | HISTORY | RESET | GRAPH | DOCTOR), as Redis's latency.c
// keeps it: an event class ("command", "fast-command") that took at least
// latency-monitor-threshold ms gets a sample; each class keeps its last kSamples samples, one
// per second (the worst of that second), and its worst ever.
//
// Thread rule: any thread (a mutex; taken only by slow events and the LATENCY command).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace slotkv::command {

class LatencyEvents {
 public:
  static constexpr size_t kSamples = 160;
  struct Sample {
    int64_t time_s = 0;  // 0: an empty slot
    int64_t ms = 0;
  };
  struct Series {
    std::vector<Sample> ring = std::vector<Sample>(kSamples);
    size_t next = 0;  // where the next second's sample goes
    int64_t max_ms = 0;

    // The samples, oldest first.
    std::vector<Sample> InOrder() const;
    const Sample& last() const { return ring[(next + kSamples - 1) % kSamples]; }
  };

  // Records an event of ms milliseconds at now_s (Redis's latencyAddSample).
  void Add(std::string_view event, int64_t now_s, int64_t ms);
  // Every class's series, by name.
  std::map<std::string, Series> Snapshot() const;
  // Drops the series of the events named (any case), or of all when none is: how many went.
  int64_t Reset(const std::vector<std::string>& events);

 private:
  mutable std::mutex mu_;
  std::map<std::string, Series> series_;  // guarded by mu_
};

}  // namespace slotkv::command
