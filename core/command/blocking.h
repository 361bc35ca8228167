// Blocking: clients waiting on keys (BLPOP, BZPOPMIN, BLMOVE ...) until a write gives the key
// data, a timeout passes or the client leaves.
//
// Design. Each worker keeps, for the keys of the slots it owns, a FIFO queue of the waiters on
// each key (per database). A blocking command is a coroutine (Task) running BlockOn: on the
// owner of each of its keys in turn it tries to serve itself from the key and, when the key is
// empty, joins that key's queue in the same step, so a write between the try and the queueing
// cannot be missed. With every key tried, the task parks (suspends without a worker).
//
// A write or delete of a key with waiters (Store::Put, Store::Delete, a flush) marks the key
// ready on its owner. After each command (Execute, AsyncContext::CommitHere), the owner serves its ready
// keys: while the key holds data of the waiter's type, the first waiter in the queue is claimed
// and its task resumed right there, on the owner, where it pops in the same step, before any
// other client's command runs. So waiters are served in arrival order and a push from a client
// on any worker wakes them.
//
// A waiter sits in the queues of all its keys, possibly on several workers, so claims race: the
// waiter's state word (round generation, state, claimed key) decides with one compare-and-swap.
// A claim may come while the task is still queueing on its other keys (not parked yet); the
// task then sees the claim when it tries to park and goes to the claimed key's owner to serve
// itself. If that finds nothing (another client took the data meanwhile), or the task served
// itself from another key, it hands the claim back: the claimed key is marked ready again so
// the next waiter gets its turn. Each new round of queueing has a new generation, so the queue
// entries of old rounds are recognised as stale and dropped.
//
// Timeouts are one timer per blocking call on the client's worker (Executor::RunAfter); the
// timer and a closing connection stop the waiter the same way: a stop reason is set, then the
// parked task is resumed on the client's worker.
//
// Thread rule: a worker's queues are touched by that worker only; Waiter is shared and
// synchronised by its atomic state word.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/command/context.h"

namespace slotkv::command {

// One blocking command call.
class Waiter : public std::enable_shared_from_this<Waiter> {
 public:
  // kTimeout: the timeout passed (or CLIENT UNBLOCK [TIMEOUT]); kError: CLIENT UNBLOCK ERROR;
  // kCancelled: the connection closed.
  enum class Stop : int { kNone = 0, kTimeout = 1, kError = 2, kCancelled = 3 };

  Waiter(ValueType type, uint32_t db) : type_(type), db_(db) {}

  ValueType type() const { return type_; }
  uint32_t db() const { return db_; }

  // Starts a new round of queueing and returns its generation. Called by the task.
  uint32_t NewRound();
  // Ends round gen without parking (the task served itself or is giving up). Returns the index
  // of a key whose claim came meanwhile, which the caller must hand back.
  std::optional<size_t> EndRound(uint32_t gen);

  enum class Claim { kNone, kEarly, kParked };
  // A key owner claims the waiter for key_index of round gen: kParked means the caller must
  // resume handle() now; kEarly that the task will find the claim when it tries to park.
  Claim TryClaim(uint32_t gen, size_t key_index);

  // Parks the task of round gen (from an awaiter's await_suspend). False when it must not
  // suspend: a claim or a stop came first (the task reads Outcome).
  bool TryPark(uint32_t gen, std::coroutine_handle<> handle);
  // Sets the stop reason (the first one wins) and, when the task is parked, takes it out:
  // true means the caller must resume handle() now (on the client's worker).
  bool RequestStop(Stop reason);

  // After the task resumed (or did not park): what happened.
  struct Outcome {
    Stop stop = Stop::kNone;     // kNone: claimed for `key`
    size_t key = 0;
  };
  Outcome outcome() const;
  Stop stop() const { return static_cast<Stop>(stop_.load()); }
  // Whether the client counts as blocked (CLIENT LIST flag b): from its first park until the
  // command ends. Set by the task.
  bool blocked() const { return blocked_.load(); }
  void set_blocked(bool b) { blocked_.store(b); }
  std::coroutine_handle<> handle() const { return handle_; }

