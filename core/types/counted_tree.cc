#include "core/types/counted_tree.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>
#include <iterator>
#include <memory>
#include <utility>

#include "core/base/coding.h"

namespace slotkv {

void TreeRoot::EncodeFields(std::string* out) const {
  PutVarint64(out, tree);
  out->push_back(static_cast<char>(height));
  PutVarint64(out, nodes);
  PutVarint64(out, free);
}

bool TreeRoot::DecodeFields(std::string_view* in, TreeRoot* r) {
  if (!GetVarint64(in, &r->tree) || in->empty()) return false;
  r->height = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  return GetVarint64(in, &r->nodes) && GetVarint64(in, &r->free) && r->tree <= r->nodes &&
         r->free <= r->nodes && r->nodes < kTreePageBit && r->height < 64;
}

size_t ZSetTreeTraits::Bytes(const Entry& e) {
  return 8 + static_cast<size_t>(VarintLength(e.member.size())) + e.member.size();
}

char* ZSetTreeTraits::Put(char* out, const Entry& e) {
  EncodeFixed64(out, std::bit_cast<uint64_t>(e.score));
  out = EncodeVarint64(out + 8, e.member.size());
  std::memcpy(out, e.member.data(), e.member.size());
  return out + e.member.size();
}

bool ZSetTreeTraits::Get(std::string_view* in, Entry* e) {
  uint64_t bits = 0;
  std::string_view member;
  if (!GetFixed64(in, &bits) || !GetLengthPrefixed(in, &member)) return false;
  e->score = std::bit_cast<double>(bits);
  e->member.assign(member);
  return !std::isnan(e->score);
}

size_t ListTreeTraits::Bytes(const Entry& e) {
  return static_cast<size_t>(VarintLength(e.size())) + e.size();
}

char* ListTreeTraits::Put(char* out, const Entry& e) {
  out = EncodeVarint64(out, e.size());
  std::memcpy(out, e.data(), e.size());
  return out + e.size();
}

bool ListTreeTraits::Get(std::string_view* in, Entry* e) {
  std::string_view v;
  if (!GetLengthPrefixed(in, &v)) return false;
  e->assign(v);
  return true;
}

size_t StreamTreeTraits::Bytes(const Entry& e) {
  size_t n = static_cast<size_t>(VarintLength(e.id.ms) + VarintLength(e.id.seq) +
                                 VarintLength(e.fields.size()));
  for (const std::string& f : e.fields) n += static_cast<size_t>(VarintLength(f.size())) + f.size();
  return n;
}

char* StreamTreeTraits::Put(char* out, const Entry& e) {
  out = EncodeVarint64(out, e.id.ms);
  out = EncodeVarint64(out, e.id.seq);
  out = EncodeVarint64(out, e.fields.size());
  for (const std::string& f : e.fields) {
    out = EncodeVarint64(out, f.size());
    std::memcpy(out, f.data(), f.size());
    out += f.size();
  }
  return out;
}

bool StreamTreeTraits::Get(std::string_view* in, Entry* e) {
  uint64_t n = 0;
  if (!GetVarint64(in, &e->id.ms) || !GetVarint64(in, &e->id.seq) || !GetVarint64(in, &n) ||
      n > in->size() || n % 2 != 0) {
    return false;
  }
  e->fields.clear();
  e->fields.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view f;
    if (!GetLengthPrefixed(in, &f)) return false;
    e->fields.emplace_back(f);
  }
  return true;
}

size_t StreamTreeTraits::HeapBytes(const Entry& e) {
  size_t n = e.fields.capacity() * sizeof(std::string);
  for (const std::string& f : e.fields) n += f.capacity();
  return n;
}

size_t StreamPelTraits::Bytes(const Entry& e) {
  return static_cast<size_t>(VarintLength(e.id.ms) + VarintLength(e.id.seq) +
                             VarintLength(e.consumer.size()) +
                             VarintLength(static_cast<uint64_t>(e.delivery_time)) +
                             VarintLength(e.delivery_count)) +
         e.consumer.size();
}

char* StreamPelTraits::Put(char* out, const Entry& e) {
  out = EncodeVarint64(out, e.id.ms);
  out = EncodeVarint64(out, e.id.seq);
  out = EncodeVarint64(out, e.consumer.size());
  std::memcpy(out, e.consumer.data(), e.consumer.size());
  out = EncodeVarint64(out + e.consumer.size(), static_cast<uint64_t>(e.delivery_time));
  return EncodeVarint64(out, e.delivery_count);
}

