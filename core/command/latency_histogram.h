// Per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats) laid out as Redis 7.0's:
// an HDR histogram of nanoseconds from 1 to 1e9 with two significant digits (256 sub-buckets
// per power of two), so percentiles and the cumulative distribution come out as Redis prints
// them. A call's microseconds are recorded as us * 1000 ns, at least 1 (Redis's
// updateCommandLatencyHistogram).
//
// Thread rule: each worker records into its own LatencyCounts (one writer, relaxed atomics);
// any thread may take a Snapshot and read it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace slotkv::command {

class LatencyHistogram {
 public:
  static constexpr int64_t kMaxNs = 1'000'000'000;
  // Counts for values 1 .. kMaxNs: 23 buckets of 128 half-sub-buckets, plus the first half.
  static constexpr size_t kCounts = 24 * 128;

  // The index of value v's counter. REQUIRES: 0 <= v <= kMaxNs.
  static size_t IndexOf(int64_t v);
  // The lowest value counted at index i.
  static int64_t ValueAt(size_t i);
  // The range of values counted with v: its lowest and highest.
  static int64_t LowestEquivalent(int64_t v);
  static int64_t HighestEquivalent(int64_t v);

  LatencyHistogram() : counts_(kCounts, 0) {}
  // Adds counts (a worker's share).
  void Add(const std::atomic<uint64_t>* counts);
  void Record(int64_t ns);
  uint64_t total() const { return total_; }
  // Redis's hdr_value_at_percentile: the highest value equivalent to the one at percentile p.
  int64_t ValueAtPercentile(double p) const;
  // The cumulative distribution as LATENCY HISTOGRAM replies it (Redis's hdr_iter_log from
  // 1024 ns, base 2): (microseconds, calls at or below) at each power-of-two level whose count
  // grew, up to the level holding the largest value.
  std::vector<std::pair<int64_t, uint64_t>> Distribution() const;

 private:
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
};

// One worker's counters for one command, allocated when it first records.
class LatencyCounts {
 public:
  LatencyCounts() = default;
  LatencyCounts(const LatencyCounts&) = delete;
  LatencyCounts& operator=(const LatencyCounts&) = delete;
  ~LatencyCounts() { delete[] counts_.load(); }

  // Records a call of us microseconds. REQUIRES: the owning worker.
  void Record(int64_t us);
  // The counters, or nullptr before the first call.
  const std::atomic<uint64_t>* counts() const { return counts_.load(std::memory_order_acquire); }
  // Zeroes them (CONFIG RESETSTAT). REQUIRES: the owning worker.
  void Reset();

 private:
  std::atomic<std::atomic<uint64_t>*> counts_{nullptr};
};

}  // namespace slotkv::command
