#include "core/base/lru_cache.h"

#include <doctest/doctest.h>

#include <string>

namespace slotkv {
namespace {

TEST_CASE("least recently used entry is evicted first") {
  LruCache<int, std::string> cache(30);
  cache.Insert(1, "a", 10);
  cache.Insert(2, "b", 10);
  cache.Insert(3, "c", 10);
  REQUIRE(cache.Lookup(1) != nullptr);  // 1 becomes most recent
  cache.Insert(4, "d", 10);              // evicts 2
  CHECK(cache.Lookup(2) == nullptr);
  CHECK(*cache.Lookup(1) == "a");
  CHECK(*cache.Lookup(4) == "d");
  CHECK(cache.size_bytes() == 30);
}

TEST_CASE("erase invalidates one key only") {
  LruCache<int, int> cache(100);
  cache.Insert(1, 10, 1);
  cache.Insert(2, 20, 1);
  cache.Erase(1);
  CHECK(cache.Lookup(1) == nullptr);
  CHECK(*cache.Lookup(2) == 20);
  CHECK(cache.hits() == 1);
  CHECK(cache.misses() == 1);
}

TEST_CASE("contains and peek neither count nor refresh") {
  LruCache<int, int> cache(2);
  cache.Insert(1, 1, 1);
  cache.Insert(2, 2, 1);
  CHECK(cache.Contains(1));
  CHECK_FALSE(cache.Contains(3));
  REQUIRE(cache.Peek(1) != nullptr);
  CHECK(*cache.Peek(1) == 1);
  CHECK(cache.Peek(3) == nullptr);
  cache.Insert(3, 3, 1);  // evicts 1: neither Contains nor Peek made it recent
  CHECK_FALSE(cache.Contains(1));
  CHECK(cache.hits() == 0);
  CHECK(cache.misses() == 0);
}

TEST_CASE("replacing a key updates its charge") {
  LruCache<int, int> cache(100);
  cache.Insert(1, 10, 60);
  cache.Insert(1, 11, 20);
  CHECK(cache.size_bytes() == 20);
  CHECK(*cache.Lookup(1) == 11);
}

TEST_CASE("replacing a key makes it most recent, and an oversized replacement drops it") {
  LruCache<int, int> cache(30);
  cache.Insert(1, 10, 10);
  cache.Insert(2, 20, 10);
  cache.Insert(3, 30, 10);
  cache.Insert(1, 11, 10);  // in place: 1 is now the most recent
  cache.Insert(4, 40, 10);  // evicts 2, the least recent
  CHECK_FALSE(cache.Contains(2));
  CHECK(*cache.Peek(1) == 11);
  CHECK(cache.entries() == 3);
  CHECK(cache.size_bytes() == 30);
  cache.Insert(3, 31, 25);  // grows: 4 and 1 go to fit it
  CHECK(cache.entries() == 1);
  CHECK(cache.size_bytes() == 25);
  cache.Insert(3, 32, 31);  // larger than the budget: the old version must not stay
  CHECK(cache.entries() == 0);
  CHECK(cache.size_bytes() == 0);
}

TEST_CASE("entry larger than the budget is not kept, and shrinking evicts") {
  LruCache<int, int> cache(10);
  cache.Insert(1, 1, 11);
  CHECK(cache.entries() == 0);
  cache.Insert(2, 2, 5);
  cache.Insert(3, 3, 5);
  cache.SetCapacity(5);
  CHECK(cache.entries() == 1);
  CHECK(cache.Lookup(3) != nullptr);
}

}  // namespace
}  // namespace slotkv

namespace slotkv {
namespace {

TEST_CASE("string keys are looked up and erased by string_view") {
  LruCache<std::string, int, StringKeyHash, std::equal_to<>> cache(100);
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
TEST_CASE("the index is sized for the budget up front: filling it never rehashes") {
  constexpr size_t kCapacity = 1 << 20;
  LruCache<int, int> cache(kCapacity);
  const size_t buckets = cache.index_buckets();
  CHECK(buckets >= kCapacity / kLruIndexedEntryBytes);
  for (int i = 0; i < static_cast<int>(kCapacity / kLruIndexedEntryBytes); ++i) {
    cache.Insert(i, i, kLruIndexedEntryBytes);
  }
  CHECK(cache.entries() == kCapacity / kLruIndexedEntryBytes);
  CHECK(cache.index_buckets() == buckets);
  // A smaller budget keeps the index; a larger one grows it.
  cache.SetCapacity(kCapacity / 4);
  CHECK(cache.index_buckets() == buckets);
  cache.SetCapacity(kCapacity * 4);
  CHECK(cache.index_buckets() >= 4 * kCapacity / kLruIndexedEntryBytes);
  // An owner of larger entries asks for fewer.
  LruCache<int, int> pages(kCapacity, 4096);
  CHECK(pages.index_buckets() >= kCapacity / 4096);
  CHECK(pages.index_buckets() < kCapacity / kLruIndexedEntryBytes);
}

TEST_CASE("HeapBytes is the string's heap block, not its length") {
  CHECK(HeapBytes(std::string("short")) == 0);
  const std::string page(4096, 'p');
  CHECK(HeapBytes(page) >= 4097);  // the terminating zero takes the block past 4096
  std::string big(100000, 'b');
  CHECK(HeapBytes(big) >= big.size());
}

}  // namespace slotkv
