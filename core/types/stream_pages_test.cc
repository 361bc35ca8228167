#include "core/types/stream_pages.h"

#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/types/map_page_io_test.h"
#include "core/types/stream_meta_check_test.h"

namespace slotkv {
namespace {

using Pending = std::vector<std::pair<StreamId, StreamNack>>;

bool SameNack(const StreamNack& a, const StreamNack& b) {
  return a.consumer == b.consumer && a.delivery_time == b.delivery_time &&
         a.delivery_count == b.delivery_count;
}

bool SamePending(const Pending& a, const Pending& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first || !SameNack(a[i].second, b[i].second)) return false;
  }
  return true;
}

// The model's PEL walked as WalkPending does.
Pending ModelWalk(const StreamGroup& g, const StreamId& from, bool reverse, size_t limit) {
  Pending out;
  if (!reverse) {
    for (auto it = g.pel.lower_bound(from); it != g.pel.end() && out.size() < limit; ++it) {
      out.emplace_back(it->first, it->second);
    }
  } else {
    for (auto it = std::make_reverse_iterator(g.pel.upper_bound(from));
         it != g.pel.rend() && out.size() < limit; ++it) {
      out.emplace_back(it->first, it->second);
    }
  }
  return out;
}

Pending PagedWalk(StreamPages& p, StreamGroup& g, const StreamId& from, bool reverse,
                  size_t limit) {
  Pending out;
  REQUIRE(p.WalkPending(g, from, reverse, [&](const StreamId& id, const StreamNack& n) {
             out.emplace_back(id, n);
             return out.size() < limit;
           }).ok());
  return out;
}

std::vector<StreamId> PagedOwned(StreamPages& p, StreamGroup& g, const std::string& consumer,
                                 const StreamId& from, size_t limit) {
  std::vector<StreamId> out;
  REQUIRE(p.WalkOwned(g, consumer, from, [&](const StreamId& id) {
             out.push_back(id);
             return out.size() < limit;
           }).ok());
  return out;
}

