// Doorkeeper: an approximate record of the keys seen lately, so that a cache admits a key on its
// second miss rather than its first (as TinyLFU's doorkeeper does). Under reads spread over far
// more keys than a cache holds, admitting every miss only churns: each insert evicts an entry
// that was about as unlikely to be read again, and costs allocations. Keys read twice within a
// window are the ones worth keeping.
//
// Design: two bitsets of 2^bits_log2 bits, indexed by the top bits of the key hash; a key was
// seen when its bit is set in either. Marks go to the current one; after `window` marks the
// previous one is dropped and the current one takes its place, so a key is remembered for one
// to two windows. A false positive only admits a key early.
//
// Thread rule: one owner, like the cache it guards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace slotkv {

class Doorkeeper {
 public:
  // REQUIRES: 6 <= bits_log2 <= 32, window >= 1.
  explicit Doorkeeper(unsigned bits_log2 = 17, size_t window = size_t{1} << 14)
      : shift_(64 - bits_log2),
        window_(window),
        current_((size_t{1} << bits_log2) / 64),
        previous_(current_.size()) {}

  // Whether hash was marked within the last one or two windows, without marking it.
  bool Seen(uint64_t hash) const {
    const uint64_t bit = hash >> shift_;
    const uint64_t mask = uint64_t{1} << (bit % 64);
    return ((current_[bit / 64] | previous_[bit / 64]) & mask) != 0;
  }

  // Whether hash was marked within the last one or two windows; marks it either way.
  bool SeenBefore(uint64_t hash) {
    const uint64_t bit = hash >> shift_;
    const uint64_t mask = uint64_t{1} << (bit % 64);
    const size_t word = static_cast<size_t>(bit / 64);
    const bool seen = ((current_[word] | previous_[word]) & mask) != 0;
    if ((current_[word] & mask) == 0) {
      current_[word] |= mask;
      if (++marks_ >= window_) Rotate();
    }
    return seen;
  }

 private:
  void Rotate() {
    previous_.swap(current_);
    current_.assign(current_.size(), 0);
    marks_ = 0;
  }

  unsigned shift_;
  size_t window_;
  size_t marks_ = 0;
  std::vector<uint64_t> current_;
  std::vector<uint64_t> previous_;
};

}  // namespace slotkv
