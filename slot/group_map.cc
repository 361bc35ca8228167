// GroupMap: open addressing with a control byte array beside the slot array. Nothing here
// reaches the disk; the in-memory layout, for a map holding "ab" then "xyz" in a 16-slot table:
//
//   ctrl_:  16 bytes   ctrl[i] = 0 (empty) | 0x80 | (7 bits of the hash)
//   slots_: 16 x 64 B  slot = {hash u64, key_offset u32, key_len u32, MapEntry (48 B)}
//   arena_: "abxyz"    "ab" -> {key_offset 0, key_len 2}, "xyz" -> {key_offset 2, key_len 3}
//
// A key hashing to home slot 5 with slot 5 taken goes to slot 6, and so on, wrapping at 16.

#include "slot/group_map.h"

#include <cassert>
#include <cstring>

namespace slotkv::slot {
namespace {

// Odd 64-bit constants: 2^64 / golden ratio, and the XXH64 prime 2. Multiplying by an odd
// constant sends every input bit to the top bits of the product, where Home and Tag read.
constexpr uint64_t kIndexMul = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kTagMul = 0xC2B2AE3D27D4EB4Full;

constexpr size_t kFirstCapacity = 16;

}  // namespace

static_assert(sizeof(MapEntry) <= 48, "a GroupMap slot should stay at one cache line");

GroupMap::GroupMap(GroupMap&& other) noexcept { *this = std::move(other); }

GroupMap& GroupMap::operator=(GroupMap&& other) noexcept {
  if (this == &other) return *this;
  ctrl_ = std::move(other.ctrl_);
  slots_ = std::move(other.slots_);
  capacity_ = std::exchange(other.capacity_, 0);
  shift_ = std::exchange(other.shift_, 64);
  size_ = std::exchange(other.size_, 0);
  arena_ = std::move(other.arena_);
  std::string().swap(other.arena_);
  return *this;
}

size_t GroupMap::Home(uint64_t hash) const {
  // shift_ < 64 whenever there is a table (capacity_ >= 16), so the shift is defined.
  return static_cast<size_t>((hash * kIndexMul) >> shift_);
}

uint8_t GroupMap::Tag(uint64_t hash) {
  return static_cast<uint8_t>(0x80 | ((hash * kTagMul) >> 57));
}

size_t GroupMap::FindIndex(std::string_view key, uint64_t hash) const {
  if (capacity_ == 0) return kNotFound;
  const size_t mask = capacity_ - 1;
  const uint8_t tag = Tag(hash);
  // The table is never full, so an empty control byte always ends the probe.
  for (size_t i = Home(hash);; i = (i + 1) & mask) {
    uint8_t c = ctrl_[i];
    if (c == 0) return kNotFound;
    if (c != tag) continue;
    const Slot& slot = slots_[i];
    if (slot.hash == hash && slot.key_len == key.size() &&
        (key.empty() || std::memcmp(arena_.data() + slot.key_offset, key.data(), key.size()) == 0)) {
      return i;
    }
  }
}

MapEntry* GroupMap::Find(std::string_view key, uint64_t hash) {
  size_t i = FindIndex(key, hash);
  return i == kNotFound ? nullptr : &slots_[i].entry;
}

const MapEntry* GroupMap::Find(std::string_view key, uint64_t hash) const {
  size_t i = FindIndex(key, hash);
  return i == kNotFound ? nullptr : &slots_[i].entry;
}

std::pair<MapEntry*, bool> GroupMap::FindOrInsert(std::string_view key, uint64_t hash) {
  // Look first, so that overwriting a key never grows the table.
  if (size_t i = FindIndex(key, hash); i != kNotFound) return {&slots_[i].entry, false};

  // Grow before passing 3/4 full: linear probing slows down sharply past that.
  if ((size_ + 1) * 4 > capacity_ * 3) Grow();

  assert(arena_.size() + key.size() < UINT32_MAX && "GroupMap arena past 4 GiB");
  const size_t mask = capacity_ - 1;
  size_t i = Home(hash);
  while (ctrl_[i] != 0) i = (i + 1) & mask;
  ctrl_[i] = Tag(hash);
  Slot& slot = slots_[i];
  slot.hash = hash;
  slot.key_offset = static_cast<uint32_t>(arena_.size());
  slot.key_len = static_cast<uint32_t>(key.size());
  slot.entry = MapEntry();
  arena_.append(key);
  ++size_;
  return {&slot.entry, true};
}

void GroupMap::Grow() {
  size_t new_capacity = capacity_ == 0 ? kFirstCapacity : capacity_ * 2;
  int new_shift = 64;
  for (size_t c = new_capacity; c > 1; c >>= 1) --new_shift;

  // Value-initialized: all control bytes start empty. Slots need no initialization: a slot is
  // read only where its control byte is set, and every slot is written before its byte is.
  auto new_ctrl = std::make_unique<uint8_t[]>(new_capacity);
  std::unique_ptr<Slot[]> new_slots(new Slot[new_capacity]);

  std::unique_ptr<uint8_t[]> old_ctrl = std::move(ctrl_);
  std::unique_ptr<Slot[]> old_slots = std::move(slots_);
  size_t old_capacity = capacity_;
  ctrl_ = std::move(new_ctrl);
  slots_ = std::move(new_slots);
  capacity_ = new_capacity;
  shift_ = new_shift;

  // Every key is distinct, so reinserting needs no key comparison: the first empty slot wins.
  const size_t mask = capacity_ - 1;
  for (size_t j = 0; j < old_capacity; ++j) {
    if (old_ctrl[j] == 0) continue;
    size_t i = Home(old_slots[j].hash);
    while (ctrl_[i] != 0) i = (i + 1) & mask;
    ctrl_[i] = old_ctrl[j];
    slots_[i] = old_slots[j];
  }
}

void GroupMap::Clear() {
  ctrl_.reset();
  slots_.reset();
  capacity_ = 0;
  shift_ = 64;
  size_ = 0;
  // clear() would keep the buffer; swapping with a fresh string frees it.
  std::string().swap(arena_);
}

size_t GroupMap::memory_bytes() const {
  return capacity_ * (sizeof(Slot) + sizeof(uint8_t)) + arena_.capacity();
}

}  // namespace slotkv::slot
