// The slot's caches under its budget (SetCacheBudget: the value, bucket-page and chunk
// caches share what the group maps leave), what the budget's division reads (cache_use), and
// the chunk store's free space given back between requests (TrimFreeSpace).
#include "core/base/clock_cache.h"
#include "core/base/inline_key.h"
#include "slot/slot.h"
#include "slot/slot_impl.h"

namespace slotkv::slot {
namespace {

constexpr size_t kMaxCachedValue = 64 << 10;

}  // namespace

bool Slot::Impl::Cacheable(size_t value_bytes) { return value_bytes <= kMaxCachedValue; }

void Slot::Impl::CacheValue(std::string_view key, CachedValue value) {
  if (!Cacheable(value.value.size())) {
    value_cache.Erase(key);  // an older cached version must not outlive this write
    return;
  }
  const size_t charge = CacheCharge(InlineKey::HeapBytesFor(key.size()), HeapBytes(value.value));
  value_cache.Insert(key, std::move(value), charge);
}

size_t Slot::Impl::CacheCharge(size_t key_bytes, size_t value_bytes) {
  return kCacheEntryBytes + key_bytes + value_bytes;
}

bool Slot::Impl::CacheHasRoom(size_t key_bytes, size_t value_bytes) const {
  return value_cache.size_bytes() + CacheCharge(key_bytes, value_bytes) <= value_cache.capacity();
}

void Slot::Impl::SizeCaches() {
  const size_t floor = cache_budget / 8;
  const size_t maps = MapMemory();
  const size_t caches = cache_budget > maps + floor ? cache_budget - maps : floor;
  value_cache.SetCapacity(caches / 5 * 2);
  buckets->set_cache_bytes(caches / 5 * 2);
  chunks->set_cache_bytes(caches / 5);
  caches_sized_for = maps;
}

void Slot::Impl::MaybeSizeCaches() {
  if (cache_budget == 0) return;
  const size_t maps = MapMemory();
  const size_t moved = maps > caches_sized_for ? maps - caches_sized_for : caches_sized_for - maps;
  if (moved > cache_budget / 32) SizeCaches();
}

void Slot::SetCacheBudget(size_t bytes) {
  impl_->cache_budget = bytes;
  impl_->SizeCaches();
}

size_t Slot::cache_budget() const { return impl_->cache_budget; }

Slot::CacheUse Slot::cache_use() const {
  const Impl& s = *impl_;
  const keybucket::BucketStoreStats& b = s.buckets->stats();
  const chunk::ChunkStoreStats& c = s.chunks->stats();
  CacheUse use;
  use.lookups = s.value_cache.hits() + s.value_cache.misses() + b.cache_hits + b.pages_read +
                c.cache_hits + c.cache_misses;
  use.file_reads = b.pages_read + c.cache_misses;
  use.bytes = s.value_cache.size_bytes() + b.cache_bytes + c.cache_bytes + s.MapMemory();
  return use;
}

Status Slot::TrimFreeSpace(int64_t slice_us) {
  return impl_->chunks->TrimFree(std::chrono::microseconds(slice_us));
}

}  // namespace slotkv::slot
