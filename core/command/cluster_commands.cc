// Cluster family: CLUSTER (every subcommand), READONLY, READWRITE, ASKING, as Redis 7.0 answers
// them with cluster-enabled no: "ERR This instance has cluster support disabled". slotkv
// spreads its keys over slots inside one server but speaks no Redis Cluster protocol (no
// MOVED/ASK, no cluster bus): a cluster-aware client that probes with CLUSTER INFO or
// READONLY gets the answer that tells it to use the server as a standalone one. Arity errors
// and unknown subcommands come first, as in Redis (the subcommand rows).
#include <string_view>

#include "core/command/args.h"
#include "core/command/command_table.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrClusterDisabled = "ERR This instance has cluster support disabled";

Task ClusterDisabled(AsyncContext& ctx) {
  const CommandSpec& row = *ctx.server.table->Find(ctx.args[0]);
  if (row.container && &CommandTable::Resolve(row, ctx.args) == &row) {
    ctx.reply.Error(UnknownSubcommand("cluster", ctx.args[1]));
    co_return;
  }
  ctx.reply.Error(kErrClusterDisabled);
}

}  // namespace

// Arity, flags, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO and
// COMMAND DOCS.
void RegisterClusterCommands(CommandTable& t) {
  // clang-format off
  constexpr uint32_t kClusterAdmin = kAdmin | kStale | kNoAsyncLoading;
  constexpr std::string_view kDangerous = "admin slow dangerous";
  t.Add({.name = "cluster", .arity = -2, .flags = 0, .run_async = ClusterDisabled,
         .group = "cluster", .summary = "A container for cluster commands",
         .since = "3.0.0", .acl = "slow",
         .subcommands = {
             Subcommand("cluster|addslots", -3, kClusterAdmin, kDangerous),
             Subcommand("cluster|addslotsrange", -4, kClusterAdmin, kDangerous),
             Subcommand("cluster|bumpepoch", 2, kClusterAdmin, kDangerous),
             Subcommand("cluster|count-failure-reports", 3, kAdmin | kStale, kDangerous),
             Subcommand("cluster|countkeysinslot", 3, kStale, "slow"),
             Subcommand("cluster|delslots", -3, kClusterAdmin, kDangerous),
             Subcommand("cluster|delslotsrange", -4, kClusterAdmin, kDangerous),
             Subcommand("cluster|failover", -2, kClusterAdmin, kDangerous),
             Subcommand("cluster|flushslots", 2, kClusterAdmin, kDangerous),
             Subcommand("cluster|forget", 3, kClusterAdmin, kDangerous),
             Subcommand("cluster|getkeysinslot", 4, kStale, "slow"),
             Subcommand("cluster|help", 2, kLoading | kStale, "slow"),
             Subcommand("cluster|info", 2, kStale, "slow"),
             Subcommand("cluster|keyslot", 3, kStale, "slow"),
             Subcommand("cluster|links", 2, kStale, "slow"),
             Subcommand("cluster|meet", -4, kClusterAdmin, kDangerous),
             Subcommand("cluster|myid", 2, kStale, "slow"),
             Subcommand("cluster|nodes", 2, kStale, "slow"),
             Subcommand("cluster|replicas", 3, kAdmin | kStale, kDangerous),
             Subcommand("cluster|replicate", 3, kClusterAdmin, kDangerous),
             Subcommand("cluster|reset", -2, kAdmin | kNoScript | kStale, kDangerous),
             Subcommand("cluster|saveconfig", 2, kClusterAdmin, kDangerous),
             Subcommand("cluster|set-config-epoch", 3, kClusterAdmin, kDangerous),
             Subcommand("cluster|setslot", -4, kClusterAdmin, kDangerous),
             Subcommand("cluster|shards", 2, kStale, "slow"),
             Subcommand("cluster|slaves", 3, kAdmin | kStale, kDangerous),
             Subcommand("cluster|slots", 2, kStale, "slow"),
         }});
  t.Add({.name = "readonly", .arity = 1, .flags = kLoading | kStale | kFast,
         .run_async = ClusterDisabled, .group = "cluster",
         .summary = "Enables read queries for a connection to a cluster replica node",
         .since = "3.0.0", .acl = "fast connection"});
  t.Add({.name = "readwrite", .arity = 1, .flags = kLoading | kStale | kFast,
         .run_async = ClusterDisabled, .group = "cluster",
         .summary = "Disables read queries for a connection to a cluster replica node",
         .since = "3.0.0", .acl = "fast connection"});
  t.Add({.name = "asking", .arity = 1, .flags = kFast, .run_async = ClusterDisabled,
         .group = "cluster", .summary = "Sent by cluster clients after an -ASK redirect",
         .since = "3.0.0", .acl = "fast connection"});
  // clang-format on
}

}  // namespace slotkv::command
