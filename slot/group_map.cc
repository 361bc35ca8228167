// GroupMap: open addressing over 8-byte slots that point into a dense record array. Nothing
// here reaches the disk; the in-memory layout, for a map holding "ab" then "xyz":
//
//   table_   (16 x u64)  slot = 0 (empty) | Mixed(hash) << 32 | (record index + 1)
//   records_ (56 B each) record = {hash u64, key_offset u32, key_len u32, MapEntry (40 B)}
//   arena_               "abxyz"
//
//   records_[0] = {hash("ab"),  key_offset 0, key_len 2, ...}  in slot Mixed(hash("ab")) >> 28
//   records_[1] = {hash("xyz"), key_offset 2, key_len 3, ...}  in slot Mixed(hash("xyz")) >> 28,
//                 or the next free one after it (wrapping at 16) if that one is taken
//
// Mixed(hash) is the top half of hash * an odd constant, so every bit of the hash reaches it.
// A slot's home is the top log2(capacity) bits of Mixed: the table grows by re-placing slots
// from the bits they hold, and a probe compares all 32 bits before it reads a record.

#include "slot/group_map.h"

#include <cassert>
#include <cstring>

namespace slotkv::slot {
namespace {

constexpr uint64_t kMixMul = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio, odd
constexpr size_t kFirstCapacity = 16;

uint32_t Mixed(uint64_t hash) { return static_cast<uint32_t>((hash * kMixMul) >> 32); }

}  // namespace

static_assert(sizeof(MapEntry) <= 48, "a GroupMap record should stay at one cache line");

GroupMap::GroupMap(GroupMap&& other) noexcept { *this = std::move(other); }

GroupMap& GroupMap::operator=(GroupMap&& other) noexcept {
  if (this == &other) return *this;
  table_ = std::move(other.table_);
  capacity_ = std::exchange(other.capacity_, 0);
  shift_ = std::exchange(other.shift_, 32);
  records_ = std::move(other.records_);
  std::vector<Record>().swap(other.records_);
  // Not `arena_ = std::move(...)`: from a short (inline) string that keeps arena_'s heap
  // buffer, so a map reset by assigning an empty one would hold its old arena forever.
  arena_.swap(other.arena_);
  std::string().swap(other.arena_);
  return *this;
}

size_t GroupMap::FindIndex(std::string_view key, uint64_t hash) const {
  if (capacity_ == 0) return kNotFound;
  const size_t mask = capacity_ - 1;
  const uint32_t mixed = Mixed(hash);
  // The table is never full, so an empty slot always ends the probe.
  for (size_t i = mixed >> shift_;; i = (i + 1) & mask) {
    const uint64_t s = table_[i];
    if (s == 0) return kNotFound;
    if (static_cast<uint32_t>(s >> 32) != mixed) continue;
    const size_t index = static_cast<uint32_t>(s) - 1;
    const Record& r = records_[index];
    if (r.hash == hash && r.key_len == key.size() &&
        (key.empty() || std::memcmp(arena_.data() + r.key_offset, key.data(), key.size()) == 0)) {
      return index;
    }
  }
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

  // Grow before passing 3/4 full: linear probing slows down sharply past that.
  if ((records_.size() + 1) * 4 > capacity_ * 3) Grow();

  assert(arena_.size() + key.size() < UINT32_MAX && "GroupMap arena past 4 GiB");
  const size_t mask = capacity_ - 1;
  const uint32_t mixed = Mixed(hash);
  size_t i = mixed >> shift_;
  while (table_[i] != 0) i = (i + 1) & mask;
  table_[i] = uint64_t{mixed} << 32 | (records_.size() + 1);
  Record& r = records_.emplace_back(Record{hash, static_cast<uint32_t>(arena_.size()),
                                           static_cast<uint32_t>(key.size()), MapEntry()});
  arena_.append(key);
  return {&r.entry, true};
}

void GroupMap::Grow() {
  const size_t new_capacity = capacity_ == 0 ? kFirstCapacity : capacity_ * 2;
  assert(new_capacity <= (size_t{1} << 32) && "GroupMap past 2^32 slots");
  int new_shift = 32;
  for (size_t c = new_capacity; c > 1; c >>= 1) --new_shift;

  auto new_table = std::make_unique<uint64_t[]>(new_capacity);  // zeroed: all empty
  const size_t mask = new_capacity - 1;
  // Slots are distinct keys, so re-placing one needs no comparison: the first empty slot wins.
  for (size_t j = 0; j < capacity_; ++j) {
    const uint64_t s = table_[j];
    if (s == 0) continue;
    size_t i = static_cast<uint32_t>(s >> 32) >> new_shift;
    while (new_table[i] != 0) i = (i + 1) & mask;
    new_table[i] = s;
  }
  table_ = std::move(new_table);
  capacity_ = new_capacity;
  shift_ = new_shift;
}

void GroupMap::Clear() {
  table_.reset();
  capacity_ = 0;
  shift_ = 32;
  // clear() would keep the buffers; swapping with fresh containers frees them.
  std::vector<Record>().swap(records_);
  std::string().swap(arena_);
}

size_t GroupMap::memory_bytes() const {
  // An empty map holds no heap memory: a short arena lives inside the string itself.
  const size_t arena = arena_.capacity() > std::string().capacity() ? arena_.capacity() : 0;
  return capacity_ * sizeof(uint64_t) + records_.capacity() * sizeof(Record) + arena;
}

}  // namespace slotkv::slot
