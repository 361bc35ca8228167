// CountedTree: an order-statistic B+tree whose nodes are pages (PageIo), the ordered part of a
// paged sorted set (zset_pages.h) and the whole of a paged list (list_pages.h).
//
// Design. A leaf holds entries in order; an internal node holds, per child, its node number
// and its entry count, and in a keyed tree (a sorted set) also the child's smallest entry, so
// a predicate over the order can be sought in one descent (CountBefore). The counts make every
// positional operation one descent: the entry at a rank, insert before a rank, erase or replace
// at a rank, walk from a rank either way. A node splits in two past its capacity (leaves
// max(node_entries, 2) entries, internal nodes max(node_entries, 4) children); a node left
// under a quarter full merges with a neighbour when both fit in one node; an emptied node is
// freed; a root left with one child gives way to it. Node numbers come from a free chain
// (freed nodes hold the next free number) before new ones are numbered, so the tree's pages
// are exactly base + [0, nodes) of the collection (base: kTreePageBit for a collection's main
// tree, tree_root.h): a dropped collection is reclaimed
// by index range.
//
// Every change rewrites the path from the root to the leaf it changed (the counts on it
// change): O(height) pages. Pages are written by Finish, once per command; a changed node that
// existed goes as its decoded form when the PageIo takes it so (PutDecoded), and is encoded
// when needed.
//
// Node grammar (Traits::Put / Get write and read one entry):
//   leaf     := 'L' n:varint64 entry*n
//   internal := 'I' n:varint64 (node:varint64 count:varint64 [first:entry])*n   first: keyed
//   free     := 'F' next:varint64                                               next: node + 1
//
// Thread rule: none inside; used by the slot's owner for the duration of one command.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/types/member_pages.h"
#include "core/types/stream_value.h"
#include "core/types/tree_root.h"
#include "core/types/zset_value.h"

