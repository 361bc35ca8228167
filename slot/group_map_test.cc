// Tests of GroupMap: lookups, overwrites, hash collisions, odd keys, iteration, Clear, memory
// accounting, and a randomized comparison against std::unordered_map.
#include "slot/group_map.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace slotkv::slot {
namespace {

// Any function of the key will do for the map; std::hash keeps this test free of core/base.
uint64_t H(std::string_view key) { return std::hash<std::string_view>()(key); }

std::string KeyOf(int i) { return "key:" + std::to_string(i); }

// An entry whose fields all derive from n, so a mix-up between keys shows.
MapEntry EntryFor(uint64_t n) {
  MapEntry e;
  e.pos.file_no = static_cast<uint32_t>(n * 3);
  e.pos.offset = n * 7;
  e.pos.size = static_cast<uint32_t>(n + 1);
  e.seq = n;
  e.expire_at_ms = static_cast<int64_t>(n * 11);  // wraps: n may be any uint64_t
  e.type = static_cast<uint8_t>(n % 5);
  e.tombstone = n % 2 == 1;
  e.base = static_cast<BaseState>(n % 3);
  return e;
}

bool Same(const MapEntry& a, const MapEntry& b) {
  return a.pos.file_no == b.pos.file_no && a.pos.offset == b.pos.offset &&
         a.pos.size == b.pos.size && a.seq == b.seq && a.expire_at_ms == b.expire_at_ms &&
         a.type == b.type && a.tombstone == b.tombstone && a.base == b.base;
}

void Put(GroupMap& map, std::string_view key, uint64_t hash, uint64_t n) {
  *map.FindOrInsert(key, hash).first = EntryFor(n);
}

TEST_CASE("an empty map finds nothing and holds no memory") {
  GroupMap map;
  CHECK(map.empty());
  CHECK(map.size() == 0);
  CHECK(map.Find("a", H("a")) == nullptr);
  CHECK(map.Find("", H("")) == nullptr);
  int visits = 0;
  map.ForEach([&](std::string_view, uint64_t, MapEntry&) { ++visits; });
  CHECK(visits == 0);
  GroupMap fresh;
  CHECK(fresh.memory_bytes() == map.memory_bytes());  // lookups allocated nothing
}

TEST_CASE("100k inserted keys are all found with their own entries") {
  GroupMap map;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    std::string key = KeyOf(i);
    auto [entry, inserted] = map.FindOrInsert(key, H(key));
    REQUIRE(inserted);
    CHECK(Same(*entry, MapEntry()));  // a new entry starts default-constructed
    *entry = EntryFor(i);
  }
  CHECK(map.size() == n);
  const GroupMap& const_map = map;
  for (int i = 0; i < n; ++i) {
    std::string key = KeyOf(i);
    const MapEntry* entry = const_map.Find(key, H(key));
    REQUIRE(entry != nullptr);
    CHECK(Same(*entry, EntryFor(i)));
  }
  for (int i = n; i < n + 1000; ++i) CHECK(map.Find(KeyOf(i), H(KeyOf(i))) == nullptr);
}

TEST_CASE("FindOrInsert on an existing key returns inserted=false and keeps its entry") {
  GroupMap map;
  auto [first, inserted] = map.FindOrInsert("k", H("k"));
  REQUIRE(inserted);
  *first = EntryFor(42);
  size_t memory = map.memory_bytes();
  auto [again, inserted_again] = map.FindOrInsert("k", H("k"));
  CHECK_FALSE(inserted_again);
  CHECK(again == first);
  CHECK(Same(*again, EntryFor(42)));
  CHECK(map.size() == 1);
  CHECK(map.memory_bytes() == memory);  // an overwrite takes no arena bytes
  CHECK(map.Find("k", H("k")) == first);
}

TEST_CASE("overwriting keys at the growth threshold does not grow the table") {
  GroupMap map;
  for (int i = 0; i < 12; ++i) Put(map, KeyOf(i), H(KeyOf(i)), i);  // 12 of 16 slots: 3/4 full
  size_t memory = map.memory_bytes();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 12; ++i) CHECK_FALSE(map.FindOrInsert(KeyOf(i), H(KeyOf(i))).second);
  }
  CHECK(map.memory_bytes() == memory);
  Put(map, KeyOf(12), H(KeyOf(12)), 12);  // the 13th key does
  CHECK(map.memory_bytes() > memory);
}

