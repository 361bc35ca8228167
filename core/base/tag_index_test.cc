#include "core/base/tag_index.h"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <vector>

namespace slotkv {
namespace {

// Entries are their keys; hash(key) = key, so keys that differ only above the bits the table
// uses share a home and make long probe runs.
struct Model {
  TagIndex index;
  std::vector<uint64_t> keys;             // entry -> key
  std::map<uint64_t, uint32_t> entries;   // key -> entry

  TagIndex::Found Find(uint64_t key) const {
    return index.Find(key, [&](uint32_t e) { return keys[e] == key; });
  }
};

TEST_CASE("random adds and removes agree with a map, through growth and long probe runs") {
  Model m;
  std::mt19937_64 rng(11);
  for (int op = 0; op < 300000; ++op) {
    const uint64_t key = rng() % 3000;
    m.index.Prefetch(key);
    const TagIndex::Found f = m.Find(key);
    auto it = m.entries.find(key);
    REQUIRE((f.entry == TagIndex::kNone) == (it == m.entries.end()));
    // No two of these 3000 keys share a 32-bit tag: the first tag match is the entry.
    REQUIRE(m.index.Likely(key) == f.entry);
    if (it != m.entries.end()) REQUIRE(f.entry == it->second);
    if (rng() % 2 == 0) {
      if (it == m.entries.end()) {
        const auto entry = static_cast<uint32_t>(m.keys.size());
        m.keys.push_back(key);
        m.index.Add(key, entry);
        m.entries[key] = entry;
      }
    } else if (it != m.entries.end()) {
      m.index.Remove(f.slot);
      m.entries.erase(it);
    }
  }
  for (const auto& [key, entry] : m.entries) REQUIRE(m.Find(key).entry == entry);
  CHECK(m.index.slots() * 3 >= m.entries.size() * 4);
}

TEST_CASE("renumbering a slot names the moved entry under the same hash") {
  Model m;
  for (uint64_t key = 0; key < 100; ++key) {
    m.keys.push_back(key);
    m.index.Add(key, static_cast<uint32_t>(key));
  }
  // Entry 99 moves into entry 5's place, as ClockCache keeps its entries dense.
  m.index.Remove(m.Find(5).slot);
  const TagIndex::Found last = m.Find(99);
  REQUIRE(last.entry == 99);
  m.keys[5] = 99;
  m.keys.pop_back();
  m.index.Renumber(last.slot, 5);
  CHECK(m.Find(99).entry == 5);
  CHECK(m.Find(5).entry == TagIndex::kNone);
  for (uint64_t key = 0; key < 99; ++key) {
    if (key != 5) CHECK(m.Find(key).entry == key);
  }
}

TEST_CASE("the table grows at 3/4 full; clear gives it back") {
  TagIndex index;
  CHECK(index.slots() == 0);
  CHECK(index.Find(1, [](uint32_t) { return true; }).entry == TagIndex::kNone);
  for (uint32_t i = 0; i < 12; ++i) index.Add(i * 0x10001ull, i);
  CHECK(index.slots() == 16);  // 12 of 16: 3/4 full
  index.Add(99, 12);
  CHECK(index.slots() == 32);
  CHECK(index.memory_bytes() == 32 * sizeof(uint64_t));
  for (uint32_t i = 0; i < 12; ++i) {
    CHECK(index.Find(i * 0x10001ull, [&](uint32_t e) { return e == i; }).entry == i);
  }
  index.Clear();
  CHECK(index.slots() == 0);
  CHECK(index.memory_bytes() == 0);
}

}  // namespace
}  // namespace slotkv
