#include "core/command/cache_shares.h"

#include <doctest/doctest.h>

#include <numeric>
#include <random>
#include <vector>

namespace slotkv::command {
namespace {

uint64_t Sum(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), 0ull); }

TEST_CASE("equal demand gets equal shares; no claims get nothing") {
  std::vector<CacheClaim> claims(4, CacheClaim{.weight = 100});
  std::vector<uint64_t> shares = ShareCache(4000, claims);
  CHECK(shares == std::vector<uint64_t>(4, 1000));
  CHECK(ShareCache(4000, {}).empty());
  // No demand anywhere counts as equal demand.
  CHECK(ShareCache(4000, std::vector<CacheClaim>(4)) == std::vector<uint64_t>(4, 1000));
}

TEST_CASE("the busy slot takes all but the others' floors") {
  std::vector<CacheClaim> claims(16);
  claims[3].weight = 1'000'000;
  const uint64_t budget = 256 << 20;
  std::vector<uint64_t> shares = ShareCache(budget, claims);
  const uint64_t floor = budget / 64;  // a quarter of an equal share
  for (size_t i = 0; i < claims.size(); ++i) {
    CAPTURE(i);
    if (i == 3) {
      CHECK(shares[i] >= budget - 15 * floor - budget / 10000);  // idle ones weigh 1 each
    } else {
      CHECK(shares[i] >= floor);
      CHECK(shares[i] < floor + budget / 100000);
    }
  }
  CHECK(Sum(shares) <= budget);
  CHECK(Sum(shares) >= budget - 16);
}

TEST_CASE("a capped claim takes its cap, and the rest goes to the others by weight") {
  std::vector<CacheClaim> claims = {{.weight = 1000, .cap = 300},
                                    {.weight = 100},
                                    {.weight = 300}};
  std::vector<uint64_t> shares = ShareCache(12000, claims);
  // A floor of 1000 each, 9000 to share. The first is capped at 300, under its floor: it
  // keeps the floor, and the others share the 9000 by weight.
  CHECK(shares[0] == 1000);
  CHECK(shares[1] == 1000 + 9000 / 4);
  CHECK(shares[2] == 1000 + 9000 * 3 / 4);
  claims[0].cap = 5000;  // over the floor, under its weighted part (6428): cut to the cap
  shares = ShareCache(12000, claims);
  CHECK(shares[0] == 5000);
  CHECK(shares[1] == 1000 + 5000 / 4);
  CHECK(shares[2] == 1000 + 5000 * 3 / 4);
}

TEST_CASE("when every claim is capped the rest is spread evenly") {
  std::vector<CacheClaim> claims = {{.weight = 5, .cap = 2000}, {.weight = 1, .cap = 3000}};
  std::vector<uint64_t> shares = ShareCache(10000, claims);
  // floor 1250 each; caps take 750 + 1750 of the 7500 left; 5000 spread.
  CHECK(shares[0] == 2000 + 2500);
  CHECK(shares[1] == 3000 + 2500);
}

TEST_CASE("random claims: floors kept, caps kept unless all are capped, sum within budget") {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 2000; ++t) {
    CAPTURE(t);
    const size_t n = 1 + rng() % 40;
    const uint64_t budget = rng() % (uint64_t{1} << 34);
    std::vector<CacheClaim> claims(n);
    bool any_uncapped = false;
    for (CacheClaim& c : claims) {
      c.weight = rng() % 4 == 0 ? 0 : rng() % 1'000'000;
      if (rng() % 2 == 0) {
        c.cap = rng() % (budget / n + 1) * 2;
      } else {
        any_uncapped = true;
      }
    }
    std::vector<uint64_t> shares = ShareCache(budget, claims);
    REQUIRE(shares.size() == n);
    CHECK(Sum(shares) <= budget);
    const uint64_t floor = budget / (4 * n);
    for (size_t i = 0; i < n; ++i) {
      CHECK(shares[i] >= floor);
      if (any_uncapped) CHECK(shares[i] <= std::max(floor, claims[i].cap));
    }
    // Uncapped claims use the budget up, less rounding of one per claim.
    if (any_uncapped) CHECK(Sum(shares) + n >= budget);
  }
}

}  // namespace
}  // namespace slotkv::command
