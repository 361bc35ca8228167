// ClockCache: a map with a byte budget that evicts entries not used lately (CLOCK, the "second
// chance" approximation of LRU). Each entry is charged the bytes the caller says it costs.
// Invalidation is per key (Erase); nothing here wipes the cache wholesale except
// SetCapacity(0).
//
// Why not a list and an unordered_map (an exact LRU, which this replaced): a hit there touched
// the bucket array, the node before its own, its node, the key's heap bytes, the list node and
// both its neighbours (the splice): 1.25 of 3.35 us of server CPU per GET at -P 16. Here a hit
// reads one 8-byte index slot and the entry, and sets a bit in it.
//
// Design:
// - Entries live in chunks that double in size (16, 32, 64 ... entries) and never move, so a
//   growing cache copies nothing; an erased entry's place is reused (free_). (A std::deque
//   of them, whose blocks hold 4 entries, made a GET at -P 16 ~0.1 us slower.)
// - The index is a TagIndex (core/base/tag_index.h); it grows with the entries, not with the
//   budget. Growing re-places 8-byte slots only (229 us at 24k entries, a slot's share of the
//   default budget with 16 slots). Sizing it for the budget up front (as for the
//   unordered_map, whose rehash took 1.5 ms at ~20k entries) cost as much in page faults, at
//   the slot's first write (6 ms into a bulk load's first handler when the first slot took the
//   whole budget), and kept tables sized for shares the slot later gave up.
// - CLOCK: a hit or a replacement sets the entry's `referenced` bit; the hand sweeps entries
//   in index order, clearing set bits and evicting the first entry found without one. A new
//   entry starts without it (an entry read again outlives one written once) but is never the
//   victim of its own insertion.
//
// Thread rule: not thread-safe; one owner (a slot's worker) uses it.
#pragma once

#include <malloc.h>

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/tag_index.h"

namespace slotkv {

// The heap block of s: its allocator size class, not its length (a 4096-byte page takes a
// 5120-byte block with jemalloc); 0 for a short string kept inside the object.
inline size_t HeapBytes(const std::string& s) {
  constexpr size_t kInlineCapacity = 15;  // libstdc++'s short-string buffer
  if (s.capacity() <= kInlineCapacity) return 0;
  return malloc_usable_size(const_cast<char*>(s.data()));
}

// An entry's bookkeeping in a ClockCache besides what its key and value hold on the heap: the
// entry (key and value objects, charge, hash, bits) and its index slot; the value cache's
// entries, the largest, take about 112 + 11 bytes. Callers charge this plus HeapBytes of their
// key and value, so the budget is what the memory really is.
inline constexpr size_t kCacheEntryBytes = 128;

// With a transparent HashFn and KeyEq (see StringKeyHash), Lookup/Contains/Erase take any type
// the key compares with (a std::string_view for std::string keys) without building a Key.
template <typename Key, typename Value, typename HashFn = std::hash<Key>,
          typename KeyEq = std::equal_to<Key>>
class ClockCache {
 public:
  explicit ClockCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}
  ClockCache(const ClockCache&) = delete;
  ClockCache& operator=(const ClockCache&) = delete;

  // Inserts or replaces key; evicts entries until the budget holds. An entry larger than the
  // whole budget is not kept (nor is the older version). Replacing reuses the entry and marks
  // it used: a write of a cached key does this.
  void Insert(const Key& key, Value value, size_t charge) {
    const uint64_t hash = HashFn{}(key);
    const Found f = Find(key, hash);
    if (charge > capacity_) {
      if (f.entry != kNone) EraseAt(f);
      return;
    }
    uint32_t index = f.entry;
    if (index != kNone) {
      Entry& e = At(index);
      used_ = used_ - e.charge + charge;
      e.value = std::move(value);
      e.charge = charge;
      e.referenced = true;
    } else {
      index = NewEntry();
      Entry& e = At(index);
      e.key = key;
      e.value = std::move(value);
      e.charge = charge;
      e.hash = hash;
      e.live = true;
      e.referenced = false;
      index_.Add(hash, index);
      used_ += charge;
    }
    EvictToFit(index);
  }