TEST_CASE("different keys with the same 64-bit hash are kept apart") {
  GroupMap map;
  const uint64_t hash = 0x1234567890ABCDEFull;
  // "ab" is a prefix of "abc", and "" has the same (empty) prefix as everything.
  std::vector<std::string> keys = {"ab", "abc", "ba", "", "xyz", std::string(100, 'q')};
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [entry, inserted] = map.FindOrInsert(keys[i], hash);
    CHECK(inserted);
    *entry = EntryFor(i);
  }
  CHECK(map.size() == keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const MapEntry* entry = map.Find(keys[i], hash);
    REQUIRE(entry != nullptr);
    CHECK(Same(*entry, EntryFor(i)));
  }
  CHECK(map.Find("a", hash) == nullptr);
  CHECK(map.Find("abcd", hash) == nullptr);
  CHECK(map.Find("ab", hash + 1) == nullptr);  // the same key under another hash is not found
}

TEST_CASE("the empty key is a key like any other") {
  GroupMap map;
  CHECK(map.FindOrInsert("", H("")).second);
  *map.Find("", H("")) = EntryFor(7);
  Put(map, "x", H("x"), 8);
  CHECK_FALSE(map.FindOrInsert("", H("")).second);
  CHECK(Same(*map.Find("", H("")), EntryFor(7)));
  CHECK(map.size() == 2);
  int empty_keys = 0;
  map.ForEach([&](std::string_view key, uint64_t, const MapEntry&) { empty_keys += key.empty(); });
  CHECK(empty_keys == 1);
}

TEST_CASE("long keys (3000 bytes and 64 KiB) are stored and compared whole") {
  GroupMap map;
  std::string long_key(3000, 'a');
  std::string huge_key(64 * 1024, 'b');
  std::string near_miss = long_key;
  near_miss.back() = 'z';    // differs only in its last byte
  const uint64_t hash = 99;  // one hash for all: only the bytes tell them apart
  Put(map, long_key, hash, 1);
  Put(map, huge_key, hash, 2);
  CHECK(map.Find(near_miss, hash) == nullptr);
  Put(map, near_miss, hash, 3);
  CHECK(Same(*map.Find(long_key, hash), EntryFor(1)));
  CHECK(Same(*map.Find(huge_key, hash), EntryFor(2)));
  CHECK(Same(*map.Find(near_miss, hash), EntryFor(3)));
  CHECK(map.memory_bytes() >= long_key.size() * 2 + huge_key.size());
}

TEST_CASE("keys kept in the record and keys kept in the arena mix") {
  GroupMap map;
  // 19-21 bytes straddle what a record holds itself; the arena keeps only the longer ones.
  std::vector<std::string> keys;
  for (size_t len : {1, 19, 20, 21, 40, 20, 21}) {
    keys.push_back(std::string(len, static_cast<char>('a' + keys.size())));
  }
  const uint64_t hash = 7;  // one hash for all: the bytes and lengths tell them apart
  for (size_t i = 0; i < keys.size(); ++i) Put(map, keys[i], hash, static_cast<int>(i));
  for (size_t i = 0; i < keys.size(); ++i) {
    const MapEntry* entry = map.Find(keys[i], hash);
    REQUIRE(entry != nullptr);
    CHECK(Same(*entry, EntryFor(static_cast<int>(i))));
    std::string prefix = keys[i].substr(0, keys[i].size() - 1);
    if (!prefix.empty()) CHECK(map.Find(prefix, hash) == nullptr);
  }
  size_t i = 0;
  map.ForEach([&](std::string_view key, uint64_t, const MapEntry&) {
    CHECK(key == keys[i]);
    ++i;
  });
  CHECK(i == keys.size());
  // Only the keys past 20 bytes take arena bytes: 21 + 40 + 21 of them.
  GroupMap short_only;
  for (size_t k = 0; k < 7; ++k) Put(short_only, std::string(20, 'a' + k), hash, 0);
  CHECK(map.memory_bytes() - short_only.memory_bytes() >= 21 + 40 + 21);
}