namespace slotkv {

// A sorted set's entries: (score, member), ordered, firsts kept.
struct ZSetTreeTraits {
  using Entry = ZSetValue::Entry;
  using Key = ZSetValue::Less::Key;
  static constexpr bool kKeyed = true;
  static Key KeyOf(const Entry& e) { return {e.score, e.member}; }
  static bool Less(const Key& a, const Entry& b) {
    return ZSetValue::Less::Before(a.score, a.member, b.score, b.member);
  }
  static bool Less(const Entry& a, const Key& b) {
    return ZSetValue::Less::Before(a.score, a.member, b.score, b.member);
  }
  // The bytes Put writes for e, and Put: writes them at out, returning the byte after.
  static size_t Bytes(const Entry& e);
  static char* Put(char* out, const Entry& e);
  static bool Get(std::string_view* in, Entry* e);
  static size_t HeapBytes(const Entry& e) { return e.member.capacity(); }
  static void Prefetch(const Entry& e) { __builtin_prefetch(e.member.data()); }
  // What an internal node keeps of a child's smallest entry: all of it (the member is the key).
  static const Entry& KeyEntry(const Entry& e) { return e; }
};

// A stream's entries: ordered by ID; an internal node keeps the IDs of its children's
// smallest entries without their fields.
struct StreamTreeEntry {
  StreamId id;
  StreamFields fields;
};
// What the trees keyed by a stream ID (entries, pending entries) share: E has an `id`.
template <class E>
struct ByStreamIdTraits {
  using Entry = E;
  using Key = StreamId;
  static constexpr bool kKeyed = true;
  static Key KeyOf(const Entry& e) { return e.id; }
  static bool Less(const Key& a, const Entry& b) { return a < b.id; }
  static bool Less(const Entry& a, const Key& b) { return a.id < b; }
  static void Prefetch(const Entry&) {}
};
struct StreamTreeTraits : ByStreamIdTraits<StreamTreeEntry> {
  static size_t Bytes(const Entry& e);
  static char* Put(char* out, const Entry& e);
  static bool Get(std::string_view* in, Entry* e);
  static size_t HeapBytes(const Entry& e);
  static Entry KeyEntry(const Entry& e) { return {e.id, {}}; }
};

// A consumer group's pending entries (stream_pages.h): by ID, each naming its consumer; an
// internal node keeps the IDs of its children's smallest entries.
struct StreamPelEntry {
  StreamId id;
  std::string consumer;
  int64_t delivery_time = 0;
  uint64_t delivery_count = 0;
};
struct StreamPelTraits : ByStreamIdTraits<StreamPelEntry> {
  static size_t Bytes(const Entry& e);
  static char* Put(char* out, const Entry& e);
  static bool Get(std::string_view* in, Entry* e);
  static size_t HeapBytes(const Entry& e) { return e.consumer.capacity(); }
  static Entry KeyEntry(const Entry& e) { return {e.id, {}, 0, 0}; }
};

// The same pending entries by consumer: (consumer, ID), by consumer name (bytes), then ID.
struct StreamOwnedEntry {
  std::string consumer;
  StreamId id;
};
struct StreamOwnedTraits {
  using Entry = StreamOwnedEntry;
  struct Key {
    std::string_view consumer;
    StreamId id;
  };
  static constexpr bool kKeyed = true;
  static bool Before(std::string_view ca, const StreamId& ia, std::string_view cb,
                     const StreamId& ib) {
    const int c = ca.compare(cb);
    return c < 0 || (c == 0 && ia < ib);
  }
  static Key KeyOf(const Entry& e) { return {e.consumer, e.id}; }
  static bool Less(const Key& a, const Entry& b) {
    return Before(a.consumer, a.id, b.consumer, b.id);
  }
  static bool Less(const Entry& a, const Key& b) {
    return Before(a.consumer, a.id, b.consumer, b.id);
  }
  static size_t Bytes(const Entry& e);
  static char* Put(char* out, const Entry& e);
  static bool Get(std::string_view* in, Entry* e);
  static size_t HeapBytes(const Entry& e) { return e.consumer.capacity(); }
  static void Prefetch(const Entry&) {}
  static const Entry& KeyEntry(const Entry& e) { return e; }
};

// A list's elements: positions only.
struct ListTreeTraits {
  using Entry = std::string;
  using Key = std::string_view;  // unused: a list is not keyed
  static constexpr bool kKeyed = false;
  static Key KeyOf(const Entry& e) { return e; }
  static bool Less(const Key&, const Entry&) { return false; }
  static bool Less(const Entry&, const Key&) { return false; }
  static size_t Bytes(const Entry& e);
  static char* Put(char* out, const Entry& e);
  static bool Get(std::string_view* in, Entry* e);
  static size_t HeapBytes(const Entry& e) { return e.capacity(); }
  static void Prefetch(const Entry& e) { __builtin_prefetch(e.data()); }
};

template <class Traits>
class CountedTree {
 public:
  using Entry = typename Traits::Entry;
  using Key = typename Traits::Key;
  using Pred = std::function<bool(const Entry&)>;

  // The tree of collection id whose fields are root, node n at page base + n.
  CountedTree(TreeRoot root, PageIo* io, uint64_t id, uint32_t node_entries,
              uint64_t base = kTreePageBit);
  // Gives the nodes it took unchanged back to the PageIo (which must outlive it).
  ~CountedTree();
  CountedTree(CountedTree&& other) noexcept;
  CountedTree& operator=(CountedTree&&) = delete;

  const TreeRoot& root() const { return root_; }
  // The entry count (a descent-free read of the root node's counts).
  Result<uint64_t> Size();

  // Inserts e before the entry of rank `rank` (at the end when rank == size).
  Status InsertAt(uint64_t rank, Entry e);
  // Removes the entry of rank `rank` and returns it. REQUIRES: rank < size.
  Result<Entry> EraseAt(uint64_t rank);
  // Replaces the entry of rank `rank`. REQUIRES: rank < size.
  Status ReplaceAt(uint64_t rank, Entry e);
  // Calls fn on the entries from rank `rank` on, ascending or (reverse) descending, until fn
  // returns false or the entries end. Nothing when rank >= size.
  Status Walk(uint64_t rank, bool reverse, const std::function<bool(const Entry&)>& fn);
  // Keyed trees: how many entries come before the first one for which pred holds (the size
  // when none does). pred must be false then true along the order; one that is not gives some
  // position.
  Result<uint64_t> CountBefore(const Pred& pred);

