// Coordinator: ZooKeeper mode (zookeeper-connect set). A thread of its own keeps this node's
// session, member znode and election znode (repl/cluster.h has the layout), reads the master
// record every tick (a watch wakes it at once on a change) and makes the node follow it; the
// elected controller also watches the master's member znode and, when it has been gone for
// failover-down-after-ms, commits the next epoch naming the best replica.
//
// The lease: each successful read of the record that names this node renews it until
// (the read's send time + 2/3 of the session timeout), on the steady clock, once the node's
// member znode exists in the current session (a failover commits only while the failed
// master's member znode is absent: a master back with a new session either registered first,
// and the failover fails, or reads the record after the failover). ZooKeeper expires
// the session no earlier than a full timeout after the server last heard from us, and the
// controller waits failover-down-after-ms more, so a master whose lease ran out stops taking
// writes before any other node can be promoted (the Node checks the lease at each write).
//
// Thread rule: Start/Stop/Wake/Status from any thread; the Node's calls run on the
// coordinator's thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/base/status.h"
#include "core/command/replication.h"
#include "repl/cluster.h"

namespace slotkv::repl {

class Zk;

// Steady-clock nanoseconds (the lease's clock).
int64_t SteadyNowNs();

class Coordinator {
 public:
  struct Options {
    std::string hosts;  // zookeeper-connect
    std::string root;   // zookeeper-root
    int session_timeout_ms = 10000;
    int64_t down_after_ms = 5000;
  };
  // What the coordinator asks of the node (repl::Replication).
  class Node {
   public:
    virtual ~Node() = default;
    // This node as its member znode shows it, now.
    virtual ClusterNode Self() = 0;
    // The record's master is record: promote this node, or replicate from it.
    virtual void Follow(const MasterRecord& record) = 0;
    // This node is the record's master and may acknowledge writes until deadline_ns.
    virtual void Renew(int64_t deadline_ns) = 0;
    // The master changed from old to now (both "host:port"): +switch-master.
    virtual void Switched(const MasterRecord& old, const MasterRecord& now) = 0;
  };

  Coordinator(Options options, Node* node);
  ~Coordinator();  // Stop

  void Start();
  void Stop();
  // Runs a step now (a replication handshake saw a higher epoch).
  void Wake();
  command::ClusterStatus Status() const;
  // Asks for host:port to be named the master in the next epoch (a graceful FAILOVER once its
  // target caught up; POST /cluster/replicaof), guarded by this node's member znode and the
  // record's version as last read. One at a time: a request replaces an unanswered one.
  // SwitchResult: nullopt while pending, then OK (committed) or why ZooKeeper refused.
  uint64_t RequestSwitch(const std::string& host, int port);
  std::optional<slotkv::Status> SwitchResult(uint64_t ticket) const;
  // The sentinel name: the root's last part.
  const std::string& name() const { return name_; }

 private:
  void Run();
  void Step();
  // The member znode (created once per session, data rewritten every second).
  void WriteMember(const ClusterNode& self);
  // The election znode and whether it is the lowest; else a watch on its predecessor.
  void Elect();
  void ReadMembers();
  // The controller's part: the first record, or a failover.
  void Control();
  // Commits the next epoch naming next (a failover or a requested switch) while guard exists
  // and absent does not ("": no such condition).
  int Commit(const std::string& guard, const std::string& absent, const ClusterNode& next);
  void RunSwitch();
  std::string Path(const std::string& leaf) const { return options_.root + "/" + leaf; }

  Options options_;
  Node* node_;
  std::string name_;
  std::unique_ptr<Zk> zk_;  // the coordinator thread's
  bool paths_ready_ = false;
  std::string member_path_;
  std::string election_path_;
  int64_t member_written_ns_ = 0;
  int64_t members_read_ns_ = 0;
  int64_t master_missing_ns_ = 0;  // the controller's: since when the master's znode is gone
  bool have_record_ = false;
  MasterRecord record_;
  int record_version_ = -1;
  std::string self_addr_;
  std::string logged_;  // the last problem logged (each is logged once in a row)
  std::string session_logged_;  // the session state last logged
  void Log(const std::string& line);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;   // guarded by mu_
  bool woken_ = false;  // guarded by mu_
  command::ClusterStatus status_;  // guarded by mu_
  struct SwitchRequest {
    uint64_t ticket = 0;
    std::string host;
    int port = 0;
    std::optional<int> result;
  };
  SwitchRequest switch_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace slotkv::repl
