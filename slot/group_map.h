// GroupMap: the in-memory map of one WAL group, key -> MapEntry for its unpersisted writes.
// Not a public header of the slot module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  uint32_t held = 0;  // 1 + the index of its held value in its Group::held; 0 = none
};

// GroupMap: key -> MapEntry for the unpersisted writes of one WAL group. Open addressing over a
// power-of-two table of small slots; each slot points at a record {key hash, key offset and
// length in an arena, MapEntry} in a dense array. Key bytes live in one arena string per map,
// so an insert allocates nothing most of the time. Overwriting an existing key reuses its
// record; the records and the arena only grow until Clear().
//
// Design: a table slot is 8 bytes, {top 32 bits of the mixed hash, record index + 1} (0 =
// empty), so a probe reads 8 slots per cache line and reaches a 56-byte record only when 32
// hash bits match. Growing rehashes the slots alone, from the hash bits they hold, without
// touching records or keys. The record array grows as a vector does (not reserved to the
// table's limit: a group flushed at 256 entries would hold room for 384, a third of its map
// memory wasted across every group of a slot). Linear probing; the table doubles before it would pass 3/4 full. There
// is no single-key deletion, hence no tombstones: the first empty slot ends every probe. The
// table index comes from the top bits of the hash times an odd constant, not from its low
// bits, because the keys of one group share the low bits that chose their bucket
// (BucketStore::BucketOf is hash % n).
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
  // The pointer is valid until the next FindOrInsert or Clear. Allocates only when the table,
  // the record array or the arena needs room for a new key; overwriting an existing key never
  // allocates.
  // REQUIRES: hash as for Find; the arena stays under 4 GiB (asserted).
  std::pair<MapEntry*, bool> FindOrInsert(std::string_view key, uint64_t hash);

  size_t size() const { return records_.size(); }
  bool empty() const { return records_.empty(); }

  // Removes everything and gives the memory back (table, records and arena).
  void Clear();

  // Calls f(std::string_view key, uint64_t hash, MapEntry& entry) for every entry, in
  // insertion order (stable while the map is not modified). f must not modify the map. The key
  // view is valid until the next FindOrInsert or Clear.
  template <typename F>
  void ForEach(F&& f);
  // As above; f gets const MapEntry&.
  template <typename F>
  void ForEach(F&& f) const;

  // Bytes held (table + records + arena, allocated capacity), for stats.
  size_t memory_bytes() const;

 private:
  struct Record {
    uint64_t hash;
    uint32_t key_offset;
    uint32_t key_len;
    MapEntry entry;
  };

  static constexpr size_t kNotFound = SIZE_MAX;

  // The index in records_ of key's record, or kNotFound.
  size_t FindIndex(std::string_view key, uint64_t hash) const;
  std::string_view KeyOf(const Record& r) const {
    return std::string_view(arena_.data() + r.key_offset, r.key_len);
  }
  // Makes the table twice as large (16 slots when there is none) and reinserts every slot.
  void Grow();

  // Table slots: 0 = empty, else {uint32 Mixed(hash), uint32 record index + 1}.
  std::unique_ptr<uint64_t[]> table_;
  size_t capacity_ = 0;          // of table_: 0 or a power of two >= 16
  int shift_ = 32;               // 32 - log2(capacity_): a slot's home is Mixed(hash) >> shift_
  std::vector<Record> records_;  // in insertion order; size() is the map's size
  std::string arena_;            // key bytes, back to back
};

template <typename F>
void GroupMap::ForEach(F&& f) {
  for (Record& r : records_) f(KeyOf(r), r.hash, r.entry);
}

template <typename F>
void GroupMap::ForEach(F&& f) const {
  for (const Record& r : records_) f(KeyOf(r), r.hash, static_cast<const MapEntry&>(r.entry));
}

}  // namespace slotkv::slot
