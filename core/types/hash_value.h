// HashValue: the in-memory form of a Redis hash (field -> value, both binary-safe byte strings)
// and its codec, the bytes stored as the value of a kHash key.
//
// Design. A small hash is kept whole in one stored value: a command decodes it, works on it
// and re-encodes it. A hash above paged-collection-threshold fields is paged
// (core/types/member_pages.h), each page being a HashValue.
//
// Order. Fields iterate in insertion order: a new field goes last, overwriting a field keeps
// its place, deleting one closes the gap. This is the order of Redis's listpack encoding, so
// HGETALL / HKEYS / HSCAN reply in the order Redis does for small hashes.
//
// Memory. Decode does not copy fields or values: they are views into the decoded buffer, which
// the HashValue owns. Strings written by Set are kept in an arena that only grows until the
// HashValue dies, so a view returned by Get or At stays valid for the HashValue's lifetime
// (even across later Set / Delete calls and moves of the HashValue).
//
// Thread rule: none inside; a HashValue is used by one thread at a time (the slot's owner).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace slotkv {

class HashValue {
 public:
  // The first byte of every encoded hash (see the grammar in hash_value.cc).
  static constexpr uint8_t kVersion = 1;

  // An empty hash.
  HashValue() = default;
  // Views point into owned storage whose addresses survive a move; a copy would not keep them.
  HashValue(HashValue&&) noexcept = default;
  HashValue& operator=(HashValue&&) noexcept = default;
  HashValue(const HashValue&) = delete;
  HashValue& operator=(const HashValue&) = delete;

  // Parses bytes made by Encode. Corruption on anything else: an unknown version, a truncated
  // or oversized length, a count that does not match the entries, trailing bytes, or the same
  // field twice. Never crashes on any input. The second form takes the buffer without a copy.
  [[nodiscard]] static Result<HashValue> Decode(std::string_view bytes);
  [[nodiscard]] static Result<HashValue> Decode(std::string&& bytes);
  // The field count of an encoded hash from its header alone (HLEN). Corruption as Decode for
  // a bad header; the pairs are not checked.
  [[nodiscard]] static Result<uint64_t> DecodeSize(std::string_view bytes);

  // The encoded form, in iteration order. An empty hash encodes too (commands never store
  // one: they delete the key instead).
  std::string Encode() const;

  size_t size() const { return entries_.size() - dead_; }
  bool empty() const { return size() == 0; }

  // The value of field, or nullopt. The view lives as long as this HashValue.
  std::optional<std::string_view> Get(std::string_view field) const;
  bool Contains(std::string_view field) const { return Find(field).has_value(); }
  // Sets field to value; returns true when the field is new (it then iterates last).
  bool Set(std::string_view field, std::string_view value);
  // Removes field; returns whether it was there.
  bool Delete(std::string_view field);

  // The i-th (field, value) pair in iteration order. Views live as long as this HashValue.
  // Amortised O(1) (the first call after a Delete compacts, O(n)).
  // REQUIRES: i < size().
  std::pair<std::string_view, std::string_view> At(size_t i) const;

  // Calls fn(field, value) for every pair in iteration order. fn must not modify the hash.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const Entry& e : entries_) {
      if (e.live) fn(e.field, e.value);
    }
  }

 private:
  struct Entry {
    std::string_view field;
    std::string_view value;
    bool live = true;
  };
  // Small hashes are searched linearly; past this many entries a field index is built on the
  // lookup after kScansBeforeIndex linear ones and kept up to date afterwards (a page is
  // mostly decoded for one lookup, which a scan does for less than the index costs).
  static constexpr size_t kIndexFrom = 16;
  static constexpr uint32_t kScansBeforeIndex = 4;
  // Decode checks up to this many fields for duplicates without building the index.
  static constexpr size_t kProbeMax = 256;

  // Position of field's live entry in entries_.
  std::optional<size_t> Find(std::string_view field) const;
  void BuildIndex() const;
  // Whether no field appears twice (Decode's check).
  bool NoDuplicates() const;
  // Drops deleted entries (and fixes the index).
  void Compact() const;
  std::string_view Keep(std::string_view s);

  // Owned bytes: the decoded buffer (first, when decoded) and every string Set stored. A deque
  // never moves its elements, so views into them stay valid.
  std::deque<std::string> arena_;
  // Mutable: lookups build the index and At compacts lazily; neither changes the contents.
  mutable std::vector<Entry> entries_;
  mutable size_t dead_ = 0;  // entries with live == false
  mutable bool indexed_ = false;
  mutable uint32_t scans_ = 0;  // linear lookups of a hash past kIndexFrom entries
  mutable std::unordered_map<std::string_view, size_t> index_;  // field -> position (live only)
};

}  // namespace slotkv
