#include "core/base/buffer.h"

#include <doctest/doctest.h>

namespace slotkv {
namespace {

TEST_CASE("a buffer keeps small capacity and gives back large, once it holds little") {
  std::string s;
  s.reserve(4096);
  ReleaseLargeBuffer(&s);
  CHECK(s.capacity() >= 4096);  // small: kept for the next use
  s.assign(kKeptBufferBytes * 4, 'x');
  ReleaseLargeBuffer(&s);
  CHECK(s.capacity() >= kKeptBufferBytes * 4);  // still holds it all
  s.resize(10);
  ReleaseLargeBuffer(&s);
  CHECK(s == "xxxxxxxxxx");
  CHECK(s.capacity() < kKeptBufferBytes);
}

}  // namespace
}  // namespace slotkv
