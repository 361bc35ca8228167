// Clock: where slotkv reads the time, so tests advance time instead of sleeping.
// Times are milliseconds since the Unix epoch (expire-at values use the same scale).
#pragma once

#include <atomic>
#include <cstdint>

namespace slotkv {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMs() const = 0;
  // Monotonic microseconds, for latency and intervals.
  virtual int64_t MonotonicUs() const = 0;
};

// The system clock; a process-wide instance.
Clock* SystemClock();

// A clock that moves only when told. Thread-safe.
class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t now_ms = 1'700'000'000'000) : now_ms_(now_ms) {}
  int64_t NowMs() const override { return now_ms_.load(); }
  int64_t MonotonicUs() const override { return now_ms_.load() * 1000; }
  void AdvanceMs(int64_t ms) { now_ms_ += ms; }
  void SetMs(int64_t ms) { now_ms_ = ms; }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace slotkv
