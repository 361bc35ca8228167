// Held values ("held values" in slot.h): collection values kept in memory while their group map
// names them, so that their next versions are logged as deltas.
#include <cassert>
#include <cstdio>

#include "core/base/hash.h"
#include "slot/slot_impl.h"
#include "slot/value_delta.h"

namespace slotkv::slot {
namespace {

// A smaller value is logged whole, unless it is a page: a delta saves little, and a paged root
// (a few dozen bytes) is never held, so NoteReplaced never needs a held value. A small page is
// held all the same: a tree's top node (tens of counts) changes with every write of its
// collection, and logged whole it would be compressed again each time (12-17% of the owner's
// time under LPUSH on one list).
constexpr size_t kHoldMinBytes = 256;
constexpr size_t kDefaultHeldBytes = 8 << 20;

// Gives back what an encode left past a quarter of s's length (a string that grows doubles
// its block): held pages are many and long-lived.
void FitCapacity(std::string* s) {
  if (s->capacity() - s->size() > s->size() / 4) s->shrink_to_fit();
}

}  // namespace

bool Slot::Impl::Holdable(std::string_view key, ValueType type, std::string_view value) const {
  if (!IsCollection(type)) return false;
  if (options.may_hold_root != nullptr && !options.may_hold_root(key)) return true;  // a page
  // Never a paged root (a stream's carries its groups, past kHoldMinBytes): a replaced root
  // must be seen whole to hand its pages over (NoteReplaced), which a delta is not.
  return value.size() >= kHoldMinBytes && (options.root_id == nullptr || !options.root_id(value));
}

size_t Slot::Impl::HeldLimit() const {
  return cache_budget > 0 ? cache_budget / 2 : kDefaultHeldBytes;
}

Result<bool> Slot::Impl::PutHeld(std::string_view key, uint64_t hash, std::string_view value,
                                 ValueType type, int64_t expire_at_ms,
                                 std::string_view group_key, std::optional<uint64_t> seq,
                                 std::unique_ptr<DecodedPage> decoded) {
  Group& group = groups[GroupOfHash(hash)];
  MapEntry* entry = group.map.Find(key, hash);
  // The first write of a key since its group's flush is logged as any value: holding pays only
  // for a key rewritten before the flush (a random page of a 10M-member set rarely is, and
  // held bytes take the caches' room).
  if (entry == nullptr || entry->tombstone) return false;
  if (entry->held != 0) {
    if (!seq && Deferrable(key, *entry, type, expire_at_ms)) {
      SLOTKV_RETURN_IF_ERROR(Defer(group, *entry, key, hash, value, group_key,
                                   std::move(decoded)));
      return true;
    }
    if (group.held[entry->held - 1].pending) {
      SLOTKV_RETURN_IF_ERROR(LogPending(/*mid_command=*/true));  // this write comes after
      entry = group.map.Find(key, hash);
    }
  }
  size_t freed = 0;
  if (const HeldValue* held = group.HeldOf(*entry)) {
    const std::string& base = held->value;
    if (EncodeDelta(base, value, &delta_scratch)) {
      const auto tag = static_cast<ValueType>(static_cast<uint8_t>(type) | kSpliceTag);
      SLOTKV_RETURN_IF_ERROR(
          LogWrite(wal::RecordKind::kPut, key, hash, delta_scratch, tag, expire_at_ms, seq));
      ++counters.value_deltas;
      // Track kept the hold
      Hold(group, *group.map.Find(key, hash), value, group_key, std::move(decoded));
      return true;
    }
    freed = held->memory_bytes();
  }
  // Decoded forms count: a sorted set's node takes ~3x its bytes decoded, and with only the
  // bytes counted held values and their forms took ~2.3x the limit (3M ZADDs, 256 MB budget:
  // 651 MB allocated against 347 MB of caches and maps accounted).
  if (held_bytes + decoded_bytes - freed + value.size() > HeldLimit()) return false;
  SLOTKV_RETURN_IF_ERROR(
      LogWrite(wal::RecordKind::kPut, key, hash, value, type, expire_at_ms, seq));
  Hold(group, *group.map.Find(key, hash), value, group_key, std::move(decoded));
  return true;
}

bool Slot::Impl::Deferrable(std::string_view key, const MapEntry& entry, ValueType type,
                            int64_t expire_at_ms) const {
  return options.may_hold_root != nullptr && !options.may_hold_root(key) &&
         PlainTag(entry.type) == static_cast<uint8_t>(type) &&
         entry.expire_at_ms == expire_at_ms;
}

Status Slot::Impl::Defer(Group& group, MapEntry& entry, std::string_view key, uint64_t hash,
                         std::string_view value, std::string_view group_key,
                         std::unique_ptr<DecodedPage> decoded) {
  SLOTKV_RETURN_IF_ERROR(Refusal());
  MarkPending(group.held[entry.held - 1], key, hash);
  Hold(group, entry, value, group_key, std::move(decoded));
  return LogPendingPastLimit();
}

Status Slot::Impl::LogPendingPastLimit() {
  return pending_bytes > HeldLimit() / 4 ? LogPending(/*mid_command=*/true) : Status::OK();
}

void Slot::Impl::MarkPending(HeldValue& h, std::string_view key, uint64_t hash) {
  if (h.pending) return;
  h.pending = true;
  Recount(h, [&] { h.base = h.value; });
  pending_bytes += h.base.size();
  pending.emplace_back(key, hash);
  // What the unit's close logs then; until it does no flush may run (FlushStep waits).
  unit_open = true;
}

Result<bool> Slot::PutDecoded(std::string_view key, ValueType type, std::string_view group_key,
                              std::unique_ptr<DecodedPage>* decoded) {
  Impl& s = *impl_;
  const uint64_t hash = KeyHash(key);
  Group& group = s.groups[s.GroupOfHash(hash)];
  MapEntry* entry = group.map.Find(key, hash);
  if (entry == nullptr || entry->tombstone || entry->held == 0 ||
      !s.Deferrable(key, *entry, type, 0)) {
    return false;
  }
  SLOTKV_RETURN_IF_ERROR(s.Refusal());
  HeldValue& h = group.held[entry->held - 1];
  s.MarkPending(h, key, hash);
  s.NewVersion(h, group_key);
  h.stale = true;
  s.KeepDecoded(h, std::move(*decoded), /*only_form=*/true);
  s.MaybeSizeCaches();
  SLOTKV_RETURN_IF_ERROR(s.LogPendingPastLimit());
  return true;
}

Status Slot::Impl::Materialize(Group& group, HeldValue& h, std::string_view key) {
  if (!h.stale) return Status::OK();
  if (h.lent || h.decoded == nullptr) {
    return Fail(Status::Corruption("slot: the only current form of page " + std::string(key) +
                                   " was taken and dropped"));
  }
  const size_t before = h.value.size();
  Recount(h, [&] {
    h.decoded->Encode(&h.value);
    FitCapacity(&h.value);
  });
  if (h.value.size() > before) group.bytes += h.value.size() - before;
  counters.user_bytes_written += key.size() + h.value.size();
  h.stale = false;
  return Status::OK();
}

Status Slot::Impl::LogPending(bool mid_command) {
  if (pending.empty()) return Status::OK();
  std::vector<std::pair<std::string, uint64_t>> keys;
  keys.swap(pending);
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto& [key, hash] = keys[i];
    Group& group = groups[GroupOfHash(hash)];
    const MapEntry* entry = group.map.Find(key, hash);
    if (entry == nullptr || entry->tombstone || entry->held == 0) continue;
    HeldValue& h = group.held[entry->held - 1];
    if (!h.pending) continue;
    if (mid_command && h.lent) {
      pending.push_back(keys[i]);
      continue;
    }
    if (Status st = LogHeld(group, key, hash, *entry, h); !st.ok()) {
      // The slot fails: the rest stays listed, as it is.
      pending.insert(pending.end(), keys.begin() + static_cast<ptrdiff_t>(i), keys.end());
      return st;
    }
  }
  DropDecodedPastLimit(keys);
  return Status::OK();
}