  // Keyed trees whose entries are distinct under Traits::Less, each one descent by key:
  // the rank of the entry equal to key (nullopt when none is), that rank with a copy of the
  // entry, e inserted at its place in the order, the entry equal to key removed (false when
  // none is).
  Result<std::optional<uint64_t>> RankOf(const Key& key);
  Result<std::optional<std::pair<uint64_t, Entry>>> Find(const Key& key);
  Status Insert(Entry e);
  Result<bool> Erase(const Key& key);

  // Corruption unless the tree holds `count` entries, the count its owner keeps in its root:
  // a damaged root whose count disagrees with the tree must not be stored, as an empty tree
  // under a non-zero count (or the reverse) would not decode. Call before writing anything.
  Status CheckSize(uint64_t count);

  // Writes every changed node, handing every node loaded over to the PageIo (later calls
  // load them again).
  Status Finish();

 private:
  struct Child {
    uint64_t node = 0;
    uint64_t count = 0;
    Entry first{};  // keyed trees: the smallest entry under the child
  };
  struct Node {
    bool leaf = true;
    bool free = false;  // on the free chain; next_free is the next one + 1
    uint64_t next_free = 0;
    std::vector<Entry> entries;   // leaf
    std::vector<Child> children;  // internal
    bool existed = false;         // in storage before this tree wrote it
    bool dirty = false;
    uint64_t version = 0;  // DecodedPage::version when taken from the PageIo, else 0
    size_t size() const { return leaf ? entries.size() : children.size(); }
  };
  // A node as the PageIo keeps it.
  struct DecodedNode : DecodedPage {
    Node node;
    size_t memory_bytes() const override;
    void Encode(std::string* out) const override { *out = EncodeNode(node); }
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
  // The path to rank r; with `end_ok`, r may equal the size (the position after the last).
  Status DescendRank(uint64_t r, bool end_ok, std::vector<Step>* path);
  // Load(n) for a descent at `level` (0: the leaves) that took path so far: Corruption for a
  // node that cannot be there (free, at the wrong level, empty, or already on the path).
  Result<Node*> LoadOnPath(uint64_t n, int level, const std::vector<Step>& path);
  // Keyed trees: the path to where key is or would go (the leaf's first entry not before key,
  // or its end), and its rank.
  Status DescendKey(const Key& key, std::vector<Step>* path, uint64_t* rank);
  // The node at the end of path, checked to be a leaf holding key at the path's position.
  Result<bool> HoldsKey(const std::vector<Step>& path, const Key& key);
  // After the leaf of path changed: refreshes counts (and firsts) up the path, splits or merges
  // nodes as needed, and replaces the root when it split, emptied or has one child left.
  Status FixPath(const std::vector<Step>& path);
  Status SplitChild(Node* parent, size_t pos);
  // Merges child pos+1 of parent into child pos when they fit in one node; true when merged.
  Result<bool> MergeChildren(Node* parent, size_t pos);
  Status Refresh(Node* parent, size_t pos);
  size_t Capacity(const Node& node) const;
  // Gives the nodes loaded and not changed that came from TakeDecoded back to the PageIo.
  void KeepUnchanged();

  TreeRoot root_;
  PageIo* io_;
  uint64_t id_;
  uint32_t node_entries_;
  uint64_t base_;
  std::map<uint64_t, Node> nodes_;  // loaded
};

extern template class CountedTree<ZSetTreeTraits>;
extern template class CountedTree<ListTreeTraits>;
extern template class CountedTree<StreamTreeTraits>;
extern template class CountedTree<StreamPelTraits>;
extern template class CountedTree<StreamOwnedTraits>;

}  // namespace slotkv