bool StreamPelTraits::Get(std::string_view* in, Entry* e) {
  std::string_view consumer;
  uint64_t time = 0;
  if (!GetVarint64(in, &e->id.ms) || !GetVarint64(in, &e->id.seq) ||
      !GetLengthPrefixed(in, &consumer) || !GetVarint64(in, &time) ||
      !GetVarint64(in, &e->delivery_count)) {
    return false;
  }
  e->consumer.assign(consumer);
  e->delivery_time = static_cast<int64_t>(time);
  return true;
}

size_t StreamOwnedTraits::Bytes(const Entry& e) {
  return static_cast<size_t>(VarintLength(e.consumer.size()) + VarintLength(e.id.ms) +
                             VarintLength(e.id.seq)) +
         e.consumer.size();
}

char* StreamOwnedTraits::Put(char* out, const Entry& e) {
  out = EncodeVarint64(out, e.consumer.size());
  std::memcpy(out, e.consumer.data(), e.consumer.size());
  out = EncodeVarint64(out + e.consumer.size(), e.id.ms);
  return EncodeVarint64(out, e.id.seq);
}

bool StreamOwnedTraits::Get(std::string_view* in, Entry* e) {
  std::string_view consumer;
  if (!GetLengthPrefixed(in, &consumer) || !GetVarint64(in, &e->id.ms) ||
      !GetVarint64(in, &e->id.seq)) {
    return false;
  }
  e->consumer.assign(consumer);
  return true;
}

template <class Traits>
CountedTree<Traits>::CountedTree(TreeRoot root, PageIo* io, uint64_t id, uint32_t node_entries,
                                 uint64_t base)
    : root_(root), io_(io), id_(id), node_entries_(node_entries), base_(base) {}

template <class Traits>
CountedTree<Traits>::CountedTree(CountedTree&& other) noexcept
    : root_(other.root_),
      io_(other.io_),
      id_(other.id_),
      node_entries_(other.node_entries_),
      base_(other.base_),
      nodes_(std::move(other.nodes_)) {
  other.nodes_.clear();
}

template <class Traits>
CountedTree<Traits>::~CountedTree() {
  KeepUnchanged();
}

template <class Traits>
size_t CountedTree<Traits>::DecodedNode::memory_bytes() const {
  size_t bytes = sizeof(*this) + node.entries.capacity() * sizeof(Entry) +
                 node.children.capacity() * sizeof(Child);
  for (const Entry& e : node.entries) bytes += Traits::HeapBytes(e);
  if constexpr (Traits::kKeyed) {
    for (const Child& c : node.children) bytes += Traits::HeapBytes(c.first);
  }
  return bytes;
}

template <class Traits>
void CountedTree<Traits>::KeepUnchanged() {
  for (auto& [n, node] : nodes_) {
    if (node.dirty || node.version == 0) continue;
    auto kept = std::make_unique<DecodedNode>();
    kept->version = node.version;
    kept->node = std::move(node);
    io_->KeepDecoded(id_, base_ + n, std::move(kept));
  }
  nodes_.clear();
}

template <class Traits>
size_t CountedTree<Traits>::Capacity(const Node& node) const {
  return std::max<size_t>(node_entries_, node.leaf ? 2 : 4);
}

// ---- nodes ------------------------------------------------------------------------------

template <class Traits>
std::string CountedTree<Traits>::EncodeNode(const Node& node) {
  std::string out;
  if (node.free) {
    out.push_back('F');
    PutVarint64(&out, node.next_free);
    return out;
  }
  // Sized first, then written in place: appended a varint at a time, the encoding of a list's
  // internal nodes (two varints a child) took 12% of the server's CPU under LPUSH. Sizing
  // prefetches each entry's bytes (a heap block of its own past 15 bytes): copied one after
  // the other, cold, they were 7.6% of the server's CPU under ZADD -P 1 on a 100k-member set.
  size_t bytes = 1 + static_cast<size_t>(VarintLength(node.size()));
  for (const Entry& e : node.entries) {
    Traits::Prefetch(e);
    bytes += Traits::Bytes(e);
  }
  for (const Child& c : node.children) {
    bytes += static_cast<size_t>(VarintLength(c.node) + VarintLength(c.count));
    if constexpr (Traits::kKeyed) {
      Traits::Prefetch(c.first);
      bytes += Traits::Bytes(c.first);
    }
  }
  out.resize(bytes);
  char* p = out.data();
  *p++ = node.leaf ? 'L' : 'I';
  p = EncodeVarint64(p, node.size());
  for (const Entry& e : node.entries) p = Traits::Put(p, e);
  for (const Child& c : node.children) {
    p = EncodeVarint64(p, c.node);
    p = EncodeVarint64(p, c.count);
    if constexpr (Traits::kKeyed) p = Traits::Put(p, c.first);
  }
  assert(p == out.data() + out.size());
  return out;
}

