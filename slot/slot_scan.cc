// Scans and active expiry walk the slot bucket by bucket. The bucket count of a slot never
// changes (a full bucket splits into more pages, not into other buckets), so a cursor that
// names the next bucket stays valid across any writes: a key that exists for the whole scan
// sits in one bucket the whole time and is returned when that bucket is visited.
#include <algorithm>
#include <cstdio>
#include <utility>

#include "chunk/value_ptr.h"
#include "slot/slot_impl.h"

namespace slotkv::slot {
namespace {

// Buckets an expiry step may pass, per bucket it may look at: bounds a step's work when few
// buckets hold an expiry time.
constexpr size_t kExpiryPassPerVisit = 256;

}  // namespace

LiveKey FromCell(keybucket::Cell&& cell) {
  return {.key = std::move(cell.key),
          .hash = cell.hash,
          .type_tag = cell.type_tag,
          .expire_at_ms = cell.expire_at_ms,
          .seq = cell.seq,
          .is_pointer = cell.is_pointer,
          .payload = std::move(cell.payload)};
}

LiveKey FromEntry(std::string_view key, uint64_t hash, const MapEntry& entry,
                  const Group& group) {
  const HeldValue* h = group.HeldOf(entry);
  const std::string* held = h != nullptr ? &h->value : nullptr;
  return {.key = std::string(key),
          .hash = hash,
          .type_tag = held ? PlainTag(entry.type) : entry.type,
          .expire_at_ms = entry.expire_at_ms,
          .seq = entry.seq,
          .held = held,
          .in_log = held == nullptr,
          .pos = entry.pos};
}

Status Slot::Impl::BucketKeys(uint32_t b, std::vector<LiveKey>* live) {
  std::vector<keybucket::Cell> cells;
  if (buckets->bucket_cell_count(b) > 0) SLOTKV_RETURN_IF_ERROR(buckets->ReadBucket(b, &cells));
  const Group& group = groups[GroupOfBucket(b)];
  for (keybucket::Cell& cell : cells) {
    if (group.map.Find(cell.key, cell.hash)) continue;  // the map holds a newer write
    if (Expired(cell.expire_at_ms)) continue;
    live->push_back(FromCell(std::move(cell)));
  }
  if (group.map.empty()) return Status::OK();
  group.map.ForEach([&](std::string_view key, uint64_t hash, const MapEntry& entry) {
    if (entry.tombstone || buckets->BucketOf(hash) != b) return;
    if (Expired(entry.expire_at_ms)) return;
    live->push_back(FromEntry(key, hash, entry, group));
  });
  return Status::OK();
}

Result<ScanResult> Slot::Scan(uint64_t cursor, size_t count) {
  Impl& s = *impl_;
  ScanResult result;
  const uint32_t buckets = s.buckets->bucket_count();
  uint64_t b = cursor;
  std::vector<LiveKey> live;
  while (b < buckets && result.items.size() < std::max<size_t>(count, 1)) {
    if (s.buckets->bucket_cell_count(static_cast<uint32_t>(b)) == 0 &&
        s.groups[s.GroupOfBucket(static_cast<uint32_t>(b))].map.empty()) {
      ++b;  // nothing stored and nothing pending: no page to read
      continue;
    }
    live.clear();
    SLOTKV_RETURN_IF_ERROR(s.BucketKeys(static_cast<uint32_t>(b), &live));
    for (LiveKey& k : live) {
      result.items.push_back({std::move(k.key), TypeOf(static_cast<ValueType>(k.type_tag))});
    }
    ++b;
  }
  result.next_cursor = b < buckets ? b : 0;
  return result;
}

Result<StoredScan> Slot::ScanStored(uint64_t cursor, size_t count) {
  Impl& s = *impl_;
  // A held page read here must be the version the log has: the stream's next record of it
  // is a delta against that one.
  SLOTKV_RETURN_IF_ERROR(s.Fail(s.LogPending()));
  StoredScan result;
  const uint32_t buckets = s.buckets->bucket_count();
  const size_t want = std::max<size_t>(count, 1);
  // The buckets this call visits: up to about count cells, fetched in one batch (at most
  // count buckets: keys still in the group maps are not counted here).
  const auto first = static_cast<uint32_t>(cursor);
  uint32_t end = first;
  for (size_t cells = 0; end < buckets && end - first < want && cells < want; ++end) {
    cells += s.buckets->bucket_cell_count(end);
  }
  SLOTKV_RETURN_IF_ERROR(s.buckets->PrefetchBuckets(first, end));
  std::vector<size_t> in_chunks;
  std::vector<chunk::ValuePtr> ptrs;
  std::vector<size_t> in_log;
  std::vector<wal::LogPos> positions;
  std::vector<LiveKey> live;
  uint64_t b = cursor;
  while (b < buckets && result.items.size() < want) {
    live.clear();
    SLOTKV_RETURN_IF_ERROR(s.BucketKeys(static_cast<uint32_t>(b++), &live));
    for (LiveKey& k : live) {
      if (k.held != nullptr) {
        k.payload = *k.held;
      } else if (k.in_log) {
        in_log.push_back(result.items.size());
        positions.push_back(k.pos);
      } else if (k.is_pointer) {
        chunk::ValuePtr ptr;
        if (!chunk::DecodeValuePtr(k.payload, &ptr)) {
          return Status::Corruption("bad value pointer in the cell of key " + k.key);
        }
        in_chunks.push_back(result.items.size());
        ptrs.push_back(ptr);
        k.payload.clear();
      }
      result.items.push_back(
          {std::move(k.key), std::move(k.payload), k.type_tag, k.expire_at_ms, k.seq});
    }
  }
  result.next_cursor = b < buckets ? b : 0;

  std::vector<std::string_view> keys;
  for (size_t i : in_chunks) keys.push_back(result.items[i].key);
  std::vector<std::string> values;
  SLOTKV_RETURN_IF_ERROR(s.chunks->ReadMany(ptrs, keys, &values));
  for (size_t k = 0; k < in_chunks.size(); ++k) {
    result.items[in_chunks[k]].value = std::move(values[k]);
  }
  if (positions.empty()) return result;
  std::vector<wal::Record> records;
  SLOTKV_RETURN_IF_ERROR(s.log->ReadMany(positions, &records));
  for (size_t k = 0; k < in_log.size(); ++k) {
    StoredItem& item = result.items[in_log[k]];
    SLOTKV_RETURN_IF_ERROR(
        s.CheckRecord(item.key, MapEntry{.pos = positions[k], .seq = item.seq}, records[k]));
    item.value = std::move(records[k].value);
  }
  return result;
}

Status Slot::Impl::ExpiredKeys(uint32_t b, std::vector<LiveKey>* doomed) {
  const Group& group = groups[GroupOfBucket(b)];
  if (buckets->bucket_has_ttl(b)) {
    std::vector<keybucket::Cell> cells;
    SLOTKV_RETURN_IF_ERROR(buckets->ReadBucket(b, &cells));
    bool any_ttl = false;
    for (keybucket::Cell& cell : cells) {
      if (cell.expire_at_ms == 0) continue;
      any_ttl = true;
      if (!Expired(cell.expire_at_ms) || group.map.Find(cell.key, cell.hash)) continue;
      doomed->push_back(FromCell(std::move(cell)));
    }
    if (!any_ttl) buckets->ClearTtl(b);
  }
  if (MapTurn(b)) {
    group.map.ForEach([&](std::string_view key, uint64_t hash, const MapEntry& entry) {
      if (entry.tombstone || !Expired(entry.expire_at_ms)) return;
      doomed->push_back(FromEntry(key, hash, entry, group));
    });
  }
  return Status::OK();
}

Result<std::string> Slot::Impl::ValueOf(const LiveKey& k) {
  std::string value;
  if (k.held != nullptr) {
    value = *k.held;
  } else if (k.in_log) {
    std::vector<wal::Record> records;
    SLOTKV_RETURN_IF_ERROR(log->ReadMany({k.pos}, &records));
    SLOTKV_RETURN_IF_ERROR(CheckRecord(k.key, MapEntry{.pos = k.pos, .seq = k.seq}, records[0]));
    value = std::move(records[0].value);
  } else if (k.is_pointer) {
    chunk::ValuePtr ptr;
    if (!chunk::DecodeValuePtr(k.payload, &ptr)) {
      return Status::Corruption("bad value pointer in the cell of key " + k.key);
    }
    std::vector<std::string> values;
    SLOTKV_RETURN_IF_ERROR(chunks->ReadMany({ptr}, {k.key}, &values));
    value = std::move(values[0]);
  } else {
    value = k.payload;
  }
  if ((k.type_tag & kCompressedTag) == 0) return value;
  std::string raw;
  SLOTKV_RETURN_IF_ERROR(Raw(value, k.type_tag, &raw));
  return raw;
}

Status Slot::Impl::Raw(std::string_view stored, uint8_t tag, std::string* out) const {
  if ((tag & kCompressedTag) == 0) {
    out->assign(stored);
    return Status::OK();
  }
  return options.dictionaries
             ? options.dictionaries->Decompress(stored, out)
             : Status::Corruption("compressed value in a slot without dictionaries");
}

void Slot::Impl::NoteReplaced(const LiveKey& old, bool next_put, uint8_t next_type,
                              std::string_view next_value) {
  auto log_failure = [&](const Status& st) {
    std::fprintf(stderr, "slot %s: the replaced value of key %s: %s\n", options.dir.c_str(),
                 old.key.c_str(), st.ToString().c_str());
  };
  std::string old_value;
  const CachedValue* cached = old.in_log ? value_cache.Peek(old.key) : nullptr;
  if (cached != nullptr && cached->seq == old.seq) {
    // Cached as written, or as read (then compressed when stored so).
    Status st = Raw(cached->value, cached->type, &old_value);
    if (!st.ok()) return log_failure(st);
  } else {
    Result<std::string> read = ValueOf(old);
    if (!read.ok()) return log_failure(read.status());
    old_value = std::move(*read);
  }
  const uint64_t id = options.root_id(old_value);
  if (id == 0) return;
  if (next_put && IsCollection(TypeOf(static_cast<ValueType>(next_type)))) {
    std::string next;
    Status st = Raw(next_value, next_type, &next);
    if (!st.ok()) return log_failure(st);
    if (options.root_id(next) == id) return;  // the same collection, carried on
  }
  discarded_roots.push_back(std::move(old_value));
}

std::vector<std::string> Slot::TakeDiscardedRoots() {
  return std::exchange(impl_->discarded_roots, {});
}

Result<size_t> Slot::ActiveExpireStep(size_t max_buckets, const OnExpired& on_expired) {
  Impl& s = *impl_;
  if (!s.Refusal().ok()) return 0;  // a failed slot deletes nothing until it recovers
  // Nothing here has an expiry time: nothing to look at (the common case costs nothing).
  if (s.buckets->ttl_bucket_count() == 0 && s.groups_with_ttl == 0) return 0;
  const uint32_t buckets = s.buckets->bucket_count();
  const size_t max_passed = std::min<size_t>(buckets, max_buckets * kExpiryPassPerVisit);
  size_t visited = 0;
  size_t expired = 0;
  std::vector<LiveKey> doomed;
  for (size_t passed = 0; passed < max_passed && visited < max_buckets; ++passed) {
    const uint32_t b = s.expire_cursor;
    s.expire_cursor = (b + 1) % buckets;
    if (!s.buckets->bucket_has_ttl(b) && !s.MapTurn(b)) continue;  // free to pass
    ++visited;
    doomed.clear();
    SLOTKV_RETURN_IF_ERROR(s.ExpiredKeys(b, &doomed));
    for (const LiveKey& k : doomed) {
      // ExpiredKeys already knows the key exists: log the tombstone without looking it up.
      SLOTKV_RETURN_IF_ERROR(
          s.LogWrite(wal::RecordKind::kDelete, k.key, k.hash, {}, ValueType::kString, 0));
      ++expired;
      ++s.counters.expired_keys;
      if (on_expired) on_expired(k.key, TypeOf(static_cast<ValueType>(k.type_tag)));
    }
  }
  return expired;
}

}  // namespace slotkv::slot
