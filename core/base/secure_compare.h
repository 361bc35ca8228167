// SecureEquals: compares secrets (passwords) in a time that depends on their lengths only, not
// on where they first differ, so a client timing AUTH cannot learn a password byte by byte.
#pragma once

#include <algorithm>
#include <string_view>

namespace slotkv {

inline bool SecureEquals(std::string_view a, std::string_view b) {
  unsigned diff = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

}  // namespace slotkv
