#include "core/command/latency_histogram.h"

#include <algorithm>
#include <bit>

namespace slotkv::command {
namespace {

constexpr int kHalfMagnitude = 7;  // 128 = half of the 256 sub-buckets
constexpr int64_t kHalf = int64_t{1} << kHalfMagnitude;

// hdr_histogram's bucket of v: the power of two above the 256 sub-buckets.
int BucketOf(int64_t v) {
  return (64 - std::countl_zero(static_cast<uint64_t>(v) | 255u)) - (kHalfMagnitude + 1);
}

}  // namespace

size_t LatencyHistogram::IndexOf(int64_t v) {
  const int b = BucketOf(v);
  const int64_t sub = v >> b;
  return static_cast<size_t>(((static_cast<int64_t>(b) + 1) << kHalfMagnitude) + (sub - kHalf));
}

int64_t LatencyHistogram::ValueAt(size_t i) {
  int64_t b = (static_cast<int64_t>(i) >> kHalfMagnitude) - 1;
  int64_t sub = (static_cast<int64_t>(i) & (kHalf - 1)) + kHalf;
  if (b < 0) {
    sub -= kHalf;
    b = 0;
  }
  return sub << b;
}

int64_t LatencyHistogram::LowestEquivalent(int64_t v) {
  const int b = BucketOf(v);
  return (v >> b) << b;
}

int64_t LatencyHistogram::HighestEquivalent(int64_t v) {
  const int b = BucketOf(v);
  const int adjusted = (v >> b) >= 2 * kHalf ? b + 1 : b;
  return LowestEquivalent(v) + (int64_t{1} << adjusted) - 1;
}

void LatencyHistogram::Add(const std::atomic<uint64_t>* counts) {
  for (size_t i = 0; i < kCounts; ++i) {
    const uint64_t n = counts[i].load(std::memory_order_relaxed);
    counts_[i] += n;
    total_ += n;
  }
}

void LatencyHistogram::Record(int64_t ns) {
  ++counts_[IndexOf(std::clamp<int64_t>(ns, 1, kMaxNs))];
  ++total_;
}

int64_t LatencyHistogram::ValueAtPercentile(double p) const {
  const double pct = std::min(p, 100.0);
  const uint64_t at =
      std::max<uint64_t>(static_cast<uint64_t>(pct / 100 * static_cast<double>(total_) + 0.5), 1);
  uint64_t seen = 0;
  for (size_t i = 0; i < kCounts; ++i) {
    seen += counts_[i];
    if (seen >= at) {
      const int64_t v = ValueAt(i);
      return p == 0.0 ? LowestEquivalent(v) : HighestEquivalent(v);
    }
  }
  return 0;
}

std::vector<std::pair<int64_t, uint64_t>> LatencyHistogram::Distribution() const {
  std::vector<std::pair<int64_t, uint64_t>> out;
  uint64_t seen = 0;
  uint64_t reported = 0;
  size_t i = 0;
  for (int64_t level = 1024; seen < total_ && level <= 2 * kMaxNs; level *= 2) {
    const size_t last = IndexOf(std::min(level, kMaxNs));
    for (; i <= last; ++i) seen += counts_[i];
    if (seen > reported) out.emplace_back(HighestEquivalent(level) / 1000, seen);
    reported = seen;
  }
  return out;
}

void LatencyCounts::Record(int64_t us) {
  std::atomic<uint64_t>* counts = counts_.load(std::memory_order_relaxed);
  if (counts == nullptr) {
    counts = new std::atomic<uint64_t>[LatencyHistogram::kCounts]();
    counts_.store(counts, std::memory_order_release);
  }
  const int64_t ns = std::clamp<int64_t>(us * 1000, 1, LatencyHistogram::kMaxNs);
  std::atomic<uint64_t>& c = counts[LatencyHistogram::IndexOf(ns)];
  c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void LatencyCounts::Reset() {
  std::atomic<uint64_t>* counts = counts_.load(std::memory_order_relaxed);
  if (counts == nullptr) return;
  for (size_t i = 0; i < LatencyHistogram::kCounts; ++i) {
    counts[i].store(0, std::memory_order_relaxed);
  }
}

}  // namespace slotkv::command
