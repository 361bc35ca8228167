#include "core/types/member_pages.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "core/types/map_page_io_test.h"

namespace slotkv {
namespace {

using MapIo = MapPageIo;

// Every member sits on the page the root places it on, and the pages hold exactly model.
void CheckAgainst(MapIo& io, const HashedRoot& root, const std::map<std::string, std::string>& model) {
  std::map<std::string, std::string> seen;
  for (const auto& [where, bytes] : io.pages) {
    REQUIRE(where.first == root.id);
    CHECK(where.second < root.pages());
    Result<HashValue> page = HashValue::Decode(bytes);
    REQUIRE(page.ok());
    CHECK(!page->empty());
    page->ForEach([&](std::string_view f, std::string_view v) {
      CHECK(root.PageOf(MemberHash(f)) == where.second);
      CHECK(seen.emplace(std::string(f), std::string(v)).second);
    });
  }
  CHECK(seen == model);
  CHECK(root.count == model.size());
}

TEST_CASE("root codec round trip and bad roots") {
  HashedRoot r{0x1122334455667788ull, 123456789, 7, 100};
  Result<HashedRoot> back = HashedRoot::Decode(r.Encode());
  REQUIRE(back.ok());
  CHECK(back->id == r.id);
  CHECK(back->count == r.count);
  CHECK(back->level == 7);
  CHECK(back->split == 100);
  CHECK(back->pages() == 228);
  CHECK(IsPagedRoot(r.Encode()));
  const std::string enc = r.Encode();
  for (size_t n = 0; n < enc.size(); ++n) CHECK(!HashedRoot::Decode(enc.substr(0, n)).ok());
  CHECK(!HashedRoot::Decode(enc + "x").ok());
  HashedRoot bad = r;
  bad.split = 128;  // split must stay below 2^level
  CHECK(!HashedRoot::Decode(bad.Encode()).ok());
  // No one-value encoding starts with the marker.
  HashValue h;
  h.Set("a", "b");
  CHECK(!IsPagedRoot(h.Encode()));
}

TEST_CASE("randomised against a std::map, with splits and emptied pages") {
  MapIo io;
  std::mt19937_64 rng(42);
  std::map<std::string, std::string> model;
  HashedRoot root = MemberPages::Create(&io, 4).root();
  for (int round = 0; round < 300; ++round) {
    MemberPages pages(root, &io, 4);
    const int ops = 1 + static_cast<int>(rng() % 20);
    for (int i = 0; i < ops; ++i) {
      const std::string f = "f" + std::to_string(rng() % 500);
      switch (rng() % 4) {
        case 0:
        case 1: {
          const std::string v = "v" + std::to_string(rng());
          Result<bool> created = pages.Set(f, v);
          REQUIRE(created.ok());
          CHECK(*created == (model.count(f) == 0));
          model[f] = v;
          break;
        }
        case 2: {
          Result<bool> removed = pages.Delete(f);
          REQUIRE(removed.ok());
          CHECK(*removed == (model.erase(f) == 1));
          break;
        }
        default: {
          Result<std::optional<std::string>> v = pages.Get(f);
          REQUIRE(v.ok());
          auto it = model.find(f);
          CHECK(v->has_value() == (it != model.end()));
          if (it != model.end()) CHECK(**v == it->second);
        }
      }
    }
    REQUIRE(pages.Finish().ok());
    root = pages.root();
    CHECK(root.count <= std::max<uint64_t>(1, root.pages()) * 4);
    Result<HashedRoot> stored = HashedRoot::Decode(root.Encode());
    REQUIRE(stored.ok());
    root = *stored;
    CheckAgainst(io, root, model);
  }
  CHECK(root.pages() > 64);  // it grew through several levels
  uint64_t left = root.pages();
  REQUIRE(ReclaimPages(&io, root.id, 0, &left, left).ok());
  CHECK(io.pages.empty());
}

TEST_CASE("a point operation touches one page") {
  MapIo io;
  MemberPages pages = MemberPages::Create(&io, 8);
  for (int i = 0; i < 1000; ++i) REQUIRE(pages.Set("m" + std::to_string(i), "").ok());
  REQUIRE(pages.Finish().ok());
  const HashedRoot root = pages.root();
  CHECK(root.pages() >= 125);
  MemberPages again(root, &io, 8);
  io.reads = io.writes = 0;
  REQUIRE(again.Set("m5", "x").ok());
  CHECK(*again.Get("m5") == std::optional<std::string>("x"));
  REQUIRE(again.Finish().ok());
  CHECK(io.reads == 1);
  CHECK(io.writes == 1);
}

TEST_CASE("pages of long members hold fewer of them, about 1 kB") {
  for (size_t value_bytes : {2, 200, 2000}) {
    CAPTURE(value_bytes);
    MapIo io;
    HashedRoot root = MemberPages::Create(&io, 64).root();
    for (int i = 0; i < 4000; i += 100) {  // a command per 100 fields
      MemberPages pages(root, &io, 64);
      for (int j = i; j < i + 100; ++j) {
        REQUIRE(pages.Set("field:" + std::to_string(j), std::string(value_bytes, 'v')).ok());
      }
      REQUIRE(pages.Finish().ok());
      root = pages.root();
    }
    size_t largest = 0;
    for (const auto& [where, bytes] : io.pages) largest = std::max(largest, bytes.size());
    if (value_bytes == 2) {
      CHECK(root.pages() <= 4000 / 64 + 1);  // page_members bounds them
    } else if (value_bytes == 200) {
      CHECK(root.pages() >= 4000 * 210 / 1024);
      CHECK(largest < 3 * 1024);  // linear hashing fills pages unevenly
    } else {
      CHECK(root.pages() >= 4000 / 4);  // never under 4 members
    }
  }
}

TEST_CASE("random picks reach every member, also of a collection emptied down to one") {
  MapIo io;
  std::mt19937_64 rng(11);
  MemberPages pages = MemberPages::Create(&io, 8);
  CHECK(!pages.Random(rng)->has_value());  // empty
  for (int i = 0; i < 1000; ++i) REQUIRE(pages.Set("m" + std::to_string(i), "v").ok());
  REQUIRE(pages.Finish().ok());
  MemberPages again(pages.root(), &io, 8);
  std::map<std::string, int> drawn;
  for (int i = 0; i < 20000; ++i) {
    auto pick = again.Random(rng);
    REQUIRE(pick.ok());
    REQUIRE(pick->has_value());
    CHECK((*pick)->second == "v");
    ++drawn[(*pick)->first];
  }
  CHECK(drawn.size() == 1000);  // no member left out (about 20 draws each)
  for (const auto& [member, n] : drawn) CHECK(n < 200);  // biased by page fill, not more
  for (int i = 0; i < 999; ++i) REQUIRE(again.Delete("m" + std::to_string(i)).ok());
  REQUIRE(again.Finish().ok());  // 125+ pages, one holding a member
  MemberPages sparse(again.root(), &io, 8);
  for (int i = 0; i < 50; ++i) CHECK((*sparse.Random(rng))->first == "m999");
}

TEST_CASE("a scan by page index returns every member present throughout, across splits") {
  MapIo io;
  std::mt19937_64 rng(7);
  MemberPages first = MemberPages::Create(&io, 2);
  std::set<std::string> stable;
  for (int i = 0; i < 200; ++i) {
    const std::string m = "s" + std::to_string(i);
    REQUIRE(first.Set(m, "").ok());
    stable.insert(m);
  }
  REQUIRE(first.Finish().ok());
  HashedRoot root = first.root();
  std::set<std::string> returned;
  uint64_t cursor = 0;
  int added = 0;
  do {
    MemberPages pages(root, &io, 2);
    Result<uint64_t> next = pages.ForEachPage(cursor, [&](uint64_t, const HashValue& page) {
      page.ForEach([&](std::string_view f, std::string_view) { returned.emplace(f); });
      return false;  // one page per step
    });
    REQUIRE(next.ok());
    cursor = *next;
    // Grow between the first steps: pages split under the scan.
    if (added >= 500) continue;
    MemberPages grow(root, &io, 2);
    for (int i = 0; i < 5; ++i) REQUIRE(grow.Set("n" + std::to_string(added++), "").ok());
    REQUIRE(grow.Finish().ok());
    root = grow.root();
  } while (cursor < root.pages());
  for (const std::string& m : stable) CHECK(returned.count(m) == 1);
}

TEST_CASE("reclaim deletes pages in bounded steps") {
  MapIo io;
  MemberPages pages = MemberPages::Create(&io, 1);
  for (int i = 0; i < 64; ++i) REQUIRE(pages.Set("m" + std::to_string(i), "").ok());
  REQUIRE(pages.Finish().ok());
  uint64_t left = pages.root().pages();
  int steps = 0;
  while (left > 0) {
    const size_t before = io.pages.size();
    REQUIRE(ReclaimPages(&io, pages.root().id, 0, &left, 10).ok());
    CHECK(before - io.pages.size() <= 10);
    ++steps;
  }
  CHECK(io.pages.empty());
  CHECK(steps >= 7);
}

}  // namespace
}  // namespace slotkv
