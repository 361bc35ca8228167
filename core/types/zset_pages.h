// ZSetPages: a large sorted set stored as a small root plus pages, so that a change reads and
// writes O(log n) pages whatever the set's size.
//
// Design. Two structures share the collection id (and so the page namespace of PageIo):
// - the member -> score index is a MemberPages (member_pages.h) on page indexes below
//   kTreePageBit, whose values are the scores (8 bytes, the double's bits little-endian);
// - the (score, member) order is a B+tree whose nodes are pages kTreePageBit + n. A leaf holds
//   entries in order; an internal node holds, per child, its node number, its entry count and
//   its smallest entry. The counts make it an order-statistic tree: rank, the entry at a rank
//   and "how many entries come before the first one for which a predicate holds" are one
//   descent (O(height) pages). The smallest entry per child guides a descent by key.
// A node splits in two past its capacity (leaves max(page_members, 2) entries, internal nodes
// max(page_members, 4) children); a node left under a quarter full merges
// with a neighbour when both fit in one node; an emptied node is freed; a root left with one
// child gives way to it. Node numbers come from a free chain (freed nodes hold the next free
// number) before new ones are numbered, so the tree's pages are exactly kTreePageBit + [0,
// nodes): a dropped set is reclaimed by index, as a hash is.
//
// Every change also rewrites the path from the root to the leaf it changed (the counts on it
// change), so ZADD costs about 2 + height page writes. Pages are written by Finish, once per
// command.
//
// Root grammar (the value of the user's key):
//   root := kPagedMarker kZSetKind id:fixed64 count:varint64 level:u8 split:varint64
//           tree:varint64 height:u8 nodes:varint64 free:varint64
// (the hashed fields as in HashedRoot; tree and free are node number + 1, 0 for none).
// Node grammar:
//   leaf     := 'L' n:varint64 (score:fixed64 member_len:varint64 member)*n
//   internal := 'I' n:varint64 (node:varint64 count:varint64 score:fixed64 len:varint64 member)*n
//   free     := 'F' next:varint64
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
#include "core/types/member_pages.h"
#include "core/types/zset_value.h"

namespace slotkv {

inline constexpr uint8_t kZSetKind = 2;
// Tree node n is page kTreePageBit + n of the collection.
inline constexpr uint64_t kTreePageBit = uint64_t{1} << 63;

struct ZSetRoot {
  HashedRoot index;     // member -> score pages; index.count is the set's size
  uint64_t tree = 0;    // root node + 1; 0 when the set is empty
  uint8_t height = 0;   // internal levels above the leaves
  uint64_t nodes = 0;   // node numbers handed out: pages kTreePageBit + [0, nodes) exist
  uint64_t free = 0;    // first free node + 1; 0 when none

  std::string Encode() const;
  // Corruption on anything Encode could not have made.
  static Result<ZSetRoot> Decode(std::string_view bytes);
};

// The member count of any paged root (hash, set or sorted set), read from its header.
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
  struct Child {
    uint64_t node = 0;
    uint64_t count = 0;
    Entry first;  // the smallest entry under the child
  };
  struct Node {
    bool leaf = true;
    bool free = false;  // on the free chain; next_free is the next one + 1
    uint64_t next_free = 0;
    std::vector<Entry> entries;   // leaf
    std::vector<Child> children;  // internal
    bool existed = false;         // in storage before this ZSetPages wrote it
    bool dirty = false;
    size_t size() const { return leaf ? entries.size() : children.size(); }
  };
  // One step of a descent: the node and the child (or entry) position taken in it.
  struct Step {
    uint64_t node;
    size_t pos;
  };

  static std::string EncodeNode(const Node& node);
  Result<Node*> Load(uint64_t n);
  Result<uint64_t> Allocate(bool leaf);
  Status Free(uint64_t n);
  // The path to the leaf where entry e belongs (insert position, or its position when there).
  Status Descend(const Entry& e, std::vector<Step>* path);
  Status Insert(const Entry& e);
  // false when e is not in the tree.
  Result<bool> Erase(const Entry& e);
  // After a leaf of path changed: refreshes counts and first entries up the path, splits or
  // merges nodes as needed, and replaces the root when it split or has one child left.
  Status FixPath(std::vector<Step>& path);
  Status SplitChild(Node* parent, size_t pos);
  // Merges child pos+1 of parent into child pos when they fit in one node; true when merged.
  Result<bool> MergeChildren(Node* parent, size_t pos);
  Status Refresh(Node* parent, size_t pos);
  // The path to the entry of ascending rank r. REQUIRES: r < size().
  Status DescendRank(uint64_t r, std::vector<Step>* path);

  size_t Capacity(const Node& node) const;

  ZSetRoot root_;  // root_.index is stale: index_ has the live one
  PageIo* io_;
  uint32_t page_members_;
  MemberPages index_;
  std::map<uint64_t, Node> nodes_;  // loaded
};

}  // namespace slotkv
