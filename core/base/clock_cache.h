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
// - Entries live in chunks of kChunk entries, so a growing cache copies nothing, and are kept
//   dense: erasing one moves the last entry into its place (renumbering its index slot), and
//   a chunk no entry reaches is freed (one spare kept). So the entries' memory follows the
//   entry count down as well as up: with a free list instead, a cache that SizeCaches shrank
//   as the group maps grew held the places of every entry it had once had (+30 MB of 400 at
//   10M keys in bench-engine). (A std::deque, whose blocks hold 4 entries, made a GET at -P
//   16 ~0.1 us slower than doubling chunks.)
// - The index is a TagIndex (core/base/tag_index.h); it grows with the entries, not with the
//   budget. Growing re-places 8-byte slots only (229 us at 24k entries, a slot's share of the
//   default budget with 16 slots). Sizing it for the budget up front (as for the
//   unordered_map, whose rehash took 1.5 ms at ~20k entries) cost as much in page faults, at
//   the slot's first write (6 ms into a bulk load's first handler when the first slot took the
//   whole budget), and kept tables sized for shares the slot later gave up.
// - CLOCK: a hit or a replacement sets the entry's `referenced` bit; the hand sweeps entries
//   in index order, clearing set bits and evicting the first entry found without one (the
//   entry moved into a victim's place waits for the hand's next pass). A new entry starts
//   without the bit (an entry read again outlives one written once) but is never the victim
//   of its own insertion.
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
  // it used: a write of a cached key does this. key is anything Key is made from and compares
  // with (a std::string_view for std::string or InlineKey keys); a Key is made only for a new
  // entry.
  template <typename K>
  void Insert(K&& key, Value value, size_t charge) {
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
      e.key = Key(std::forward<K>(key));
      e.value = std::move(value);
      e.charge = charge;
      e.hash = hash;
      e.referenced = false;
      index_.Add(hash, index);
      used_ += charge;
    }
    EvictToFit(index);
  }

  // Starts loading the index slot a Lookup or Insert of key reads first (TagIndex::Prefetch).
  template <typename K>
  void Prefetch(const K& key) const {
    index_.Prefetch(HashFn{}(key));
  }

  // After Prefetch: starts loading the entry a Lookup of key will most likely compare.
  template <typename K>
  void PrefetchEntry(const K& key) const {
    const uint32_t e = index_.Likely(HashFn{}(key));
    if (e != TagIndex::kNone) __builtin_prefetch(&At(e));
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

  // The cached value when usable(value) holds, counted as a hit and marked used; else nullptr
  // and nothing counted (the caller looks elsewhere, and counts the miss there). One probe.
  template <typename K, typename Usable>
  const Value* LookupIf(const K& key, Usable&& usable) {
    const Found f = Find(key, HashFn{}(key));
    if (f.entry == kNone) return nullptr;
    Entry& e = At(f.entry);
    if (!usable(e.value)) return nullptr;
    ++hits_;
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
  size_t entries() const { return size_; }
  size_t index_buckets() const { return index_.slots(); }
  size_t entry_capacity() const { return chunks_.size() * kChunk; }  // entries' places allocated
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Entry {
    Key key{};
    Value value{};
    size_t charge = 0;
    uint64_t hash = 0;
    bool referenced = false;  // read or replaced since the hand last passed it
  };
  static constexpr uint32_t kNone = TagIndex::kNone;
  static constexpr size_t kChunk = 256;  // entries per chunk: 28 KiB of the value cache's
  using Found = TagIndex::Found;

  Entry& At(uint32_t index) const { return chunks_[index / kChunk][index % kChunk]; }

  template <typename K>
  Found Find(const K& key, uint64_t hash) const {
    return index_.Find(hash, [&](uint32_t i) {
      const Entry& e = At(i);
      return e.hash == hash && KeyEq{}(e.key, key);
    });
  }

  uint32_t NewEntry() {
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<Entry[]>(kChunk));
    assert(size_ < kNone - 1 && "ClockCache past 2^32 entries");
    return static_cast<uint32_t>(size_++);
  }

  // The index slot that names entry index.
  Found SlotOf(uint32_t index) const {
    return index_.Find(At(index).hash, [index](uint32_t i) { return i == index; });
  }

  // Erases the entry f found and moves the last entry into its place; returns the index the
  // last entry had (f.entry when that was the erased one).
  uint32_t EraseAt(const Found& f) {
    index_.Remove(f.slot);
    Entry& e = At(f.entry);
    used_ -= e.charge;
    const auto last = static_cast<uint32_t>(size_ - 1);
    // Destroyed and constructed, never assigned: a std::string move-assigned from a short one
    // keeps its own heap block (evicted entries held twice the cache's charge that way).
    std::destroy_at(&e);
    if (f.entry != last) {
      index_.Renumber(SlotOf(last).slot, f.entry);
      Entry& moved = At(last);
      std::construct_at(&e, std::move(moved));
      std::destroy_at(&moved);
      std::construct_at(&moved);
    } else {
      std::construct_at(&e);
    }
    --size_;
    // Keep one empty chunk past the entries, so that an insert after an erase at a chunk's
    // edge allocates nothing.
    if (chunks_.size() * kChunk >= size_ + 2 * kChunk) chunks_.pop_back();
    return last;
  }

  // Evicts until the budget holds; keep (an entry being inserted) is never the victim.
  void EvictToFit(uint32_t keep) {
    while (used_ > capacity_ && size_ > (keep == kNone ? 0 : 1)) {
      if (hand_ >= size_) hand_ = 0;
      const uint32_t index = static_cast<uint32_t>(hand_++);
      Entry& e = At(index);
      if (index == keep) continue;
      if (e.referenced) {
        e.referenced = false;
        continue;
      }
      if (EraseAt(SlotOf(index)) == keep) keep = index;  // keep moved into the victim's place
    }
  }

  size_t capacity_;
  size_t used_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  std::vector<std::unique_ptr<Entry[]>> chunks_;
  size_t size_ = 0;  // entries [0, size_) are live
  size_t hand_ = 0;
  TagIndex index_;
};

// A transparent hash for std::string keys, looked up by std::string_view.
struct StringKeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace slotkv