void Slot::Impl::DropDecodedPastLimit(const std::vector<std::pair<std::string, uint64_t>>& keys) {
  for (const auto& [key, hash] : keys) {
    if (held_bytes + decoded_bytes <= HeldLimit()) return;
    Group& group = groups[GroupOfHash(hash)];
    const MapEntry* entry = group.map.Find(key, hash);
    if (entry == nullptr || entry->tombstone || entry->held == 0) continue;
    HeldValue& h = group.held[entry->held - 1];
    if (h.decoded == nullptr || h.stale || h.pending) continue;  // still the only current form
    DropDecoded(h);
  }
}

void Slot::Impl::DropDecoded(HeldValue& h) {
  decoded_bytes -= h.decoded_bytes;
  h.decoded.reset();
  h.decoded_bytes = 0;
}

Status Slot::Impl::LogHeld(Group& group, std::string_view key, uint64_t hash,
                           const MapEntry& entry, HeldValue& h) {
  SLOTKV_RETURN_IF_ERROR(Materialize(group, h, key));
  const auto type = static_cast<ValueType>(PlainTag(entry.type));
  const int64_t expire_at_ms = entry.expire_at_ms;
  if (EncodeDelta(h.base, h.value, &delta_scratch)) {
    const auto tag = static_cast<ValueType>(static_cast<uint8_t>(type) | kSpliceTag);
    SLOTKV_RETURN_IF_ERROR(
        LogWrite(wal::RecordKind::kPut, key, hash, delta_scratch, tag, expire_at_ms));
    ++counters.value_deltas;
    h.pending = false;  // the delta kept the hold (Track)
    pending_bytes -= h.base.size();
    Recount(h, [&] { std::string().swap(h.base); });  // assigning "" would keep the block
    return Status::OK();
  }
  // Logged whole: the record ends the hold and its pending state (Track, Release), and the
  // hold starts again from it.
  std::string value = h.value;
  std::string group_key = h.group_key;
  std::unique_ptr<DecodedPage> decoded = std::move(h.decoded);
  SLOTKV_RETURN_IF_ERROR(LogWrite(wal::RecordKind::kPut, key, hash, value, type, expire_at_ms));
  Hold(group, *group.map.Find(key, hash), value, group_key, std::move(decoded));
  return Status::OK();
}