TEST_CASE("ForEach visits every entry exactly once, in insertion order") {
  GroupMap map;
  const int n = 5000;
  for (int i = 0; i < n; ++i) Put(map, KeyOf(i), H(KeyOf(i)), i);
  std::vector<int> seen(n, 0);
  std::vector<std::string> order;
  map.ForEach([&](std::string_view key, uint64_t hash, MapEntry& entry) {
    int i = static_cast<int>(entry.seq);
    REQUIRE(i >= 0);
    REQUIRE(i < n);
    ++seen[i];
    CHECK(key == KeyOf(i));
    CHECK(hash == H(key));
    CHECK(Same(entry, EntryFor(i)));
    entry.expire_at_ms = -1;  // f may change entries, just not the map
    order.emplace_back(key);
  });
  for (int i = 0; i < n; ++i) CHECK(seen[i] == 1);
  for (int i = 0; i < n; ++i) CHECK(order[i] == KeyOf(i));

  // The const overload visits the same entries in the same order and sees the changes.
  const GroupMap& const_map = map;
  size_t next = 0;
  const_map.ForEach([&](std::string_view key, uint64_t, const MapEntry& entry) {
    REQUIRE(next < order.size());
    CHECK(key == order[next++]);
    CHECK(entry.expire_at_ms == -1);
  });
  CHECK(next == order.size());
}

TEST_CASE("Clear empties the map and the map is reusable afterwards") {
  GroupMap map;
  for (int i = 0; i < 1000; ++i) Put(map, KeyOf(i), H(KeyOf(i)), i);
  map.Clear();
  CHECK(map.empty());
  CHECK(map.Find(KeyOf(0), H(KeyOf(0))) == nullptr);
  int visits = 0;
  map.ForEach([&](std::string_view, uint64_t, MapEntry&) { ++visits; });
  CHECK(visits == 0);
  map.Clear();  // clearing an empty map is fine too

  for (int i = 500; i < 2500; ++i) Put(map, KeyOf(i), H(KeyOf(i)), i + 1);
  CHECK(map.size() == 2000);
  CHECK(map.Find(KeyOf(0), H(KeyOf(0))) == nullptr);
  for (int i = 500; i < 2500; ++i) {
    const MapEntry* entry = map.Find(KeyOf(i), H(KeyOf(i)));
    REQUIRE(entry != nullptr);
    CHECK(Same(*entry, EntryFor(i + 1)));
  }
}

TEST_CASE("memory_bytes grows with inserts and drops back after Clear") {
  GroupMap map;
  const size_t empty_bytes = map.memory_bytes();
  CHECK(empty_bytes == 0);  // holds no heap memory (the arena string's inline buffer is not)
  Put(map, "a", H("a"), 1);
  const size_t one_key = map.memory_bytes();
  CHECK(one_key > empty_bytes);
  for (int i = 0; i < 10000; ++i) Put(map, KeyOf(i), H(KeyOf(i)), i);
  const size_t many_keys = map.memory_bytes();
  CHECK(many_keys > one_key);
  // Per key at worst: 8/3 table slots of 8 B, 2 records of 64 B, twice its 9 key bytes.
  CHECK(many_keys < 10001 * 170);
  map.Clear();
  CHECK(map.memory_bytes() == empty_bytes);
}

TEST_CASE("a map of 256 keys holds room for 256 records, not for the table's limit") {
  GroupMap map;
  for (int i = 0; i < 256; ++i) Put(map, KeyOf(i), H(KeyOf(i)), i);
  // 512 table slots of 8 B, records of 72 B grown by half (to 341 here; the table's limit
  // would be 384); these keys live in their records.
  for (int i = 0; i < 256; ++i) REQUIRE(KeyOf(i).size() <= 20);
  CHECK(map.memory_bytes() <= 512 * 8 + 350 * 72);
}

