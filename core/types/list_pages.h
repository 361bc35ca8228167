// ListPages: a long list stored as a small root plus pages (a quicklist on disk), so that a
// push, a pop or an index reads and writes O(height) pages whatever the list's length.
//
// Design. The elements are the entries of an unkeyed CountedTree (counted_tree.h) on pages
// kTreePageBit + n of the collection id: leaves hold runs of elements, internal nodes the
// element count under each child, so the element at an index is one descent and a push at
// either end rewrites the path to the first or last leaf (about 1 + height page writes,
// written by Finish once per command).
//
// Root grammar (the value of the user's key):
//   root := kPagedMarker kListKind id:fixed64 count:varint64 tree:varint64 height:u8
//           nodes:varint64 free:varint64
//
// Thread rule: none inside; used by the slot's owner for the duration of one command.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/types/counted_tree.h"
#include "core/types/member_pages.h"

namespace slotkv {

inline constexpr uint8_t kListKind = 3;

struct ListRoot : TreeRoot {
  uint64_t id = 0;
  uint64_t count = 0;  // elements

  std::string Encode() const;
  // Corruption on anything Encode could not have made.
  static Result<ListRoot> Decode(std::string_view bytes);
};

class ListPages {
 public:
  // A list whose root is root; page_members elements per leaf.
  ListPages(ListRoot root, PageIo* io, uint32_t page_members);
  // A new empty list with a fresh random id.
  static ListPages Create(PageIo* io, uint32_t page_members);

  // The root as it stands; store it after Finish.
  ListRoot root() const;
  uint64_t size() const { return count_; }

  // The element at position pos. REQUIRES: pos < size().
  Result<std::string> At(uint64_t pos);
  // Inserts v before position pos (pos == size(): at the end).
  Status InsertAt(uint64_t pos, std::string v);
  // Removes the element at position pos and returns it. REQUIRES: pos < size().
  Result<std::string> EraseAt(uint64_t pos);
  // Replaces the element at position pos. REQUIRES: pos < size().
  Status ReplaceAt(uint64_t pos, std::string v);
  // Calls fn on the elements from position pos on, towards the tail or (reverse) the head,
  // until fn returns false or the elements end.
  Status Walk(uint64_t pos, bool reverse, const std::function<bool(const std::string&)>& fn);

  // Writes every changed page (Corruption, writing nothing, when the root's count disagrees
  // with the tree). The caller then stores root() under the key, or deletes the key (and
  // queues the tree's pages) when the list is empty.
  Status Finish();

 private:
  uint64_t id_;
  uint64_t count_;
  CountedTree<ListTreeTraits> tree_;
};

}  // namespace slotkv