  // The cached value, or nullptr. Counts a hit or a miss. The pointer is valid until the next
  // non-const call.
  template <typename K>
  const Value* Lookup(const K& key) {
    const Found f = Find(key, HashFn{}(key));
    if (f.entry == kNone) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    Entry& e = At(f.entry);
    e.referenced = true;
    return &e.value;
  }

  // The cached value or nullptr, like Lookup, but neither counts as a hit or miss nor marks
  // the entry used: for the owner's own bookkeeping, not for readers.
  template <typename K>
  const Value* Peek(const K& key) const {
    const Found f = Find(key, HashFn{}(key));
    return f.entry == kNone ? nullptr : &At(f.entry).value;
  }

  template <typename K>
  bool Contains(const K& key) const {
    return Peek(key) != nullptr;
  }

  template <typename K>
  void Erase(const K& key) {
    const Found f = Find(key, HashFn{}(key));
    if (f.entry != kNone) EraseAt(f);
  }

  void SetCapacity(size_t capacity_bytes) {
    capacity_ = capacity_bytes;
    EvictToFit(kNone);
  }

  size_t capacity() const { return capacity_; }
  size_t size_bytes() const { return used_; }
  size_t entries() const { return end_ - free_.size(); }
  size_t index_buckets() const { return index_.slots(); }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Entry {
    Key key{};
    Value value{};
    size_t charge = 0;
    uint64_t hash = 0;
    bool live = false;
    bool referenced = false;  // read or replaced since the hand last passed it
  };
  static constexpr uint32_t kNone = TagIndex::kNone;
  static constexpr size_t kFirstChunk = 16;
  using Found = TagIndex::Found;

  // Chunk c holds entries [kFirstChunk * (2^c - 1), kFirstChunk * (2^(c+1) - 1)).
  Entry& At(uint32_t index) const {
    const size_t q = index / kFirstChunk + 1;
    const int c = std::bit_width(q) - 1;
    return chunks_[static_cast<size_t>(c)][index - kFirstChunk * ((size_t{1} << c) - 1)];
  }

  template <typename K>
  Found Find(const K& key, uint64_t hash) const {
    return index_.Find(hash, [&](uint32_t i) {
      const Entry& e = At(i);
      return e.hash == hash && KeyEq{}(e.key, key);
    });
  }

  uint32_t NewEntry() {
    if (!free_.empty()) {
      const uint32_t index = free_.back();
      free_.pop_back();
      return index;
    }
    if (end_ == kFirstChunk * ((size_t{1} << chunks_.size()) - 1)) {  // the chunks are full
      chunks_.push_back(std::make_unique<Entry[]>(kFirstChunk << chunks_.size()));
    }
    assert(end_ < kNone - 1 && "ClockCache past 2^32 entries");
    return static_cast<uint32_t>(end_++);
  }

  // The index slot that names entry index.
  Found SlotOf(uint32_t index) const {
    return index_.Find(At(index).hash, [index](uint32_t i) { return i == index; });
  }

  void EraseAt(const Found& f) {
    index_.Remove(f.slot);
    Entry& e = At(f.entry);
    used_ -= e.charge;
    e = Entry();  // gives the key's and value's heap memory back
    free_.push_back(f.entry);
  }

  // Evicts until the budget holds; keep (an entry being inserted) is never the victim.
  void EvictToFit(uint32_t keep) {
    while (used_ > capacity_ && entries() > (keep == kNone ? 0 : 1)) {
      if (hand_ >= end_) hand_ = 0;
      const uint32_t index = static_cast<uint32_t>(hand_++);
      Entry& e = At(index);
      if (!e.live || index == keep) continue;
      if (e.referenced) {
        e.referenced = false;
        continue;
      }
      EraseAt(SlotOf(index));
    }
  }

  size_t capacity_;
  size_t used_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  std::vector<std::unique_ptr<Entry[]>> chunks_;
  size_t end_ = 0;  // entries ever handed out: the hand sweeps [0, end_)
  std::vector<uint32_t> free_;
  size_t hand_ = 0;
  TagIndex index_;
};

// A transparent hash for std::string keys, looked up by std::string_view.
struct StringKeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace slotkv
