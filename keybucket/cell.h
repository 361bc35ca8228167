// Cell: what a bucket page holds for one key. The payload is either the value itself (short
// values) or an encoded chunk pointer, opaque to this module.
#pragma once

#include <cstdint>
#include <string>

namespace slotkv::keybucket {

struct Cell {
  uint64_t hash = 0;          // KeyHash(key)
  uint64_t seq = 0;           // sequence number of the write that produced this cell
  int64_t expire_at_ms = 0;   // 0 = no expiry
  uint8_t type_tag = 0;       // slotkv::ValueType
  bool is_pointer = false;    // payload is an encoded chunk pointer, else the inline value
  std::string key;
  std::string payload;

  bool operator==(const Cell&) const = default;
};

}  // namespace slotkv::keybucket
