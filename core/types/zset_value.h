// ZSetValue: the in-memory form of a Redis sorted set (the value of a key of type
// ValueType::kZSet) and its codec. The encoded form is what the slot stores under the key
// (grammar in zset_value.cc).
//
// A command decodes the whole value, changes it and encodes it whole again: O(size) per write,
// as the other collections; a later paged layout would stay behind this interface.
//
// Entries are ordered as Redis orders them: by score, then by member bytes (memcmp order, so
// "\xff" sorts after "a"). Scores are doubles, never NaN; -0.0 and 0.0 are equal scores (the
// sign is kept and printed, as Redis prints "-0"). Members are binary-safe and unique.
//
// Ranks are O(rank) (the entries are a balanced tree without subtree sizes); fine while every
// write is O(size) anyway.
//
// Thread rule: a ZSetValue is plain data, used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/base/status.h"

namespace slotkv {

class ZSetValue {
 public:
  struct Entry {
    double score;
    std::string member;
  };
  // (score, member) order. Transparent, so a lookup needs no Entry copy of the member.
  struct Less {
    using is_transparent = void;
    struct Key {
      double score;
      std::string_view member;
    };
    static bool Before(double sa, std::string_view ma, double sb, std::string_view mb) {
      if (sa != sb) return sa < sb;
      return ma < mb;
    }
    bool operator()(const Entry& a, const Entry& b) const {
      return Before(a.score, a.member, b.score, b.member);
    }
    bool operator()(const Entry& a, const Key& b) const {
      return Before(a.score, a.member, b.score, b.member);
    }
    bool operator()(const Key& a, const Entry& b) const {
      return Before(a.score, a.member, b.score, b.member);
    }
  };
  using Entries = std::set<Entry, Less>;
  using const_iterator = Entries::const_iterator;
  using const_reverse_iterator = Entries::const_reverse_iterator;

  ZSetValue() = default;
  ZSetValue(const ZSetValue& other);
  ZSetValue& operator=(const ZSetValue& other);
  // Moving keeps the index valid (tree nodes do not move); a moved-from ZSetValue is empty.
  ZSetValue(ZSetValue&& other) noexcept;
  ZSetValue& operator=(ZSetValue&& other) noexcept;

  // Parses an encoded sorted set. Corruption (never a crash) on anything Encode could not have
  // produced: an unknown version, a truncated or overlong varint, a member running past the
  // end, trailing bytes, a NaN score, entries out of (score, member) order, a duplicate member,
  // or an empty set (an empty sorted set is never stored).
  static Result<ZSetValue> Decode(std::string_view encoded);
  // The entry count of an encoded sorted set without decoding the entries (ZCARD). Corruption
  // as Decode for a bad header; the entries themselves are not checked.
  static Result<uint64_t> DecodeSize(std::string_view encoded);

  // The encoded form. REQUIRES: !empty() (an empty sorted set is deleted, not stored).
  std::string Encode() const;

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  // Ascending (score, member) order.
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  const_reverse_iterator rbegin() const { return entries_.rbegin(); }
  const_reverse_iterator rend() const { return entries_.rend(); }

  // The score of member, or nullopt when absent.
  std::optional<double> Score(std::string_view member) const;
  // The entry of member, or end().
  const_iterator Find(std::string_view member) const;

  enum class Change { kAdded, kUpdated, kUnchanged };
  // Sets member's score, adding the member when absent. kUnchanged when it had that score
  // already (compared with ==, so -0.0 over 0.0 is unchanged). REQUIRES: score is not NaN.
  Change Set(std::string_view member, double score);
  // Removes member; true when it was there.
  bool Remove(std::string_view member);
  // Removes the entry at it; returns the entry after it. REQUIRES: it is a valid entry.
  const_iterator Erase(const_iterator it);

  // The 0-based ascending rank of member, or nullopt when absent. O(rank).
  std::optional<size_t> Rank(std::string_view member) const;
  // The entry of ascending rank r (end() when r >= size()). O(min(r, size - r)).
  const_iterator AtRank(size_t r) const;
  // The first entry with score >= min (exclusive: > min), or end().
  const_iterator LowerBound(double min, bool exclusive) const;

 private:
  // Rebuilds index_ from entries_ (after a copy).
  void Reindex();

  Entries entries_;
  // member -> its entry; the key views the member string inside the tree node, which stays put
  // until the entry is erased.
  std::unordered_map<std::string_view, const_iterator> index_;
};

}  // namespace slotkv
