#include "core/types/zset_pages.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <utility>

#include "core/base/coding.h"

namespace slotkv {

namespace {

bool Before(const ZSetValue::Entry& a, const ZSetValue::Entry& b) {
  return ZSetValue::Less::Before(a.score, a.member, b.score, b.member);
}

bool Same(const ZSetValue::Entry& a, const ZSetValue::Entry& b) {
  return !Before(a, b) && !Before(b, a);
}

void PutEntry(std::string* out, const ZSetValue::Entry& e) {
  PutFixed64(out, std::bit_cast<uint64_t>(e.score));
  PutLengthPrefixed(out, e.member);
}

bool GetEntry(std::string_view* in, ZSetValue::Entry* e) {
  uint64_t bits = 0;
  std::string_view member;
  if (!GetFixed64(in, &bits) || !GetLengthPrefixed(in, &member)) return false;
  e->score = std::bit_cast<double>(bits);
  e->member.assign(member);
  return !std::isnan(e->score);
}

}  // namespace

std::string ZSetRoot::Encode() const {
  std::string out;
  out.push_back(static_cast<char>(kPagedMarker));
  out.push_back(static_cast<char>(kZSetKind));
  index.EncodeFields(&out);
  PutVarint64(&out, tree);
  out.push_back(static_cast<char>(height));
  PutVarint64(&out, nodes);
  PutVarint64(&out, free);
  return out;
}

Result<ZSetRoot> ZSetRoot::Decode(std::string_view bytes) {
  ZSetRoot r;
  if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != kPagedMarker ||
      static_cast<uint8_t>(bytes[1]) != kZSetKind) {
    return Status::Corruption("sorted set root: bad header");
  }
  std::string_view in = bytes.substr(2);
  if (!HashedRoot::DecodeFields(&in, &r.index) || !GetVarint64(&in, &r.tree) || in.empty()) {
    return Status::Corruption("sorted set root: truncated");
  }
  r.height = static_cast<uint8_t>(in[0]);
  in.remove_prefix(1);
  if (!GetVarint64(&in, &r.nodes) || !GetVarint64(&in, &r.free) || !in.empty() ||
      r.tree > r.nodes || r.free > r.nodes || r.nodes >= kTreePageBit ||
      (r.tree == 0) != (r.index.count == 0)) {
    return Status::Corruption("sorted set root: bad fields");
  }
  return r;
}

Result<uint64_t> PagedRootCount(std::string_view bytes) {
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[1]) == kZSetKind) {
    SLOTKV_ASSIGN_OR_RETURN(ZSetRoot root, ZSetRoot::Decode(bytes));
    return root.index.count;
  }
  SLOTKV_ASSIGN_OR_RETURN(HashedRoot root, HashedRoot::Decode(bytes));
  return root.count;
}

std::string ZSetPages::EncodeScore(double score) {
  std::string out;
  PutFixed64(&out, std::bit_cast<uint64_t>(score));
  return out;
}

Result<double> ZSetPages::DecodeScore(std::string_view bytes) {
  uint64_t bits = 0;
  if (bytes.size() != 8 || !GetFixed64(&bytes, &bits)) {
    return Status::Corruption("sorted set index: bad score");
  }
  const double score = std::bit_cast<double>(bits);
  if (std::isnan(score)) return Status::Corruption("sorted set index: NaN score");
  return score;
}

ZSetPages::ZSetPages(ZSetRoot root, PageIo* io, uint32_t page_members)
    : root_(root), io_(io), page_members_(page_members), index_(root.index, io, page_members) {}

ZSetPages ZSetPages::Create(PageIo* io, uint32_t page_members) {
  ZSetRoot root;
  root.index = MemberPages::Create(io, page_members).root();
  return ZSetPages(root, io, page_members);
}

ZSetRoot ZSetPages::root() const {
  ZSetRoot r = root_;
  r.index = index_.root();
  return r;
}

size_t ZSetPages::Capacity(const Node& node) const {
  return std::max<size_t>(page_members_, node.leaf ? 2 : 4);
}

// ---- nodes ------------------------------------------------------------------------------

Result<ZSetPages::Node*> ZSetPages::Load(uint64_t n) {
  auto it = nodes_.find(n);
  if (it != nodes_.end()) return &it->second;
  if (n >= root_.nodes) return Status::Corruption("sorted set: node number out of range");
  SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> bytes,
                          io_->GetPage(root_.index.id, kTreePageBit + n));
  if (!bytes) return Status::Corruption("sorted set: tree node missing");
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
        node.entries.emplace_back();
        ok = GetEntry(&in, &node.entries.back());
      } else {
        Child& c = node.children.emplace_back();
        ok = GetVarint64(&in, &c.node) && GetVarint64(&in, &c.count) && GetEntry(&in, &c.first);
      }
    }
  }
  if (!ok || !in.empty()) return Status::Corruption("sorted set: bad tree node");
  return &nodes_.emplace(n, std::move(node)).first->second;
}

