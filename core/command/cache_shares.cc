#include "core/command/cache_shares.h"

#include <algorithm>

namespace slotkv::command {

std::vector<uint64_t> ShareCache(uint64_t budget, std::span<const CacheClaim> claims) {
  const size_t n = claims.size();
  std::vector<uint64_t> shares(n, 0);
  if (n == 0) return shares;
  const uint64_t floor = budget / (4 * n);
  uint64_t rest = budget - floor * n;
  std::vector<size_t> open;  // claims still taking from rest
  for (size_t i = 0; i < n; ++i) {
    shares[i] = floor;
    if (claims[i].cap > floor) open.push_back(i);
  }
  // In 128 bits: rest * weight needs them, and parts that round down never sum past rest.
  using Wide = unsigned __int128;
  auto weight = [&](size_t i) { return Wide{std::max<uint64_t>(1, claims[i].weight)}; };
  while (!open.empty() && rest > 0) {
    Wide total = 0;
    for (size_t i : open) total += weight(i);
    auto part = [&](size_t i) { return static_cast<uint64_t>(Wide{rest} * weight(i) / total); };
    // Claims whose part of rest reaches their cap take the cap and leave; the others then
    // share what is left, again by weight.
    std::vector<size_t> still;
    uint64_t taken = 0;
    for (size_t i : open) {
      const uint64_t room = claims[i].cap - floor;
      if (part(i) >= room) {
        shares[i] = claims[i].cap;
        taken += room;
      } else {
        still.push_back(i);
      }
    }
    if (taken == 0) {
      for (size_t i : open) shares[i] = floor + part(i);
      return shares;
    }
    rest -= taken;
    open.swap(still);
  }
  // Every claim is at its cap: what is left goes evenly, room to grow for all.
  for (uint64_t& s : shares) s += rest / n;
  return shares;
}

}  // namespace slotkv::command