void Slot::Impl::Hold(Group& group, MapEntry& entry, std::string_view value,
                      std::string_view group_key, std::unique_ptr<DecodedPage> decoded) {
  if (entry.held == 0) {
    group.held.emplace_back();
    entry.held = static_cast<uint32_t>(group.held.size());
  }
  HeldValue& h = group.held[entry.held - 1];
  // The group flushes by bytes: a held value counts once at its largest.
  if (value.size() > h.value.size()) group.bytes += value.size() - h.value.size();
  Recount(h, [&] {
    if (value.size() > h.value.capacity() || value.size() < h.value.capacity() / 2) {
      std::string(value).swap(h.value);  // a block of its size: assign would double the old one
    } else {
      h.value.assign(value);
    }
  });
  h.stale = false;
  NewVersion(h, group_key);
  KeepDecoded(h, std::move(decoded));
  MaybeSizeCaches();
}

void Slot::Impl::NewVersion(HeldValue& h, std::string_view group_key) {
  h.group_key.assign(group_key);
  h.version = ++held_versions;
  h.lent = false;
  DropDecoded(h);
}

void Slot::Impl::KeepDecoded(HeldValue& h, std::unique_ptr<DecodedPage> decoded, bool only_form) {
  if (decoded == nullptr) return;
  const size_t bytes = decoded->memory_bytes();
  if (!only_form && held_bytes + decoded_bytes + bytes > HeldLimit()) return;
  decoded->version = h.version;
  h.decoded = std::move(decoded);
  h.decoded_bytes = bytes;
  decoded_bytes += bytes;
}

HeldValue* Slot::Impl::HeldOf(std::string_view key) {
  const uint64_t hash = KeyHash(key);
  Group& group = groups[GroupOfHash(hash)];
  MapEntry* entry = group.map.Find(key, hash);
  if (entry == nullptr || entry->tombstone || entry->held == 0) return nullptr;
  return &group.held[entry->held - 1];
}

std::unique_ptr<DecodedPage> Slot::TakeDecoded(std::string_view key) {
  HeldValue* h = impl_->HeldOf(key);
  if (h == nullptr || h->decoded == nullptr) return nullptr;
  impl_->decoded_bytes -= h->decoded_bytes;
  h->decoded_bytes = 0;
  h->lent = h->stale;
  return std::move(h->decoded);
}