template <class Traits>
auto CountedTree<Traits>::Load(uint64_t n) -> Result<Node*> {
  auto it = nodes_.find(n);
  if (it != nodes_.end()) return &it->second;
  if (n >= root_.nodes) return Status::Corruption("paged tree: node number out of range");
  std::unique_ptr<DecodedPage> kept = io_->TakeDecoded(id_, base_ + n);
  if (auto* decoded = dynamic_cast<DecodedNode*>(kept.get())) {
    decoded->node.version = decoded->version;
    return &nodes_.emplace(n, std::move(decoded->node)).first->second;
  }
  SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> bytes, io_->GetPage(id_, base_ + n));
  if (!bytes) return Status::Corruption("paged tree: node missing");
  Node node;
  node.existed = true;
  std::string_view in = *bytes;
  const char kind = in.empty() ? 0 : in[0];
  in.remove_prefix(in.empty() ? 0 : 1);
  uint64_t count = 0;
  bool ok = false;
  if (kind == 'F') {
    node.free = true;
    ok = GetVarint64(&in, &node.next_free);
  } else if ((kind == 'L' || kind == 'I') && GetVarint64(&in, &count) && count <= in.size()) {
    node.leaf = kind == 'L';
    ok = true;
    for (uint64_t i = 0; ok && i < count; ++i) {
      if (node.leaf) {
        ok = Traits::Get(&in, &node.entries.emplace_back());
      } else {
        Child& c = node.children.emplace_back();
        ok = GetVarint64(&in, &c.node) && GetVarint64(&in, &c.count);
        if constexpr (Traits::kKeyed) ok = ok && Traits::Get(&in, &c.first);
      }
    }
  }
  if (!ok || !in.empty()) return Status::Corruption("paged tree: bad node");
  return &nodes_.emplace(n, std::move(node)).first->second;
}

template <class Traits>
Result<uint64_t> CountedTree<Traits>::Allocate(bool leaf) {
  uint64_t n = 0;
  if (root_.free != 0) {
    n = root_.free - 1;
    SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(n));
    if (!node->free) return Status::Corruption("paged tree: free chain names a live node");
    root_.free = node->next_free;
    node->free = false;
    node->next_free = 0;
  } else {
    n = root_.nodes++;
    nodes_.emplace(n, Node());
  }
  Node& node = nodes_.at(n);
  node.leaf = leaf;
  node.entries.clear();
  node.children.clear();
  node.dirty = true;
  return n;
}

template <class Traits>
Status CountedTree<Traits>::Free(uint64_t n) {
  SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(n));
  node->free = true;
  node->next_free = root_.free;
  node->entries.clear();
  node->children.clear();
  node->dirty = true;
  root_.free = n + 1;
  return Status::OK();
}

// ---- descents ---------------------------------------------------------------------------

template <class Traits>
Result<uint64_t> CountedTree<Traits>::Size() {
  if (root_.tree == 0) return uint64_t{0};
  SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(root_.tree - 1));
  if (node->leaf) return static_cast<uint64_t>(node->entries.size());
  uint64_t n = 0;
  for (const Child& c : node->children) n += c.count;
  return n;
}

template <class Traits>
Status CountedTree<Traits>::CheckSize(uint64_t count) {
  SLOTKV_ASSIGN_OR_RETURN(uint64_t n, Size());
  if (n == count) return Status::OK();
  return Status::Corruption("paged tree: holds " + std::to_string(n) + " entries, the root counts " +
                            std::to_string(count));
}

