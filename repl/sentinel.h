// The Sentinel client commands of ZooKeeper mode: SENTINEL MASTERS | MASTER | REPLICAS |
// SLAVES | GET-MASTER-ADDR-BY-NAME | SENTINELS | MYID | HELP, answered from what this node
// reads in ZooKeeper (command::ClusterStatus) in Sentinel's shapes, so client libraries that
// discover their master through Sentinel (redis-py's Sentinel, Jedis, Lettuce) follow slotkv's
// failovers unchanged. The cluster is one master named by zookeeper-root's last part; the
// other nodes are its "sentinels" (at their sentinel ports).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/command/reply.h"
#include "core/command/replication.h"

namespace slotkv::repl {

struct SentinelSelf {
  std::string run_id;  // this node's (SENTINEL MYID)
  std::string host;
  int port = 0;
  int64_t down_after_ms = 0;
};

// Replies to args (args[0] is SENTINEL) from status.
void SentinelReply(const command::ClusterStatus& status, const SentinelSelf& self,
                   const std::vector<std::string>& args, command::Reply& reply);

}  // namespace slotkv::repl
