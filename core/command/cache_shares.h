// ShareCache: how maxmemory-cache is divided among the open database slots, by use.
//
// Design. An equal share left a hot slot evicting while cold ones kept theirs: a 100k-field hash
// of 200-byte values (22 MB of pages) in one of 16 slots got 16 MB of a 256 MB budget, and an
// HSET read 0.23 pages from the file (0 with the whole budget; 5% of its CPU). Now each slot
// claims by its demand, the cache lookups it made lately (a decayed count, so a workload that
// moves takes the memory with it within seconds), and a slot that missed almost nothing
// claims no more than it holds with room to grow (its data fits: more would sit unused).
// Every slot keeps a floor of a quarter of an equal share, so one that turns busy again starts
// from something. The rest goes by weight, water-filled: a share past a claim's cap is cut to
// it and the excess goes to the others; what nobody can use is spread evenly.
//
// Thread rule: none (a pure function).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace slotkv::command {

struct CacheClaim {
  uint64_t weight = 0;  // demand: lookups lately (0 counts as 1)
  uint64_t cap = std::numeric_limits<uint64_t>::max();  // the most it can use
};

// Each claim's share; they sum to at most budget (to budget, less rounding, when any claim is
// uncapped).
std::vector<uint64_t> ShareCache(uint64_t budget, std::span<const CacheClaim> claims);

}  // namespace slotkv::command
