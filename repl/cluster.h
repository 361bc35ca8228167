// What the nodes of a ZooKeeper-managed cluster write to ZooKeeper, and the controller's
// choices (repl/coordinator.h runs them). Under zookeeper-root:
//   members/<host>:<port>   ephemeral, one per live node: its ClusterNode (FormatMember)
//   election/n_<seq>        ephemeral sequential: the lowest one's node is the controller
//   master                  persistent: the MasterRecord every node follows
// Each znode holds "key=value" lines, unknown keys ignored (a newer node may add some).
//
// The epoch orders master records: a failover writes epoch + 1 with a conditional multi-op
// (the controller's election znode still exists and the record is at the version it read),
// so of two controllers racing only one commits an epoch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/replication.h"

namespace slotkv::repl {

using command::ClusterNode;

struct MasterRecord {
  uint64_t epoch = 0;
  std::string host;
  int port = 0;
  std::string run_id;  // of the node when it was chosen
};

std::string Address(std::string_view host, int port);  // "host:port"

std::string FormatMember(const ClusterNode& node);
// nullopt when a required key (host, port, run_id) is missing or a number is malformed.
std::optional<ClusterNode> ParseMember(std::string_view text);
std::string FormatRecord(const MasterRecord& record);
std::optional<MasterRecord> ParseRecord(std::string_view text);

// The replica a failover promotes: one that holds, in every stream, at least what each other
// candidate holds, when there is one; then as Sentinel picks: not the failed master,
// priority > 0, then the lowest priority, the highest offset, the smallest run id. Never one whose data is
// partial (a full sync under way or cut off: some streams hold old data). nullopt: none.
std::optional<ClusterNode> ChooseReplica(const std::vector<ClusterNode>& members,
                                         const MasterRecord& failed);
// The first master of a cluster with no record yet: a node that is a master (its data is the
// cluster's), else any node, each time by the same order as ChooseReplica; none partial.
std::optional<ClusterNode> ChooseFirstMaster(const std::vector<ClusterNode>& members);

}  // namespace slotkv::repl
