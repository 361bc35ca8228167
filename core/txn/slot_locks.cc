#include "core/txn/slot_locks.h"

#include <algorithm>
#include <cassert>

namespace slotkv::txn {

bool Holder::Holds(uint32_t s) const {
  return std::find(slots.begin(), slots.end(), s) != slots.end();
}

bool Holder::WroteAny() const {
  for (size_t w = 0; w < units.size(); ++w) {
    if (WroteOn(static_cast<int>(w))) return true;
  }
  return false;
}

std::vector<std::string> Holder::KeysOf(uint32_t s) const {
  for (const auto& [slot, k] : keys) {
    if (slot == s) return k;
  }
  return {};
}

SlotLocks::SlotLocks(uint32_t slots, int workers)
    : workers_(workers), entries_(slots), runner_(workers, /*hold_units=*/false) {}

bool SlotLocks::KeyHeld(const Entry& e, std::string_view key) {
  return std::any_of(e.keys.begin(), e.keys.end(), [&](const auto& k) { return k.first == key; });
}

bool SlotLocks::Fits(const Entry& e, const Waiter& w) {
  if (e.whole != nullptr) return false;
  if (w.whole) return e.keys.empty();
  return std::none_of(w.keys.begin(), w.keys.end(),
                      [&](const std::string& k) { return KeyHeld(e, k); });
}

void SlotLocks::Take(Entry& e, Holder* h, bool whole, std::vector<std::string>& keys) {
  if (whole) {
    e.whole = h;
    return;
  }
  for (std::string& k : keys) e.keys.emplace_back(std::move(k), h);
}

bool SlotLocks::Free(uint32_t s, const std::string_view* key) const {
  const Entry& e = entries_[s];
  if (!e.queue.empty() || e.whole != nullptr) return false;
  if (key == nullptr) return e.keys.empty();
  return !KeyHeld(e, *key);
}

bool SlotLocks::TryAcquire(uint32_t s, Holder* h, std::vector<std::string> keys) {
  Entry& e = entries_[s];
  Waiter w{h, keys.empty(), std::move(keys), nullptr};
  if (!e.queue.empty() || !Fits(e, w)) return false;
  Take(e, h, w.whole, w.keys);
  return true;
}

bool SlotLocks::Acquire(uint32_t s, Holder* h, std::vector<std::string> keys,
                        std::function<void()> granted) {
  Entry& e = entries_[s];
  Waiter w{h, keys.empty(), std::move(keys), std::move(granted)};
  if (e.queue.empty() && Fits(e, w)) {
    Take(e, h, w.whole, w.keys);
    return true;
  }
  e.queue.push_back(std::move(w));
  return false;
}

void SlotLocks::Defer(uint32_t s, const std::string_view* key, std::function<void()> run) {
  Entry& e = entries_[s];
  assert(!Free(s, key));
  Waiter w;
  w.whole = key == nullptr;
  if (key) w.keys.emplace_back(*key);
  w.fn = std::move(run);
  e.queue.push_back(std::move(w));
}

std::vector<std::function<void()>> SlotLocks::Release(uint32_t s, Holder* h) {
  Entry& e = entries_[s];
  assert(h != &runner_);
  if (e.whole == h) e.whole = nullptr;
  std::erase_if(e.keys, [h](const auto& k) { return k.second == h; });
  std::vector<std::function<void()>> granted;
  for (;;) {
    // The front of the queue goes as far as what is free lets it, in order. Deferred requests
    // run after this pass, with the slot held whole by runner_, so one that comes back to s from
    // inside them queues behind (and runs in a later pass when it reaches the front).
    std::vector<std::function<void()>> runs;
    while (!e.queue.empty() && Fits(e, e.queue.front())) {
      Waiter& w = e.queue.front();
      if (w.holder != nullptr) {
        Take(e, w.holder, w.whole, w.keys);
        granted.push_back(std::move(w.fn));
      } else {
        runs.push_back(std::move(w.fn));
        if (w.whole) {  // a whole-slot request: nothing after it overtakes it
          e.queue.pop_front();
          break;
        }
        // A key request: later waiters may still fit, but not one that needs its key.
        Take(e, &runner_, false, w.keys);
      }
      e.queue.pop_front();
    }
    if (runs.empty()) break;
    Holder* whole_before = e.whole;
    e.whole = &runner_;
    for (auto& run : runs) run();
    e.whole = whole_before;
    std::erase_if(e.keys, [this](const auto& k) { return k.second == &runner_; });
  }
  return granted;
}

}  // namespace slotkv::txn
