#include "core/pubsub/registry.h"

#include <doctest/doctest.h>

#include <algorithm>

namespace slotkv::pubsub {
namespace {

// Records what Deliver is given.
struct Sink {
  std::vector<std::pair<int, Batch>> batches;
  Registry registry{[this](int w, Batch b) { batches.emplace_back(w, std::move(b)); }};
};

TEST_CASE("a publish reaches channel and pattern subscribers, batched by worker") {
  Sink sink;
  Registry& r = sink.registry;
  CHECK(r.Subscribe(Kind::kChannel, "news", {0, 1}));
  CHECK_FALSE(r.Subscribe(Kind::kChannel, "news", {0, 1}));  // already
  CHECK(r.Subscribe(Kind::kChannel, "news", {1, 2}));
  CHECK(r.Subscribe(Kind::kPattern, "n*", {0, 1}));
  CHECK(r.Subscribe(Kind::kPattern, "x*", {1, 3}));
  CHECK(r.Publish(Kind::kChannel, "news", "hi") == 3);  // client 1 twice: channel and pattern
  REQUIRE(sink.batches.size() == 2);
  const Batch& w0 = sink.batches[0].second;
  CHECK(sink.batches[0].first == 0);
  REQUIRE(w0.size() == 2);
  CHECK(w0[0].second->kind == Kind::kChannel);
  CHECK(w0[0].second->payload == "hi");
  CHECK(w0[1].second->kind == Kind::kPattern);
  CHECK(w0[1].second->pattern == "n*");
  CHECK(sink.batches[1].first == 1);
  CHECK(sink.batches[1].second.at(0).first == 2);
}

TEST_CASE("shard channels are apart from channels and patterns") {
  Sink sink;
  Registry& r = sink.registry;
  r.Subscribe(Kind::kShard, "s", {0, 1});
  r.Subscribe(Kind::kPattern, "*", {0, 2});
  CHECK(r.Publish(Kind::kShard, "s", "m") == 1);
  CHECK(sink.batches.at(0).second.at(0).second->kind == Kind::kShard);
  CHECK(r.Publish(Kind::kChannel, "s", "m") == 1);  // the pattern only
  CHECK(r.NumSub(Kind::kShard, "s") == 1);
  CHECK(r.NumSub(Kind::kChannel, "s") == 0);
}

TEST_CASE("unsubscribing removes empty channels; introspection sees what is left") {
  Sink sink;
  Registry& r = sink.registry;
  r.Subscribe(Kind::kChannel, "a", {0, 1});
  r.Subscribe(Kind::kChannel, "ab", {0, 2});
  r.Subscribe(Kind::kPattern, "a*", {0, 1});
  r.Subscribe(Kind::kPattern, "a*", {0, 2});
  CHECK(r.NumPat() == 1);  // unique patterns, as Redis 7.0
  std::vector<std::string> all = r.Channels(Kind::kChannel, nullptr);
  std::sort(all.begin(), all.end());
  CHECK(all == std::vector<std::string>{"a", "ab"});
  const std::string pattern = "a?";
  CHECK(r.Channels(Kind::kChannel, &pattern) == std::vector<std::string>{"ab"});
  CHECK(r.Unsubscribe(Kind::kChannel, "a", {0, 1}));
  CHECK_FALSE(r.Unsubscribe(Kind::kChannel, "a", {0, 1}));
  CHECK(r.Channels(Kind::kChannel, nullptr) == std::vector<std::string>{"ab"});
  CHECK(r.Publish(Kind::kChannel, "zzz", "m") == 0);
  CHECK(sink.batches.empty());
}

}  // namespace
}  // namespace slotkv::pubsub
