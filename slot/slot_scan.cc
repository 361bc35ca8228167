// Scans and active expiry walk the slot bucket by bucket. The bucket count of a slot never
// changes (a full bucket splits into more pages, not into other buckets), so a cursor that
// names the next bucket stays valid across any writes: a key that exists for the whole scan
// sits in one bucket the whole time and is returned when that bucket is visited.
#include <algorithm>

#include "slot/slot_impl.h"

namespace slotkv::slot {

Status Slot::Impl::BucketKeys(uint32_t b, bool with_expired, std::vector<LiveKey>* live) {
  std::vector<keybucket::Cell> cells;
  SLOTKV_RETURN_IF_ERROR(buckets->ReadBucket(b, &cells));
  const Group& group = groups[GroupOfBucket(b)];
  for (keybucket::Cell& cell : cells) {
    if (group.map.Find(cell.key, cell.hash)) continue;  // the map holds a newer write
    if (!with_expired && Expired(cell.expire_at_ms)) continue;
    live->push_back({std::move(cell.key), cell.hash,
                     TypeOf(static_cast<ValueType>(cell.type_tag)), cell.expire_at_ms});
  }
  group.map.ForEach([&](std::string_view key, uint64_t hash, const MapEntry& entry) {
    if (entry.tombstone || buckets->BucketOf(hash) != b) return;
    if (!with_expired && Expired(entry.expire_at_ms)) return;
    live->push_back(
        {std::string(key), hash, TypeOf(static_cast<ValueType>(entry.type)), entry.expire_at_ms});
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
    SLOTKV_RETURN_IF_ERROR(s.BucketKeys(static_cast<uint32_t>(b), false, &live));
    for (LiveKey& k : live) result.items.push_back({std::move(k.key), k.type});
    ++b;
  }
  result.next_cursor = b < buckets ? b : 0;
  return result;
}

Result<size_t> Slot::ActiveExpireStep(size_t max_buckets) {
  Impl& s = *impl_;
  const uint32_t buckets = s.buckets->bucket_count();
  size_t expired = 0;
  std::vector<LiveKey> live;
  size_t visited = 0;
  for (uint32_t seen = 0; seen < buckets && visited < max_buckets; ++seen) {
    if (s.buckets_without_ttl >= buckets) break;  // a whole round found no TTL, none set since
    uint32_t b = s.expire_cursor;
    s.expire_cursor = (b + 1) % buckets;
    ++s.buckets_without_ttl;
    // A bucket with no cell and no pending write holds nothing to expire: free to pass.
    if (s.buckets->bucket_cell_count(b) == 0 && s.groups[s.GroupOfBucket(b)].map.empty()) {
      continue;
    }
    ++visited;
    live.clear();
    SLOTKV_RETURN_IF_ERROR(s.BucketKeys(b, true, &live));
    for (const LiveKey& k : live) {
      if (k.expire_at_ms != 0) s.buckets_without_ttl = 0;
      if (!s.Expired(k.expire_at_ms)) continue;
      // BucketKeys already knows the key exists: log the tombstone without looking it up again.
      SLOTKV_RETURN_IF_ERROR(
          s.LogWrite(wal::RecordKind::kDelete, k.key, k.hash, {}, ValueType::kString, 0));
      ++expired;
      ++s.counters.expired_keys;
    }
  }
  return expired;
}

}  // namespace slotkv::slot
