#include "slot/value_delta.h"

#include <doctest/doctest.h>

#include <random>

namespace slotkv::slot {
namespace {

std::string RandomBytes(std::mt19937_64& rng, size_t n, int alphabet) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>('a' + rng() % alphabet);
  return s;
}

// One to three random edits: insert, erase, replace in place.
std::string Mutate(std::mt19937_64& rng, std::string s) {
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    const size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    const size_t len = 1 + rng() % 40;
    switch (rng() % 3) {
      case 0: s.insert(at, RandomBytes(rng, len, 26)); break;
      case 1: s.erase(at, len); break;
      default:
        for (size_t i = at; i < std::min(s.size(), at + len % 8 + 1); ++i) s[i] ^= 1;
    }
  }
  return s;
}

TEST_CASE("value_delta: an insertion that bumps a count in the header is a small delta") {
  std::string base = "L" + std::string(1, '\x10');
  for (int i = 0; i < 64; ++i) base += "member:" + std::to_string(1000 + i) + "|score";
  std::string next = base;
  next[1] = '\x11';
  next.insert(700, "member:5555|score");
  std::string delta;
  REQUIRE(EncodeDelta(base, next, &delta));
  CHECK(delta.size() < 60);
  std::string out;
  REQUIRE(ApplyDelta(base, delta, &out).ok());
  CHECK(out == next);
}

TEST_CASE("value_delta: randomised edits round-trip; another base makes no wrong value") {
  std::mt19937_64 rng(7);
  int small = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string base = RandomBytes(rng, rng() % 3000, 1 + static_cast<int>(rng() % 26));
    const std::string next = Mutate(rng, base);
    std::string delta;
    if (!EncodeDelta(base, next, &delta)) {
      CHECK(delta.size() > next.size() / 2);
      continue;
    }
    ++small;
    CHECK(delta.size() <= next.size() / 2);
    std::string out;
    REQUIRE(ApplyDelta(base, delta, &out).ok());
    REQUIRE(out == next);
    if (!base.empty()) {
      std::string other = base;
      other[rng() % other.size()] ^= 0x20;
      // Refused, unless the byte is one the delta skips: never a wrong value.
      const bool applied = ApplyDelta(other, delta, &out).ok();
      CHECK((!applied || out == next));
    }
    CHECK_FALSE(ApplyDelta(base + "x", delta, &out).ok());
    for (size_t cut = 0; cut < delta.size(); cut += 1 + delta.size() / 7) {
      CHECK_FALSE(ApplyDelta(base, delta.substr(0, cut), &out).ok());
    }
  }
  CHECK(small > 1500);  // most edits of large values are deltas
}

TEST_CASE("value_delta: garbage never applies nor reads out of bounds") {
  std::mt19937_64 rng(11);
  const std::string base = RandomBytes(rng, 500, 4);
  std::string out;
  for (int round = 0; round < 2000; ++round) {
    std::string junk(rng() % 64, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    CHECK_FALSE(ApplyDelta(base, junk, &out).ok());
  }
}

TEST_CASE("value_delta: an unrelated value is written whole") {
  std::string delta;
  CHECK_FALSE(EncodeDelta(std::string(1000, 'a'), std::string(1000, 'b'), &delta));
  CHECK_FALSE(EncodeDelta("", std::string(100, 'b'), &delta));
}

}  // namespace
}  // namespace slotkv::slot
