// TreePages: decodes the pages of a CountedTree (counted_tree.h) straight from a MapPageIo and
// checks the tree's invariants, for the unit tests of the paged structures built on it
// (zset_pages_test.cc, list_pages_test.cc). Traits is the tree's (ZSetTreeTraits,
// ListTreeTraits): its Get reads one entry, kKeyed says whether children carry first entries.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/coding.h"
#include "core/types/counted_tree.h"

namespace slotkv {

template <class Traits>
struct TreePages {
  using Entry = typename Traits::Entry;

  // A node page per the grammar; nullopt unless the whole page parses.
  struct Parsed {
    char kind = 0;
    std::vector<Entry> entries;                       // 'L'; 'I' of a keyed tree: firsts
    std::vector<std::pair<uint64_t, uint64_t>> kids;  // 'I': (node, count)
    uint64_t next = 0;                                // 'F'
  };
  static std::optional<Parsed> Parse(std::string_view in) {
    Parsed p;
    if (in.empty()) return std::nullopt;
    p.kind = in[0];
    in.remove_prefix(1);
    if (p.kind == 'F') {
      if (!GetVarint64(&in, &p.next) || !in.empty()) return std::nullopt;
      return p;
    }
    uint64_t n = 0;
    if ((p.kind != 'L' && p.kind != 'I') || !GetVarint64(&in, &n)) return std::nullopt;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t node = 0, count = 0;
      if (p.kind == 'I') {
        if (!GetVarint64(&in, &node) || !GetVarint64(&in, &count)) return std::nullopt;
        p.kids.emplace_back(node, count);
      }
      if (p.kind == 'L' || Traits::kKeyed) {
        if (!Traits::Get(&in, &p.entries.emplace_back())) return std::nullopt;
      }
    }
    if (!in.empty()) return std::nullopt;
    return p;
  }

  std::map<uint64_t, std::string_view> pages;  // node number -> page
  size_t leaf_cap = 0;
  size_t inner_cap = 0;
  int height = 0;
  std::function<bool(const Entry&, const Entry&)> same;  // keyed trees: first == smallest
  std::set<uint64_t> reached;
  std::vector<Entry> leaves;  // leaf entries in tree order

  // Checks the subtree of node n at depth `depth`; its entry count.
  uint64_t Visit(uint64_t n, int depth) {
    CAPTURE(n);
    REQUIRE(pages.count(n) == 1);
    REQUIRE(reached.insert(n).second);  // a tree: no node is reached twice
    std::optional<Parsed> p = Parse(pages[n]);
    REQUIRE(p.has_value());
    if (depth == height) {  // every leaf sits at depth height
      REQUIRE(p->kind == 'L');
      CHECK(!p->entries.empty());
      CHECK(p->entries.size() <= leaf_cap);
      leaves.insert(leaves.end(), p->entries.begin(), p->entries.end());
      return p->entries.size();
    }
    REQUIRE(p->kind == 'I');
    CHECK(!p->kids.empty());
    CHECK(p->kids.size() <= inner_cap);
    if (depth == 0) CHECK(p->kids.size() >= 2);  // a root left with one child gives way
    uint64_t total = 0;
    for (size_t i = 0; i < p->kids.size(); ++i) {
      const size_t start = leaves.size();
      const uint64_t under = Visit(p->kids[i].first, depth + 1);
      CHECK(p->kids[i].second == under);
      if (Traits::kKeyed && under > 0) CHECK(same(p->entries[i], leaves[start]));
      total += under;
    }
    return total;
  }

  // Checks the whole tree of root: its pages are exactly kTreePageBit + [0, nodes), the tree
  // holds `count` entries, and the free chain holds exactly the nodes the root does not reach.
  void Check(const TreeRoot& root, uint64_t count) {
    CHECK(pages.size() == root.nodes);
    if (!pages.empty()) CHECK(pages.rbegin()->first < root.nodes);
    REQUIRE((root.tree == 0) == (count == 0));
    if (root.tree != 0) CHECK(Visit(root.tree - 1, 0) == count);
    std::set<uint64_t> chain;
    for (uint64_t f = root.free; f != 0;) {
      CAPTURE(f);
      REQUIRE(pages.count(f - 1) == 1);
      REQUIRE(chain.insert(f - 1).second);  // no cycle
      CHECK(reached.count(f - 1) == 0);
      std::optional<Parsed> p = Parse(pages[f - 1]);
      REQUIRE(p.has_value());
      REQUIRE(p->kind == 'F');
      f = p->next;
    }
    for (const auto& node : pages) {
      CAPTURE(node.first);
      CHECK(reached.count(node.first) + chain.count(node.first) == 1);
    }
  }
};

}  // namespace slotkv