TEST_CASE("stream PEL pages: random changes agree with the one-value group") {
  for (uint32_t pm : {2u, 3u, 16u}) {
    for (bool keep : {true, false}) {
      CAPTURE(pm);
      CAPTURE(keep);
      std::mt19937_64 rng(pm * 7 + (keep ? 1 : 0));
      MapPageIo io;
      io.keep_decoded = keep;
      StreamMeta model;
      std::string root;
      {
        StreamPages p = StreamPages::Create(&io, pm);
        for (const char* name : {"a", "b"}) {
          StreamGroup g;
          REQUIRE(p.NumberGroup(&g).ok());
          p.meta().groups.emplace(name, g);
          model.groups.emplace(name, StreamGroup());
        }
        REQUIRE(p.Finish().ok());
        root = p.root().Encode();
      }
      const auto pick = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
      for (int command = 0; command < 600; ++command) {
        Result<StreamRoot> decoded = StreamRoot::Decode(root);
        REQUIRE(decoded.ok());
        StreamPages p(std::move(decoded).value(), &io, pm);
        const int ops = 1 + static_cast<int>(pick(6));
        for (int op = 0; op < ops; ++op) {
          const std::string gname = pick(2) == 0 ? "a" : "b";
          StreamGroup& g = p.meta().groups.at(gname);
          StreamGroup& m = model.groups.at(gname);
          const std::string consumer = "c" + std::to_string(pick(4));
          const StreamId id{pick(200), pick(2)};
          const int64_t now = static_cast<int64_t>(command * 10 + op);
          switch (pick(7)) {
            case 0:
            case 1:
            case 2: {  // deliver (new or moved)
              g.Consumer(consumer, now);
              m.Consumer(consumer, now);
              const uint64_t count = 1 + pick(5);
              REQUIRE(p.SetPending(g, id, consumer, now, count).ok());
              m.SetPending(id, consumer, now, count);
              break;
            }
            case 3: {
              Result<bool> acked = p.Ack(g, id);
              REQUIRE(acked.ok());
              CHECK(*acked == m.Ack(id));
              break;
            }
            case 4: {
              if (pick(8) != 0 || !m.consumers.contains(consumer)) break;
              Result<uint64_t> n = p.DeleteConsumer(g, consumer);
              REQUIRE(n.ok());
              CHECK(*n == m.DeleteConsumer(consumer));
              CHECK(!g.consumers.contains(consumer));
              break;
            }
            case 5: {
              Result<std::optional<StreamNack>> found = p.FindPending(g, id);
              REQUIRE(found.ok());
              auto it = m.pel.find(id);
              REQUIRE(found->has_value() == (it != m.pel.end()));
              if (*found) CHECK(SameNack(**found, it->second));
              break;
            }
            default: {
              const bool reverse = pick(2) == 0;
              const size_t limit = 1 + pick(40);
              CHECK(SamePending(PagedWalk(p, g, id, reverse, limit),
                                ModelWalk(m, id, reverse, limit)));
              std::vector<StreamId> want;
              auto c = m.consumers.find(consumer);
              if (c != m.consumers.end()) {
                for (auto i = c->second.pel.lower_bound(id);
                     i != c->second.pel.end() && want.size() < limit; ++i) {
                  want.push_back(*i);
                }
              }
              CHECK(PagedOwned(p, g, consumer, id, limit) == want);
            }
          }
          CHECK(g.PagedCount() == m.pel.size());
          for (const auto& [cname, c] : m.consumers) {
            REQUIRE(g.consumers.contains(cname));
            CHECK(g.consumers.at(cname).paged_pending == c.pel.size());
          }
        }
        REQUIRE(p.Finish().ok());
        root = p.root().Encode();
      }
      Result<StreamRoot> last = StreamRoot::Decode(root);
      REQUIRE(last.ok());
      StreamPages p(std::move(last).value(), &io, pm);
      Result<StreamMeta> one = p.OneValueMeta();
      REQUIRE(one.ok());
      CheckSameMeta(*one, model);
      CHECK(model.PendingCount() > 0);

      // Every page is one of a group's trees', within its range; a dropped group names its
      // ranges, which hold all of its pages.
      std::map<uint64_t, uint64_t> ranges;  // base -> pages
      for (auto& [name, g] : p.meta().groups) {
        for (const auto& [base, pages] : p.DropGroup(g)) ranges.emplace(base, pages);
      }
      CHECK(ranges.size() == 4);
      for (const auto& [where, bytes] : io.pages) {
        auto r = ranges.upper_bound(where.second);
        REQUIRE(r != ranges.begin());
        --r;
        CHECK(where.second < r->first + r->second);
      }
    }
  }
}

TEST_CASE("stream PEL pages: a one-value meta adopted and given back is the same") {
  std::mt19937_64 rng(5);
  StreamMeta meta;
  meta.last_id = {900, 3};
  meta.first_id = {1, 0};
  meta.entries_added = 77;
  for (int gi = 0; gi < 3; ++gi) {
    StreamGroup& g = meta.groups["g" + std::to_string(gi)];
    g.last_id = {static_cast<uint64_t>(gi), 1};
    g.entries_read = gi == 1 ? StreamGroup::kUnknownRead : 10 + gi;
    for (int c = 0; c < 3; ++c) g.Consumer("c" + std::to_string(c), 1000 + c);
    for (int i = 0; i < 40 * gi; ++i) {
      g.SetPending({rng() % 500, 0}, "c" + std::to_string(rng() % 3),
                   static_cast<int64_t>(rng() % 100000), 1 + rng() % 4);
    }
  }
  MapPageIo io;
  StreamPages p = StreamPages::Create(&io, 4);
  REQUIRE(p.AdoptMeta(meta).ok());
  REQUIRE(p.Finish().ok());
  const std::string root = p.root().Encode();
  Result<StreamRoot> decoded = StreamRoot::Decode(root);
  REQUIRE(decoded.ok());
  CHECK(decoded->meta.next_group == 3);
  CHECK(decoded->meta.PendingCount() == meta.PendingCount());
  StreamPages back(std::move(decoded).value(), &io, 4);
  Result<StreamMeta> one = back.OneValueMeta();
  REQUIRE(one.ok());
  CheckSameMeta(*one, meta);
  CHECK(one->next_group == 0);
}

