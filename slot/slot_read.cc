// Reads: Get and MultiGet share one path that batches what is not in memory: the log records
// of keys in group maps, the bucket pages, and the chunk records are each fetched with one batch
// of reads.
#include <algorithm>
#include <cassert>

#include "chunk/value_ptr.h"
#include "core/base/hash.h"
#include "slot/slot_impl.h"

namespace slotkv::slot {

const std::string* Slot::GetCached(std::string_view key, KeyMeta* meta) {
  Impl& s = *impl_;
  const CachedValue* cached = s.value_cache.LookupIf(key, [&s](const CachedValue& c) {
    return !(c.type & kCompressedTag) && !s.Expired(c.expire_at_ms);
  });
  if (cached == nullptr) return nullptr;
  assert(s.NewestCached(key, *cached));
  *meta = {TypeOf(static_cast<ValueType>(cached->type)), cached->expire_at_ms, cached->seq};
  return &cached->value;
}

Result<std::optional<std::string>> Slot::Get(std::string_view key, KeyMeta* meta) {
  Impl& s = *impl_;
  s.get_keys.assign(1, key);
  SLOTKV_RETURN_IF_ERROR(MultiGet(s.get_keys, &s.get_values, meta ? &s.get_metas : nullptr));
  if (meta && s.get_values[0]) *meta = s.get_metas[0];
  return std::move(s.get_values[0]);
}

void Slot::Prefetch(std::string_view key, bool write, PrefetchStage stage) const {
  const Impl& s = *impl_;
  const bool index = stage == PrefetchStage::kIndex;
  if (index) {
    s.value_cache.Prefetch(key);
  } else {
    s.value_cache.PrefetchEntry(key);
  }
  if (!write) return;
  const uint64_t hash = KeyHash(key);
  const GroupMap& map = s.groups[s.GroupOfHash(hash)].map;
  if (index) {
    map.Prefetch(hash);
  } else {
    map.PrefetchEntry(hash);
  }
}

bool Slot::Impl::NewestCached(std::string_view key, const CachedValue& cached) const {
  const uint64_t hash = KeyHash(key);
  const MapEntry* entry = groups[GroupOfHash(hash)].map.Find(key, hash);
  return entry == nullptr || (!entry->tombstone && entry->seq == cached.seq);
}

Status Slot::MultiGet(const std::vector<std::string_view>& keys,
                      std::vector<std::optional<std::string>>* values,
                      std::vector<KeyMeta>* metas) {
  Impl& s = *impl_;
  const size_t n = keys.size();
  values->assign(n, std::nullopt);
  if (metas) metas->assign(n, KeyMeta());
  // Stored values may be compressed (the type tag's kCompressedTag bit): decoded here, the one
  // place every read path ends.
  Status decoded;
  auto found = [&](size_t i, std::string value, ValueType type, int64_t expire, uint64_t seq) {
    if (static_cast<uint8_t>(type) & kCompressedTag) {
      std::string raw;
      Status st = s.options.dictionaries
                      ? s.options.dictionaries->Decompress(value, &raw)
                      : Status::Corruption("compressed value in a slot without dictionaries");
      if (!st.ok()) {
        if (decoded.ok()) decoded = std::move(st);
        return;
      }
      value = std::move(raw);
    }
    (*values)[i] = std::move(value);
    if (metas) (*metas)[i] = {TypeOf(type), expire, seq};
  };

  // 1. Memory: the value cache, then the group maps (values still in the log, or held). The
  // cache holds a key's newest version or nothing: every write replaces or drops it
  // (Put, LogWrite), and flushes and reads cache only the newest. So a hit answers without the
  // group map, whose lookup is most of a GET's cost while its key is unflushed.
  std::vector<size_t> in_log;
  std::vector<uint64_t> log_hashes;
  std::vector<const MapEntry*> entries;
  std::vector<wal::LogPos> positions;
  std::vector<size_t> in_pages;
  std::vector<uint64_t> hashes;
  for (size_t i = 0; i < n; ++i) {
    if (const CachedValue* cached = s.value_cache.Lookup(keys[i])) {
      assert(s.NewestCached(keys[i], *cached));
      if (!s.Expired(cached->expire_at_ms)) {
        // The cached type: a value cached when written is kept uncompressed.
        found(i, cached->value, static_cast<ValueType>(cached->type), cached->expire_at_ms,
              cached->seq);
      }
      continue;
    }
    uint64_t hash = KeyHash(keys[i]);
    Group& group = s.groups[s.GroupOfHash(hash)];
    if (const MapEntry* found_entry = group.map.Find(keys[i], hash)) {
      const MapEntry& entry = *found_entry;
      if (entry.tombstone || s.Expired(entry.expire_at_ms)) continue;
      if (entry.held != 0) {
        HeldValue* held = &group.held[entry.held - 1];
        SLOTKV_RETURN_IF_ERROR(s.Materialize(group, *held, keys[i]));
        s.value_admission.SeenBefore(hash);  // a sighting: the flush caches the value
        found(i, held->value, TypeOf(static_cast<ValueType>(entry.type)), entry.expire_at_ms,
              entry.seq);
        continue;
      }
      in_log.push_back(i);
      log_hashes.push_back(hash);
      entries.push_back(&entry);
      positions.push_back(entry.pos);
      continue;
    }
    in_pages.push_back(i);
    hashes.push_back(hash);
  }

  // 2. The log, for keys written since their group's last flush.
  if (!positions.empty()) {
    std::vector<wal::Record> records;
    SLOTKV_RETURN_IF_ERROR(s.log->ReadMany(positions, &records));
    for (size_t j = 0; j < in_log.size(); ++j) {
      const MapEntry& entry = *entries[j];
      std::string key(keys[in_log[j]]);
      SLOTKV_RETURN_IF_ERROR(s.CheckRecord(key, entry, records[j]));
      if (s.Cacheable(records[j].value.size()) && s.value_admission.SeenBefore(log_hashes[j])) {
        s.CacheValue(key, CachedValue{entry.seq, entry.expire_at_ms, entry.type, records[j].value});
      }
      found(in_log[j], std::move(records[j].value), static_cast<ValueType>(entry.type),
            entry.expire_at_ms, entry.seq);
    }
  }

  // 3. Bucket pages, then the chunk records they point at.
  if (in_pages.empty()) return decoded;
  SLOTKV_RETURN_IF_ERROR(s.buckets->PrefetchKeys(hashes));
  std::vector<keybucket::Cell> cells(in_pages.size());
  std::vector<bool> live(in_pages.size(), false);
  std::vector<size_t> in_chunks;
  std::vector<chunk::ValuePtr> ptrs;
  std::vector<std::string_view> chunk_keys;
  for (size_t j = 0; j < in_pages.size(); ++j) {
    size_t i = in_pages[j];
    SLOTKV_ASSIGN_OR_RETURN(auto cell, s.buckets->Lookup(hashes[j], keys[i]));
    if (!cell || s.Expired(cell->expire_at_ms)) continue;
    cells[j] = std::move(*cell);
    live[j] = true;
    if (!cells[j].is_pointer) continue;
    chunk::ValuePtr ptr;
    if (!chunk::DecodeValuePtr(cells[j].payload, &ptr)) {
      return Status::Corruption("bad value pointer in the cell of key " + cells[j].key);
    }
    in_chunks.push_back(j);
    ptrs.push_back(ptr);
    chunk_keys.push_back(keys[i]);
  }
  std::vector<std::string> chunk_values;
  SLOTKV_RETURN_IF_ERROR(s.chunks->ReadMany(ptrs, chunk_keys, &chunk_values));
  for (size_t k = 0; k < in_chunks.size(); ++k) {
    cells[in_chunks[k]].payload = std::move(chunk_values[k]);
  }
  for (size_t j = 0; j < in_pages.size(); ++j) {
    if (!live[j]) continue;
    keybucket::Cell& cell = cells[j];
    // No copy of a value the cache would not keep.
    if (s.Cacheable(cell.payload.size()) && s.value_admission.SeenBefore(hashes[j])) {
      s.CacheValue(cell.key, CachedValue{cell.seq, cell.expire_at_ms, cell.type_tag, cell.payload});
    }
    found(in_pages[j], std::move(cell.payload), static_cast<ValueType>(cell.type_tag),
          cell.expire_at_ms, cell.seq);
  }
  return decoded;
}

Result<std::optional<KeyMeta>> Slot::GetMeta(std::string_view key) {
  Impl& s = *impl_;
  uint64_t hash = KeyHash(key);
  Group& group = s.groups[s.GroupOfHash(hash)];
  if (const MapEntry* found = group.map.Find(key, hash)) {
    const MapEntry& entry = *found;
    if (entry.tombstone || s.Expired(entry.expire_at_ms)) return std::optional<KeyMeta>();
    return std::optional<KeyMeta>(
        KeyMeta{TypeOf(static_cast<ValueType>(entry.type)), entry.expire_at_ms, entry.seq});
  }
  SLOTKV_ASSIGN_OR_RETURN(auto cell, s.buckets->Lookup(hash, key));
  if (!cell || s.Expired(cell->expire_at_ms)) return std::optional<KeyMeta>();
  return std::optional<KeyMeta>(
      KeyMeta{TypeOf(static_cast<ValueType>(cell->type_tag)), cell->expire_at_ms, cell->seq});
}

}  // namespace slotkv::slot
