// Encoded sorted-set layout (the value bytes of a key of type ValueType::kZSet):
//
//   zset    := version count entry{count}
//   version := 0x01                        (one byte; other values are Corruption)
//   count   := varint64                    (number of entries, >= 1)
//   entry   := score:fixed64 length:varint64 member{length}
//
// score is the IEEE-754 binary64 bit pattern, little-endian (never a NaN). Entries are in
// ascending (score, member) order with unique members; nothing follows the last one. Each
// entry takes at least 9 bytes, which bounds count by the bytes after it.
//
// Worked example, {a: 1.5, bc: 2} (ZADD z 1.5 a 2 bc), 23 bytes:
//
//   01                         version 1
//   02                         count 2
//   00 00 00 00 00 00 f8 3f    1.5
//   01 61                      "a"
//   00 00 00 00 00 00 00 40    2.0
//   02 62 63                   "bc"
#include "core/types/zset_value.h"

#include <bit>
#include <cassert>
#include <cmath>
#include <iterator>

#include "core/base/coding.h"

namespace slotkv {
namespace {

constexpr uint8_t kVersion = 1;
constexpr uint64_t kMinEntryBytes = 9;

// Reads version and count; leaves *in at the first entry.
Status DecodeHeader(std::string_view* in, uint64_t* count) {
  if (in->empty()) return Status::Corruption("zset: empty value");
  if (static_cast<uint8_t>((*in)[0]) != kVersion) {
    return Status::Corruption("zset: unknown version");
  }
  in->remove_prefix(1);
  if (!GetVarint64(in, count)) return Status::Corruption("zset: bad entry count");
  if (*count == 0) return Status::Corruption("zset: no entries");
  if (*count > in->size() / kMinEntryBytes) {
    return Status::Corruption("zset: entry count past the end");
  }
  return Status::OK();
}

}  // namespace

ZSetValue::ZSetValue(const ZSetValue& other) : entries_(other.entries_) { Reindex(); }

ZSetValue& ZSetValue::operator=(const ZSetValue& other) {
  if (this != &other) {
    entries_ = other.entries_;
    Reindex();
  }
  return *this;
}

ZSetValue::ZSetValue(ZSetValue&& other) noexcept
    : entries_(std::move(other.entries_)), index_(std::move(other.index_)) {
  other.entries_.clear();
  other.index_.clear();
}

ZSetValue& ZSetValue::operator=(ZSetValue&& other) noexcept {
  if (this != &other) {
    entries_ = std::move(other.entries_);
    index_ = std::move(other.index_);
    other.entries_.clear();
    other.index_.clear();
  }
  return *this;
}

void ZSetValue::Reindex() {
  index_.clear();
  index_.reserve(entries_.size());
  for (auto it = entries_.begin(); it != entries_.end(); ++it) index_.emplace(it->member, it);
}

Result<ZSetValue> ZSetValue::Decode(std::string_view in) {
  uint64_t count = 0;
  Status st = DecodeHeader(&in, &count);
  if (!st.ok()) return st;
  ZSetValue z;
  z.index_.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t bits = 0;
    std::string_view member;
    if (!GetFixed64(&in, &bits) || !GetLengthPrefixed(&in, &member)) {
      return Status::Corruption("zset: truncated entry");
    }
    const double score = std::bit_cast<double>(bits);
    if (std::isnan(score)) return Status::Corruption("zset: NaN score");
    if (!z.entries_.empty()) {
      const Entry& last = *z.entries_.rbegin();
      if (!Less::Before(last.score, last.member, score, member)) {
        return Status::Corruption("zset: entries out of order");
      }
    }
    auto it = z.entries_.emplace_hint(z.entries_.end(), Entry{score, std::string(member)});
    if (!z.index_.emplace(it->member, it).second) {
      return Status::Corruption("zset: duplicate member");
    }
  }
  if (!in.empty()) return Status::Corruption("zset: trailing bytes");
  return z;
}

Result<uint64_t> ZSetValue::DecodeSize(std::string_view in) {
  uint64_t count = 0;
  Status st = DecodeHeader(&in, &count);
  if (!st.ok()) return st;
  return count;
}

std::string ZSetValue::Encode() const {
  assert(!empty());
  size_t bytes = 1 + static_cast<size_t>(VarintLength(entries_.size()));
  for (const Entry& e : entries_) {
    bytes += 8 + static_cast<size_t>(VarintLength(e.member.size())) + e.member.size();
  }
  std::string out;
  out.reserve(bytes);
  out.push_back(static_cast<char>(kVersion));
  PutVarint64(&out, entries_.size());
  for (const Entry& e : entries_) {
    PutFixed64(&out, std::bit_cast<uint64_t>(e.score));
    PutLengthPrefixed(&out, e.member);
  }
  return out;
}

std::optional<double> ZSetValue::Score(std::string_view member) const {
  auto it = index_.find(member);
  if (it == index_.end()) return std::nullopt;
  return it->second->score;
}

ZSetValue::const_iterator ZSetValue::Find(std::string_view member) const {
  auto it = index_.find(member);
  return it == index_.end() ? entries_.end() : it->second;
}

ZSetValue::Change ZSetValue::Set(std::string_view member, double score) {
  assert(!std::isnan(score));
  auto found = index_.find(member);
  if (found != index_.end()) {
    const_iterator old = found->second;
    if (old->score == score) return Change::kUnchanged;
    // Reuse the node: extract, change the score, reinsert; the member string stays in place,
    // so the index key (a view of it) stays valid.
    auto node = entries_.extract(old);
    node.value().score = score;
    found->second = entries_.insert(std::move(node)).position;
    return Change::kUpdated;
  }
  auto it = entries_.insert(Entry{score, std::string(member)}).first;
  index_.emplace(it->member, it);
  return Change::kAdded;
}

bool ZSetValue::Remove(std::string_view member) {
  auto found = index_.find(member);
  if (found == index_.end()) return false;
  const_iterator it = found->second;
  index_.erase(found);
  entries_.erase(it);
  return true;
}

ZSetValue::const_iterator ZSetValue::Erase(const_iterator it) {
  index_.erase(std::string_view(it->member));
  return entries_.erase(it);
}

std::optional<size_t> ZSetValue::Rank(std::string_view member) const {
  auto found = index_.find(member);
  if (found == index_.end()) return std::nullopt;
  return static_cast<size_t>(std::distance(entries_.begin(), found->second));
}

ZSetValue::const_iterator ZSetValue::AtRank(size_t r) const {
  if (r >= entries_.size()) return entries_.end();
  if (r <= entries_.size() / 2) return std::next(entries_.begin(), static_cast<ptrdiff_t>(r));
  return std::prev(entries_.end(), static_cast<ptrdiff_t>(entries_.size() - r));
}

ZSetValue::const_iterator ZSetValue::LowerBound(double min, bool exclusive) const {
  // Every member sorts after "" at an equal score; for an exclusive bound, skip the entries
  // with score == min after that.
  auto it = entries_.lower_bound(Less::Key{min, std::string_view()});
  if (exclusive) {
    while (it != entries_.end() && it->score == min) ++it;
  }
  return it;
}

}  // namespace slotkv
