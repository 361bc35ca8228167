// Helpers shared by the slot tests: a slot over MemFs with small sizes, so flushes, splits and
// compaction happen within a few thousand writes.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/base/clock.h"
#include "core/base/io_ring.h"
#include "core/base/mem_fs.h"
#include "slot/slot.h"

namespace slotkv::slot {

// An io_uring made current on this thread, as a worker's is; drained and unset at the end.
struct ThreadRing {
  std::unique_ptr<IoRing> ring;
  ThreadRing() {
    std::string why;
    ring = IoRing::Create(16, &why);
    REQUIRE_MESSAGE(ring != nullptr, why);
    IoRing::SetCurrent(ring.get());
  }
  ~ThreadRing() {
    ring->DrainForTest();
    IoRing::SetCurrent(nullptr);
  }
  IoRing* operator->() const { return ring.get(); }
};

inline SlotOptions SmallOptions(Fs* fs, Clock* clock) {
  SlotOptions options;
  options.fs = fs;
  options.dir = "/data/slot-0000";
  options.clock = clock;
  options.fsync = wal::FsyncPolicy::kAlways;
  options.key_estimate = 64 * 64;  // 64 buckets
  options.buckets_per_group = 4;
  options.flush_entries_per_page = 4;
  options.group_flush_bytes = 64 << 10;
  options.inline_value_bytes = 16;
  options.segment_bytes = 512;
  options.big_value_bytes = 64 << 10;
  options.wal_file_bytes = 64 << 10;
  options.wal_max_bytes = 1 << 20;
  options.value_cache_bytes = 1 << 20;
  options.page_cache_bytes = 1 << 20;
  options.chunk_cache_bytes = 1 << 20;
  return options;
}

// A string Put / a Delete of key as a master's stream carries it (Slot::Apply).
inline wal::Record PutRecord(std::string key, std::string value, uint64_t seq) {
  wal::Record r;
  r.kind = wal::RecordKind::kPut;
  r.seq = seq;
  r.type_tag = static_cast<uint8_t>(ValueType::kString);
  r.key = std::move(key);
  r.value = std::move(value);
  return r;
}
inline wal::Record DeleteRecord(std::string key, uint64_t seq) {
  wal::Record r;
  r.kind = wal::RecordKind::kDelete;
  r.seq = seq;
  r.key = std::move(key);
  return r;
}

inline std::unique_ptr<Slot> OpenOrDie(const SlotOptions& options) {
  auto slot = Slot::Open(options);
  REQUIRE_MESSAGE(slot.ok(), slot.status().ToString());
  return std::move(slot).value();
}

inline std::string ValueFor(int i, int version, size_t size) {
  std::string v = "v" + std::to_string(i) + "." + std::to_string(version) + ":";
  while (v.size() < size) v += static_cast<char>('a' + (i + v.size()) % 26);
  v.resize(size);
  return v;
}

// The value of key, "<absent>" when missing; fails the test on an error.
inline std::string GetOrDie(Slot& slot, const std::string& key) {
  auto got = slot.Get(key);
  REQUIRE_MESSAGE(got.ok(), got.status().ToString());
  return got->has_value() ? **got : "<absent>";
}

// A slot of SmallOptions over its own MemFs and ManualClock; tests change options, then
// Reopen.
struct Fixture {
  explicit Fixture(uint32_t segment_bytes = 512) {
    options.segment_bytes = segment_bytes;
    slot = OpenOrDie(options);
  }
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  std::unique_ptr<Slot> slot;

  void Put(const std::string& key, const std::string& value, int64_t expire = 0,
           ValueType type = ValueType::kString) {
    REQUIRE(slot->Put(key, value, type, expire).ok());
    REQUIRE(slot->Commit().ok());
  }
  void Reopen() {
    slot.reset();
    slot = OpenOrDie(options);
  }
  // Bucket pages looked at so far: from the cache or read.
  uint64_t PageLooks() const {
    SlotStats st = slot->Stats();
    return st.bucket_cache_hits + st.bucket_cache_misses;
  }
};

}  // namespace slotkv::slot
