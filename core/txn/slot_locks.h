// SlotLocks: which transaction holds each slot, and who waits for it. The one mechanism that
// makes EXEC, scripts and multi-key commands atomic across slot owners.
//
// Design. A transaction (EXEC, a multi-key command) takes every slot it touches before it
// changes or reads anything there, and keeps them until it ends (two-phase locking). Slots are
// taken in one global order (Order: owner worker, then slot number), one after the other on each
// slot's owner; a slot that is held makes the taker queue and its task suspend until the holder
// releases it, so no thread ever waits and no two takers can wait for each other in a cycle
// (Dragonfly schedules multi-shard transactions through per-shard queues the same way).
//
// A request that takes no lock (a one-key command, a visit of a slot by a task that holds
// nothing) runs at once when the slot is Free, else it is deferred: queued in the same FIFO as
// the takers, and run, in order with them, by the Release that reaches it. So a request never
// sees a slot in the middle of someone else's transaction, and a transaction queued behind it
// runs after it.
//
// Thread rule: slot s's entry is touched only on s's owner (the worker that runs every request
// for s); a Holder is touched only by its task, which runs on one worker at a time.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace slotkv::slot {
class Slot;
}

namespace slotkv::txn {

// One transaction's hold on slots (EXEC, a multi-key command, a task visiting a slot).
struct Holder {
  explicit Holder(int workers, bool hold_units = true)
      : hold_units(hold_units), units(static_cast<size_t>(workers)) {}

  // Whether the engine slots it writes keep their records as one WAL unit until it ends
  // (slot::Slot::Hold), so a crash leaves all of its writes to a slot or none.
  const bool hold_units;
  // Engine slots written while holding, by worker: Hold() on them, to commit at the end. Each
  // entry is touched on its worker only.
  std::vector<std::vector<slot::Slot*>> units;
  // Slots taken, in the order taken (ascending Order).
  std::vector<uint32_t> slots;
  // Order of the last slot taken (0: none yet). A slot after it may be taken as the task goes;
  // one before it must have been taken already.
  uint64_t last_order = 0;

  bool Holds(uint32_t s) const;
};

class SlotLocks {
 public:
  SlotLocks(uint32_t slots, int workers);

  // The global order in which a transaction takes slots: by owner worker, then slot.
  uint64_t Order(uint32_t s) const {
    return (uint64_t{s % static_cast<uint32_t>(workers_)} << 32 | s) + 1;
  }

  // Whether a request may run on s now: no holder and nobody queued. REQUIRES: on s's owner.
  bool Free(uint32_t s) const {
    const Entry& e = entries_[s];
    return e.holder == nullptr && e.queue.empty();
  }
  // The holder of s, or nullptr. REQUIRES: on s's owner.
  Holder* holder(uint32_t s) const { return entries_[s].holder; }

  // Takes s for h and returns true when Free(s); else queues h and returns false: s is handed
  // to h later, by the Release that reaches it, which returns `granted` for its caller to run.
  // REQUIRES: on s's owner; h does not hold s.
  bool Acquire(uint32_t s, Holder* h, std::function<void()> granted);
  // Queues run behind the holder and the takers already queued; the Release that reaches it
  // calls it, before handing s on, when s's previous holder is done. run executes one request
  // and must not suspend. REQUIRES: on s's owner; !Free(s).
  void Defer(uint32_t s, std::function<void()> run);
  // Frees s: runs the deferred requests at the front of its queue (in order; those deferred
  // meanwhile too when they reach the front), then hands s to the next queued taker and returns
  // its `granted` (the caller posts it; nullptr when none).
  // REQUIRES: on s's owner; holder(s) != nullptr.
  [[nodiscard]] std::function<void()> Release(uint32_t s);

  uint32_t slots() const { return static_cast<uint32_t>(entries_.size()); }

 private:
  struct Waiter {
    Holder* holder;  // nullptr: a deferred request
    std::function<void()> fn;
  };
  struct Entry {
    Holder* holder = nullptr;
    std::deque<Waiter> queue;
  };
  int workers_;
  std::vector<Entry> entries_;  // [slot]
  // Holds a slot while Release runs its deferred requests.
  Holder runner_;
};

}  // namespace slotkv::txn
