// The slot's budgets: the cache budget against the maps of unpersisted writes, the log limit
// (wal_max_bytes, its pacing and the database's WalPool) and the flushes a commit runs.
#include "slot/slot.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "slot/slot_test_util.h"

namespace slotkv::slot {
namespace {

// Groups flush only when the log's limit makes them: never by entries or bytes of their own.
void FlushOnlyAtLogLimit(Fixture& f) {
  f.options.flush_entries_per_page = 1 << 20;
  f.options.group_flush_bytes = 1 << 30;
}

TEST_CASE("a smaller cache budget evicts at once and reads stay correct") {
  Fixture f;
  for (int i = 0; i < 400; ++i) f.Put("key" + std::to_string(i), std::string(300, 'a' + i % 26));
  REQUIRE(f.slot->Flush().ok());
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 400; ++i) {
      Result<std::optional<std::string>> v = f.slot->Get("key" + std::to_string(i));
      REQUIRE(v.ok());
      REQUIRE(v->has_value());
    }
  }
  const auto cached = [&] {
    SlotStats s = f.slot->Stats();
    return s.value_cache_bytes + s.bucket_cache_bytes + s.chunk_cache_bytes;
  };
  CHECK(cached() > 64 * 1024);
  f.slot->SetCacheBudget(32 * 1024);
  CHECK(f.slot->cache_budget() == 32 * 1024);
  CHECK(cached() <= 32 * 1024);
  for (int i = 0; i < 400; ++i) {
    Result<std::optional<std::string>> v = f.slot->Get("key" + std::to_string(i));
    REQUIRE(v.ok());
    CHECK(**v == std::string(300, 'a' + i % 26));
  }
  CHECK(cached() <= 32 * 1024);
  SlotStats s = f.slot->Stats();
  CHECK(s.value_cache_bytes <= 32 * 1024 / 5 * 2);
  CHECK(s.chunk_cache_bytes <= 32 * 1024 / 5);
}

TEST_CASE("the caches give way to the maps of unpersisted writes, and take the room back") {
  Fixture f;
  FlushOnlyAtLogLimit(f);
  f.options.wal_max_bytes = 1 << 30;
  f.Reopen();
  for (int i = 0; i < 400; ++i) f.Put("old" + std::to_string(i), ValueFor(i, 0, 300));
  REQUIRE(f.slot->Flush().ok());
  constexpr size_t kBudget = 512 * 1024;
  f.slot->SetCacheBudget(kBudget);
  const auto cached = [&] {
    SlotStats s = f.slot->Stats();
    return s.value_cache_bytes + s.bucket_cache_bytes + s.chunk_cache_bytes;
  };
  const auto read_all = [&] {
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < 400; ++i) {
        REQUIRE(GetOrDie(*f.slot, "old" + std::to_string(i)) == ValueFor(i, 0, 300));
      }
    }
  };
  read_all();
  const size_t full = cached();
  CHECK(full > kBudget / 2);
  CHECK(f.slot->Stats().wal_map_bytes == 0);
  // Unpersisted writes: their maps take memory the caches give back.
  for (int i = 0; i < 3000; ++i) f.Put("new" + std::to_string(i), ValueFor(i, 1, 100));
  const size_t maps = f.slot->Stats().wal_map_bytes;
  CHECK(maps > kBudget / 4);
  read_all();
  CHECK(cached() + maps <= kBudget + kBudget / 32);
  CHECK(cached() < full);
  // Persisted, the maps are gone and the caches may fill again.
  REQUIRE(f.slot->Flush().ok());
  CHECK(f.slot->Stats().wal_map_bytes == 0);
  read_all();
  CHECK(cached() >= full * 9 / 10);
}

