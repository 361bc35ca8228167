// Executor: how command code reaches the worker threads without knowing about sockets. The
// network layer implements it (one io_context per worker); tests implement it with plain
// threads or a queue.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/base/no_wait_reads.h"
#include "core/base/status.h"

namespace slotkv::command {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual int workers() const = 0;
  // The worker running the calling thread, or -1 on a thread that is not a worker.
  virtual int current() const = 0;
  // Runs fn on worker w, after what is already queued there (FIFO per worker). Never blocks.
  virtual void Post(int w, std::function<void()> fn) = 0;
  // Runs fn on the calling worker once delay_ms have passed, unless CancelTimer(id) comes
  // first; returns that id. REQUIRES: on a worker.
  virtual uint64_t RunAfter(int64_t delay_ms, std::function<void()> fn) = 0;
  // Cancels a RunAfter of the calling worker; a no-op when it already ran. REQUIRES: on the
  // worker that called RunAfter.
  virtual void CancelTimer(uint64_t id) = 0;
  // Whether the calling worker fetches what no-wait reads miss (its io_uring is up): reads there
  // may then run in a NoWaitReads scope. REQUIRES: on a worker.
  virtual bool async_reads() const = 0;
  // Reads the regions into the OS page cache in the background, then runs done on the calling
  // worker (never before returning). REQUIRES: async_reads(); !reads.empty().
  virtual void Fetch(std::vector<BlockedRead> reads, std::function<void()> done) = 0;
  // Runs done() on the calling worker once its group commit, behind the work already queued
  // there, has made the writes made there so far durable (per appendfsync) or failed: the
  // commit a turn's replies wait for. A writer then asks ServerState::write_failures for the
  // outcome of the slots it wrote. REQUIRES: on a worker.
  virtual void AfterCommit(std::function<void()> done) = 0;
  // The worker that owns slot s: every request for s runs there.
  int OwnerOf(uint32_t slot) const { return static_cast<int>(slot % workers()); }
};

}  // namespace slotkv::command