std::string ZSetPages::EncodeNode(const Node& node) {
  std::string out;
  if (node.free) {
    out.push_back('F');
    PutVarint64(&out, node.next_free);
    return out;
  }
  out.push_back(node.leaf ? 'L' : 'I');
  PutVarint64(&out, node.size());
  for (const Entry& e : node.entries) PutEntry(&out, e);
  for (const Child& c : node.children) {
    PutVarint64(&out, c.node);
    PutVarint64(&out, c.count);
    PutEntry(&out, c.first);
  }
  return out;
}

Result<uint64_t> ZSetPages::Allocate(bool leaf) {
  uint64_t n = 0;
  if (root_.free != 0) {
    n = root_.free - 1;
    SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(n));
    if (!node->free) return Status::Corruption("sorted set: free chain names a live node");
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

Status ZSetPages::Free(uint64_t n) {
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

Status ZSetPages::Descend(const Entry& e, std::vector<Step>* path) {
  path->clear();
  if (root_.tree == 0) return Status::OK();
  uint64_t n = root_.tree - 1;
  for (int level = root_.height;; --level) {
    SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(n));
    if (node->free || node->leaf != (level == 0) || node->size() == 0) {
      return Status::Corruption("sorted set: bad tree shape");
    }
    if (node->leaf) {
      auto it = std::lower_bound(node->entries.begin(), node->entries.end(), e, Before);
      path->push_back({n, static_cast<size_t>(it - node->entries.begin())});
      return Status::OK();
    }
    // The last child whose first entry is not after e (the first child when all are).
    auto it = std::upper_bound(node->children.begin(), node->children.end(), e,
                               [](const Entry& x, const Child& c) { return Before(x, c.first); });
    const size_t pos = it == node->children.begin() ? 0 : (it - node->children.begin()) - 1;
    path->push_back({n, pos});
    n = node->children[pos].node;
  }
}

Status ZSetPages::DescendRank(uint64_t r, std::vector<Step>* path) {
  path->clear();
  uint64_t n = root_.tree - 1;
  for (int level = root_.height;; --level) {
    SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(n));
    if (node->free || node->leaf != (level == 0)) {
      return Status::Corruption("sorted set: bad tree shape");
    }
    if (node->leaf) {
      if (r >= node->entries.size()) return Status::Corruption("sorted set: bad counts");
      path->push_back({n, static_cast<size_t>(r)});
      return Status::OK();
    }
    size_t pos = 0;
    while (pos < node->children.size() && r >= node->children[pos].count) {
      r -= node->children[pos].count;
      ++pos;
    }
    if (pos == node->children.size()) return Status::Corruption("sorted set: bad counts");
    path->push_back({n, pos});
    n = node->children[pos].node;
  }
}

// ---- changes ----------------------------------------------------------------------------

Status ZSetPages::Refresh(Node* parent, size_t pos) {
  Child& c = parent->children[pos];
  SLOTKV_ASSIGN_OR_RETURN(Node * child, Load(c.node));
  if (child->leaf) {
    c.count = child->entries.size();
    c.first = child->entries.front();
  } else {
    c.count = 0;
    for (const Child& g : child->children) c.count += g.count;
    c.first = child->children.front().first;
  }
  parent->dirty = true;
  return Status::OK();
}

Status ZSetPages::SplitChild(Node* parent, size_t pos) {
  const uint64_t left_n = parent->children[pos].node;
  SLOTKV_ASSIGN_OR_RETURN(Node * left, Load(left_n));
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

Result<bool> ZSetPages::MergeChildren(Node* parent, size_t pos) {
  SLOTKV_ASSIGN_OR_RETURN(Node * left, Load(parent->children[pos].node));
  SLOTKV_ASSIGN_OR_RETURN(Node * right, Load(parent->children[pos + 1].node));
  if (left->size() + right->size() > Capacity(*left)) return false;
  if (left->leaf) {
    for (Entry& e : right->entries) left->entries.push_back(std::move(e));
  } else {
    for (Child& c : right->children) left->children.push_back(std::move(c));
  }
  left->dirty = true;
  SLOTKV_RETURN_IF_ERROR(Free(parent->children[pos + 1].node));
  parent->children.erase(parent->children.begin() + pos + 1);
  SLOTKV_RETURN_IF_ERROR(Refresh(parent, pos));
  return true;
}

Status ZSetPages::FixPath(std::vector<Step>& path) {
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

Status ZSetPages::Insert(const Entry& e) {
  if (root_.tree == 0) {
    SLOTKV_ASSIGN_OR_RETURN(uint64_t n, Allocate(true));
    nodes_.at(n).entries.push_back(e);
    root_.tree = n + 1;
    root_.height = 0;
    return Status::OK();
  }
  std::vector<Step> path;
  SLOTKV_RETURN_IF_ERROR(Descend(e, &path));
  SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
  leaf->entries.insert(leaf->entries.begin() + path.back().pos, e);
  leaf->dirty = true;
  return FixPath(path);
}

Result<bool> ZSetPages::Erase(const Entry& e) {
  std::vector<Step> path;
  SLOTKV_RETURN_IF_ERROR(Descend(e, &path));
  if (path.empty()) return false;
  SLOTKV_ASSIGN_OR_RETURN(Node * leaf, Load(path.back().node));
  const size_t pos = path.back().pos;
  if (pos >= leaf->entries.size() || !Same(leaf->entries[pos], e)) return false;
  leaf->entries.erase(leaf->entries.begin() + pos);
  leaf->dirty = true;
  SLOTKV_RETURN_IF_ERROR(FixPath(path));
  return true;
}

// ---- the set ------------------------------------------------------------------------------

Result<std::optional<double>> ZSetPages::Score(std::string_view member) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> bytes, index_.Get(member));
  if (!bytes) return std::optional<double>();
  SLOTKV_ASSIGN_OR_RETURN(double score, DecodeScore(*bytes));
  return std::optional<double>(score);
}

