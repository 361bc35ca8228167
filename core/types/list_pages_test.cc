#include "core/types/list_pages.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/coding.h"
#include "core/types/counted_tree_check_test.h"
#include "core/types/map_page_io_test.h"
#include "core/types/zset_pages.h"

namespace slotkv {
namespace {

using MapIo = MapPageIo;
using Model = std::deque<std::string>;
using Strings = std::vector<std::string>;

// Decodes every page of io and checks it against root and model.
void CheckPages(const MapIo& io, const ListRoot& root, const Model& model, uint32_t pm) {
  TreePages<ListTreeTraits> t;
  t.leaf_cap = std::max<size_t>(pm, 2);
  t.inner_cap = std::max<size_t>(pm, 4);
  t.height = root.height;
  for (const auto& [where, bytes] : io.pages) {
    REQUIRE(where.first == root.id);
    REQUIRE(where.second >= kTreePageBit);  // a list has tree pages only
    t.pages.emplace(where.second - kTreePageBit, bytes);
  }
  CHECK(root.count == model.size());
  t.Check(root, model.size());
  CHECK(t.leaves == Strings(model.begin(), model.end()));
}

TEST_CASE("list root codec: round trip, bad roots, and PagedRootCount") {
  ListRoot r;
  r.id = 0x1122334455667788ull;
  r.count = 123456789;
  r.tree = 300;
  r.height = 3;
  r.nodes = 1000;
  r.free = 999;
  const std::string enc = r.Encode();
  CHECK(IsPagedRoot(enc));
  CHECK(static_cast<uint8_t>(enc[1]) == kListKind);
  Result<ListRoot> back = ListRoot::Decode(enc);
  REQUIRE(back.ok());
  CHECK(back->id == r.id);
  CHECK(back->count == 123456789);
  CHECK(back->tree == 300);
  CHECK(back->height == 3);
  CHECK(back->nodes == 1000);
  CHECK(back->free == 999);
  for (size_t n = 0; n < enc.size(); ++n) {
    CAPTURE(n);
    Result<ListRoot> cut = ListRoot::Decode(enc.substr(0, n));
    REQUIRE(!cut.ok());
    CHECK(cut.status().IsCorruption());
  }
  CHECK(!ListRoot::Decode(enc + std::string(1, '\0')).ok());
  for (uint8_t kind : {kHashedKind, kZSetKind, uint8_t{kListKind + 1}}) {
    std::string wrong = enc;
    wrong[1] = static_cast<char>(kind);
    CHECK(!ListRoot::Decode(wrong).ok());
  }
  CHECK(!ListRoot::Decode("x" + enc.substr(1)).ok());
  CHECK(!ZSetRoot::Decode(enc).ok());

  ListRoot lost = r, orphan = r, none;
  lost.tree = 0;     // elements but no tree
  orphan.count = 0;  // a tree but no elements
  none.id = 5;
  CHECK(!ListRoot::Decode(lost.Encode()).ok());
  CHECK(!PagedRootCount(lost.Encode()).ok());
  CHECK(!ListRoot::Decode(orphan.Encode()).ok());
  Result<ListRoot> empty = ListRoot::Decode(none.Encode());
  REQUIRE(empty.ok());
  CHECK((empty->id == 5 && empty->count == 0 && empty->tree == 0));

  Result<uint64_t> count = PagedRootCount(enc);
  REQUIRE(count.ok());
  CHECK(*count == 123456789);
  CHECK(!PagedRootCount(enc.substr(0, enc.size() - 1)).ok());
}

// Mostly short and distinct, sometimes long, with bytes '\0' and '\xff', or empty.
std::string RandomElement(std::mt19937_64& rng, uint64_t& counter) {
  const std::string v = "v" + std::to_string(counter++);
  switch (rng() % 16) {
    case 0: return std::string();
    case 1: return v + std::string(300, 'L');
    case 2: return v + std::string("\0\xff", 2);
    case 3: return std::string("\xff\0", 2) + v;
    default: return v;
  }
}

// What Walk(pos, reverse) must give when fn stops after k elements.
Strings ModelWalk(const Model& model, uint64_t pos, bool reverse, size_t k) {
  Strings want;
  if (pos >= model.size()) return want;
  if (reverse) {
    for (uint64_t i = pos + 1; i-- > 0 && want.size() < k;) want.push_back(model[i]);
  } else {
    for (uint64_t i = pos; i < model.size() && want.size() < k; ++i) want.push_back(model[i]);
  }
  return want;
}

// One random operation, checked against the model; growing favours inserts over erases.
void RandomOp(ListPages& p, Model& model, std::mt19937_64& rng, uint64_t& counter,
              bool growing) {
  const uint64_t op = rng() % 10;
  const uint64_t n = model.size();
  const uint64_t where = rng() % 3;  // front, back, anywhere
  if (op < (growing ? 6u : 2u) || (n == 0 && op < 9)) {
    const uint64_t pos = where == 0 ? 0 : where == 1 ? n : rng() % (n + 1);
    const std::string v = RandomElement(rng, counter);
    CAPTURE(pos);
    REQUIRE(p.InsertAt(pos, v).ok());
    model.insert(model.begin() + pos, v);
  } else if (op < 7) {
    const uint64_t pos = where == 0 ? 0 : where == 1 ? n - 1 : rng() % n;
    CAPTURE(pos);
    Result<std::string> v = p.EraseAt(pos);
    REQUIRE(v.ok());
    CHECK(*v == model[pos]);
    model.erase(model.begin() + pos);
  } else if (op == 7) {
    const uint64_t pos = rng() % n;
    const std::string v = RandomElement(rng, counter);
    CAPTURE(pos);
    REQUIRE(p.ReplaceAt(pos, v).ok());
    model[pos] = v;
  } else if (op == 8) {
    const uint64_t pos = rng() % n;
    CAPTURE(pos);
    Result<std::string> v = p.At(pos);
    REQUIRE(v.ok());
    CHECK(*v == model[pos]);
  } else {
    const uint64_t pos = rng() % (n + 1);
    const size_t k = 1 + rng() % 8;
    const bool reverse = rng() % 2 == 1;
    CAPTURE(pos);
    CAPTURE(reverse);
    Strings got;
    REQUIRE(p.Walk(pos, reverse, [&](const std::string& v) {
                 got.push_back(v);
                 return got.size() < k;
               }).ok());
    CHECK(got == ModelWalk(model, pos, reverse, k));
  }
  CHECK(p.size() == model.size());
}

TEST_CASE("randomised against a deque, re-opened from its pages every 50 operations") {
  for (uint32_t pm : {1u, 2u, 3u, 4u, 8u, 64u}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      CAPTURE(pm);
      CAPTURE(seed);
      MapIo io;
      io.keep_decoded = seed != 3;  // kept between commands, or read and decoded each time
      Model model;
      uint64_t counter = 0;
      std::mt19937_64 rng(seed * 1000 + pm);
      std::optional<ListPages> p(ListPages::Create(&io, pm));
      const uint64_t id = p->root().id;
      int max_height = 0;
      size_t max_size = 0;
      auto reopen = [&] {
        REQUIRE(p->Finish().ok());
        Result<ListRoot> root = ListRoot::Decode(p->root().Encode());
        REQUIRE(root.ok());
        CHECK(root->id == id);
        CheckPages(io, *root, model, pm);
        max_height = std::max<int>(max_height, root->height);
        max_size = std::max(max_size, model.size());
        p.emplace(*root, &io, pm);
        CHECK(p->size() == model.size());
      };
      for (int i = 0; i < 1500; ++i) {
        RandomOp(*p, model, rng, counter, i < 900);
        if (i % 50 == 49) reopen();
      }
      while (!model.empty()) {  // alternating ends
        const bool front = model.size() % 2 == 0;
        Result<std::string> v = p->EraseAt(front ? 0 : model.size() - 1);
        REQUIRE(v.ok());
        CHECK(*v == (front ? model.front() : model.back()));
        model.erase(front ? model.begin() : model.end() - 1);
        if (model.size() % 50 == 0) reopen();
      }
      CHECK(max_size >= 300);  // the mix grew the list enough to split nodes
      CHECK(max_height >= (pm <= 8 ? 2 : 1));
      CHECK(p->size() == 0);
      CHECK(p->root().tree == 0);
      CHECK(p->root().count == 0);
    }
  }
}

TEST_CASE("a push at the front and an index read and write O(height) pages") {
  constexpr uint32_t kPm = 16;
  MapIo io;
  ListRoot root = ListPages::Create(&io, kPm).root();
  for (int i = 0; i < 5000; i += 200) {
    ListPages p(root, &io, kPm);
    for (int j = i; j < i + 200; ++j) REQUIRE(p.InsertAt(p.size(), "e" + std::to_string(j)).ok());
    REQUIRE(p.Finish().ok());
    root = ListRoot::Decode(p.root().Encode()).value();
  }
  REQUIRE(root.count == 5000);
  CHECK(root.height >= 2);  // 5000 elements in nodes of at most 16
  for (int t = 0; t < 20; ++t) {  // enough pushes to split the first leaf
    CAPTURE(t);
    ListPages p(ListRoot::Decode(root.Encode()).value(), &io, kPm);
    io.reads = io.writes = io.taken = 0;
    REQUIRE(p.InsertAt(0, "f" + std::to_string(t)).ok());
    REQUIRE(p.Finish().ok());
    const ListRoot after = p.root();
    CHECK(io.reads + io.taken <= after.height + 3);
    CHECK(io.writes <= after.height + 4);
    CHECK(io.writes >= 1);
    root = after;
  }
  REQUIRE(root.count == 5020);
  ListPages fresh(root, &io, kPm);
  io.reads = io.taken = 0;
  Result<std::string> mid = fresh.At(root.count / 2);
  REQUIRE(mid.ok());
  CHECK(*mid == "e2490");  // f19 .. f0, then e0 ..
  CHECK(io.reads + io.taken <= root.height + 2);
  Result<std::string> first = fresh.At(0);
  CHECK((first.ok() && *first == "f19"));
}

TEST_CASE("nodes are kept decoded between commands, never after another write") {
  MapIo io;
  ListRoot root = ListPages::Create(&io, 4).root();
  {
    ListPages p(root, &io, 4);
    for (int i = 0; i < 20; ++i) REQUIRE(p.InsertAt(p.size(), "e" + std::to_string(i)).ok());
    REQUIRE(p.Finish().ok());
    root = p.root();
  }
  io.reads = io.taken = 0;
  {
    ListPages reader(root, &io, 4);
    CHECK(*reader.At(0) == "e0");
  }  // gives its nodes back unchanged
  CHECK(io.reads == 0);
  const int path = io.taken;
  CHECK(path >= 2);
  // A reader that took the nodes before a write hands back stale forms: refused.
  std::optional<ListPages> stale(std::in_place, root, &io, 4);
  CHECK(*stale->At(0) == "e0");
  {
    ListPages writer(root, &io, 4);
    REQUIRE(writer.ReplaceAt(0, "x").ok());  // nothing kept: reads the bytes
    REQUIRE(writer.Finish().ok());
    root = writer.root();
  }
  CHECK(io.reads == path);
  stale.reset();
  io.reads = 0;
  ListPages again(root, &io, 4);
  CHECK(*again.At(0) == "x");  // the written forms, not the stale ones
  CHECK(io.reads == 0);
}

TEST_CASE("a walk over the whole list returns every element in order, both ways") {
  MapIo io;
  Model model;
  uint64_t counter = 0;
  std::mt19937_64 rng(9);
  ListPages p = ListPages::Create(&io, 4);
  for (int i = 0; i < 600; ++i) {
    const uint64_t pos = rng() % (model.size() + 1);
    const std::string v = RandomElement(rng, counter);
    REQUIRE(p.InsertAt(pos, v).ok());
    model.insert(model.begin() + pos, v);
  }
  REQUIRE(p.Finish().ok());
  ListPages again(ListRoot::Decode(p.root().Encode()).value(), &io, 4);
  REQUIRE(again.size() == 600);
  Strings got;
  size_t limit = 1u << 30;
  auto take = [&](const std::string& v) {
    got.push_back(v);
    return got.size() < limit;
  };
  Strings want(model.begin(), model.end());
  REQUIRE(again.Walk(0, false, take).ok());
  CHECK(got == want);
  got.clear();
  REQUIRE(again.Walk(again.size() - 1, true, take).ok());
  std::reverse(want.begin(), want.end());
  CHECK(got == want);
  got.clear();  // nothing from position size() on, either way:
  REQUIRE(again.Walk(again.size(), false, take).ok());
  REQUIRE(again.Walk(again.size(), true, take).ok());
  CHECK(got.empty());
  limit = 1;
  REQUIRE(again.Walk(0, false, take).ok());
  REQUIRE(got.size() == 1);  // fn's false stops the walk
  CHECK(got[0] == model.front());
}

}  // namespace
}  // namespace slotkv

