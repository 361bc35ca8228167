// GroupMap: a TagIndex into a dense record array. Nothing here reaches the disk; the in-memory
// layout, for a map holding "ab" then a key K of 30 bytes (longer than kInlineKeyBytes):
//
//   index_   TagIndex    hash("ab") -> 0, hash(K) -> 1
//   records_ (72 B each) record = {hash u64, key_len u32, key or arena offset (20 B),
//                                  MapEntry (40 B)}
//   arena_               K
//
//   records_[0] = {hash("ab"), key_len 2,  key "ab", ...}
//   records_[1] = {hash(K),    key_len 30, key = offset 0 (u32), ...}

#include "slot/group_map.h"

#include <cassert>
#include <cstring>

#include "core/base/alloc_class.h"

namespace slotkv::slot {

static_assert(sizeof(MapEntry) <= 40, "a GroupMap record should stay at 72 bytes");

GroupMap::GroupMap(GroupMap&& other) noexcept { *this = std::move(other); }

GroupMap& GroupMap::operator=(GroupMap&& other) noexcept {
  if (this == &other) return *this;
  index_ = std::move(other.index_);
  records_ = std::move(other.records_);
  std::vector<Record>().swap(other.records_);
  // Not `arena_ = std::move(...)`: from a short (inline) string that keeps arena_'s heap
  // buffer, so a map reset by assigning an empty one would hold its old arena forever.
  arena_.swap(other.arena_);
  std::string().swap(other.arena_);
  return *this;
}

size_t GroupMap::FindIndex(std::string_view key, uint64_t hash) const {
  const TagIndex::Found f = index_.Find(hash, [&](uint32_t i) {
    const Record& r = records_[i];
    return r.hash == hash && r.key_len == key.size() && KeyOf(r) == key;
  });
  return f.entry == TagIndex::kNone ? kNotFound : f.entry;
}

MapEntry* GroupMap::Find(std::string_view key, uint64_t hash) {
  size_t i = FindIndex(key, hash);
  return i == kNotFound ? nullptr : &records_[i].entry;
}

const MapEntry* GroupMap::Find(std::string_view key, uint64_t hash) const {
  size_t i = FindIndex(key, hash);
  return i == kNotFound ? nullptr : &records_[i].entry;
}

std::pair<MapEntry*, bool> GroupMap::FindOrInsert(std::string_view key, uint64_t hash) {
  // Look first, so that overwriting a key never grows anything.
  if (size_t i = FindIndex(key, hash); i != kNotFound) return {&records_[i].entry, false};

  if (records_.size() == records_.capacity()) {
    // Half again, to the count that fills the allocator's block: doubled from 1, records of 72
    // bytes wasted a tenth of each block (9 * 2^k bytes take a class of 10 * 2^k), 22 MB of
    // engine_bench's peak RSS at 3M keys.
    const size_t want = (records_.capacity() + records_.capacity() / 2 + 1) * sizeof(Record);
    records_.reserve(AllocClassBytes(want) / sizeof(Record));
  }
  index_.Add(hash, static_cast<uint32_t>(records_.size()));
  Record& r = records_.emplace_back();
  r.hash = hash;
  r.key_len = static_cast<uint32_t>(key.size());
  if (key.size() <= kInlineKeyBytes) {
    if (!key.empty()) std::memcpy(r.key, key.data(), key.size());
  } else {
    assert(arena_.size() + key.size() < UINT32_MAX && "GroupMap arena past 4 GiB");
    const auto offset = static_cast<uint32_t>(arena_.size());
    std::memcpy(r.key, &offset, sizeof(offset));
    arena_.append(key);
  }
  return {&r.entry, true};
}

void GroupMap::Clear() {
  index_.Clear();
  // clear() would keep the buffers; swapping with fresh containers frees them.
  std::vector<Record>().swap(records_);
  std::string().swap(arena_);
}

size_t GroupMap::memory_bytes() const {
  // An empty map holds no heap memory: a short arena lives inside the string itself.
  const size_t arena = arena_.capacity() > std::string().capacity() ? arena_.capacity() : 0;
  return index_.memory_bytes() + records_.capacity() * sizeof(Record) + arena;
}

}  // namespace slotkv::slot
