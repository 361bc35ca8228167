// ReleaseLargeBuffer: gives back the memory of a reused buffer after an unusually large use
// (a 100 MB value passing through a per-slot scratch record or the WAL's write buffer), so a
// single large write does not keep that much resident for good.
#pragma once

#include <cstddef>
#include <string>

namespace slotkv {

// Buffers this size or smaller keep their capacity between uses.
inline constexpr size_t kKeptBufferBytes = 1 << 20;

// Frees s's storage when its capacity is past kKeptBufferBytes and it holds no more than that.
inline void ReleaseLargeBuffer(std::string* s) {
  if (s->capacity() > kKeptBufferBytes && s->size() <= kKeptBufferBytes) {
    std::string(*s).swap(*s);
  }
}

}  // namespace slotkv