Result<ZSetValue::Change> ZSetPages::Set(std::string_view member, double score) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<double> old, Score(member));
  if (old && *old == score) return ZSetValue::Change::kUnchanged;
  if (old) {
    SLOTKV_ASSIGN_OR_RETURN(bool erased, Erase({*old, std::string(member)}));
    if (!erased) return Status::Corruption("sorted set: member in the index, not in the tree");
  }
  SLOTKV_RETURN_IF_ERROR(Insert({score, std::string(member)}));
  SLOTKV_RETURN_IF_ERROR(index_.Set(member, EncodeScore(score)).status());
  return old ? ZSetValue::Change::kUpdated : ZSetValue::Change::kAdded;
}

Result<bool> ZSetPages::Remove(std::string_view member) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<double> old, Score(member));
  if (!old) return false;
  SLOTKV_ASSIGN_OR_RETURN(bool erased, Erase({*old, std::string(member)}));
  if (!erased) return Status::Corruption("sorted set: member in the index, not in the tree");
  SLOTKV_RETURN_IF_ERROR(index_.Delete(member).status());
  return true;
}

Result<std::optional<uint64_t>> ZSetPages::Rank(std::string_view member) {
  SLOTKV_ASSIGN_OR_RETURN(std::optional<double> score, Score(member));
  if (!score) return std::optional<uint64_t>();
  const Entry e{*score, std::string(member)};
  std::vector<Step> path;
  SLOTKV_RETURN_IF_ERROR(Descend(e, &path));
  uint64_t rank = 0;
  for (const Step& s : path) {
    SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(s.node));
    if (!node->leaf) {
      for (size_t i = 0; i < s.pos; ++i) rank += node->children[i].count;
    } else if (s.pos >= node->entries.size() || !Same(node->entries[s.pos], e)) {
      return Status::Corruption("sorted set: member in the index, not in the tree");
    }
  }
  return std::optional<uint64_t>(rank + path.back().pos);
}

Result<uint64_t> ZSetPages::CountBefore(const Pred& pred) {
  if (root_.tree == 0) return uint64_t{0};
  uint64_t n = root_.tree - 1;
  uint64_t rank = 0;
  for (int level = root_.height;; --level) {
    SLOTKV_ASSIGN_OR_RETURN(Node * node, Load(n));
    if (node->free || node->leaf != (level == 0)) {
      return Status::Corruption("sorted set: bad tree shape");
    }
    if (node->leaf) {
      auto it = std::partition_point(node->entries.begin(), node->entries.end(),
                                     [&](const Entry& e) { return !pred(e); });
      return rank + static_cast<uint64_t>(it - node->entries.begin());
    }
    // The child before the first whose smallest entry satisfies pred holds the answer, or
    // its end does (then the answer is that first entry).
    size_t first = 0;
    while (first < node->children.size() && !pred(node->children[first].first)) ++first;
    const size_t pos = first == 0 ? 0 : first - 1;
    for (size_t i = 0; i < pos; ++i) rank += node->children[i].count;
    n = node->children[pos].node;
  }
}

Status ZSetPages::Walk(uint64_t rank, bool reverse, const std::function<bool(const Entry&)>& fn) {
  if (rank >= size()) return Status::OK();
  std::vector<Step> path;
  SLOTKV_RETURN_IF_ERROR(DescendRank(rank, &path));
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
      if (node->leaf) break;
      SLOTKV_ASSIGN_OR_RETURN(Node * child, Load(node->children[path.back().pos].node));
      if (child->size() == 0) return Status::Corruption("sorted set: empty tree node");
      path.push_back({node->children[path.back().pos].node, reverse ? child->size() - 1 : 0});
    }
  }
}

Status ZSetPages::Finish() {
  SLOTKV_RETURN_IF_ERROR(index_.Finish());
  for (auto& [n, node] : nodes_) {
    if (!node.dirty) continue;
    SLOTKV_RETURN_IF_ERROR(
        io_->PutPage(root_.index.id, kTreePageBit + n, EncodeNode(node), !node.existed));
    node.existed = true;
    node.dirty = false;
  }
  return Status::OK();
}

}  // namespace slotkv
