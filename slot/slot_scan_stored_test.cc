// Slot::ScanStored, the full sync's read: every live key once with its stored value and
// metadata, from the log, bucket cells, chunk segments and big-value files alike.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

#include "slot/slot_test_util.h"

namespace slotkv::slot {
namespace {

// Every item of a whole ScanStored walk in steps of count, by key (a key seen twice must
// carry the same seq both times).
std::map<std::string, StoredItem> ScanAll(Slot& slot, size_t count) {
  std::map<std::string, StoredItem> items;
  uint64_t cursor = 0;
  do {
    Result<StoredScan> scan = slot.ScanStored(cursor, count);
    REQUIRE(scan.ok());
    for (StoredItem& item : scan->items) {
      auto [it, fresh] = items.try_emplace(item.key, item);
      if (!fresh) CHECK(it->second.seq == item.seq);
    }
    cursor = scan->next_cursor;
  } while (cursor != 0);
  return items;
}

TEST_CASE("scan stored: every live value from the log, cells, segments and big files") {
  MemFs fs;
  ManualClock clock;
  SlotOptions options = SmallOptions(&fs, &clock);
  auto slot = OpenOrDie(options);
  // Inline (< 16 bytes), segment and big values (>= 64 KiB); half flushed, half in the log.
  std::map<std::string, std::string> want;
  const auto put = [&](const std::string& key, const std::string& value, ValueType type,
                       int64_t expire = 0) {
    REQUIRE(slot->Put(key, value, type, expire).ok());
    want[key] = value;
  };
  for (int i = 0; i < 400; ++i) {
    const size_t size = i % 50 == 0 ? (70 << 10) : i % 3 == 0 ? 8 : 40 + i % 300;
    put("k" + std::to_string(i), ValueFor(i, 0, size), i % 7 ? ValueType::kString
                                                             : ValueType::kHash);
    if (i == 199) {
      REQUIRE(slot->Commit().ok());
      REQUIRE(slot->Flush().ok());
    }
  }
  put("k5", ValueFor(5, 1, 900), ValueType::kString);  // a newer version in the log
  put("ttl", "soon", ValueType::kString, clock.NowMs() + 10);
  put("later", "kept", ValueType::kString, clock.NowMs() + 100000);
  REQUIRE(*slot->Delete("k7"));
  want.erase("k7");
  REQUIRE(slot->Commit().ok());
  clock.AdvanceMs(10);
  want.erase("ttl");

  const uint64_t cached = slot->Stats().value_cache_bytes;  // writes cached while room
  for (int round = 0; round < 2; ++round) {
    for (size_t count : {1, 13, 1000}) {
      std::map<std::string, StoredItem> items = ScanAll(*slot, count);
      REQUIRE(items.size() == want.size());
      for (const auto& [key, value] : want) {
        const StoredItem& item = items[key];
        CHECK_MESSAGE(item.value == value, key);
        std::optional<KeyMeta> meta = slot->GetMeta(key).value();
        REQUIRE(meta.has_value());
        CHECK(item.seq == meta->seq);
        CHECK(static_cast<ValueType>(item.type_tag) == meta->type);
        CHECK(item.expire_at_ms == meta->expire_at_ms);
      }
    }
    REQUIRE(slot->Flush().ok());  // then all from buckets, segments and big files
  }
  // A full sync's reads cache nothing (the flushes drop the expired key's value).
  CHECK(slot->Stats().value_cache_bytes <= cached);
}

TEST_CASE("scan stored: a key present for the whole scan is returned despite writes") {
  MemFs fs;
  ManualClock clock;
  auto slot = OpenOrDie(SmallOptions(&fs, &clock));
  std::set<std::string> stable;
  for (int i = 0; i < 500; ++i) {
    REQUIRE(slot->Put("s" + std::to_string(i), "v", ValueType::kString).ok());
    stable.insert("s" + std::to_string(i));
  }
  REQUIRE(slot->Commit().ok());
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int step = 0;
  do {
    Result<StoredScan> scan = slot->ScanStored(cursor, 10);
    REQUIRE(scan.ok());
    for (const StoredItem& item : scan->items) seen.insert(item.key);
    cursor = scan->next_cursor;
    for (int j = 0; j < 40; ++j) {
      REQUIRE(slot->Put("n" + std::to_string(step * 40 + j), std::string(30, 'n'),
                        ValueType::kString).ok());
    }
    REQUIRE(slot->Commit().ok());
    if (step % 5 == 0) REQUIRE(slot->Flush().ok());
    ++step;
  } while (cursor != 0);
  for (const std::string& key : stable) CHECK_MESSAGE(seen.count(key), key);
}

}  // namespace
}  // namespace slotkv::slot
