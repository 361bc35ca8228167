#include "core/types/stream_value.h"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/types/map_page_io_test.h"
#include "core/types/stream_id.h"
#include "core/types/stream_meta_check_test.h"
#include "core/types/stream_pages.h"

namespace slotkv {
namespace {

StreamId Id(uint64_t ms, uint64_t seq) { return StreamId{ms, seq}; }

TEST_CASE("ParseStreamId takes Redis's forms and refuses the rest") {
  CHECK(ParseStreamId("5-3", {}) == Id(5, 3));
  CHECK(ParseStreamId("5", {}) == Id(5, 0));
  CHECK(ParseStreamId("5", {.missing_seq = UINT64_MAX}) == Id(5, UINT64_MAX));
  CHECK(ParseStreamId("-", {}) == Id(0, 0));
  CHECK(ParseStreamId("+", {}) == StreamId::Max());
  CHECK(!ParseStreamId("-", {.strict = true}));
  CHECK(!ParseStreamId("+", {.strict = true}));
  CHECK(ParseStreamId("0031-0001", {}) == Id(31, 1));
  CHECK(ParseStreamId("18446744073709551615-18446744073709551615", {}) == StreamId::Max());
  for (const char* bad : {"", "x", "5-", "-5", "5-x", "5--1", "18446744073709551616", "1-2-3",
                          "5-*"}) {
    CHECK_MESSAGE(!ParseStreamId(bad, {}), bad);
  }
  bool seq_given = true;
  CHECK(ParseStreamId("7-*", {.strict = true, .seq_star = true}, &seq_given) == Id(7, 0));
  CHECK(!seq_given);
  CHECK(ParseStreamId("7-1", {.strict = true, .seq_star = true}, &seq_given) == Id(7, 1));
  CHECK(seq_given);
  CHECK(!ParseStreamId(std::string(128, '1'), {}));
}

TEST_CASE("StreamId steps wrap at the ends as streamIncrID / streamDecrID") {
  StreamId a = Id(1, UINT64_MAX);
  CHECK(a.Incr());
  CHECK(a == Id(2, 0));
  CHECK(a.Decr());
  CHECK(a == Id(1, UINT64_MAX));
  StreamId max = StreamId::Max();
  CHECK(!max.Incr());
  CHECK(max == Id(0, 0));
  StreamId zero;
  CHECK(!zero.Decr());
  CHECK(zero == StreamId::Max());
  CHECK(Id(3, 9).ToString() == "3-9");
}

StreamValue Sample() {
  StreamValue v;
  v.entries[Id(1, 1)] = {"f", "v"};
  v.entries[Id(2, 0)] = {"a", "1", "b", std::string("\0x", 2)};
  v.meta.last_id = Id(3, 0);
  v.meta.first_id = Id(1, 1);
  v.meta.max_deleted = Id(3, 0);
  v.meta.entries_added = 3;
  StreamGroup& g = v.meta.groups["g1"];
  g.last_id = Id(2, 0);
  g.entries_read = 2;
  g.Consumer("alice", 100);
  g.Consumer("bob", 200);
  g.SetPending(Id(1, 1), "alice", 150, 2);
  g.SetPending(Id(2, 0), "bob", 250, 1);
  v.meta.groups["g0"].entries_read = StreamGroup::kUnknownRead;
  return v;
}

TEST_CASE("StreamValue round-trips entries, counters, groups, PELs and consumers") {
  const StreamValue v = Sample();
  Result<StreamValue> d = StreamValue::Decode(v.Encode());
  REQUIRE(d.ok());
  CHECK(d->entries == v.entries);
  CheckSameMeta(d->meta, v.meta);
  CHECK(d->meta.groups.at("g1").consumers.at("alice").pel.size() == 1);
  CHECK(*StreamValue::DecodeSize(v.Encode()) == 2);
  StreamValue empty;
  CHECK(StreamValue::Decode(empty.Encode()).ok());
}

TEST_CASE("StreamValue::Decode refuses what Encode could not have made") {
  const std::string good = Sample().Encode();
  for (size_t n = 0; n < good.size(); ++n) {
    CHECK_MESSAGE(!StreamValue::Decode(good.substr(0, n)).ok(), n);
  }
  CHECK(!StreamValue::Decode(good + "x").ok());
  StreamValue late = Sample();
  late.meta.last_id = Id(1, 5);  // an entry past the last ID
  CHECK(!StreamValue::Decode(late.Encode()).ok());
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string bad = good;
    bad[rng() % bad.size()] = static_cast<char>(rng());
    (void)StreamValue::Decode(bad);  // must not crash
  }
}

TEST_CASE("StreamGroup keeps each consumer's PEL with the group's") {
  StreamGroup g;
  g.Consumer("a", 1);
  g.Consumer("b", 1);
  g.SetPending(Id(1, 0), "a", 5, 1);
  g.SetPending(Id(2, 0), "a", 5, 1);
  g.SetPending(Id(1, 0), "b", 6, 3);  // moved over
  CHECK(g.consumers["a"].pel.size() == 1);
  CHECK(g.consumers["b"].pel.count(Id(1, 0)) == 1);
  CHECK(g.pel.at(Id(1, 0)).delivery_count == 3);
  CHECK(g.Ack(Id(2, 0)));
  CHECK(!g.Ack(Id(2, 0)));
  CHECK(g.consumers["a"].pel.empty());
  CHECK(g.DeleteConsumer("b") == 1);
  CHECK(g.pel.empty());
  CHECK(g.DeleteConsumer("nobody") == 0);
}

TEST_CASE("StreamPages appends, seeks, erases and trims like a map, over small pages") {
  for (uint32_t pm : {2u, 3u, 16u}) {
    MapPageIo io;
    StreamRoot root = StreamPages::Create(&io, pm).root();
    std::map<StreamId, StreamFields> model;
    std::mt19937 rng(pm);
    uint64_t ms = 1;
    for (int round = 0; round < 300; ++round) {
      StreamPages pages(root, &io, pm);
      const int op = static_cast<int>(rng() % 10);
      if (op < 6) {
        ms += 1 + rng() % 3;
        StreamFields f = {"f", std::to_string(ms)};
        REQUIRE(pages.Append(Id(ms, 0), f).ok());
        model[Id(ms, 0)] = f;
      } else if (op < 8 && !model.empty()) {
        auto it = model.begin();
        std::advance(it, static_cast<long>(rng() % model.size()));
        CHECK(*pages.Erase(it->first));
        CHECK(!*pages.Erase(it->first));
        model.erase(it);
      } else if (!model.empty()) {
        Result<StreamId> first = pages.EraseFirst();
        REQUIRE(first.ok());
        CHECK(*first == model.begin()->first);
        model.erase(model.begin());
      }
      pages.meta().entries_added = static_cast<uint64_t>(round);
      REQUIRE(pages.Finish().ok());
      root = pages.root();
      Result<StreamRoot> back = StreamRoot::Decode(root.Encode());
      REQUIRE(back.ok());
      CHECK(back->meta.entries_added == static_cast<uint64_t>(round));
      CHECK(back->count == model.size());
    }
    StreamPages pages(root, &io, pm);
    std::vector<StreamId> seen;
    REQUIRE(pages.Walk({}, false, [&](const StreamTreeEntry& e) {
                   CHECK(model.at(e.id) == e.fields);
                   seen.push_back(e.id);
                   return true;
                 }).ok());
    CHECK(seen.size() == model.size());
    for (const auto& [id, f] : model) {
      CHECK(*pages.Get(id) == f);
      CHECK(*pages.CountBelow(id) == static_cast<uint64_t>(std::distance(
                                         model.begin(), model.lower_bound(id))));
      StreamId below = id;
      below.Decr();
      std::optional<StreamId> rev;
      REQUIRE(pages.Walk(below, true, [&](const StreamTreeEntry& e) {
                     rev = e.id;
                     return false;
                   }).ok());
      auto it = model.lower_bound(id);
      if (it == model.begin()) {
        CHECK(!rev);
      } else {
        CHECK(rev == std::prev(it)->first);
      }
    }
    CHECK(!*pages.Get(Id(0, 1)));
  }
}

}  // namespace
}  // namespace slotkv