template <class Traits>
auto CountedTree<Traits>::LoadOnPath(uint64_t n, int level, const std::vector<Step>& path)
    -> Result<Node*> {
  SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(n));
  if (node->free || node->leaf != (level == 0) || node->size() == 0 ||
      std::any_of(path.begin(), path.end(), [n](const Step& s) { return s.node == n; })) {
    return Status::Corruption("paged tree: bad shape");
  }
  return node;
}

template <class Traits>
Status CountedTree<Traits>::DescendRank(uint64_t r, bool end_ok, std::vector<Step>* path) {
  path->clear();
  if (root_.tree == 0) return Status::Corruption("paged tree: rank past the end");
  uint64_t n = root_.tree - 1;
  for (int level = root_.height;; --level) {
    SLOTKV_ASSIGN_OR_RETURN(Node * node, LoadOnPath(n, level, *path));
    if (node->leaf) {
      if (r > node->entries.size() || (r == node->entries.size() && !end_ok)) {
        return Status::Corruption("paged tree: bad counts");
      }
      path->push_back({n, static_cast<size_t>(r)});
      return Status::OK();
    }
    size_t pos = 0;
    while (pos + 1 < node->children.size() && r >= node->children[pos].count) {
      r -= node->children[pos].count;
      ++pos;
    }
    path->push_back({n, pos});
    n = node->children[pos].node;
  }
}

template <class Traits>
Status CountedTree<Traits>::DescendKey(const Key& key, std::vector<Step>* path, uint64_t* rank) {
  path->clear();
  *rank = 0;
  if (root_.tree == 0) return Status::Corruption("paged tree: descent in an empty tree");
  uint64_t n = root_.tree - 1;
  for (int level = root_.height;; --level) {
    SLOTKV_ASSIGN_OR_RETURN(Node * node, LoadOnPath(n, level, *path));
    if (node->leaf) {
      auto it = std::partition_point(node->entries.begin(), node->entries.end(),
                                     [&](const Entry& e) { return Traits::Less(e, key); });
      const auto pos = static_cast<size_t>(it - node->entries.begin());
      path->push_back({n, pos});
      *rank += pos;
      return Status::OK();
    }
    // The last child whose smallest entry is not after key (the first when all are).
    auto it = std::partition_point(node->children.begin(), node->children.end(),
                                   [&](const Child& c) { return !Traits::Less(key, c.first); });
    const size_t pos = it == node->children.begin()
                           ? 0
                           : static_cast<size_t>(it - node->children.begin()) - 1;
    for (size_t i = 0; i < pos; ++i) *rank += node->children[i].count;
    path->push_back({n, pos});
    n = node->children[pos].node;
  }
}

template <class Traits>
Result<bool> CountedTree<Traits>::HoldsKey(const std::vector<Step>& path, const Key& key) {
  SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
  const size_t pos = path.back().pos;
  return pos < leaf->entries.size() && !Traits::Less(key, leaf->entries[pos]);
}

// ---- changes ----------------------------------------------------------------------------

template <class Traits>
Status CountedTree<Traits>::Refresh(Node* parent, size_t pos) {
  Child& c = parent->children[pos];
  SLOTKV_ASSIGN_OR_RETURN(Node * child, Load(c.node));
  if (child->leaf) {
    c.count = child->entries.size();
    if constexpr (Traits::kKeyed) c.first = Traits::KeyEntry(child->entries.front());
  } else {
    c.count = 0;
    for (const Child& g : child->children) c.count += g.count;
    if constexpr (Traits::kKeyed) c.first = child->children.front().first;
  }
  parent->dirty = true;
  return Status::OK();
}

template <class Traits>
Status CountedTree<Traits>::SplitChild(Node* parent, size_t pos) {
  SLOTKV_ASSIGN_OR_RETURN(Node * left, Load(parent->children[pos].node));
  SLOTKV_ASSIGN_OR_RETURN(uint64_t right_n, Allocate(left->leaf));
  Node& right = nodes_.at(right_n);
  const size_t keep = (left->size() + 1) / 2;
  if (left->leaf) {
    right.entries.assign(std::make_move_iterator(left->entries.begin() + keep),
                         std::make_move_iterator(left->entries.end()));
    left->entries.resize(keep);
  } else {
    right.children.assign(std::make_move_iterator(left->children.begin() + keep),
                          std::make_move_iterator(left->children.end()));
    left->children.resize(keep);
  }
  left->dirty = true;
  Child c;
  c.node = right_n;
  parent->children.insert(parent->children.begin() + pos + 1, std::move(c));
  SLOTKV_RETURN_IF_ERROR(Refresh(parent, pos));
  return Refresh(parent, pos + 1);
}