TEST_CASE("stream root codec: groups' trees and counts are checked") {
  MapPageIo io;
  StreamPages p = StreamPages::Create(&io, 2);
  StreamGroup g;
  REQUIRE(p.NumberGroup(&g).ok());
  g.Consumer("alice", 5);
  p.meta().groups.emplace("g", g);
  StreamGroup& pg = p.meta().groups.at("g");
  for (uint64_t i = 1; i <= 9; ++i) REQUIRE(p.SetPending(pg, {i, 0}, "alice", 7, 1).ok());
  REQUIRE(p.Finish().ok());
  const StreamRoot root = p.root();
  const std::string enc = root.Encode();
  Result<StreamRoot> back = StreamRoot::Decode(enc);
  REQUIRE(back.ok());
  const StreamGroup& bg = back->meta.groups.at("g");
  CHECK(bg.PagedCount() == 9);
  CHECK(bg.consumers.at("alice").paged_pending == 9);
  CHECK(bg.pel_tree.nodes > 1);
  for (size_t n = 0; n < enc.size(); ++n) {
    CAPTURE(n);
    CHECK(!StreamRoot::Decode(enc.substr(0, n)).ok());
  }
  const auto bad = [&](auto change) {
    StreamRoot r = root;
    change(r.meta.groups.at("g"), r.meta);
    return !StreamRoot::Decode(r.Encode()).ok();
  };
  // Pending entries in no consumer's count, or counted with no tree.
  CHECK(bad([](StreamGroup& x, StreamMeta&) { x.consumers.at("alice").paged_pending = 0; }));
  CHECK(bad([](StreamGroup& x, StreamMeta&) { x.consumer_tree = {}; }));
  CHECK(bad([](StreamGroup& x, StreamMeta&) { x.number = 1; }));  // not handed out
  CHECK(bad([](StreamGroup& x, StreamMeta&) { x.pel_tree = {}; }));
  CHECK(bad([](StreamGroup& x, StreamMeta&) { x.consumer_tree.nodes = StreamPages::kPelNodes; }));
  CHECK(bad([](StreamGroup& x, StreamMeta& m) {
    m.groups.emplace("h", x);  // two groups on one page range
  }));
  CHECK(bad([](StreamGroup&, StreamMeta& m) { m.next_group = StreamPages::kMaxGroups + 1; }));
  // A consumer's count that disagrees with the trees decodes, but nothing is written over it.
  StreamRoot miscounted = root;
  miscounted.meta.groups.at("g").consumers.at("alice").paged_pending = 8;
  Result<StreamRoot> opened = StreamRoot::Decode(miscounted.Encode());
  REQUIRE(opened.ok());
  StreamPages changed(std::move(opened).value(), &io, 2);
  StreamGroup& cg = changed.meta().groups.at("g");
  REQUIRE(changed.Ack(cg, {1, 0}).ok());
  const auto pages = io.pages;
  CHECK(changed.Finish().IsCorruption());
  CHECK(io.pages == pages);
  CHECK(StreamPages::PelBase(0, true) - StreamPages::PelBase(0, false) == StreamPages::kPelNodes);
  CHECK(StreamPages::PelBase(StreamPages::kMaxGroups - 1, true) + StreamPages::kPelNodes ==
        kTreePageBit);
}

}  // namespace
}  // namespace slotkv
