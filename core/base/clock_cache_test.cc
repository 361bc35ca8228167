#include "core/base/clock_cache.h"

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <random>
#include <string>

namespace slotkv {
namespace {

TEST_CASE("an entry read since the hand passed outlives one that was not") {
  ClockCache<int, std::string> cache(30);
  cache.Insert(1, "a", 10);
  cache.Insert(2, "b", 10);
  cache.Insert(3, "c", 10);
  REQUIRE(cache.Lookup(1) != nullptr);  // 1 is marked used
  cache.Insert(4, "d", 10);              // the hand spares 1 (clearing its mark), evicts 2
  CHECK(cache.Lookup(2) == nullptr);
  CHECK(*cache.Lookup(1) == "a");
  CHECK(*cache.Lookup(4) == "d");
  CHECK(cache.size_bytes() == 30);
}

TEST_CASE("erase invalidates one key only") {
  ClockCache<int, int> cache(100);
  cache.Insert(1, 10, 1);
  cache.Insert(2, 20, 1);
  cache.Erase(1);
  CHECK(cache.Lookup(1) == nullptr);
  CHECK(*cache.Lookup(2) == 20);
  CHECK(cache.hits() == 1);
  CHECK(cache.misses() == 1);
}

TEST_CASE("contains and peek neither count nor refresh") {
  ClockCache<int, int> cache(2);
  cache.Insert(1, 1, 1);
  cache.Insert(2, 2, 1);
  CHECK(cache.Contains(1));
  CHECK_FALSE(cache.Contains(3));
  REQUIRE(cache.Peek(1) != nullptr);
  CHECK(*cache.Peek(1) == 1);
  CHECK(cache.Peek(3) == nullptr);
  cache.Insert(3, 3, 1);  // evicts 1: neither Contains nor Peek marked it used
  CHECK_FALSE(cache.Contains(1));
  CHECK(cache.hits() == 0);
  CHECK(cache.misses() == 0);
}

TEST_CASE("replacing a key updates its charge") {
  ClockCache<int, int> cache(100);
  cache.Insert(1, 10, 60);
  cache.Insert(1, 11, 20);
  CHECK(cache.size_bytes() == 20);
  CHECK(*cache.Lookup(1) == 11);
}

TEST_CASE("replacing a key marks it used, and an oversized replacement drops it") {
  ClockCache<int, int> cache(30);
  cache.Insert(1, 10, 10);
  cache.Insert(2, 20, 10);
  cache.Insert(3, 30, 10);
  cache.Insert(1, 11, 10);  // in place: 1 is marked used
  cache.Insert(4, 40, 10);  // evicts 2, the first unmarked one
  CHECK_FALSE(cache.Contains(2));
  CHECK(*cache.Peek(1) == 11);
  CHECK(cache.entries() == 3);
  CHECK(cache.size_bytes() == 30);
  cache.Insert(3, 31, 25);  // grows: 4 and 1 go to fit it, never 3 itself
  CHECK(cache.entries() == 1);
  CHECK(cache.size_bytes() == 25);
  cache.Insert(3, 32, 31);  // larger than the budget: the old version must not stay
  CHECK(cache.entries() == 0);
  CHECK(cache.size_bytes() == 0);
}

TEST_CASE("entry larger than the budget is not kept, and shrinking evicts") {
  ClockCache<int, int> cache(10);
  cache.Insert(1, 1, 11);
  CHECK(cache.entries() == 0);
  cache.Insert(2, 2, 5);
  cache.Insert(3, 3, 5);
  cache.SetCapacity(5);
  CHECK(cache.entries() == 1);
  CHECK(cache.Lookup(3) != nullptr);
}


TEST_CASE("random inserts, lookups and erases agree with a map while nothing is evicted") {
  // Keys with colliding index homes (small table, many keys) exercise the probe runs and the
  // backward shift of erases.
  ClockCache<uint64_t, uint64_t> cache(1 << 30);
  std::map<uint64_t, uint64_t> model;
  std::mt19937_64 rng(7);
  for (int op = 0; op < 200000; ++op) {
    const uint64_t key = rng() % 5000;
    switch (rng() % 3) {
      case 0:
        cache.Insert(key, op, 1);
        model[key] = static_cast<uint64_t>(op);
        break;
      case 1:
        cache.Erase(key);
        model.erase(key);
        break;
      default: {
        const uint64_t* got = cache.Lookup(key);
        auto it = model.find(key);
        REQUIRE((got == nullptr) == (it == model.end()));
        if (got) REQUIRE(*got == it->second);
      }
    }
  }
  CHECK(cache.entries() == model.size());
  CHECK(cache.size_bytes() == model.size());
  for (const auto& [key, value] : model) REQUIRE(*cache.Peek(key) == value);
}

TEST_CASE("under a budget, entries read again stay while a scan of new keys passes through") {
  ClockCache<int, int> cache(100);
  for (int k = 0; k < 50; ++k) cache.Insert(k, k, 1);  // the working set: half the budget
  for (int round = 0; round < 20; ++round) {
    for (int k = 0; k < 50; ++k) REQUIRE(cache.Lookup(k) != nullptr);
    for (int k = 0; k < 30; ++k) cache.Insert(1000 + round * 30 + k, k, 1);  // read once
  }
  CHECK(cache.size_bytes() <= 100);
  CHECK(cache.entries() == cache.size_bytes());
}

TEST_CASE("the entries' places follow the entry count down, and erased values are released") {
  ClockCache<int, std::shared_ptr<int>> cache(100000);
  auto value = std::make_shared<int>(7);
  for (int i = 0; i < 10000; ++i) cache.Insert(i, value, 10);
  CHECK(value.use_count() == 10001);
  CHECK(cache.entry_capacity() >= 10000);
  CHECK(cache.entry_capacity() <= 10000 + 512);
  for (int i = 0; i < 10000; i += 2) cache.Erase(i);  // from everywhere: last entries move
  CHECK(value.use_count() == 5001);
  cache.SetCapacity(1000);  // evicts down to 100 entries
  CHECK(cache.entries() == 100);
  CHECK(value.use_count() == 101);
  CHECK(cache.entry_capacity() <= 100 + 512);
  int found = 0;  // the moved entries are still found under their keys
  for (int i = 1; i < 10000; i += 2) found += cache.Peek(i) != nullptr;
  CHECK(found == 100);
}

TEST_CASE("an insert that evicts several entries keeps the new one when it moves") {
  ClockCache<int, int> cache(4);
  for (int i = 0; i < 4; ++i) cache.Insert(i, i, 1);
  cache.Insert(4, 4, 3);  // the newest entry is moved into the first victim's place
  CHECK(cache.Contains(4));
  CHECK(cache.size_bytes() == 4);
  CHECK(cache.entries() == 2);
}

TEST_CASE("erased entries' places are reused, and the cache stays within its budget") {
  ClockCache<std::string, std::string, StringKeyHash, std::equal_to<>> cache(10000);
  for (int i = 0; i < 100000; ++i) {
    const std::string key = "key:" + std::to_string(i);
    cache.Insert(key, std::string(50, 'v'), 100);
    if (i % 3 == 0) cache.Erase(key);
    REQUIRE(cache.size_bytes() <= 10000);
  }
  CHECK(cache.entries() == cache.size_bytes() / 100);
  // The newest key is always kept: an insert never evicts the entry it inserts.
  CHECK(cache.Contains(std::string_view("key:99998")));
}
}  // namespace
}  // namespace slotkv

