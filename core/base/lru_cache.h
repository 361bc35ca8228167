// LruCache: a map with a byte budget that evicts the least recently used entries. Each entry is
// charged the bytes the caller says it costs. Invalidation is per key (Erase); nothing here
// wipes the cache wholesale except SetCapacity(0).
//
// Thread rule: not thread-safe; one owner (a slot's worker) uses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <utility>

namespace slotkv {

template <typename Key, typename Value, typename HashFn = std::hash<Key>>
class LruCache {
 public:
  explicit LruCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  // Inserts or replaces key; evicts old entries until the budget holds. An entry larger than
  // the whole budget is not kept.
  void Insert(const Key& key, Value value, size_t charge) {
    Erase(key);
    if (charge > capacity_) return;
    order_.emplace_front(Entry{key, std::move(value), charge});
    index_.emplace(key, order_.begin());
    used_ += charge;
    EvictToFit();
  }

  // The cached value, or nullptr. Counts a hit or a miss. The pointer is valid until the next
  // non-const call.
  const Value* Lookup(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->value;
  }

  // Whether key is cached; neither counts as a hit or miss nor refreshes the entry.
  bool Contains(const Key& key) const { return index_.count(key) > 0; }

  void Erase(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return;
    used_ -= it->second->charge;
    order_.erase(it->second);
    index_.erase(it);
  }

  void SetCapacity(size_t capacity_bytes) {
    capacity_ = capacity_bytes;
    EvictToFit();
  }

  size_t capacity() const { return capacity_; }
  size_t size_bytes() const { return used_; }
  size_t entries() const { return index_.size(); }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Entry {
    Key key;
    Value value;
    size_t charge;
  };

  void EvictToFit() {
    while (used_ > capacity_ && !order_.empty()) {
      Entry& victim = order_.back();
      used_ -= victim.charge;
      index_.erase(victim.key);
      order_.pop_back();
    }
  }

  size_t capacity_;
  size_t used_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  std::list<Entry> order_;  // most recent first
  std::unordered_map<Key, typename std::list<Entry>::iterator, HashFn> index_;
};

}  // namespace slotkv
