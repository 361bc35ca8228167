// Per-worker counters (INFO stats, INFO commandstats). Each worker writes only its own
// WorkerStats; any thread may read them (relaxed atomics: single writer, no contention),
// and INFO sums them over workers.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/command/latency_histogram.h"

namespace slotkv::command {

struct CommandStat {
  LatencyCounts latency;  // LATENCY HISTOGRAM, INFO latencystats
  std::atomic<uint64_t> calls{0};
  std::atomic<uint64_t> usec{0};
  std::atomic<uint64_t> failed_calls{0};    // replied with an error
  std::atomic<uint64_t> rejected_calls{0};  // refused before running (arity, auth)
};

struct WorkerStats {
  explicit WorkerStats(size_t commands) : per_command(new CommandStat[commands]) {}

  // Adds n to a counter this worker owns (one writer: no read-modify-write race).
  static void Add(std::atomic<uint64_t>& c, uint64_t n = 1) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  static uint64_t Get(const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); }

  std::unique_ptr<CommandStat[]> per_command;  // [CommandSpec::id], subcommand rows too
  std::atomic<uint64_t> commands_processed{0};
  std::atomic<uint64_t> connections_received{0};
  std::atomic<uint64_t> rejected_connections{0};
  std::atomic<uint64_t> net_input_bytes{0};
  std::atomic<uint64_t> net_output_bytes{0};
  // Socket reads and writes that moved bytes (INFO total_reads_processed, ..._writes_...).
  std::atomic<uint64_t> reads_processed{0};
  std::atomic<uint64_t> writes_processed{0};
  std::atomic<uint64_t> keyspace_hits{0};
  std::atomic<uint64_t> keyspace_misses{0};
  std::atomic<uint64_t> error_replies{0};
  // Read-only commands whose reads missed the OS page cache, so they waited for a fetch
  // through the worker's io_uring (each wait counts); the regions so fetched.
  std::atomic<uint64_t> read_waits{0};
  std::atomic<uint64_t> async_reads{0};
  // Connections this worker handed to the worker owning the keys they use (net/connection.h,
  // "Placement").
  std::atomic<uint64_t> client_moves{0};
  // Replies this worker, the owner of a request's slot, wrote to the client's socket itself
  // (net/remote_batch.h, DirectReply).
  std::atomic<uint64_t> direct_replies{0};
  // How late the worker's 10 ms probe timer fired, at most (us): about the longest time a
  // request waited for the worker to be free (one long handler, or a queue of them).
  std::atomic<uint64_t> loop_lag_max_us{0};
};

// INFO's instantaneous_* figures, as Redis's trackInstantaneousMetric: at most every 100 ms a
// rate per second of a total is sampled (Sample, from one thread); Rate is the mean of the last
// kSamples.
//
// Thread rule: Sample from one thread (worker 0's expiry step); Rate from any.
class InstantaneousMetrics {
 public:
  enum Metric { kOps, kNetInput, kNetOutput, kMetrics };
  static constexpr size_t kSamples = 16;
  void Sample(int64_t now_ms, const uint64_t (&totals)[kMetrics]);
  uint64_t Rate(Metric m) const;

 private:
  int64_t last_ms_ = 0;
  uint64_t last_[kMetrics] = {};
  size_t next_ = 0;
  std::atomic<uint64_t> samples_[kMetrics][kSamples] = {};
};

// INFO errorstats: error replies by code ("ERR", "WRONGTYPE" ...), server-wide. As Redis: at
// kMaxCodes distinct codes it stops, keeping only ERRORSTATS_DISABLED, until Reset.
//
// Thread rule: any thread (a mutex; taken only by error replies and INFO).
class ErrorStats {
 public:
  static constexpr size_t kMaxCodes = 128;
  void Add(std::string_view code);
  std::vector<std::pair<std::string, uint64_t>> Snapshot() const;  // by code
  void Reset();

 private:
  mutable std::mutex mu_;
  std::map<std::string, uint64_t, std::less<>> counts_;  // guarded by mu_
  bool disabled_ = false;                                // guarded by mu_
};

}  // namespace slotkv::command