namespace slotkv {
namespace {

// A list root over two nodes of collection 7: node 0 internal (the tree's root), node 1 a leaf.
ListRoot TwoNodeRoot(uint64_t count) {
  ListRoot root;
  root.id = 7;
  root.count = count;
  root.tree = 1;
  root.height = 1;
  root.nodes = 2;
  return root;
}

TEST_CASE("a damaged tree (a node its own child) is Corruption, never a walk in circles") {
  MapPageIo io;
  // Node 0: internal, children (node 0, 1 element) and (node 1, 1 element); node 1: leaf "x".
  io.pages[{7, kTreePageBit + 0}] = std::string("I\x02\x00\x01\x01\x01", 6);
  io.pages[{7, kTreePageBit + 1}] = std::string("L\x01\x01x", 4);
  ListPages list(TwoNodeRoot(2), &io, 4);
  std::vector<std::string> seen;
  Status st = list.Walk(1, true, [&](const std::string& v) {
    seen.push_back(v);
    return seen.size() < 100;
  });
  CHECK(st.IsCorruption());
  CHECK(seen == std::vector<std::string>{"x"});
  CHECK(list.At(0).status().IsCorruption());
}

TEST_CASE("a damaged tree (one leaf twice under its parent) is Corruption, never a merge into itself") {
  // Found by paged_root_fuzz: merging a node into itself read freed memory.
  MapPageIo io;
  // Node 0: internal, children (node 1, 2 elements) twice; node 1: leaf "x" "y".
  io.pages[{7, kTreePageBit + 0}] = std::string("I\x02\x01\x02\x01\x02", 6);
  io.pages[{7, kTreePageBit + 1}] = std::string("L\x02\x01x\x01y", 6);
  ListPages list(TwoNodeRoot(4), &io, 8);  // a leaf under 8 / 4 entries merges with a sibling
  CHECK(list.EraseAt(0).status().IsCorruption());
}

TEST_CASE("a root whose count disagrees with its tree is Corruption at Finish, nothing written") {
  MapPageIo io;
  ListPages list = ListPages::Create(&io, 4);
  for (const char* v : {"a", "b", "c"}) REQUIRE(list.InsertAt(list.size(), v).ok());
  REQUIRE(list.Finish().ok());
  ListRoot damaged = list.root();
  damaged.count = 1;  // three in the tree
  ListPages l(damaged, &io, 4);
  REQUIRE(l.EraseAt(0).ok());  // the count reaches 0 with two elements left
  const auto pages = io.pages;
  CHECK(l.Finish().IsCorruption());
  CHECK(io.pages == pages);
}

}  // namespace
}  // namespace slotkv
