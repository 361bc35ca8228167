// GroupMap: the in-memory map of one WAL group, key -> MapEntry for its unpersisted writes.
// Not a public header of the slot module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "wal/log.h"

namespace slotkv::slot {

// Whether a key had a cell in the bucket pages before its first write in the group map.
enum class BaseState : uint8_t { kUnknown, kAbsent, kPresent };

// The newest unpersisted write of one key. The value itself stays in the log (and maybe the
// value cache).
struct MapEntry {
  wal::LogPos pos;
  uint64_t seq = 0;
  int64_t expire_at_ms = 0;
  uint8_t type = 0;
  bool tombstone = false;
  BaseState base = BaseState::kUnknown;
};

// GroupMap: key -> MapEntry for the unpersisted writes of one WAL group. Open addressing over a
// power-of-two table of small slots {key hash, key offset and length in an arena, MapEntry};
// key bytes live in one arena string per map, so an insert allocates nothing most of the time.
// Overwriting an existing key reuses its slot; the arena only grows until Clear().
//
// Design: a control byte per slot (0 = empty, else 0x80 | 7 bits of the hash) sits in its own
// array, so a probe scans bytes and touches a 64-byte slot only when the tag matches. Linear
// probing; the table doubles before it would pass 3/4 full. There is no single-key deletion,
// hence no tombstones: the first empty control byte ends every probe. The table index comes
// from the top bits of the hash times an odd constant, not from its low bits, because the keys
// of one group share the low bits that chose their bucket (BucketStore::BucketOf is hash % n).
//
// Thread rule: one owner thread.
class GroupMap {
 public:
  GroupMap() = default;
  GroupMap(const GroupMap&) = delete;
  GroupMap& operator=(const GroupMap&) = delete;
  // Moving leaves the source empty and reusable.
  GroupMap(GroupMap&& other) noexcept;
  GroupMap& operator=(GroupMap&& other) noexcept;

  // The entry of key, or nullptr. The pointer is valid until the next FindOrInsert or Clear.
  // REQUIRES: hash == KeyHash(key) (any function of the key works, as long as it is the same
  // for every call on this map).
  MapEntry* Find(std::string_view key, uint64_t hash);
  const MapEntry* Find(std::string_view key, uint64_t hash) const;

  // The entry of key, inserted default-constructed when absent; second = whether inserted.
  // The pointer is valid until the next FindOrInsert or Clear. Allocates only when the table
  // grows or the arena needs room for a new key. Overwriting an existing key never allocates.
  // REQUIRES: hash as for Find; the arena stays under 4 GiB (asserted).
  std::pair<MapEntry*, bool> FindOrInsert(std::string_view key, uint64_t hash);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Removes everything and gives the memory back (table and arena).
  void Clear();

  // Calls f(std::string_view key, uint64_t hash, MapEntry& entry) for every entry, in table
  // order (unspecified but stable while the map is not modified). f must not modify the map.
  // The key view is valid until the next FindOrInsert or Clear.
  template <typename F>
  void ForEach(F&& f);
  // As above; f gets const MapEntry&.
  template <typename F>
  void ForEach(F&& f) const;

  // Bytes held (table + arena), for stats.
  size_t memory_bytes() const;

 private:
  struct Slot {
    uint64_t hash;
    uint32_t key_offset;
    uint32_t key_len;
    MapEntry entry;
  };

  static constexpr size_t kNotFound = SIZE_MAX;

  // The index of key's slot, or kNotFound.
  size_t FindIndex(std::string_view key, uint64_t hash) const;
  // The first slot of hash's probe sequence, and its control byte.
  size_t Home(uint64_t hash) const;
  static uint8_t Tag(uint64_t hash);
  std::string_view KeyOf(const Slot& slot) const {
    return std::string_view(arena_.data() + slot.key_offset, slot.key_len);
  }
  // Makes the table twice as large (16 slots when there is none) and reinserts every slot.
  void Grow();

  std::unique_ptr<uint8_t[]> ctrl_;  // capacity_ control bytes
  std::unique_ptr<Slot[]> slots_;    // capacity_ slots; meaningful where ctrl_ != 0
  size_t capacity_ = 0;              // 0 or a power of two >= 16
  int shift_ = 64;                   // 64 - log2(capacity_): Home keeps the top bits
  size_t size_ = 0;
  std::string arena_;  // key bytes, back to back
};

template <typename F>
void GroupMap::ForEach(F&& f) {
  for (size_t i = 0; i < capacity_; ++i) {
    if (ctrl_[i] == 0) continue;
    Slot& slot = slots_[i];
    f(KeyOf(slot), slot.hash, slot.entry);
  }
}

template <typename F>
void GroupMap::ForEach(F&& f) const {
  for (size_t i = 0; i < capacity_; ++i) {
    if (ctrl_[i] == 0) continue;
    const Slot& slot = slots_[i];
    f(KeyOf(slot), slot.hash, static_cast<const MapEntry&>(slot.entry));
  }
}

}  // namespace slotkv::slot