void Slot::KeepDecoded(std::string_view key, std::unique_ptr<DecodedPage> decoded) {
  HeldValue* h = impl_->HeldOf(key);
  if (h == nullptr || h->decoded != nullptr || decoded == nullptr ||
      decoded->version != h->version) {
    return;
  }
  impl_->KeepDecoded(*h, std::move(decoded), /*only_form=*/h->lent);
  h->lent = false;
}

uint8_t Slot::Impl::StoreHeld(std::string_view key, const MapEntry& entry,
                               const HeldValue& held, std::string* out) {
  assert(!held.stale);  // flushes run after the unit's close, which made it current
  const uint8_t type = PlainTag(entry.type);
  std::string_view group = held.group_key;
  if (group.empty() && (options.may_hold_root == nullptr || options.may_hold_root(key))) {
    group = key;
  }
  if (!group.empty()) {
    const uint8_t tag = CompressInto(group, held.value, type, out);
    if (tag != type) return tag;
  }
  out->assign(held.value);
  return type;
}

uint8_t Slot::Impl::CompressInto(std::string_view group, std::string_view value, uint8_t type,
                                 std::string* out, bool observed) {
  if (!options.dictionaries || !options.dictionaries->Compress(group, value, out, observed)) {
    return type;
  }
  counters.compressed_raw_bytes += value.size();
  counters.compressed_stored_bytes += out->size();
  return type | kCompressedTag;
}

void Slot::Impl::Release(Group& group, MapEntry& entry) {
  if (entry.held == 0) return;
  HeldValue& h = group.held[entry.held - 1];
  held_bytes -= h.memory_bytes();
  decoded_bytes -= h.decoded_bytes;
  pending_bytes -= h.base.size();  // a pending version overwritten or deleted is not logged
  // Moved out, so its strings' blocks go with it: assigning an empty HeldValue keeps them (a
  // short string is copied into the block).
  HeldValue released = std::move(h);
  h = HeldValue();
  entry.held = 0;
}

Status Slot::Impl::HoldReplayed(
    const std::unordered_map<std::string, std::vector<wal::LogPos>>& chains) {
  std::vector<wal::Record> records;
  std::string value;
  std::string next;
  for (const auto& [key, chain] : chains) {
    const uint64_t hash = KeyHash(key);
    Group& group = groups[GroupOfHash(hash)];
    MapEntry* entry = group.map.Find(key, hash);
    if (entry == nullptr || entry->tombstone || entry->pos != chain.back()) continue;
    if (chain.front() == kNoBase) {
      return Status::Corruption("a value delta of key " + key + " follows no version of it");
    }
    SLOTKV_RETURN_IF_ERROR(log->ReadMany(chain, &records));
    const wal::Record& base = records[0];
    if (base.key != key || (base.type_tag & kSpliceTag) != 0) {
      return Status::Corruption("the chain of value deltas of key " + key +
                                " does not start with a whole value");
    }
    SLOTKV_RETURN_IF_ERROR(Raw(base.value, base.type_tag, &value));
    for (size_t i = 1; i < records.size(); ++i) {
      if (records[i].key != key) {
        return Status::Corruption("a value delta of key " + key + " is not where it was");
      }
      SLOTKV_RETURN_IF_ERROR(ApplyDelta(value, records[i].value, &next));
      value.swap(next);
    }
    Hold(group, *entry, value, {});
  }
  return Status::OK();
}

Result<std::optional<std::string>> Slot::Impl::CurrentValue(std::string_view key,
                                                            uint64_t hash) {
  const Group& group = groups[GroupOfHash(hash)];
  if (const MapEntry* entry = group.map.Find(key, hash)) {
    if (entry->tombstone) return std::optional<std::string>();
    SLOTKV_ASSIGN_OR_RETURN(std::string value, ValueOf(FromEntry(key, hash, *entry, group)));
    return std::optional<std::string>(std::move(value));
  }
  SLOTKV_ASSIGN_OR_RETURN(auto cell, buckets->Lookup(hash, key));
  if (!cell) return std::optional<std::string>();
  SLOTKV_ASSIGN_OR_RETURN(std::string value, ValueOf(FromCell(std::move(*cell))));
  return std::optional<std::string>(std::move(value));
}

}  // namespace slotkv::slot
