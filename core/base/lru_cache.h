// LruCache: a map with a byte budget that evicts the least recently used entries. Each entry is
// charged the bytes the caller says it costs. Invalidation is per key (Erase); nothing here
// wipes the cache wholesale except SetCapacity(0).
//
// Thread rule: not thread-safe; one owner (a slot's worker) uses it.
#pragma once

#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace slotkv {

// The heap block of s: its allocator size class, not its length (a 4096-byte page takes a
// 5120-byte block with jemalloc); 0 for a short string kept inside the object.
inline size_t HeapBytes(const std::string& s) {
  constexpr size_t kInlineCapacity = 15;  // libstdc++'s short-string buffer
  if (s.capacity() <= kInlineCapacity) return 0;
  return malloc_usable_size(const_cast<char*>(s.data()));
}

// An entry's bookkeeping in an LruCache besides its key and value objects: list node and index
// node. Callers charge this plus what their key and value hold (HeapBytes), so the budget is
// what the memory really is.
inline constexpr size_t kLruEntryBytes = 128;

// An LruCache sizes its index up front for capacity / entry_bytes entries (entry_bytes: what
// its owner expects an entry to be charged, kLruIndexedEntryBytes unless told), so that
// filling the budget does not rehash the whole index at once on the way (1.5 ms at ~20k
// entries: a stall every other client of the worker waits for). The index's bucket array
// (8 bytes per expected entry) is not charged to the budget.
inline constexpr size_t kLruIndexedEntryBytes = 256;

// With a transparent HashFn and KeyEq (see StringKeyHash), Lookup/Contains/Erase take any type
// the key compares with (a std::string_view for std::string keys) without building a Key.
template <typename Key, typename Value, typename HashFn = std::hash<Key>,
          typename KeyEq = std::equal_to<Key>>
class LruCache {
 public:
  explicit LruCache(size_t capacity_bytes, size_t entry_bytes = kLruIndexedEntryBytes)
      : capacity_(capacity_bytes), entry_bytes_(entry_bytes) {
    ReserveIndex();
  }

  // Inserts or replaces key; evicts old entries until the budget holds. An entry larger than
  // the whole budget is not kept. Replacing reuses the entry (one index lookup, no node
  // allocated): a write of a cached key does this.
  void Insert(const Key& key, Value value, size_t charge) {
    auto it = index_.find(key);
    if (charge > capacity_) {
      if (it != index_.end()) EraseAt(it);
      return;
    }
    if (it != index_.end()) {
      Entry& e = *it->second;
      used_ = used_ - e.charge + charge;
      e.value = std::move(value);
      e.charge = charge;
      order_.splice(order_.begin(), order_, it->second);
    } else {
      order_.emplace_front(Entry{key, std::move(value), charge});
      index_.emplace(key, order_.begin());
      used_ += charge;
    }
    EvictToFit();
  }

  // The cached value, or nullptr. Counts a hit or a miss. The pointer is valid until the next
  // non-const call.
  template <typename K>
  const Value* Lookup(const K& key) {
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->value;
  }

  // The cached value or nullptr, like Lookup, but neither counts as a hit or miss nor
  // refreshes the entry: for the owner's own bookkeeping, not for readers.
  template <typename K>
  const Value* Peek(const K& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &it->second->value;
  }

  template <typename K>
  bool Contains(const K& key) const {
    return Peek(key) != nullptr;
  }

  template <typename K>
  void Erase(const K& key) {
    auto it = index_.find(key);
    if (it != index_.end()) EraseAt(it);
  }

  void SetCapacity(size_t capacity_bytes) {
    capacity_ = capacity_bytes;
    EvictToFit();
    ReserveIndex();
  }

  size_t capacity() const { return capacity_; }
  size_t size_bytes() const { return used_; }
  size_t entries() const { return index_.size(); }
  size_t index_buckets() const { return index_.bucket_count(); }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Entry {
    Key key;
    Value value;
    size_t charge;
  };

  using Index = std::unordered_map<Key, typename std::list<Entry>::iterator, HashFn, KeyEq>;

  void EraseAt(typename Index::iterator it) {
    used_ -= it->second->charge;
    order_.erase(it->second);
    index_.erase(it);
  }

  // Grows the index to capacity_ / entry_bytes_ buckets; never shrinks it (that would rehash
  // too).
  void ReserveIndex() {
    const size_t want = capacity_ / entry_bytes_;
    if (want > index_.bucket_count()) index_.reserve(want);
  }

  void EvictToFit() {
    while (used_ > capacity_ && !order_.empty()) {
      Entry& victim = order_.back();
      used_ -= victim.charge;
      index_.erase(victim.key);
      order_.pop_back();
    }
  }

  size_t capacity_;
  size_t entry_bytes_;
  size_t used_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  std::list<Entry> order_;  // most recent first
  Index index_;
};

// A transparent hash for std::string keys, looked up by std::string_view.
struct StringKeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace slotkv
