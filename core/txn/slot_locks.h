// SlotLocks: who holds each slot, or keys of it, and who waits. The one mechanism that makes
// EXEC, scripts and multi-key commands atomic across slot owners.
//
// Design. A transaction takes what it touches before it reads or changes anything there, and
// keeps it until it ends (two-phase locking): EXEC and scripts take whole slots (their writes
// to a slot stay one open WAL unit until they end, so nobody else may write there meanwhile);
// a multi-key command takes only its keys in each slot (its writes to a slot are made and
// committed in one step), so commands on other keys of the slot go on. Slots are taken in one
// global order (Order: owner worker, then slot), one after the other on each slot's owner; a
// taker that finds something it needs held queues, and its task suspends until a release hands
// it over, so no thread ever waits and no two takers can wait for each other in a cycle
// (Dragonfly schedules multi-shard transactions through per-shard queues the same way).
//
// A request that takes nothing (a one-key command, a visit of a whole slot) runs at once when
// nothing it needs is held and nobody is queued on the slot, else it is deferred: queued in the
// same FIFO as the takers and run, in order with them, by the Release that reaches it. So a
// request never sees a slot in the middle of someone else's transaction, and one queued behind
// it runs after it. A queue is served strictly in order: its front waits for what it needs, and
// everyone behind waits with it.
//
// Thread rule: slot s's entry is touched only on s's owner (the worker that runs every request
// for s); a Holder only by its task, which runs on one worker at a time.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace slotkv::slot {
class Slot;
}

namespace slotkv::txn {

// One transaction's hold (EXEC, a multi-key command, a task visiting a slot).
struct Holder {
  explicit Holder(int workers, bool hold_units = true)
      : hold_units(hold_units), units(static_cast<size_t>(workers)),
        wrote(static_cast<size_t>(workers), 0) {}

  // Whether the engine slots it writes keep their records as one WAL unit until it ends
  // (slot::Slot::Hold), so a crash leaves all of its writes to a slot or none. Only a holder
  // of whole slots may.
  const bool hold_units;
  // Engine slots written while holding, by worker: Hold() on them, to commit at the end. Each
  // entry is touched on its worker only.
  std::vector<std::vector<slot::Slot*>> units;
  // Workers where it wrote outside units: their group commit writes that, and its end waits
  // for it. Each entry is touched on its worker only.
  std::vector<char> wrote;
  // Slots it holds (whole, or keys of), in the order taken (ascending Order).
  std::vector<uint32_t> slots;
  // What it takes of each slot: these keys, or (a slot not listed, or none listed at all)
  // the whole slot.
  std::vector<std::pair<uint32_t, std::vector<std::string>>> keys;
  // Order of the last slot taken (0: none yet). A slot after it may be taken as the task goes;
  // one before it must have been taken already.
  uint64_t last_order = 0;

  bool Holds(uint32_t s) const;
  // Whether it wrote on worker w (units or not) since that worker last released it; on any.
  bool WroteOn(int w) const {
    const auto i = static_cast<size_t>(w);
    return !units[i].empty() || wrote[i] != 0;
  }
  bool WroteAny() const;
  // The keys to take of s (empty: the whole slot).
  std::vector<std::string> KeysOf(uint32_t s) const;
};

class SlotLocks {
 public:
  SlotLocks(uint32_t slots, int workers);

  // The global order in which a transaction takes slots: by owner worker, then slot.
  uint64_t Order(uint32_t s) const {
    return (uint64_t{s % static_cast<uint32_t>(workers_)} << 32 | s) + 1;
  }

  // Whether a request on key (a whole-slot request: nullptr) may run on s now: nobody queued,
  // and nothing it needs held. REQUIRES: on s's owner.
  bool Free(uint32_t s, const std::string_view* key) const;
  bool Free(uint32_t s, std::string_view key) const { return Free(s, &key); }
  bool Free(uint32_t s) const { return Free(s, nullptr); }
  // The holder of the whole slot s, or nullptr. REQUIRES: on s's owner.
  Holder* holder(uint32_t s) const { return entries_[s].whole; }

  // Takes `keys` of s for h (the whole slot when keys is empty) when nobody is queued and
  // nothing of it is held; false, changing nothing, otherwise. REQUIRES: on s's owner.
  bool TryAcquire(uint32_t s, Holder* h, std::vector<std::string> keys);
  // Takes `keys` of s for h (the whole slot when keys is empty) and returns true when free;
  // else queues h and returns false: a later Release hands them to h and returns `granted`
  // for its caller to run. REQUIRES: on s's owner; h holds nothing of s.
  bool Acquire(uint32_t s, Holder* h, std::vector<std::string> keys,
               std::function<void()> granted);
  // Queues a request on key (nullptr: the whole slot) behind the holders and takers already
  // there; the Release that reaches it calls run, with nothing it needs held. run executes the
  // request and must not suspend. REQUIRES: on s's owner; !Free(s, key).
  void Defer(uint32_t s, const std::string_view* key, std::function<void()> run);
  // Gives back what h holds of s; runs the deferred requests that can run now, in queue order,
  // and hands what is free to the takers that can take it (the queue's front first, none
  // overtaking another), returning their `granted` for the caller to post.
  // REQUIRES: on s's owner; h holds something of s.
  [[nodiscard]] std::vector<std::function<void()>> Release(uint32_t s, Holder* h);

  uint32_t slots() const { return static_cast<uint32_t>(entries_.size()); }

 private:
  struct Waiter {
    Holder* holder = nullptr;     // nullptr: a deferred request
    bool whole = false;           // takes (or needs) the whole slot
    std::vector<std::string> keys;
    std::function<void()> fn;
  };
  struct Entry {
    Holder* whole = nullptr;
    std::vector<std::pair<std::string, Holder*>> keys;  // keys held, by whom
    std::deque<Waiter> queue;
  };
  // Whether w can have what it needs now (the queue aside).
  static bool Fits(const Entry& e, const Waiter& w);
  static bool KeyHeld(const Entry& e, std::string_view key);
  static void Take(Entry& e, Holder* h, bool whole, std::vector<std::string>& keys);

  int workers_;
  std::vector<Entry> entries_;  // [slot]
  // Holds a slot whole while Release runs its deferred requests.
  Holder runner_;
};

}  // namespace slotkv::txn
