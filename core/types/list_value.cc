// Encoded list layout (the value bytes of a key of type ValueType::kList):
//
//   list    := version count element{count}
//   version := 0x01                        (one byte; other values are Corruption)
//   count   := varint64                    (number of elements, >= 1)
//   element := length:varint64 bytes{length}
//
// Elements are in list order, head first; nothing follows the last one. An element may be
// empty (length 0), so count can be at most the number of bytes after it.
//
// Worked example, the list ["a", "bc"] (RPUSH l a bc), 7 bytes:
//
//   01          version 1
//   02          count 2
//   01 61       "a"
//   02 62 63    "bc"
#include "core/types/list_value.h"

#include <algorithm>
#include <cassert>

#include "core/base/coding.h"

namespace slotkv {
namespace {

constexpr uint8_t kVersion = 1;

// Reads version and count; leaves *in at the first element.
Status DecodeHeader(std::string_view* in, uint64_t* count) {
  if (in->empty()) return Status::Corruption("list: empty value");
  if (static_cast<uint8_t>((*in)[0]) != kVersion) {
    return Status::Corruption("list: unknown version");
  }
  in->remove_prefix(1);
  if (!GetVarint64(in, count)) return Status::Corruption("list: bad element count");
  if (*count == 0) return Status::Corruption("list: no elements");
  // Each element takes at least its one-byte length: a larger count cannot be right.
  if (*count > in->size()) return Status::Corruption("list: element count past the end");
  return Status::OK();
}

}  // namespace

Result<ListValue> ListValue::Decode(std::string_view in) {
  uint64_t count = 0;
  Status st = DecodeHeader(&in, &count);
  if (!st.ok()) return st;
  ListValue list;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t len = 0;
    if (!GetVarint64(&in, &len) || len > in.size()) {
      return Status::Corruption("list: truncated element");
    }
    list.items_.emplace_back(in.substr(0, static_cast<size_t>(len)));
    in.remove_prefix(static_cast<size_t>(len));
  }
  if (!in.empty()) return Status::Corruption("list: trailing bytes");
  return list;
}

Result<uint64_t> ListValue::DecodeSize(std::string_view in) {
  uint64_t count = 0;
  Status st = DecodeHeader(&in, &count);
  if (!st.ok()) return st;
  return count;
}

std::string ListValue::Encode() const {
  assert(!empty());
  size_t bytes = 1 + static_cast<size_t>(VarintLength(items_.size()));
  for (const std::string& e : items_)
    bytes += static_cast<size_t>(VarintLength(e.size())) + e.size();
  std::string out;
  out.reserve(bytes);
  out.push_back(static_cast<char>(kVersion));
  PutVarint64(&out, items_.size());
  for (const std::string& e : items_) {
    PutVarint64(&out, e.size());
    out.append(e);
  }
  return out;
}

std::string ListValue::PopFront() {
  assert(!empty());
  std::string v = std::move(items_.front());
  items_.pop_front();
  return v;
}

std::string ListValue::PopBack() {
  assert(!empty());
  std::string v = std::move(items_.back());
  items_.pop_back();
  return v;
}

std::optional<uint64_t> ListValue::PositionIn(uint64_t size, int64_t i) {
  const auto n = static_cast<int64_t>(size);
  if (i < 0) i += n;
  if (i < 0 || i >= n) return std::nullopt;
  return static_cast<uint64_t>(i);
}

bool ListValue::Set(int64_t i, std::string_view v) {
  std::optional<size_t> pos = Position(i);
  if (!pos) return false;
  items_[*pos].assign(v);
  return true;
}

bool ListValue::Insert(std::string_view pivot, std::string_view v, bool after) {
  auto it = std::find(items_.begin(), items_.end(), pivot);
  if (it == items_.end()) return false;
  if (after) ++it;
  items_.emplace(it, v);
  return true;
}

size_t ListValue::Remove(std::string_view v, int64_t count) {
  size_t removed = 0;
  const size_t limit = count == 0 ? SIZE_MAX
                                  : static_cast<size_t>(count < 0 ? 0 - static_cast<uint64_t>(count)
                                                                  : static_cast<uint64_t>(count));
  std::deque<std::string> kept;
  if (count >= 0) {
    for (std::string& e : items_) {
      if (removed < limit && e == v) {
        ++removed;
      } else {
        kept.push_back(std::move(e));
      }
    }
  } else {
    for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
      if (removed < limit && *it == v) {
        ++removed;
      } else {
        kept.push_front(std::move(*it));
      }
    }
  }
  items_ = std::move(kept);
  return removed;
}

std::optional<std::pair<uint64_t, uint64_t>> ListValue::RangeIn(uint64_t size, int64_t start,
                                                                int64_t stop) {
  // As Redis's LRANGE: negative indexes count from the tail, start is clamped to 0 and stop to
  // the last element; an empty range when start is past stop or the end.
  const auto n = static_cast<int64_t>(size);
  if (start < 0) start = std::max<int64_t>(start + n, 0);
  if (stop < 0) stop += n;
  if (start > stop || start >= n) return std::nullopt;
  if (stop >= n) stop = n - 1;
  return std::make_pair(static_cast<uint64_t>(start), static_cast<uint64_t>(stop));
}

void ListValue::Trim(int64_t start, int64_t stop) {
  std::optional<std::pair<uint64_t, uint64_t>> r = Range(start, stop);
  if (!r) {
    items_.clear();
    return;
  }
  items_.erase(items_.begin() + static_cast<ptrdiff_t>(r->second + 1), items_.end());
  items_.erase(items_.begin(), items_.begin() + static_cast<ptrdiff_t>(r->first));
}

}  // namespace slotkv