template <class Traits>
Result<bool> CountedTree<Traits>::MergeChildren(Node* parent, size_t pos) {
  SLOTKV_ASSIGN_OR_RETURN(Node * left, Load(parent->children[pos].node));
  SLOTKV_ASSIGN_OR_RETURN(Node * right, Load(parent->children[pos + 1].node));
  if (left == right || left == parent || right == parent || left->leaf != right->leaf ||
      left->free || right->free) {
    return Status::Corruption("paged tree: siblings that cannot be");
  }
  if (left->size() + right->size() > Capacity(*left)) return false;
  for (Entry& e : right->entries) left->entries.push_back(std::move(e));
  for (Child& c : right->children) left->children.push_back(std::move(c));
  left->dirty = true;
  SLOTKV_RETURN_IF_ERROR(Free(parent->children[pos + 1].node));
  parent->children.erase(parent->children.begin() + pos + 1);
  SLOTKV_RETURN_IF_ERROR(Refresh(parent, pos));
  return true;
}

template <class Traits>
Status CountedTree<Traits>::FixPath(const std::vector<Step>& path) {
  for (size_t i = path.size() - 1; i > 0; --i) {
    SLOTKV_ASSIGN_OR_RETURN(Node * parent, Load(path[i - 1].node));
    const size_t pos = path[i - 1].pos;
    SLOTKV_ASSIGN_OR_RETURN(Node * child, Load(parent->children[pos].node));
    parent->dirty = true;
    if (child->size() == 0) {
      SLOTKV_RETURN_IF_ERROR(Free(parent->children[pos].node));
      parent->children.erase(parent->children.begin() + pos);
    } else if (child->size() > Capacity(*child)) {
      SLOTKV_RETURN_IF_ERROR(SplitChild(parent, pos));
    } else if (child->size() < Capacity(*child) / 4 && parent->children.size() > 1) {
      const size_t left = pos + 1 < parent->children.size() ? pos : pos - 1;
      const uint64_t sibling = parent->children[left == pos ? pos + 1 : pos - 1].node;
      if (std::any_of(path.begin(), path.end(), [&](const Step& s) { return s.node == sibling; })) {
        return Status::Corruption("paged tree: a sibling on the path");
      }
      SLOTKV_ASSIGN_OR_RETURN(bool merged, MergeChildren(parent, left));
      if (!merged) SLOTKV_RETURN_IF_ERROR(Refresh(parent, pos));
    } else {
      SLOTKV_RETURN_IF_ERROR(Refresh(parent, pos));
    }
  }
  // The root: gone when empty, a level up when it overflows, a level down while it is an
  // internal node with one child.
  SLOTKV_ASSIGN_OR_RETURN(Node * root, Load(root_.tree - 1));
  if (root->size() == 0) {
    SLOTKV_RETURN_IF_ERROR(Free(root_.tree - 1));
    root_.tree = 0;
    root_.height = 0;
    return Status::OK();
  }
  if (root->size() > Capacity(*root)) {
    SLOTKV_ASSIGN_OR_RETURN(uint64_t top_n, Allocate(false));
    Node& top = nodes_.at(top_n);
    Child c;
    c.node = root_.tree - 1;
    top.children.push_back(std::move(c));
    SLOTKV_RETURN_IF_ERROR(SplitChild(&top, 0));
    root_.tree = top_n + 1;
    ++root_.height;
    return Status::OK();
  }
  while (!root->leaf && root->children.size() == 1) {
    const uint64_t old = root_.tree - 1;
    root_.tree = root->children[0].node + 1;
    --root_.height;
    SLOTKV_RETURN_IF_ERROR(Free(old));
    SLOTKV_ASSIGN_OR_RETURN(root, Load(root_.tree - 1));
  }
  return Status::OK();
}

