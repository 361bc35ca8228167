// WriteFailures: the engine slots whose commits failed, in order, so that each client waiting
// for a group commit learns the outcome of the slots it wrote and of no others.
//
// A command notes where it starts (Mark) and the engine slots it writes (WriteTrace, filled by
// its Stores). A failed commit of a slot is recorded here before any waiter of that commit
// runs; a failed slot then refuses writes (slot::Slot::failure) until it recovers. So a write
// was lost or unknown exactly when a slot it wrote failed after its command's mark: Outcome
// says so, whichever commit (this worker's group commit, a task's own, a later one) covered it.
// Failures are rare and few are kept: a trace older than the oldest one kept is answered with
// an error (never wrongly OK).
//
// Thread rule: any thread (Record from the slot's owner).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "core/base/status.h"

namespace slotkv::slot {
class Slot;
}

namespace slotkv::command {

// What one command wrote: its start and the engine slots its writes went to.
struct WriteTrace {
  uint64_t mark = 0;
  std::vector<const slot::Slot*> slots;
  uint64_t writes = 0;  // Store writes made, so a task can tell whether it wrote since a point
  uint64_t client = 0;  // the client whose command writes (0: none): CLIENT TRACKING's NOLOOP
  void Add(const slot::Slot* s);
};

class WriteFailures {
 public:
  // The position a command starting now records.
  uint64_t Mark() const { return count_.load(std::memory_order_acquire); }
  // Records that a commit (or sync, or flush) of slot failed with st.
  void Record(const slot::Slot* slot, const Status& st);
  // OK, or the refusal (Unavailable) of the first slot of trace that failed after its mark.
  Status Outcome(const WriteTrace& trace) const;
  // Failures recorded since the start.
  uint64_t count() const { return Mark(); }

 private:
  static constexpr size_t kKept = 1024;
  struct Failure {
    const slot::Slot* slot;
    Status status;
  };
  mutable std::mutex mu_;
  std::deque<Failure> kept_;  // the newest kKept; kept_[i] is failure number count_ - size + i
  std::atomic<uint64_t> count_{0};
};

}  // namespace slotkv::command
