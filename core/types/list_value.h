// ListValue: the in-memory form of a Redis list (the value of a key of type ValueType::kList)
// and its codec. The encoded form is what the slot stores under the key (grammar in
// list_value.cc).
//
// A command decodes the whole value, changes it and encodes it whole again: O(size) per write,
// as SetValue and HashValue; a later paged layout would stay behind this interface.
//
// Elements are binary-safe byte strings and may repeat. Indexes follow Redis: 0 is the head,
// -1 the tail.
//
// Thread rule: a ListValue is plain data, used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace slotkv {

class ListValue {
 public:
  // Parses an encoded list. Corruption (never a crash) on anything Encode could not have
  // produced: an unknown version, a truncated or overlong varint, an element running past the
  // end, trailing bytes, or an empty list (an empty list is never stored).
  static Result<ListValue> Decode(std::string_view encoded);
  // The element count of an encoded list without decoding the elements (LLEN). Corruption as
  // Decode for a bad header; the elements themselves are not checked.
  static Result<uint64_t> DecodeSize(std::string_view encoded);

  // The encoded form. REQUIRES: !empty() (an empty list is deleted, not stored).
  std::string Encode() const;

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

  void PushFront(std::string_view v) { items_.emplace_front(v); }
  void PushBack(std::string_view v) { items_.emplace_back(v); }
  // Removes and returns the head / tail element. REQUIRES: !empty().
  std::string PopFront();
  std::string PopBack();

  // The position of Redis index i (negative counts from the tail) in a list of `size`
  // elements; nullopt when out of range.
  static std::optional<uint64_t> PositionIn(uint64_t size, int64_t i);
  // The positions [first, last] of Redis range [start, stop] (LRANGE) in a list of `size`
  // elements; nullopt when empty.
  static std::optional<std::pair<uint64_t, uint64_t>> RangeIn(uint64_t size, int64_t start,
                                                              int64_t stop);
  std::optional<size_t> Position(int64_t i) const { return PositionIn(items_.size(), i); }
  // The element at position pos. REQUIRES: pos < size().
  const std::string& at(size_t pos) const { return items_[pos]; }
  // Replaces the element at Redis index i; false when i is out of range.
  bool Set(int64_t i, std::string_view v);
  // Inserts v before (or after) the first element equal to pivot; false when pivot is absent.
  bool Insert(std::string_view pivot, std::string_view v, bool after);
  // Removes up to |count| elements equal to v, from the head when count > 0, from the tail
  // when count < 0, all when count == 0. Returns how many were removed.
  size_t Remove(std::string_view v, int64_t count);
  // Keeps only Redis range [start, stop] (LTRIM); may leave the list empty.
  void Trim(int64_t start, int64_t stop);
  // The positions [first, last] of Redis range [start, stop] (LRANGE); nullopt when empty.
  std::optional<std::pair<uint64_t, uint64_t>> Range(int64_t start, int64_t stop) const {
    return RangeIn(items_.size(), start, stop);
  }

 private:
  std::deque<std::string> items_;
};

}  // namespace slotkv
