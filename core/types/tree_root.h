// TreeRoot: the fields of a CountedTree (counted_tree.h) that its owner's root keeps, and where
// its nodes' pages are. Apart from counted_tree.h so that the stream's meta (stream_value.h),
// which holds the trees of its consumer groups' pending entries, can name it.
//
// Thread rule: plain data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace slotkv {

// A collection's main tree has node n at page kTreePageBit + n of the collection; other trees
// of the same collection (a stream's pending entries) start at their own base below it.
inline constexpr uint64_t kTreePageBit = uint64_t{1} << 63;

// The tree's fields of a root (the collection's root holds them after its own).
struct TreeRoot {
  uint64_t tree = 0;   // root node + 1; 0 when the tree is empty
  uint8_t height = 0;  // internal levels above the leaves
  uint64_t nodes = 0;  // node numbers handed out: pages base + [0, nodes) exist
  uint64_t free = 0;   // first free node + 1; 0 when none

  // tree:varint64 height:u8 nodes:varint64 free:varint64
  void EncodeFields(std::string* out) const;
  // false on anything EncodeFields could not have made.
  static bool DecodeFields(std::string_view* in, TreeRoot* r);
};

}  // namespace slotkv
