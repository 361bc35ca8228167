// Snapshot: the server's counters at one moment, read for a scrape or an admin request. Workers
// keep plain counters (WorkerStats, SlotStats) that only they write; Gather visits each worker
// (posting to it) and sums what it owns, so no counter is shared on the request path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/command/context.h"
#include "core/command/replication.h"
#include "slot/slot.h"

namespace slotkv::metrics {

// One engine slot, summed over its databases.
struct SlotSnapshot {
  uint32_t slot = 0;
  int worker = 0;
  uint64_t keys = 0;  // every database; expired-unreclaimed keys included (as DBSIZE)
  uint64_t repl_offset = 0;  // its databases' replication streams' offsets summed
  slot::SlotStats stats;
};

// A replica of this node, as /metrics labels it.
struct ReplicaSnapshot {
  std::string name;  // "ip:port"
  bool online = false;
  int64_t lag_s = 0;
  uint64_t offset_lag = 0;          // this node's offsets minus the replica's, all streams
  std::vector<uint64_t> slot_lag;   // [slot]: the same over the slot's databases
};

// This node's replication (command::ReplicationStatus, summed per slot).
struct ReplicationSnapshot {
  bool available = false;  // a server with replication (not a test fixture)
  bool replica = false;
  bool link_up = false;
  std::string master;      // "host:port" of a replica's master
  int64_t link_down_s = 0;
  std::string replid;
  uint64_t offset = 0;  // every stream's offset summed (INFO's)
  std::vector<ReplicaSnapshot> replicas;
  command::ClusterStatus cluster;  // ZooKeeper mode (cluster.enabled)
};

struct CommandSnapshot {
  std::string name;  // "get", "client"
  uint64_t calls = 0;
  uint64_t usec = 0;
  uint64_t failed = 0;  // replied an error, or refused before running
};

struct ServerSnapshot {
  int workers = 0;
  uint32_t databases = 0;
  std::vector<SlotSnapshot> slots;        // every slot, in order
  std::vector<CommandSnapshot> commands;  // commands called at least once, table order
  uint64_t commands_processed = 0;
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t read_waits = 0;
  uint64_t async_reads = 0;
  uint64_t client_moves = 0;
  uint64_t direct_replies = 0;
  uint64_t loop_lag_max_us = 0;  // over workers
  int64_t connected_clients = 0;
  int64_t blocked_clients = 0;
  double uptime_s = 0;
  ReplicationSnapshot replication;
  Status failure;  // the first slot that could not be read (its figures are missing)
};

// Reads every worker's counters and slots. Blocks until every worker has answered.
// REQUIRES: not on a worker thread (it would wait for itself).
ServerSnapshot Gather(command::ServerState& state);
// The replication part of a snapshot, and each slot's repl_offset (what Gather fills in).
ReplicationSnapshot GatherReplication(command::ServerState& state,
                                      std::vector<SlotSnapshot>* slots);
// Only slot s (0 <= s < slots), from its owner.
SlotSnapshot GatherSlot(command::ServerState& state, uint32_t s, Status* failure);

}  // namespace slotkv::metrics
