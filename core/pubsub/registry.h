// Registry: who subscribes to what (channels, patterns, shard channels, the MONITOR feed),
// server-wide, and the fan-out of a published message to the subscribers on every worker.
//
// Design. Subscribers are connections, each owned by one worker; the registry knows each
// subscription's (worker, client id). PUBLISH, on any worker, looks the channel and the
// patterns up under a shared lock, counts the receivers (its reply) and hands the messages of
// each worker to Deliver in one batch, which posts them there; a connection writes them in the
// order its worker receives them, so a publisher's messages keep their order at every
// subscriber (posts from one worker to another are FIFO). Subscribing takes the lock
// exclusively; it is rare next to publishing. This is the only lock on a request path: the
// subscriptions are the one state shared by all workers (Redis keeps them in one dict). The
// MONITOR feed costs a request one relaxed atomic load while nobody monitors (monitored()).
//
// Thread rule: every method may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace slotkv::pubsub {

enum class Kind { kChannel, kPattern, kShard, kMonitor, kInvalidate };

// One message as a subscriber receives it: "message" (kChannel), "pmessage" (kPattern, with
// the pattern that matched), "smessage" (kShard), a MONITOR line, the payload as is
// (kMonitor), or a client-side caching invalidation of the key in payload, or of everything
// (kInvalidate; command/tracking.h), for the tracking client origin (on origin_worker).
struct Message {
  Kind kind = Kind::kChannel;
  std::string pattern;
  std::string channel;
  std::string payload;
  bool everything = false;
  uint64_t origin = 0;
  int origin_worker = 0;
};

struct Subscriber {
  int worker = 0;
  uint64_t client = 0;
  bool operator==(const Subscriber&) const = default;
};

// A worker's share of one publish: each client id with the message it gets.
using Batch = std::vector<std::pair<uint64_t, std::shared_ptr<const Message>>>;

class Registry {
 public:
  // deliver(worker, batch) must get the batch to those clients on that worker (any thread).
  explicit Registry(std::function<void(int, Batch)> deliver) : deliver_(std::move(deliver)) {}

  // Adds s to name's subscribers; false when it was there already.
  bool Subscribe(Kind kind, const std::string& name, Subscriber s);
  // Removes s from name's subscribers; false when it was not there.
  bool Unsubscribe(Kind kind, const std::string& name, Subscriber s);

  // Sends payload to the subscribers of channel (kChannel: and of the patterns matching it;
  // kShard: of the shard channel) and returns how many deliveries that makes (a client
  // subscribed to the channel and to a matching pattern counts twice, as in Redis).
  int64_t Publish(Kind kind, std::string_view channel, std::string_view payload);

  // Channels (kChannel, kShard) with a subscriber, matching glob pattern (nullptr: all).
  std::vector<std::string> Channels(Kind kind, const std::string* pattern) const;
  // Subscribers of a channel (kChannel, kShard).
  int64_t NumSub(Kind kind, const std::string& channel) const;
  // Patterns with a subscriber (Redis 7.0's PUBSUB NUMPAT).
  int64_t NumPat() const;

  // MONITOR: s gets every line fed from now on; false when it did already.
  bool AddMonitor(Subscriber s);
  // Stops s's feed; false when it had none.
  bool RemoveMonitor(Subscriber s);
  // Whether anyone monitors (a hint: a feed may still find nobody).
  bool monitored() const { return monitors_count_.load(std::memory_order_relaxed) > 0; }
  // Sends line (a whole RESP line) to every monitor.
  void FeedMonitors(std::string line);

 private:
  using Map = std::unordered_map<std::string, std::vector<Subscriber>>;
  Map& MapOf(Kind kind) {
    return kind == Kind::kChannel ? channels_ : kind == Kind::kPattern ? patterns_ : shard_;
  }
  const Map& MapOf(Kind kind) const {
    return kind == Kind::kChannel ? channels_ : kind == Kind::kPattern ? patterns_ : shard_;
  }

  std::function<void(int, Batch)> deliver_;
  mutable std::shared_mutex mu_;
  Map channels_;  // guarded by mu_
  Map patterns_;  // guarded by mu_
  Map shard_;     // guarded by mu_
  std::vector<Subscriber> monitors_;  // guarded by mu_
  std::atomic<size_t> monitors_count_{0};
};

}  // namespace slotkv::pubsub