template <class Traits>
Status CountedTree<Traits>::InsertAt(uint64_t rank, Entry e) {
  if (root_.tree == 0) {
    if (rank != 0) return Status::Corruption("paged tree: rank past the end");
    SLOTKV_ASSIGN_OR_RETURN(uint64_t n, Allocate(true));
    nodes_.at(n).entries.push_back(std::move(e));
    root_.tree = n + 1;
    root_.height = 0;
    return Status::OK();
  }
  std::vector<Step> path;
  SLOTKV_RETURN_IF_ERROR(DescendRank(rank, true, &path));
  SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
  leaf->entries.insert(leaf->entries.begin() + path.back().pos, std::move(e));
  leaf->dirty = true;
  return FixPath(path);
}

template <class Traits>
auto CountedTree<Traits>::EraseAt(uint64_t rank) -> Result<Entry> {
  std::vector<Step> path;
  SLOTKV_RETURN_IF_ERROR(DescendRank(rank, false, &path));
  SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
  Entry out = std::move(leaf->entries[path.back().pos]);
  leaf->entries.erase(leaf->entries.begin() + path.back().pos);
  leaf->dirty = true;
  SLOTKV_RETURN_IF_ERROR(FixPath(path));
  return out;
}

template <class Traits>
Status CountedTree<Traits>::ReplaceAt(uint64_t rank, Entry e) {
  std::vector<Step> path;
  SLOTKV_RETURN_IF_ERROR(DescendRank(rank, false, &path));
  SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
  leaf->entries[path.back().pos] = std::move(e);
  leaf->dirty = true;
  // Counts stay; a keyed tree's firsts may change.
  if constexpr (Traits::kKeyed) return FixPath(path);
  return Status::OK();
}

template <class Traits>
Result<std::optional<uint64_t>> CountedTree<Traits>::RankOf(const Key& key) {
  SLOTKV_ASSIGN_OR_RETURN(auto found, Find(key));
  return found ? std::optional<uint64_t>(found->first) : std::optional<uint64_t>();
}

template <class Traits>
Result<std::optional<std::pair<uint64_t, typename Traits::Entry>>> CountedTree<Traits>::Find(
    const Key& key) {
  using Found = std::optional<std::pair<uint64_t, Entry>>;
  if constexpr (!Traits::kKeyed) {
    return Status::InvalidArgument("paged tree: Find needs a keyed tree");
  }
  if (root_.tree == 0) return Found();
  std::vector<Step> path;
  uint64_t rank = 0;
  SLOTKV_RETURN_IF_ERROR(DescendKey(key, &path, &rank));
  SLOTKV_ASSIGN_OR_RETURN(bool held, HoldsKey(path, key));
  if (!held) return Found();
  SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
  return Found(std::in_place, rank, leaf->entries[path.back().pos]);
}

template <class Traits>
Status CountedTree<Traits>::Insert(Entry e) {
  if constexpr (!Traits::kKeyed) {
    return Status::InvalidArgument("paged tree: Insert needs a keyed tree");
  }
  if (root_.tree == 0) return InsertAt(0, std::move(e));
  std::vector<Step> path;
  uint64_t rank = 0;
  SLOTKV_RETURN_IF_ERROR(DescendKey(Traits::KeyOf(e), &path, &rank));
  SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
  leaf->entries.insert(leaf->entries.begin() + static_cast<ptrdiff_t>(path.back().pos),
                       std::move(e));
  leaf->dirty = true;
  return FixPath(path);
}

template <class Traits>
Result<bool> CountedTree<Traits>::Erase(const Key& key) {
  if constexpr (!Traits::kKeyed) {
    return Status::InvalidArgument("paged tree: Erase needs a keyed tree");
  }
  if (root_.tree == 0) return false;
  std::vector<Step> path;
  uint64_t rank = 0;
  SLOTKV_RETURN_IF_ERROR(DescendKey(key, &path, &rank));
  SLOTKV_ASSIGN_OR_RETURN(bool held, HoldsKey(path, key));
  if (!held) return false;
  SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
  leaf->entries.erase(leaf->entries.begin() + static_cast<ptrdiff_t>(path.back().pos));
  leaf->dirty = true;
  SLOTKV_RETURN_IF_ERROR(FixPath(path));
  return true;
}

