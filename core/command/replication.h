// Replication as the commands see it: the node's role, the refusal of client writes on a
// replica, and the handlers of REPLICAOF, ROLE, WAIT, INFO replication and a replica's link
// commands. repl/ implements it (repl/replication.h); without it (unit tests) those commands
// answer as a master with no replicas would.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/context.h"

namespace slotkv::command {

// A replica's link as its master sees it.
struct ReplicaStatus {
  std::string ip;
  int port = 0;
  bool online = false;          // every stream continued or synced
  int64_t lag_s = 0;            // since its last acknowledgement
  std::vector<uint64_t> acked;  // [s * databases + db]: offset it applied
};

// A node of a ZooKeeper-managed cluster as its member znode describes it (repl/cluster.h).
struct ClusterNode {
  std::string host;
  int port = 0;
  int sentinel_port = 0;  // where it answers the Sentinel client commands
  std::string run_id;
  bool master = false;    // its role when it last wrote its znode
  bool link_up = false;   // a replica's link to its master
  bool partial = false;   // a full sync of some stream is under way or was cut off
  uint64_t epoch = 0;     // the master record's epoch it had read
  uint64_t offset = 0;    // INFO's master_repl_offset (master) or slave_repl_offset (replica)
  std::vector<uint64_t> streams = {};  // [stream]: each one's offset (empty: unknown)
  int64_t priority = 100;  // replica-priority (0: never promoted)
};

// The node at host:port among nodes, or null.
inline const ClusterNode* FindNode(const std::vector<ClusterNode>& nodes, std::string_view host,
                                   int port) {
  for (const ClusterNode& n : nodes) {
    if (n.host == host && n.port == port) return &n;
  }
  return nullptr;
}

// ZooKeeper mode as this node sees it (repl/coordinator.h).
struct ClusterStatus {
  bool enabled = false;  // zookeeper-connect is set
  std::string name;      // the master's name for Sentinel clients (the root's last part)
  std::string session;   // "connected", "connecting", "expired", "closed"
  bool controller = false;
  uint64_t epoch = 0;    // of the master record
  std::string master_host;  // the record's master ("" when none yet)
  int master_port = 0;
  std::vector<ClusterNode> nodes;  // the members, this one included
  uint64_t failovers = 0;          // master changes this node saw
  int64_t last_failover_ms = 0;    // wall clock of the last one (0: none)
  bool lease = false;              // a master whose lease allows writes now
  // The record's master among the members (null: its member znode is gone, or no record).
  const ClusterNode* master() const { return FindNode(nodes, master_host, master_port); }
};

// The node's replication at one moment (the admin API, /metrics).
struct ReplicationStatus {
  bool replica = false;
  std::string master_host;  // a replica's
  int master_port = 0;
  bool link_up = false;
  int64_t link_down_s = 0;  // while the link is down
  std::string replid;
  std::vector<uint64_t> offsets;  // [s * databases + db]: each stream's offset here
  std::vector<ReplicaStatus> replicas;
  std::string failover_state;  // INFO's master_failover_state
  ClusterStatus cluster;
};

class Replication {
 public:
  virtual ~Replication() = default;
  // Why a client's write must be refused before it runs ("READONLY ..." on a read-only
  // replica, "NOREPLICAS ..." on a master short of good replicas); empty when it may run.
  // Any worker.
  virtual std::string_view RefuseWrite() const = 0;
  // Why a command that may not run on stale data (no kStale flag) must be refused: MASTERDOWN
  // on a replica whose link is down with replica-serve-stale-data no; empty otherwise.
  virtual std::string_view RefuseStale() const = 0;
  // A client published payload on channel (PUBLISH, SPUBLISH): replicas deliver it to their
  // own subscribers too, as Redis propagates PUBLISH. Any worker.
  virtual void OnPublish(bool shard, std::string_view channel, std::string_view payload) = 0;
  // SWAPDB made map the node's database map (Keyspace::db_map): replicas take it.
  // Called while SWAPDB holds every slot.
  virtual void OnSwapDb(const std::vector<uint32_t>& map) = 0;
  // Whether this node is a replica: it never expires keys itself (its master's deletes do).
  virtual bool is_replica() const = 0;
  // Takes the replication options again (after CONFIG SET).
  virtual void Refresh() = 0;
  // Closes a replica's connection to its master (CLIENT KILL TYPE master): it reconnects a
  // second later. False on a master.
  virtual bool DropMasterLink() = 0;
  // REPLICAOF host port | NO ONE (and SLAVEOF). On the client's worker.
  virtual void ReplicaOf(AsyncContext& ctx) = 0;
  // ROLE's reply.
  virtual void Role(Reply& reply) = 0;
  // The lines of INFO's replication section ("role:..." first).
  virtual std::string Info() = 0;
  virtual ReplicationStatus GetStatus() = 0;
  // WAIT numreplicas timeout: replies with how many replicas acknowledged every write made so
  // far, once that many did or the timeout (ms, 0 = none) passed.
  virtual Task Wait(AsyncContext& ctx, int64_t replicas, int64_t timeout_ms) = 0;
  // SLOTKV.SYNC ...: the client is a replica starting its link; from now on its connection
  // carries the replication streams. SLOTKV.ACK ...: its acknowledgements (no reply).
  virtual void Sync(AsyncContext& ctx) = 0;
  virtual void Ack(AsyncContext& ctx) = 0;
  // FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms] (Redis 7's coordinated switch).
  virtual void Failover(AsyncContext& ctx) = 0;
  // SENTINEL <subcommand> ...: the Sentinel client commands of ZooKeeper mode (false when
  // the node is not in it: the command is then unknown, as on a Redis that is no Sentinel).
  virtual bool Sentinel(AsyncContext& ctx) = 0;
  // ZooKeeper mode: names host:port (a member) the master in the next epoch at once, without
  // waiting for it to catch up (POST /cluster/replicaof). Blocks until ZooKeeper answered:
  // never on a worker.
  virtual Status NameMaster(const std::string& host, int port) = 0;
};

}  // namespace slotkv::command
