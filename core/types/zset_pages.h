// ZSetPages: a large sorted set stored as a small root plus pages, so that a change reads and
// writes O(log n) pages whatever the set's size.
//
// Design. Two structures share the collection id (and so the page namespace of PageIo):
// - the member -> score index is a MemberPages (member_pages.h) on page indexes below
//   kTreePageBit, whose values are the scores (8 bytes, the double's bits little-endian);
// - the (score, member) order is a keyed CountedTree (counted_tree.h) on pages kTreePageBit + n:
//   its counts give ranks, its per-child smallest entries guide a descent by key.
// A point change costs the member's index page plus a root-to-leaf path (about 2 + height page
// writes) and one descent by (score, member) per tree change (a score update: an erase and an
// insert); pages are written by Finish, once per command.
//
// Root grammar (the value of the user's key):
//   root := kPagedMarker kZSetKind id:fixed64 count:varint64 level:u8 split:varint64
//           tree:varint64 height:u8 nodes:varint64 free:varint64
// (the hashed fields as in HashedRoot, then the tree's as in TreeRoot).
//
// Thread rule: none inside; used by the slot's owner for the duration of one command.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/types/counted_tree.h"
#include "core/types/member_pages.h"
#include "core/types/zset_value.h"

namespace slotkv {

inline constexpr uint8_t kZSetKind = 2;

struct ZSetRoot : TreeRoot {
  HashedRoot index;  // member -> score pages; index.count is the set's size

  std::string Encode() const;
  // Corruption on anything Encode could not have made.
  static Result<ZSetRoot> Decode(std::string_view bytes);
};

// The member count of any paged root (hash, set, sorted set or list), read from its header.
Result<uint64_t> PagedRootCount(std::string_view bytes);

class ZSetPages {
 public:
  using Entry = ZSetValue::Entry;
  using Pred = std::function<bool(const Entry&)>;

  // A set whose root is root; page_members sizes both the index pages and the tree nodes.
  ZSetPages(ZSetRoot root, PageIo* io, uint32_t page_members);
  // A new empty set with a fresh random id.
  static ZSetPages Create(PageIo* io, uint32_t page_members);

  // The root as it stands; store it after Finish.
  ZSetRoot root() const;
  uint64_t size() const { return index_.size(); }

  Result<std::optional<double>> Score(std::string_view member);
  // As ZSetValue::Set. REQUIRES: score is not NaN.
  Result<ZSetValue::Change> Set(std::string_view member, double score);
  // true when member was there.
  Result<bool> Remove(std::string_view member);
  // The 0-based ascending rank of member, or nullopt when absent.
  Result<std::optional<uint64_t>> Rank(std::string_view member);
  // How many entries come before the first one for which pred holds (size() when none does).
  // pred must be false then true along the order (a lower bound); a predicate that is not
  // (a lex bound over mixed scores) gives some position, as Redis's skiplist does.
  Result<uint64_t> CountBefore(const Pred& pred);
  // Calls fn on the entries from ascending rank `rank` on, ascending or (reverse) descending,
  // until fn returns false or the entries end. Nothing when rank >= size().
  Status Walk(uint64_t rank, bool reverse, const std::function<bool(const Entry&)>& fn);

  // Writes every changed page (index pages and tree nodes). The caller then stores root()
  // under the key, or deletes the key when the set is empty.
  Status Finish();

  // The index pages, as MemberPages::ForEachPage (values are EncodeScore bytes): ZSCAN and
  // whole reads.
  Result<uint64_t> ForEachPage(uint64_t from,
                               const std::function<bool(uint64_t, const HashValue&)>& fn) {
    return index_.ForEachPage(from, fn);
  }
  uint64_t page_count() const { return index_.page_count(); }

  static std::string EncodeScore(double score);
  static Result<double> DecodeScore(std::string_view bytes);

 private:
  MemberPages index_;
  CountedTree<ZSetTreeTraits> tree_;
};

}  // namespace slotkv