namespace slotkv {
namespace {

TEST_CASE("string keys are looked up and erased by string_view") {
  ClockCache<std::string, int, StringKeyHash, std::equal_to<>> cache(100);
  cache.Insert("alpha", 1, 10);
  std::string_view key = "alpha";
  REQUIRE(cache.Lookup(key) != nullptr);
  CHECK(*cache.Lookup(key) == 1);
  CHECK(cache.Contains(std::string_view("alpha")));
  CHECK(cache.Lookup(std::string_view("beta")) == nullptr);
  cache.Erase(key);
  CHECK_FALSE(cache.Contains(key));
  CHECK(cache.size_bytes() == 0);
}

}  // namespace
TEST_CASE("the index grows with the entries, not with the budget") {
  ClockCache<int, int> cache(1 << 30);
  CHECK(cache.index_buckets() == 0);
  for (int i = 0; i < 1000; ++i) cache.Insert(i, i, 100);
  CHECK(cache.index_buckets() >= 1000 * 4 / 3);
  CHECK(cache.index_buckets() <= 4096);
  cache.SetCapacity(size_t{1} << 40);  // a larger budget does not grow it
  CHECK(cache.index_buckets() <= 4096);
}

TEST_CASE("HeapBytes is the string's heap block, not its length") {
  CHECK(HeapBytes(std::string("short")) == 0);
  const std::string page(4096, 'p');
  CHECK(HeapBytes(page) >= 4097);  // the terminating zero takes the block past 4096
  std::string big(100000, 'b');
  CHECK(HeapBytes(big) >= big.size());
}

}  // namespace slotkv
