// SetValue: the in-memory form of a Redis set (the value of a key of type ValueType::kSet) and
// its codec. The encoded form is what the slot stores under the key (grammar in set_value.cc).
//
// A small set is one stored value that a command decodes, changes and encodes whole again; a
// set above paged-collection-threshold members is paged (core/types/member_pages.h) and read
// whole into a SetValue only by the commands that need every member.
//
// Members are binary-safe byte strings, unique within the set. Iteration order is insertion
// order, with one exception: Remove moves the last member into the removed member's place.
//
// Thread rule: a SetValue is plain data, used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/base/status.h"

namespace slotkv {

class SetValue {
 public:
  SetValue();
  SetValue(const SetValue& other);
  SetValue& operator=(const SetValue& other);
  // A moved-from SetValue is empty.
  SetValue(SetValue&& other) noexcept;
  SetValue& operator=(SetValue&& other) noexcept;

  // Parses an encoded set. Corruption (never a crash) on anything that Encode could not have
  // produced: an unknown version, a truncated or overlong varint, a member running past the end,
  // trailing bytes, a duplicate member, or an empty set (an empty set is never stored).
  static Result<SetValue> Decode(std::string_view encoded);
  // The member count of an encoded set without decoding the members (SCARD). Corruption as
  // Decode for a bad header; the members themselves are not checked.
  static Result<uint64_t> DecodeSize(std::string_view encoded);

  // The encoded form. REQUIRES: !empty() (an empty set is deleted, not stored).
  std::string Encode() const;

  size_t size() const { return members_->size(); }
  bool empty() const { return members_->empty(); }
  // Whether member is in the set.
  bool Contains(std::string_view member) const;
  // Adds member; true when it was not there yet.
  bool Add(std::string_view member);
  // Removes member; true when it was there.
  bool Remove(std::string_view member);

  // The members, in iteration order. The reference is valid until the next change.
  const std::vector<std::string>& members() const { return *members_; }
  // The member at index i of members(). REQUIRES: i < size().
  const std::string& at(size_t i) const { return (*members_)[i]; }

  // A uniformly random member index. REQUIRES: !empty().
  size_t RandomIndex(std::mt19937_64& rng) const;
  // count distinct member indexes chosen uniformly at random, in no particular order.
  // REQUIRES: count <= size().
  std::vector<size_t> RandomDistinct(size_t count, std::mt19937_64& rng) const;
  // Removes a uniformly random member and returns it. REQUIRES: !empty().
  std::string Pop(std::mt19937_64& rng);

 private:
  // The index holds positions in members_; hashing and comparing look at the member bytes, and
  // lookups by string_view go through the transparent overloads.
  struct Hash {
    using is_transparent = void;
    const std::vector<std::string>* members;
    size_t operator()(uint32_t i) const { return (*this)(std::string_view((*members)[i])); }
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Eq {
    using is_transparent = void;
    const std::vector<std::string>* members;
    std::string_view At(uint32_t i) const { return (*members)[i]; }
    bool operator()(uint32_t a, uint32_t b) const { return At(a) == At(b); }
    bool operator()(std::string_view a, uint32_t b) const { return a == At(b); }
    bool operator()(uint32_t a, std::string_view b) const { return At(a) == b; }
  };
  using Index = std::unordered_set<uint32_t, Hash, Eq>;

  // Rebuilds index_ from *members_ (after a copy).
  void Reindex();

  // On the heap so that the index functors' pointer survives a move of the SetValue: a move
  // hands both over without rehashing. At most 2^32 - 1 members (indexes are 32-bit).
  std::unique_ptr<std::vector<std::string>> members_;
  Index index_;
};

}  // namespace slotkv
