// GroupMap: the in-memory map of one WAL group, key -> MapEntry for its unpersisted writes.
// Not a public header of the slot module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/tag_index.h"
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
  // Slot::Delete handed the bucket cell it replaces over as a paged root (NoteReplaced): the
  // flush's merge must not again.
  bool root_noted = false;
  uint32_t held = 0;  // 1 + the index of its held value in its Group::held; 0 = none
};

// GroupMap: key -> MapEntry for the unpersisted writes of one WAL group. A TagIndex
// (core/base/tag_index.h) over a dense array of records {key hash, key length, the key itself
// when it is short (kInlineKeyBytes) or else its offset in an arena, MapEntry}. Longer keys
// live in one arena string per map, so an insert allocates nothing most of the time.
// Overwriting an existing key reuses its record; the records and the arena only grow until
// Clear().
//
// Design: a probe reaches a 72-byte record only when 32 hash bits match, and compares a short
// key in the record's first cache line: keyed by offset into the arena, the compare was a
// third cache miss per write (0.4 us of INCR -P 16's 4.1, keys of 20 bytes). The record array
// grows by half at a time, to what fills the allocator's block (not reserved to the table's
// limit: a group flushed at 256 entries would hold room for 384, a third of its map memory
// wasted across every group of a slot).
// There is no single-key deletion. The index's homes come from the top bits of the mixed hash,
// not from its low bits, because the keys of one group share the low bits that chose their
// bucket (BucketStore::BucketOf is hash % n).
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

  // Starts loading the index slot a Find or FindOrInsert of hash reads first.
  void Prefetch(uint64_t hash) const { index_.Prefetch(hash); }

  // Then the record the first slot with hash's tag names.
  void PrefetchEntry(uint64_t hash) const {
    const uint32_t e = index_.Likely(hash);
    if (e != TagIndex::kNone) __builtin_prefetch(&records_[e]);
  }

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
  static constexpr size_t kInlineKeyBytes = 20;
  struct Record {
    uint64_t hash;
    uint32_t key_len;
    // The key when key_len <= kInlineKeyBytes, else its offset in arena_ (a uint32_t).
    char key[kInlineKeyBytes];
    MapEntry entry;
  };

  static constexpr size_t kNotFound = SIZE_MAX;

  // The index in records_ of key's record, or kNotFound.
  size_t FindIndex(std::string_view key, uint64_t hash) const;
  std::string_view KeyOf(const Record& r) const {
    if (r.key_len <= kInlineKeyBytes) return std::string_view(r.key, r.key_len);
    uint32_t offset;
    std::memcpy(&offset, r.key, sizeof(offset));
    return std::string_view(arena_.data() + offset, r.key_len);
  }
  TagIndex index_;  // hash -> index in records_
  std::vector<Record> records_;  // in insertion order; size() is the map's size
  std::string arena_;            // bytes of the longer keys, back to back
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
