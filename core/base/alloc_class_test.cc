#include "core/base/alloc_class.h"

#include <doctest/doctest.h>

namespace slotkv {
namespace {

TEST_CASE("AllocClassBytes follows jemalloc's size classes") {
  CHECK(AllocClassBytes(0) == 8);
  CHECK(AllocClassBytes(8) == 8);
  CHECK(AllocClassBytes(9) == 16);
  CHECK(AllocClassBytes(72) == 80);
  CHECK(AllocClassBytes(128) == 128);
  CHECK(AllocClassBytes(129) == 160);
  CHECK(AllocClassBytes(256) == 256);
  CHECK(AllocClassBytes(257) == 320);
  CHECK(AllocClassBytes(14336) == 14336);  // 7 * 2^11: a class of its own
  CHECK(AllocClassBytes(18432) == 20480);  // 9 * 2^11 rounds up to 10 * 2^11
  CHECK(AllocClassBytes(4096) == 4096);
  CHECK(AllocClassBytes(4097) == 5120);
  for (size_t n = 1; n < 100000; ++n) {
    const size_t c = AllocClassBytes(n);
    REQUIRE(c >= n);
    REQUIRE(c - n < c / 4 + 16);  // never more than a class step over
  }
}

}  // namespace
}  // namespace slotkv
