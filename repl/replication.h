// Replication: this node's role and everything the commands ask of replication
// (command::Replication). It owns the master side of the streams (Master: every node keeps
// backlogs, so a promoted replica continues its peers' streams) and, on a replica, the link to
// the master (Link).
//
// The role survives a restart: REPLICAOF sets the replicaof option (so CONFIG REWRITE keeps
// it in the config file) and writes dir/replication.state, read at start when the option is
// empty:
//   state := "# slotkv replication state\n" ["replicaof " host " " port "\n"]
//            ["master-replid " id "\n"]
// (master-replid: the master id a replica's data came from, so that it continues after a
// restart.) In pure-memory mode nothing is kept.
//
// ZooKeeper mode (zookeeper-connect set; repl/coordinator.h): the role follows the master
// record in ZooKeeper instead (REPLICAOF is refused; FAILOVER switches the record once its
// target caught up), the node answers SENTINEL,
// and as a master it takes a write only while its lease, renewed by each read of the record
// naming it, has not run out: checked against the steady clock as each write executes.
//
// Thread rule: any thread; the link is replaced under a mutex.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "core/command/replication.h"
#include "repl/coordinator.h"
#include "repl/link.h"
#include "repl/master.h"

namespace slotkv::repl {

// The role a node starts with: empty host for a master.
struct SavedRole {
  std::string host;
  int port = 0;
  std::string master_replid;  // of the data a replica holds ("" unknown)
};
// Parses dir/replication.state (or the replicaof option: "host port"). InvalidArgument on a
// malformed one.
Result<SavedRole> ParseState(std::string_view text);
std::string FormatState(const SavedRole& role);
Result<SavedRole> ParseReplicaOf(std::string_view value);

class Replication : public command::Replication, private Coordinator::Node {
 public:
  // Reads the role, makes the master side and installs itself (ServerState::replication, the
  // keyspace's stream listener). REQUIRES: before the workers start.
  static Result<std::unique_ptr<Replication>> Install(command::ServerState* state);
  ~Replication() override;

  // Once the workers run: the link of a replica, the once-a-second tick.
  void Start();
  // Stops the link (shutdown).
  void Stop();

  // command::Replication
  std::string_view RefuseWrite() const override;
  std::string_view RefuseStale() const override;
  void OnPublish(bool shard, std::string_view channel, std::string_view payload) override {
    master_->Publish(shard, channel, payload);
  }
  void OnSwapDb(const std::vector<uint32_t>& map) override { master_->SendDbMap(map); }
  bool is_replica() const override { return replica_.load(); }
  void Refresh() override;
  bool DropMasterLink() override;
  void ReplicaOf(command::AsyncContext& ctx) override;
  void Role(command::Reply& reply) override;
  std::string Info() override;
  command::ReplicationStatus GetStatus() override;
  command::Task Wait(command::AsyncContext& ctx, int64_t replicas, int64_t timeout_ms) override;
  void Sync(command::AsyncContext& ctx) override;
  void Ack(command::AsyncContext& ctx) override;
  void Failover(command::AsyncContext& ctx) override;
  bool Sentinel(command::AsyncContext& ctx) override;
  Status NameMaster(const std::string& host, int port) override;

  Master& master() { return *master_; }

 private:
  explicit Replication(command::ServerState* state);
  // Starts a link to role_'s master, replacing any. REQUIRES: change_mu_ held, mu_ not.
  void StartLink();
  // Stops the link (kept in retired_) and notes its partial streams. REQUIRES: change_mu_
  // held, mu_ not (the link's thread may wait for mu_ in a callback).
  void StopLink();
  // The role changes (REPLICAOF, FAILOVER, a master's FAILOVER frame). BecomeMaster shifts the
  // replication ids (why: for the log). REQUIRES: change_mu_ held, mu_ not.
  Status BecomeMaster(const char* why);
  Status BecomeReplica(const std::string& host, int port);
  // Writes dir/replication.state. REQUIRES: mu_ held.
  Status Save();
  void SaveOrLog();
  // The role changed: the replicaof option follows (CONFIG GET, CONFIG REWRITE), then Save.
  // REQUIRES: mu_ held.
  Status SetRole();
  void Tick();

  // Coordinator::Node (ZooKeeper mode), on the coordinator's thread.
  ClusterNode Self() override;
  void Follow(const MasterRecord& record) override;
  void Renew(int64_t deadline_ns) override { lease_until_ns_ = deadline_ns; }
  void Switched(const MasterRecord& old, const MasterRecord& now) override;

  // FAILOVER (failover.cc): Redis 7's coordinated switch. Writes are refused (-READONLY) from
  // the command until it ends; every 10 ms, on worker 0, FailoverStep waits for the target
  // (or any replica) to acknowledge every stream's offset, then sends it FAILOVER (it promotes
  // itself) and becomes its replica; the timeout aborts (or, with FORCE, fails over anyway).
  enum FailoverStage { kNoFailover, kWaitForSync, kFailoverInProgress };
  struct FailoverPlan {
    std::string host;  // the target, "" for the first replica that catches up
    int port = 0;
    int64_t end_ms = 0;  // 0: no timeout
    bool force = false;
  };
  void FailoverStep();
  // Ends the failover (as master again when it had switched). REQUIRES: change_mu_ held.
  void AbortFailover(const char* why);
  std::string_view FailoverStateName() const;
  // The master's FAILOVER frame reached this replica: it promotes itself (on worker 0).
  void PromoteForFailover();

  command::ServerState* state_;
  std::unique_ptr<Master> master_;
  std::unique_ptr<Coordinator> coordinator_;  // ZooKeeper mode's, else null (set by Install)
  // The address this node is known by in ZooKeeper (set by Install; the port bound when
  // replica-announce-port is 0, known once listening).
  std::string self_host_;
  int self_port_ = 0;
  int self_port() const { return self_port_ != 0 ? self_port_ : state_->tcp_port; }
  std::atomic<uint64_t> epoch_{0};         // the master record's, as last read
  std::atomic<int64_t> lease_until_ns_{0};  // SteadyNowNs(): a ZooKeeper master writes until
  std::atomic<bool> replica_{false};
  std::atomic<bool> read_only_{true};
  std::atomic<bool> serve_stale_{true};
  std::atomic<int64_t> min_replicas_{0};
  std::atomic<int> good_replicas_{0};
  std::atomic<bool> stopped_{false};
  int64_t last_ping_ms_ = 0;  // worker 0's
  std::atomic<int> failover_stage_{kNoFailover};
  FailoverPlan failover_;  // guarded by change_mu_
  uint64_t switch_ticket_ = 0;  // ZooKeeper mode: the record switch asked for; change_mu_
  std::mutex change_mu_;  // one role change at a time (REPLICAOF, FAILOVER, Start, Stop)
  mutable std::mutex mu_;
  SavedRole role_;            // guarded by mu_
  // A full sync runs: the data is partial, so the state file names no master id.
  bool partial_data_ = false;  // guarded by mu_
  std::unique_ptr<Link> link_;  // guarded by mu_
  // Stopped links: jobs they posted to the workers may still run, so they are kept.
  std::vector<std::unique_ptr<Link>> retired_;  // guarded by mu_
  std::vector<bool> partial_;   // guarded by mu_: streams a stopped link left in full sync
};

}  // namespace slotkv::repl
