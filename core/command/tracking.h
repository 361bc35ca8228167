// Tracking: client-side caching (CLIENT TRACKING), as Redis 7.0's tracking.c: which clients read
// which keys, and the invalidation messages they get when those keys change.
//
// Design. Two modes, as Redis's:
// - Default: the keys a tracking client reads (read-only commands, also inside EXEC) are
//   remembered, each in the table of the worker that owns its slot; a write of the key on its
//   owner sends each remembering client one invalidation and forgets them (Redis's one-shot
//   TrackingTable). The client's worker posts the keys to their owners before the read itself
//   (posts between two workers keep their order), so no write after the read is missed.
// - BCAST: the client names key prefixes (none: every key); every write of a key matching one
//   sends it an invalidation, nothing is remembered.
// Settings (mode, redirection, NOLOOP, prefixes) are kept server-wide under a lock, read when a
// write finds someone to tell; a server with no tracking client pays one relaxed atomic load per
// write. A message goes to the client itself in RESP3 (a push), or to its REDIRECT client, a
// RESP2 one on the __redis__:invalidate channel (deliver's to encode: pubsub::Kind::kInvalidate).
// FLUSHDB / FLUSHALL send every tracking client a null invalidation (everything) and drop the
// tables. A table past tracking-table-max-keys (per worker: its share) invalidates and forgets
// other keys, as Redis picks them, at random. A key the expiry step deletes is told; one found
// expired by a read is told when the step deletes it.
//
// Thread rule: Remember and Invalidate run on the key's owner (each worker has its table); the
// rest from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/command/executor.h"
#include "core/pubsub/registry.h"

namespace slotkv::command {

struct ServerState;
struct ClientState;
struct CommandSpec;
class AsyncContext;
class Task;

struct TrackingSettings {
  int worker = 0;          // the client's
  uint64_t redirect = 0;   // 0: none
  int redirect_worker = 0;
  bool bcast = false;
  bool optin = false;
  bool optout = false;
  bool noloop = false;
  std::vector<std::string> prefixes;  // BCAST, sorted
};

class Tracking {
 public:
  // deliver(worker, client, message): gets message (kInvalidate) to that connection.
  using Deliver =
      std::function<void(int, uint64_t, std::shared_ptr<const pubsub::Message>)>;
  Tracking(Executor* executor, int workers, Deliver deliver);

  // CLIENT TRACKING ON / OFF for client (also when it closes).
  void Enable(uint64_t client, TrackingSettings settings);
  void Disable(uint64_t client);
  // client's settings as kept (BCAST prefixes gathered), nullopt when it does not track.
  std::optional<TrackingSettings> SettingsOf(uint64_t client) const;
  // The error when prefixes overlap one another or the client's earlier BCAST prefixes (one
  // starts with the other), as Redis's checkPrefixCollisionsOrReply; empty when none do.
  std::string PrefixCollision(uint64_t client, const std::vector<std::string>& prefixes) const;

  // Whether any client tracks (a hint for the write path).
  bool active() const { return clients_count_.load(std::memory_order_relaxed) > 0; }

  // client read key. REQUIRES: on key's owner.
  void Remember(std::string_view key, uint64_t client);
  // key changed by writer's command (0: no client's): invalidations to the clients that read it
  // and to the BCAST clients of a matching prefix. REQUIRES: on key's owner.
  void Invalidate(std::string_view key, uint64_t writer);
  // FLUSHDB / FLUSHALL: a null invalidation to every tracking client; each worker drops its
  // table (ForgetHere) as the flush visits it.
  void InvalidateEverything();
  void ForgetHere();

  // INFO: tracking_clients, tracking_total_keys, _items, _prefixes.
  int64_t clients() const { return clients_count_.load(std::memory_order_relaxed); }
  int64_t keys() const { return keys_.load(std::memory_order_relaxed); }
  int64_t items() const { return items_.load(std::memory_order_relaxed); }
  int64_t prefixes() const;

  // tracking-table-max-keys (0: no bound), shared by the workers' tables.
  void set_max_keys(int64_t n) { max_keys_.store(n, std::memory_order_relaxed); }

 private:
  // key -> the clients that read it since its last invalidation.
  using Readers = std::unordered_map<std::string, std::vector<uint64_t>>;
  struct Table {
    Readers readers;
  };
  // The calling worker's table.
  Table& Here();
  // Sends tracked client `to` one invalidation of key (nullopt: everything).
  void Send(uint64_t to, const TrackingSettings& s, std::optional<std::string_view> key);
  // Removes the key at it from t and returns its readers.
  std::vector<uint64_t> Take(Table& t, Readers::iterator it);
  // Tells readers (and the BCAST clients of a matching prefix) that key changed by writer.
  void Tell(const std::vector<uint64_t>& readers, std::string_view key, uint64_t writer);

  Executor* executor_;
  Deliver deliver_;
  std::vector<Table> tables_;  // [worker]
  std::atomic<int64_t> clients_count_{0};
  std::atomic<int64_t> bcast_count_{0};
  std::atomic<int64_t> keys_{0};
  std::atomic<int64_t> items_{0};
  std::atomic<int64_t> max_keys_{0};
  mutable std::shared_mutex mu_;
  std::unordered_map<uint64_t, TrackingSettings> clients_;  // guarded by mu_
};

// CLIENT TRACKING | CACHING | GETREDIR | TRACKINGINFO (the CLIENT container's, on the client's
// worker; tracking_commands.cc).
bool IsTrackingSubcommand(std::string_view sub);
Task ClientTrackingCommand(AsyncContext& ctx);
// The network layer's part, for a tracking client's request about to run (spec, args): its
// reads are remembered (the transaction's too, for EXEC), and CLIENT CACHING's word is used up.
void RememberReads(ServerState& server, ClientState& client, const CommandSpec& spec,
                   const std::vector<std::string>& args);
// Remembers the keys of one call for client when it is read-only, each on its owner (posted
// there ahead of the call itself: posts between two workers keep their order). Also for the
// calls of a script whose client remembers its reads (ClientState::tracking_reads).
void RememberKeys(ServerState& server, uint64_t client, const CommandSpec& spec,
                  const std::vector<std::string>& args);

}  // namespace slotkv::command
