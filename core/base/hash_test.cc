#include "core/base/hash.h"

#include <doctest/doctest.h>

namespace slotkv {
namespace {

TEST_CASE("hash slots match Redis Cluster") {
  CHECK(HashSlot("foo") == 12182);
  CHECK(HashSlot("123456789") == 12739);
  CHECK(Crc16("123456789") == 0x31C3);
}

TEST_CASE("hash tags keep related keys in one slot") {
  CHECK(HashSlot("{user1000}.following") == HashSlot("{user1000}.followers"));
  CHECK(HashSlot("{user1000}.following") == HashSlot("user1000"));
}

TEST_CASE("empty or unclosed hash tag hashes the whole key") {
  CHECK(HashSlot("foo{}{bar}") == Crc16("foo{}{bar}") % 16384);
  CHECK(HashSlot("foo{bar") == Crc16("foo{bar") % 16384);
  CHECK(HashSlot("foo{{bar}}zap") == HashSlot("{bar"));
}

TEST_CASE("slot of key is a contiguous range of hash slots") {
  CHECK(SlotOf("foo", 4) == 12182 * 4 / 16384);
  CHECK(SlotOf("foo", 1) == 0);
  CHECK(SlotOf("foo", 16384) == 12182);
}

TEST_CASE("key hash and checksum are stable and differ across inputs") {
  CHECK(KeyHash("a") == KeyHash("a"));
  CHECK(KeyHash("a") != KeyHash("b"));
  CHECK(Checksum("abc") != Checksum("abd"));
}

}  // namespace
}  // namespace slotkv