TEST_CASE("near wal_max_bytes the log's groups are flushed one per write at most, paced") {
  Fixture f;
  FlushOnlyAtLogLimit(f);
  f.Reopen();
  // 16 groups, 64 KiB files, 1 MiB limit: within the last file before it, one flush per
  // 64 KiB / 32 = 2 KiB appended (about 9 writes of these records). Every key is new, so
  // every group keeps a record in the oldest file until it is flushed.
  uint64_t flushed_writes = 0;
  uint64_t max_wal = 0;
  for (int i = 0; i < 12000; ++i) {
    const uint64_t before = f.slot->Stats().flushes;
    f.Put("k" + std::to_string(i), ValueFor(i, 0, 200));
    const SlotStats after = f.slot->Stats();
    REQUIRE(after.flushes - before <= 1);
    if (after.flushes > before) ++flushed_writes;
    max_wal = std::max(max_wal, after.wal_bytes);
  }
  CHECK(flushed_writes > 16);                   // oldest files went, more than once
  CHECK(max_wal <= f.options.wal_max_bytes);  // the pace stayed ahead of the limit
  for (int i = 0; i < 12000; i += 7) {
    REQUIRE(GetOrDie(*f.slot, "k" + std::to_string(i)) == ValueFor(i, 0, 200));
  }
}

TEST_CASE("keys rewritten over and over free the log's old files without a flush") {
  Fixture f;
  FlushOnlyAtLogLimit(f);
  f.Reopen();
  // 200 keys: a 64 KiB file holds about 300 records, so the keys' newest versions are all in
  // the last two files, and the oldest file of a 1 MiB log holds none.
  uint64_t max_wal = 0;
  for (int i = 0; i < 20000; ++i) {
    f.Put("k" + std::to_string(i % 200), ValueFor(i, 0, 200));
    max_wal = std::max(max_wal, f.slot->Stats().wal_bytes);
  }
  CHECK(f.slot->Stats().flushes == 0);
  CHECK(max_wal <= f.options.wal_max_bytes);  // 20000 writes logged 4.5 MiB
  for (int round = 0; round < 2; ++round) {  // the log alone holds them, also once replayed
    for (int i = 19800; i < 20000; ++i) {
      REQUIRE(GetOrDie(*f.slot, "k" + std::to_string(i % 200)) == ValueFor(i, 0, 200));
    }
    f.Reopen();
  }
}

TEST_CASE("rewritten held values keep the start of their chains: their groups flush") {
  Fixture f;
  FlushOnlyAtLogLimit(f);
  f.Reopen();
  // Hash values of 300 bytes are held from their second write on and logged as deltas, whose
  // chains start at a full record in an older file.
  auto value = [](int i, int version) {
    std::string v = ValueFor(i, 0, 300);
    v.replace(10, 40, ValueFor(i, version, 40));
    return v;
  };
  for (int version = 0; version < 300; ++version) {
    for (int i = 0; i < 100; ++i) {
      f.Put("h" + std::to_string(i), value(i, version), 0, ValueType::kHash);
    }
  }
  CHECK(f.slot->Stats().flushes > 0);
  CHECK(f.slot->Stats().wal_bytes <= f.options.wal_max_bytes);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 100; ++i) {
      REQUIRE(GetOrDie(*f.slot, "h" + std::to_string(i)) == value(i, 299));
    }
    f.Reopen();
  }
}

TEST_CASE("a commit runs two flushes at most; the groups left due flush at the next ones") {
  Fixture f;
  f.options.group_flush_bytes = 1;  // every written group is due
  f.Reopen();
  // One unit writing keys of every group (16 groups of 4 buckets).
  for (int i = 0; i < 200; ++i) {
    REQUIRE(f.slot->Put("k" + std::to_string(i), ValueFor(i, 0, 30), ValueType::kString, 0).ok());
  }
  uint64_t before = f.slot->Stats().flushes;
  REQUIRE(f.slot->Commit().ok());
  CHECK(f.slot->Stats().flushes - before == 2);
  int commits = 0;
  while (f.slot->Stats().wal_entries > 0 && commits < 100) {
    before = f.slot->Stats().flushes;
    REQUIRE(f.slot->Commit().ok());
    CHECK(f.slot->Stats().flushes - before <= 2);
    ++commits;
  }
  CHECK(f.slot->Stats().wal_entries == 0);
  CHECK(commits == 7);  // the 14 other groups, two per commit
  for (int i = 0; i < 200; ++i) {
    REQUIRE(GetOrDie(*f.slot, "k" + std::to_string(i)) == ValueFor(i, 0, 30));
  }
}