TEST_CASE("a moved-from map is empty and reusable; the target owns the entries") {
  GroupMap a;
  for (int i = 0; i < 100; ++i) Put(a, KeyOf(i), H(KeyOf(i)), i);
  GroupMap b(std::move(a));
  CHECK(b.size() == 100);
  CHECK(Same(*b.Find(KeyOf(5), H(KeyOf(5))), EntryFor(5)));
  CHECK(a.empty());  // NOLINT(bugprone-use-after-move): documented to be empty
  CHECK(a.Find(KeyOf(5), H(KeyOf(5))) == nullptr);
  Put(a, "again", H("again"), 1);
  CHECK(a.size() == 1);
  b = std::move(a);
  CHECK(b.size() == 1);
  CHECK(b.Find(KeyOf(5), H(KeyOf(5))) == nullptr);
  CHECK(Same(*b.Find("again", H("again")), EntryFor(1)));
}

TEST_CASE("assigning an empty map gives back every byte, the key arena's too") {
  GroupMap map;
  for (int i = 0; i < 100; ++i) Put(map, KeyOf(i), H(KeyOf(i)), i);
  CHECK(map.memory_bytes() > 0);
  map = GroupMap();
  CHECK(map.memory_bytes() == 0);
  CHECK(map.empty());
}

// The timeout is a wide margin, not a benchmark: this takes 0.1-0.2 s with or without
// sanitizers, and 6 s (-O2) to 90 s (-O0 with sanitizers) with a table indexed by low bits.
TEST_CASE("hashes that share their low 20 bits still spread over the table" *
          doctest::timeout(3.0)) {
  // The keys of one WAL group share the low bits that chose their bucket (hash % buckets).
  // A table indexed by low bits would put all of them in one probe chain: 50k inserts would
  // take over a billion probes.
  GroupMap map;
  const int n = 50000;
  auto hash_of = [](int i) { return (H(KeyOf(i)) << 20) | 0xABCDE; };
  for (int i = 0; i < n; ++i) Put(map, KeyOf(i), hash_of(i), i);
  for (int i = 0; i < n; ++i) {
    const MapEntry* entry = map.Find(KeyOf(i), hash_of(i));
    REQUIRE(entry != nullptr);
    CHECK(entry->seq == static_cast<uint64_t>(i));
  }
}

TEST_CASE("random inserts and overwrites match std::unordered_map") {
  uint64_t seed = std::random_device()();
  if (const char* env = std::getenv("GROUP_MAP_SEED")) seed = std::strtoull(env, nullptr, 10);
  MESSAGE("seed " << seed << " (rerun with GROUP_MAP_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);

  GroupMap map;
  std::unordered_map<std::string, uint64_t> model;
  for (int round = 0; round < 3; ++round) {
    const int key_space = 1 + static_cast<int>(rng() % 20000);
    for (int op = 0; op < 60000; ++op) {
      // Mostly short keys, some long; a few share a hash on purpose to exercise collisions.
      std::string key = "r" + std::to_string(rng() % key_space);
      if (rng() % 50 == 0) key.append(rng() % 3000, 'x');
      if (rng() % 100 == 0) key = "c" + key;
      const uint64_t hash = key[0] == 'c' ? 77 : H(key);  // all "c" keys collide
      const uint64_t value = rng();
      if (rng() % 4 == 0) {
        const MapEntry* entry = map.Find(key, hash);
        auto it = model.find(key);
        REQUIRE((entry != nullptr) == (it != model.end()));
        if (entry != nullptr) CHECK(Same(*entry, EntryFor(it->second)));
        continue;
      }
      auto [entry, inserted] = map.FindOrInsert(key, hash);
      auto [it, model_inserted] = model.try_emplace(key, value);
      REQUIRE(inserted == model_inserted);
      if (!inserted) CHECK(Same(*entry, EntryFor(it->second)));
      it->second = value;
      *entry = EntryFor(value);
    }
    REQUIRE(map.size() == model.size());
    size_t visited = 0;
    map.ForEach([&](std::string_view key, uint64_t hash, const MapEntry& entry) {
      ++visited;
      auto it = model.find(std::string(key));
      REQUIRE(it != model.end());
      CHECK(hash == (key[0] == 'c' ? 77 : H(key)));
      CHECK(Same(entry, EntryFor(it->second)));
    });
    CHECK(visited == model.size());
    if (round < 2) {
      map.Clear();
      model.clear();
    }
  }
}

}  // namespace
}  // namespace slotkv::slot