 private:
  // word_ = generation << 32 | key index << 2 | state.
  enum State : uint64_t { kArmed = 0, kParked = 1, kClaimed = 2, kDone = 3 };
  static uint64_t Word(uint32_t gen, size_t key, State st) {
    return uint64_t{gen} << 32 | (uint64_t{key} & 0x3fffffff) << 2 | st;
  }
  static uint32_t Gen(uint64_t w) { return static_cast<uint32_t>(w >> 32); }
  static State StateOf(uint64_t w) { return static_cast<State>(w & 3); }
  static size_t KeyOf(uint64_t w) { return static_cast<size_t>((w >> 2) & 0x3fffffff); }

  const ValueType type_;
  const uint32_t db_;
  std::atomic<uint64_t> word_{Word(0, 0, kDone)};
  std::atomic<int> stop_{0};
  std::atomic<bool> blocked_{false};
  std::coroutine_handle<> handle_;
};

// The queues of every worker. One per server; ServerState::blocking points to it.
class Blocking : public KeyWatcher {
 public:
  Blocking(ServerState* server, int workers);

  // KeyWatcher: key of db was written or deleted by the calling worker.
  void OnKeyChange(uint32_t db, std::string_view key) override;
  void OnClear(uint32_t db, uint32_t slot) override;

  // Queues waiter on key (its argument key_index) for round gen. REQUIRES: on key's owner.
  void Add(const std::shared_ptr<Waiter>& waiter, uint32_t gen, size_t key_index,
           std::string_view key);
  // Drops every queue entry of waiter for key. REQUIRES: on key's owner.
  void Remove(const Waiter* waiter, std::string_view key);
  // Marks key ready again on its owner (a claim handed back) and serves it. Any worker.
  void HandBack(uint32_t db, std::string key);
  // Serves the calling worker's ready keys (see the file comment). Reentrant calls (from a
  // resumed task) return at once; the outer call finishes the work.
  void ServeReady();

  // Blocking calls in progress (INFO clients blocked_clients).
  std::atomic<int64_t> blocked_clients{0};

 private:
  struct KeyId {
    uint32_t db;
    std::string key;
    bool operator==(const KeyId&) const = default;
  };
  struct KeyIdHash {
    size_t operator()(const KeyId& k) const {
      return std::hash<std::string>()(k.key) ^ (size_t{k.db} * 0x9e3779b97f4a7c15ull);
    }
  };
  struct Entry {
    std::shared_ptr<Waiter> waiter;
    uint32_t gen;
    size_t key_index;
    uint64_t seq;  // Table::next_seq when queued
  };
  struct Table {
    std::unordered_map<KeyId, std::deque<Entry>, KeyIdHash> waiting;
    std::vector<KeyId> ready;
    uint64_t next_seq = 0;
    bool serving = false;
  };
  Table& Here();
  // Serves one ready key; returns when no queued waiter can be served from it.
  void ServeKey(const KeyId& id);

  ServerState* server_;
  std::vector<Table> tables_;  // [worker]
};

// Awaitable: parks the task for round gen; resumes on the claiming key's owner, or on the
// client's worker after a stop. `co_await ParkWaiter{waiter.get(), gen}` then read
// waiter->outcome(). It holds a plain pointer (the task keeps the waiter alive): GCC 12 may
// destroy a co_await operand's temporaries twice, so they must be trivially destructible.
struct ParkWaiter {
  Waiter* waiter;
  uint32_t gen;
  bool await_ready() const { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    // After a successful park another thread may resume the task and free this frame at once:
    // the local reference keeps the waiter alive until TryPark returns, and nothing of the
    // frame is touched afterwards.
    std::shared_ptr<Waiter> keep = waiter->shared_from_this();
    return keep->TryPark(gen, h);
  }
  void await_resume() const {}
};

}  // namespace slotkv::command
