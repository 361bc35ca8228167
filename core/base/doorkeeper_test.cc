#include "core/base/doorkeeper.h"

#include <doctest/doctest.h>

#include <string>

#include "core/base/hash.h"

namespace slotkv {
namespace {

TEST_CASE("doorkeeper: a key is seen on its second mark, not its first") {
  Doorkeeper d;
  CHECK_FALSE(d.SeenBefore(KeyHash("a")));
  CHECK(d.SeenBefore(KeyHash("a")));
  CHECK(d.SeenBefore(KeyHash("a")));
  CHECK_FALSE(d.SeenBefore(KeyHash("b")));
}

TEST_CASE("doorkeeper: Seen asks without marking") {
  Doorkeeper d;
  CHECK_FALSE(d.Seen(KeyHash("a")));
  CHECK_FALSE(d.Seen(KeyHash("a")));
  CHECK_FALSE(d.SeenBefore(KeyHash("a")));
  CHECK(d.Seen(KeyHash("a")));
  CHECK_FALSE(d.Seen(KeyHash("b")));
}

TEST_CASE("doorkeeper: keys are forgotten after two windows of other keys") {
  Doorkeeper d(/*bits_log2=*/16, /*window=*/100);
  CHECK_FALSE(d.SeenBefore(KeyHash("old")));
  for (int i = 0; i < 99; ++i) d.SeenBefore(KeyHash("w1:" + std::to_string(i)));
  // One rotation later "old" is in the previous window: still seen.
  CHECK(d.SeenBefore(KeyHash("old")));
  for (int i = 0; i < 250; ++i) d.SeenBefore(KeyHash("w2:" + std::to_string(i)));
  CHECK_FALSE(d.SeenBefore(KeyHash("old")));
}

TEST_CASE("doorkeeper: false positives stay rare within a window") {
  Doorkeeper d(/*bits_log2=*/17, /*window=*/1 << 14);
  int seen = 0;
  for (int i = 0; i < 10000; ++i) seen += d.SeenBefore(KeyHash("k" + std::to_string(i)));
  CHECK(seen < 10000 / 10);  // ~4% expected at this fill
}

}  // namespace
}  // namespace slotkv
