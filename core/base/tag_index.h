// TagIndex: the hash index of slotkv's in-memory maps (the WAL group map, the caches): it maps
// a 64-bit key hash to a 32-bit entry index, and the owner keeps the entries (and their keys)
// in an array of its own.
//
// Design: open addressing over a power-of-two table of 8-byte slots {top 32 bits of the mixed
// hash (the tag), entry index + 1} (0 = empty), so a probe reads 8 slots per cache line and
// reaches an entry only when 32 hash bits match. Linear probing; the table doubles before it
// would pass 3/4 full, re-placing the slots from the tags they hold without touching entries
// or keys. Removal shifts the rest of the probe run back (no tombstones), so the first empty
// slot ends every probe. A slot's home is the top log2(slots) bits of the tag, which is the
// top half of hash * an odd constant: every bit of the hash reaches it (the keys of one WAL
// group share the low bits that chose their bucket, and std::hash of an integer is the
// integer).
//
// Layout, for an index holding entries 0 ("ab") and 1 ("xyz"):
//   table_ (16 x u64)  slot = 0 (empty) | Tag(hash) << 32 | (entry index + 1)
//   slot Tag(hash("ab")) >> 28 holds 0 + 1, slot Tag(hash("xyz")) >> 28 holds 1 + 1, or the
//   next free slot after it (wrapping at 16) if that one is taken.
//
// Thread rule: one owner thread.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace slotkv {

class TagIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  TagIndex() = default;
  TagIndex(const TagIndex&) = delete;
  TagIndex& operator=(const TagIndex&) = delete;
  // Moving leaves the source empty and reusable.
  TagIndex(TagIndex&& other) noexcept { *this = std::move(other); }
  TagIndex& operator=(TagIndex&& other) noexcept {
    table_ = std::move(other.table_);
    slots_ = std::exchange(other.slots_, 0);
    shift_ = std::exchange(other.shift_, 32);
    count_ = std::exchange(other.count_, 0);
    return *this;
  }

  // A found entry and the slot that names it (for Remove).
  struct Found {
    uint32_t entry = kNone;
    size_t slot = 0;
  };

  // The entry with this hash for which same(entry index) holds.
  template <typename Same>
  Found Find(uint64_t hash, Same&& same) const {
    if (slots_ == 0) return {};
    const uint32_t tag = Tag(hash);
    const size_t mask = slots_ - 1;
    for (size_t i = tag >> shift_;; i = (i + 1) & mask) {
      const uint64_t s = table_[i];
      if (s == 0) return {};
      if (static_cast<uint32_t>(s >> 32) != tag) continue;
      const uint32_t entry = static_cast<uint32_t>(s) - 1;
      if (same(entry)) return {entry, i};
    }
  }

  // Starts loading the slot a Find or Add of hash reads first into the CPU's cache.
  void Prefetch(uint64_t hash) const {
    if (slots_ != 0) __builtin_prefetch(&table_[Tag(hash) >> shift_]);
  }

  // The entry the first slot of hash's probe run with hash's tag names (kNone: none), without
  // comparing keys: what a Find will most likely compare, to prefetch.
  uint32_t Likely(uint64_t hash) const {
    if (slots_ == 0) return kNone;
    const uint32_t tag = Tag(hash);
    const size_t mask = slots_ - 1;
    for (size_t i = tag >> shift_;; i = (i + 1) & mask) {
      const uint64_t s = table_[i];
      if (s == 0) return kNone;
      if (static_cast<uint32_t>(s >> 32) == tag) return static_cast<uint32_t>(s) - 1;
    }
  }

  // Names entry under hash. REQUIRES: no entry already named for the same key.
  void Add(uint64_t hash, uint32_t entry) {
    assert(entry < kNone - 1);
    if ((count_ + 1) * 4 > slots_ * 3) Rehash(slots_ == 0 ? kFirstSlots : slots_ * 2);
    const uint32_t tag = Tag(hash);
    const size_t mask = slots_ - 1;
    size_t i = tag >> shift_;
    while (table_[i] != 0) i = (i + 1) & mask;
    table_[i] = uint64_t{tag} << 32 | (uint64_t{entry} + 1);
    ++count_;
  }

  // Forgets the entry Find found there, moving back the slots of its probe run that may sit
  // in its place.
  void Remove(size_t slot) {
    const size_t mask = slots_ - 1;
    size_t i = slot;
    size_t j = slot;
    for (;;) {
      table_[i] = 0;
      for (;;) {
        j = (j + 1) & mask;
        if (table_[j] == 0) {
          --count_;
          return;
        }
        const size_t home = static_cast<uint32_t>(table_[j] >> 32) >> shift_;
        // The slot at j stays when its home lies cyclically in (i, j].
        const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) break;
      }
      table_[i] = table_[j];
      i = j;
    }
  }

  // Makes the slot Find found name entry instead (its owner moved the entry).
  void Renumber(size_t slot, uint32_t entry) {
    assert(entry < kNone - 1 && table_[slot] != 0);
    table_[slot] = (table_[slot] & ~uint64_t{UINT32_MAX}) | (uint64_t{entry} + 1);
  }

  // Forgets everything and gives the table back.
  void Clear() { *this = TagIndex(); }

  size_t slots() const { return slots_; }
  size_t memory_bytes() const { return slots_ * sizeof(uint64_t); }

 private:
  static constexpr size_t kFirstSlots = 16;
  static constexpr uint64_t kMixMul = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio, odd

  static uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>((hash * kMixMul) >> 32); }

  void Rehash(size_t slots) {
    assert(slots <= (size_t{1} << 32) && "TagIndex past 2^32 slots");
    auto table = std::make_unique<uint64_t[]>(slots);  // zeroed: all empty
    const int shift = 32 - std::countr_zero(slots);
    const size_t mask = slots - 1;
    // Slots name distinct entries, so re-placing one needs no comparison.
    for (size_t j = 0; j < slots_; ++j) {
      const uint64_t s = table_[j];
      if (s == 0) continue;
      size_t i = static_cast<uint32_t>(s >> 32) >> shift;
      while (table[i] != 0) i = (i + 1) & mask;
      table[i] = s;
    }
    table_ = std::move(table);
    slots_ = slots;
    shift_ = shift;
  }

  std::unique_ptr<uint64_t[]> table_;
  size_t slots_ = 0;  // 0 or a power of two >= kFirstSlots
  int shift_ = 32;    // 32 - log2(slots_): a slot's home is its tag >> shift_
  size_t count_ = 0;  // slots in use
};

}  // namespace slotkv