TEST_CASE("past its limit a log is flushed back by flush steps, not by the writers' commits") {
  Fixture f;
  FlushOnlyAtLogLimit(f);
  f.Reopen();
  // Writers that commit as a worker does (CommitThen) and never step: 16 groups, 64 KiB files,
  // 1 MiB limit. The log passes its limit, and the commits flush only a quarter past it, at
  // most two groups each (kBackstopFlushes).
  const uint64_t limit = f.options.wal_max_bytes;
  uint64_t max_wal = 0;
  int i = 0;
  auto write = [&] {
    REQUIRE(f.slot->Put("k" + std::to_string(i), ValueFor(i, 0, 200), ValueType::kString, 0)
                .ok());
    ++i;
    const SlotStats before = f.slot->Stats();
    f.slot->CommitThen([](const Status& st) { REQUIRE(st.ok()); });
    const SlotStats after = f.slot->Stats();
    REQUIRE(after.flushes - before.flushes <= 2);
    if (before.wal_bytes <= limit + limit / 4) REQUIRE(after.flushes == before.flushes);
    max_wal = std::max(max_wal, after.wal_bytes);
  };
  while (f.slot->Stats().wal_bytes <= limit) write();
  CHECK(f.slot->Stats().flushes == 0);
  CHECK(f.slot->flush_due());
  for (int k = 0; k < 8000; ++k) write();
  CHECK(f.slot->Stats().flushes > 0);          // the backstop
  CHECK(max_wal <= limit + limit / 4 + (64 << 10));  // within a file of it
  // The steps bring it back within the limit (the manual clock never ends a step's slice),
  // then have nothing left to do.
  int steps = 0;
  while (f.slot->flush_due() && steps < 100) {
    REQUIRE(f.slot->FlushStep().ok());
    ++steps;
  }
  CHECK_FALSE(f.slot->flush_due());
  CHECK(f.slot->Stats().wal_bytes <= limit);
  for (int k = 0; k < i; k += 13) {
    REQUIRE(GetOrDie(*f.slot, "k" + std::to_string(k)) == ValueFor(k, 0, 200));
  }
  f.Reopen();
  for (int k = 0; k < i; k += 13) {
    REQUIRE(GetOrDie(*f.slot, "k" + std::to_string(k)) == ValueFor(k, 0, 200));
  }
}

TEST_CASE("a slot borrows the log room its database's pool has left, up to kWalBorrow shares") {
  WalPool pool;  // outlives the fixture's slot
  pool.max_bytes = 8 << 20;  // eight shares of 1 MiB
  Fixture f;
  FlushOnlyAtLogLimit(f);
  f.options.wal_pool = &pool;
  f.Reopen();
  const uint64_t share = f.options.wal_max_bytes;
  // The largest log seen over writes [from, to).
  auto fill = [&](int from, int to) {
    uint64_t max_wal = 0;
    for (int i = from; i < to; ++i) {
      f.Put("k" + std::to_string(i % 2000), ValueFor(i, 0, 200));
      max_wal = std::max(max_wal, f.slot->Stats().wal_bytes);
    }
    return max_wal;
  };
  // Alone in its pool, the slot grows to its share plus the pool's room, kWalBorrow shares.
  const uint64_t alone = fill(0, 40000);
  CHECK(alone > 3 * share);
  CHECK(alone <= kWalBorrow * share);
  CHECK(pool.bytes.load() == f.slot->Stats().wal_bytes);
  // The other slots fill the pool: it flushes back to its share, and stays there.
  pool.bytes += pool.max_bytes;
  fill(40000, 50000);
  CHECK(f.slot->Stats().wal_bytes <= share);
  CHECK(fill(50000, 60000) <= share);
  for (int i = 58000; i < 60000; ++i) {
    REQUIRE(GetOrDie(*f.slot, "k" + std::to_string(i % 2000)) == ValueFor(i, 0, 200));
  }
  // Closed, it takes its bytes back.
  f.slot.reset();
  CHECK(pool.bytes.load() == pool.max_bytes);
}

}  // namespace
}  // namespace slotkv::slot
