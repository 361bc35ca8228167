// Encoded hash (the value bytes of a kHash key):
//
//   hash    := version count pair{count}
//   version := 0x01                                  (HashValue::kVersion; 0x00 never used)
//   count   := varint64                              number of pairs, at least 0
//   pair    := field_len field value_len value       in iteration (insertion) order
//   field_len, value_len := varint64                 (core/base/coding.h varints)
//   field, value := bytes                            any bytes, empty allowed
//
// No field appears twice, and nothing follows the last pair. A decoder refuses anything else
// with Corruption.
//
// Worked example: the hash built by HSET h a 1 bc "" encodes to the 10 bytes
//   01            version 1
//   02            count 2
//   01 61         field_len 1, "a"
//   01 31         value_len 1, "1"
//   02 62 63      field_len 2, "bc"
//   00            value_len 0, ""
//
// Every command decodes and re-encodes the whole hash (see hash_value.h): simple and correct
// at any size, O(n) per command.
#include "core/types/hash_value.h"

#include <array>
#include <cassert>
#include <functional>

#include "core/base/coding.h"

namespace slotkv {

Result<HashValue> HashValue::Decode(std::string_view bytes) { return Decode(std::string(bytes)); }

namespace {

// Reads the version and the pair count, leaving *in at the first pair.
Result<uint64_t> DecodeHeader(std::string_view* in) {
  if (in->empty()) return Status::Corruption("hash: empty value");
  if (static_cast<uint8_t>((*in)[0]) != HashValue::kVersion) {
    return Status::Corruption("hash: unknown version " +
                              std::to_string(static_cast<uint8_t>((*in)[0])));
  }
  in->remove_prefix(1);
  uint64_t count = 0;
  if (!GetVarint64(in, &count)) return Status::Corruption("hash: bad count");
  return count;
}

}  // namespace

Result<uint64_t> HashValue::DecodeSize(std::string_view bytes) { return DecodeHeader(&bytes); }

Result<HashValue> HashValue::Decode(std::string&& bytes) {
  HashValue h;
  h.arena_.push_back(std::move(bytes));
  std::string_view in = h.arena_.back();
  SLOTKV_ASSIGN_OR_RETURN(uint64_t count, DecodeHeader(&in));
  // Each pair takes at least two bytes: this bounds the reservation below by the input size.
  if (count > in.size() / 2) return Status::Corruption("hash: count larger than the value");
  h.entries_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    Entry e;
    if (!GetLengthPrefixed(&in, &e.field) || !GetLengthPrefixed(&in, &e.value)) {
      return Status::Corruption("hash: truncated pair " + std::to_string(i));
    }
    h.entries_.push_back(e);
  }
  if (!in.empty()) return Status::Corruption("hash: trailing bytes");
  // Duplicates would break size() and Delete: refuse them.
  if (!h.NoDuplicates()) return Status::Corruption("hash: duplicate field");
  return h;
}

std::string HashValue::Encode() const {
  size_t bytes = 1 + static_cast<size_t>(VarintLength(size()));
  ForEach([&](std::string_view f, std::string_view v) {
    bytes += static_cast<size_t>(VarintLength(f.size())) + f.size() +
             static_cast<size_t>(VarintLength(v.size())) + v.size();
  });
  std::string out;
  out.reserve(bytes);
  out.push_back(static_cast<char>(kVersion));
  PutVarint64(&out, size());
  ForEach([&](std::string_view f, std::string_view v) {
    PutLengthPrefixed(&out, f);
    PutLengthPrefixed(&out, v);
  });
  assert(out.size() == bytes);
  return out;
}

bool HashValue::NoDuplicates() const {
  const size_t n = entries_.size();
  if (n <= kIndexFrom) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i + 1; j < n; ++j) {
        if (entries_[i].field == entries_[j].field) return false;
      }
    }
    return true;
  }
  if (n > kProbeMax) {
    BuildIndex();
    return index_.size() == n;
  }
  // A page (up to paged-page-members fields) is decoded for a lookup or two: an open-addressed
  // table on the stack costs less than the index, which most decodes never use.
  constexpr size_t kSlots = 2 * kProbeMax;
  constexpr uint16_t kEmpty = UINT16_MAX;
  std::array<uint16_t, kSlots> table;
  table.fill(kEmpty);
  const std::hash<std::string_view> hasher;
  for (size_t i = 0; i < n; ++i) {
    for (size_t slot = hasher(entries_[i].field) % kSlots;; slot = (slot + 1) % kSlots) {
      if (table[slot] == kEmpty) {
        table[slot] = static_cast<uint16_t>(i);
        break;
      }
      if (entries_[table[slot]].field == entries_[i].field) return false;
    }
  }
  return true;
}

void HashValue::BuildIndex() const {
  index_.clear();
  index_.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].live) index_.emplace(entries_[i].field, i);
  }
  indexed_ = true;
}

std::optional<size_t> HashValue::Find(std::string_view field) const {
  if (!indexed_ && entries_.size() > kIndexFrom && ++scans_ > kScansBeforeIndex) BuildIndex();
  if (indexed_) {
    auto it = index_.find(field);
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].live && entries_[i].field == field) return i;
  }
  return std::nullopt;
}

std::optional<std::string_view> HashValue::Get(std::string_view field) const {
  std::optional<size_t> i = Find(field);
  if (!i) return std::nullopt;
  return entries_[*i].value;
}

std::string_view HashValue::Keep(std::string_view s) {
  arena_.emplace_back(s);
  return arena_.back();
}

bool HashValue::Set(std::string_view field, std::string_view value) {
  std::optional<size_t> i = Find(field);
  if (i) {
    entries_[*i].value = Keep(value);
    return false;
  }
  Entry e{Keep(field), Keep(value), true};
  entries_.push_back(e);
  if (indexed_) index_.emplace(e.field, entries_.size() - 1);
  return true;
}

bool HashValue::Delete(std::string_view field) {
  std::optional<size_t> i = Find(field);
  if (!i) return false;
  if (indexed_) index_.erase(entries_[*i].field);
  entries_[*i].live = false;
  ++dead_;
  return true;
}

void HashValue::Compact() const {
  size_t out = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].live) entries_[out++] = entries_[i];
  }
  entries_.resize(out);
  dead_ = 0;
  if (indexed_) BuildIndex();
}

std::pair<std::string_view, std::string_view> HashValue::At(size_t i) const {
  if (dead_ != 0) Compact();
  assert(i < entries_.size());
  return {entries_[i].field, entries_[i].value};
}

}  // namespace slotkv
