#include "core/txn/slot_locks.h"

#include <algorithm>
#include <cassert>

namespace slotkv::txn {

bool Holder::Holds(uint32_t s) const {
  return std::find(slots.begin(), slots.end(), s) != slots.end();
}

SlotLocks::SlotLocks(uint32_t slots, int workers)
    : workers_(workers), entries_(slots), runner_(workers, /*hold_units=*/false) {}

bool SlotLocks::Acquire(uint32_t s, Holder* h, std::function<void()> granted) {
  Entry& e = entries_[s];
  assert(e.holder != h);
  if (e.holder == nullptr && e.queue.empty()) {
    e.holder = h;
    return true;
  }
  e.queue.push_back({h, std::move(granted)});
  return false;
}

void SlotLocks::Defer(uint32_t s, std::function<void()> run) {
  Entry& e = entries_[s];
  assert(e.holder != nullptr || !e.queue.empty());
  e.queue.push_back({nullptr, std::move(run)});
}

std::function<void()> SlotLocks::Release(uint32_t s) {
  Entry& e = entries_[s];
  assert(e.holder != nullptr && e.holder != &runner_);
  // The deferred requests at the front run now, in order: they were queued before the next
  // taker. Meanwhile s counts as taken (by runner_, which holds no units), so a request or a
  // taker that comes to s from inside one of them queues behind, and runs in this loop when it
  // reaches the front.
  e.holder = &runner_;
  for (;;) {
    std::vector<std::function<void()>> runs;
    while (!e.queue.empty() && e.queue.front().holder == nullptr) {
      runs.push_back(std::move(e.queue.front().fn));
      e.queue.pop_front();
    }
    if (runs.empty()) break;
    for (auto& run : runs) run();
  }
  e.holder = nullptr;
  if (e.queue.empty()) return nullptr;
  e.holder = e.queue.front().holder;
  std::function<void()> granted = std::move(e.queue.front().fn);
  e.queue.pop_front();
  return granted;
}

}  // namespace slotkv::txn
