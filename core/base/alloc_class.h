// AllocClassBytes: the block jemalloc (the server's allocator, core/base/malloc_conf.cc) hands
// out for a request of n bytes: multiples of 16 up to 128, then four classes per doubling
// (160, 192, 224, 256, 320, ...). Memory accounting charges it, and containers grown by hand
// size themselves to fill it.
#pragma once

#include <bit>
#include <cstddef>

namespace slotkv {

constexpr size_t AllocClassBytes(size_t n) {
  if (n <= 8) return 8;
  if (n <= 128) return (n + 15) / 16 * 16;
  // For 2^k < n <= 2^(k+1), a step of 2^(k-2).
  const size_t step = size_t{1} << (std::bit_width(n - 1) - 3);
  return (n + step - 1) / step * step;
}

}  // namespace slotkv
