// The replication family: REPLICAOF / SLAVEOF, ROLE, WAIT, and the two commands of a slotkv
// replica's link, SLOTKV.SYNC (start the streams) and SLOTKV.ACK (acknowledge them). The work is
// repl/'s (command::Replication); without it this node answers as a master with no replicas.
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/errors.h"
#include "core/command/replication.h"

namespace slotkv::command {
namespace {

// Runs a replication handler, or replies that this node has none.
template <void (Replication::*kHandler)(AsyncContext&)>
Task Forward(AsyncContext& ctx) {
  if (ctx.server.replication == nullptr) {
    ctx.reply.Error("ERR replication is not available here");
  } else {
    (ctx.server.replication->*kHandler)(ctx);
  }
  co_return;
}

Task Role(AsyncContext& ctx) {
  if (ctx.server.replication != nullptr) {
    ctx.server.replication->Role(ctx.reply);
    co_return;
  }
  ctx.reply.Array(3);
  ctx.reply.Bulk("master");
  ctx.reply.Integer(0);
  ctx.reply.Array(0);
  co_return;
}

// WAIT numreplicas timeout, with Redis's argument errors.
Task Wait(AsyncContext& ctx) {
  std::optional<int64_t> replicas = IntArg(ctx.args[1], ctx.reply);
  if (!replicas) co_return;
  std::optional<int64_t> timeout = MsTimeoutArg(ctx.args[2], ctx.reply);
  if (!timeout) co_return;
  if (ctx.server.replication == nullptr) {
    ctx.reply.Integer(0);
    co_return;
  }
  co_await ctx.server.replication->Wait(ctx, *replicas, *timeout);
}

// SENTINEL ...: ZooKeeper mode's; elsewhere unknown, as on a Redis that is no Sentinel.
Task Sentinel(AsyncContext& ctx) {
  if (ctx.server.replication == nullptr || !ctx.server.replication->Sentinel(ctx)) {
    ctx.reply.Error(UnknownCommand(ctx.args[0], ctx.args.data() + 1, ctx.args.size() - 1));
  }
  co_return;
}

}  // namespace

void RegisterReplicationCommands(CommandTable& t) {
  t.Add({.name = "replicaof", .arity = 3, .flags = kAdmin | kNoScript | kStale | kNoAsyncLoading,
         .run_async = Forward<&Replication::ReplicaOf>, .group = "server",
         .summary = "Configures a server as replica of another, or promotes it to a master.",
         .since = "5.0.0", .acl = "admin slow dangerous"});
  t.Add({.name = "slaveof", .arity = 3, .flags = kAdmin | kNoScript | kStale | kNoAsyncLoading,
         .run_async = Forward<&Replication::ReplicaOf>, .group = "server",
         .summary = "Sets a Redis server as a replica of another, or promotes it to being a "
                    "master.",
         .since = "1.0.0", .acl = "admin slow dangerous"});
  t.Add({.name = "role", .arity = 1, .flags = kNoScript | kLoading | kStale | kFast,
         .run_async = Role, .group = "server",
         .summary = "Returns the replication role.", .since = "2.8.12",
         .acl = "admin fast dangerous"});
  t.Add({.name = "wait", .arity = 3, .flags = kNoScript | kMayReplicate, .run_async = Wait,
         .group = "generic",
         .summary = "Blocks until the asynchronous replication of all preceding write commands "
                    "sent by the connection is completed.",
         .since = "3.0.0", .acl = "slow connection"});
  t.Add({.name = "failover", .arity = -1, .flags = kAdmin | kNoScript | kStale,
         .run_async = Forward<&Replication::Failover>, .group = "server",
         .summary = "Starts a coordinated failover from a server to one of its replicas.",
         .since = "6.2.0", .acl = "admin slow dangerous"});
  t.Add({.name = "sentinel", .arity = -2, .flags = kAdmin | kNoScript | kLoading | kStale,
         .run_async = Sentinel, .group = "sentinel",
         .summary = "The Sentinel client commands (ZooKeeper mode): where the master is.",
         .since = "2.8.4", .acl = "admin slow dangerous"});
  t.Add({.name = "slotkv.sync", .arity = -7, .flags = kAdmin | kNoScript | kNoMulti | kStale,
         .run_async = Forward<&Replication::Sync>, .group = "server",
         .summary = "Starts a slotkv replica's link: the replication streams of every slot.",
         .since = "7.0.0", .acl = "admin slow dangerous"});
  t.Add({.name = "slotkv.ack", .arity = -1, .flags = kAdmin | kNoScript | kStale | kFast,
         .run_async = Forward<&Replication::Ack>, .group = "server",
         .summary = "A slotkv replica acknowledges the streams it applied (no reply).",
         .since = "7.0.0", .acl = "admin fast dangerous"});
}

}  // namespace slotkv::command
