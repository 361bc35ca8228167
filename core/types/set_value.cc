// Encoded set layout (the value bytes of a key of type ValueType::kSet):
//
//   set     := version count member{count}
//   version := 0x01                        (one byte; other values are Corruption)
//   count   := varint64                    (number of members, >= 1)
//   member  := length:varint32 bytes{length}
//
// Members are distinct, in iteration order; nothing follows the last member. A member may be
// empty (length 0), so count can be at most the number of bytes after it.
//
// Worked example, the set {"a", "bc"} added in that order (6 bytes):
//
//   01          version 1
//   02          count 2
//   01 61       "a"
//   02 62 63    "bc"
#include "core/types/set_value.h"

#include <algorithm>
#include <cassert>

#include "core/base/coding.h"

namespace slotkv {
namespace {

constexpr uint8_t kVersion = 1;

// Reads version and count; leaves *in at the first member.
Status DecodeHeader(std::string_view* in, uint64_t* count) {
  if (in->empty()) return Status::Corruption("set: empty value");
  if (static_cast<uint8_t>((*in)[0]) != kVersion) {
    return Status::Corruption("set: unknown version");
  }
  in->remove_prefix(1);
  if (!GetVarint64(in, count)) return Status::Corruption("set: bad member count");
  if (*count == 0) return Status::Corruption("set: no members");
  // Each member takes at least its one-byte length: a larger count cannot be right (and must
  // not drive a huge reserve).
  if (*count > in->size()) return Status::Corruption("set: member count past the end");
  return Status::OK();
}

}  // namespace

SetValue::SetValue()
    : members_(std::make_unique<std::vector<std::string>>()),
      index_(0, Hash{members_.get()}, Eq{members_.get()}) {}

SetValue::SetValue(const SetValue& other)
    : members_(std::make_unique<std::vector<std::string>>(*other.members_)),
      index_(0, Hash{members_.get()}, Eq{members_.get()}) {
  Reindex();
}

SetValue& SetValue::operator=(const SetValue& other) {
  if (this != &other) {
    *members_ = *other.members_;
    Reindex();
  }
  return *this;
}

SetValue::SetValue(SetValue&& other) noexcept
    : members_(std::move(other.members_)), index_(std::move(other.index_)) {
  other.members_ = std::make_unique<std::vector<std::string>>();
  other.index_ = Index(0, Hash{other.members_.get()}, Eq{other.members_.get()});
}

SetValue& SetValue::operator=(SetValue&& other) noexcept {
  if (this != &other) {
    members_ = std::move(other.members_);
    index_ = std::move(other.index_);
    other.members_ = std::make_unique<std::vector<std::string>>();
    other.index_ = Index(0, Hash{other.members_.get()}, Eq{other.members_.get()});
  }
  return *this;
}

void SetValue::Reindex() {
  index_ = Index(members_->size(), Hash{members_.get()}, Eq{members_.get()});
  for (uint32_t i = 0; i < members_->size(); ++i) index_.insert(i);
}

Result<SetValue> SetValue::Decode(std::string_view in) {
  uint64_t count = 0;
  Status st = DecodeHeader(&in, &count);
  if (!st.ok()) return st;
  if (count >= UINT32_MAX) return Status::Corruption("set: too many members");
  SetValue set;
  set.members_->reserve(count);
  set.index_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view member;
    if (!GetLengthPrefixed(&in, &member)) return Status::Corruption("set: truncated member");
    if (!set.Add(member)) return Status::Corruption("set: duplicate member");
  }
  if (!in.empty()) return Status::Corruption("set: trailing bytes");
  return set;
}

Result<uint64_t> SetValue::DecodeSize(std::string_view in) {
  uint64_t count = 0;
  Status st = DecodeHeader(&in, &count);
  if (!st.ok()) return st;
  return count;
}

std::string SetValue::Encode() const {
  assert(!empty());
  size_t bytes = 1 + static_cast<size_t>(VarintLength(members_->size()));
  for (const std::string& m : *members_)
    bytes += static_cast<size_t>(VarintLength(m.size())) + m.size();
  std::string out;
  out.reserve(bytes);
  out.push_back(static_cast<char>(kVersion));
  PutVarint64(&out, members_->size());
  for (const std::string& m : *members_) PutLengthPrefixed(&out, m);
  return out;
}

bool SetValue::Contains(std::string_view member) const {
  return index_.find(member) != index_.end();
}

bool SetValue::Add(std::string_view member) {
  if (Contains(member)) return false;
  members_->emplace_back(member);
  index_.insert(static_cast<uint32_t>(members_->size() - 1));
  return true;
}

bool SetValue::Remove(std::string_view member) {
  auto it = index_.find(member);
  if (it == index_.end()) return false;
  const uint32_t i = *it;
  const uint32_t last = static_cast<uint32_t>(members_->size() - 1);
  index_.erase(it);
  if (i != last) {
    // The last member moves into the hole; its index entry is re-made under its new position.
    index_.erase(index_.find(last));
    (*members_)[i] = std::move((*members_)[last]);
    members_->pop_back();
    index_.insert(i);
  } else {
    members_->pop_back();
  }
  return true;
}

size_t SetValue::RandomIndex(std::mt19937_64& rng) const {
  assert(!empty());
  return std::uniform_int_distribution<size_t>(0, members_->size() - 1)(rng);
}

std::vector<size_t> SetValue::RandomDistinct(size_t count, std::mt19937_64& rng) const {
  const size_t n = members_->size();
  assert(count <= n);
  std::vector<size_t> out;
  out.reserve(count);
  if (count * 4 < n) {
    // Few out of many: draw and skip repeats.
    std::unordered_set<size_t> seen;
    seen.reserve(count);
    while (out.size() < count) {
      size_t i = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
      if (seen.insert(i).second) out.push_back(i);
    }
    return out;
  }
  // Many: the first count positions of a partial Fisher-Yates shuffle.
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  for (size_t i = 0; i < count; ++i) {
    size_t j = std::uniform_int_distribution<size_t>(i, n - 1)(rng);
    std::swap(all[i], all[j]);
    out.push_back(all[i]);
  }
  return out;
}

std::string SetValue::Pop(std::mt19937_64& rng) {
  std::string member = at(RandomIndex(rng));
  bool removed = Remove(member);
  assert(removed);
  (void)removed;
  return member;
}

}  // namespace slotkv