template <class Traits>
Result<uint64_t> CountedTree<Traits>::CountBefore(const Pred& pred) {
  if constexpr (!Traits::kKeyed) {
    return Status::InvalidArgument("paged tree: CountBefore needs a keyed tree");
  }
  if (root_.tree == 0) return uint64_t{0};
  uint64_t n = root_.tree - 1;
  uint64_t rank = 0;
  for (int level = root_.height;; --level) {
    SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(n));
    if (node->free || node->leaf != (level == 0) || node->size() == 0) {
      return Status::Corruption("paged tree: bad shape");
    }
    if (node->leaf) {
      auto it = std::partition_point(node->entries.begin(), node->entries.end(),
                                     [&](const Entry& e) { return !pred(e); });
      return rank + static_cast<uint64_t>(it - node->entries.begin());
    }
    // The child before the first whose smallest entry satisfies pred holds the answer, or
    // its end does (then the answer is that first entry).
    const auto first = static_cast<size_t>(
        std::partition_point(node->children.begin(), node->children.end(),
                             [&](const Child& c) { return !pred(c.first); }) -
        node->children.begin());
    const size_t pos = first == 0 ? 0 : first - 1;
    for (size_t i = 0; i < pos; ++i) rank += node->children[i].count;
    n = node->children[pos].node;
  }
}

template <class Traits>
Status CountedTree<Traits>::Walk(uint64_t rank, bool reverse,
                                 const std::function<bool(const Entry&)>& fn) {
  SLOTKV_ASSIGN_OR_RETURN(uint64_t size, Size());
  if (rank >= size) return Status::OK();
  std::vector<Step> path;
  SLOTKV_RETURN_IF_ERROR(DescendRank(rank, false, &path));
  while (true) {
    SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
    if (reverse) {
      for (size_t j = path.back().pos + 1; j-- > 0;) {
        if (!fn(leaf->entries[j])) return Status::OK();
      }
    } else {
      for (size_t j = path.back().pos; j < leaf->entries.size(); ++j) {
        if (!fn(leaf->entries[j])) return Status::OK();
      }
    }
    // Up to the first level that has a next (previous) child, then down its edge.
    path.pop_back();
    while (!path.empty()) {
      SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(path.back().node));
      if (reverse ? path.back().pos > 0 : path.back().pos + 1 < node->children.size()) break;
      path.pop_back();
    }
    if (path.empty()) return Status::OK();
    if (reverse) {
      --path.back().pos;
    } else {
      ++path.back().pos;
    }
    while (true) {
      SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(path.back().node));
      // Leaves sit at depth height exactly: a damaged tree never walks in circles.
      const bool at_leaf_depth = path.size() == size_t{root_.height} + 1;
      if (node->free || node->leaf != at_leaf_depth) {
        return Status::Corruption("paged tree: bad shape");
      }
      if (node->leaf) break;
      const uint64_t child_n = node->children[path.back().pos].node;
      SLOTKV_ASSIGN_OR_RETURN(Node * child, Load(child_n));
      if (child->size() == 0) return Status::Corruption("paged tree: empty node");
      path.push_back({child_n, reverse ? child->size() - 1 : 0});
    }
  }
}

template <class Traits>
Status CountedTree<Traits>::Finish() {
  // A changed node leaves nodes_ before it is written: after a failure, a later load reads
  // what storage has.
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    if (!it->second.dirty) {
      ++it;
      continue;
    }
    const uint64_t n = it->first;
    Node& node = it->second;
    const bool created = !node.existed;
    node.existed = true;
    node.dirty = false;
    auto decoded = std::make_unique<DecodedNode>();
    decoded->node = std::move(node);
    it = nodes_.erase(it);
    std::unique_ptr<DecodedPage> page = std::move(decoded);
    // An existing page the slot holds takes the node as it is, encoded when needed.
    if (!created) {
      SLOTKV_ASSIGN_OR_RETURN(bool taken, io_->PutDecoded(id_, base_ + n, &page));
      if (taken) continue;
    }
    std::string bytes;
    page->Encode(&bytes);
    SLOTKV_RETURN_IF_ERROR(io_->PutPage(id_, base_ + n, bytes, created, std::move(page)));
  }
  KeepUnchanged();
  return Status::OK();
}

template class CountedTree<ZSetTreeTraits>;
template class CountedTree<ListTreeTraits>;
template class CountedTree<StreamTreeTraits>;
template class CountedTree<StreamPelTraits>;
template class CountedTree<StreamOwnedTraits>;

}  // namespace slotkv
