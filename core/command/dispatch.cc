#include "core/command/dispatch.h"

#include <string_view>

#include "core/command/acl_check.h"
#include "core/command/args.h"
#include "core/command/client_pause.h"
#include "core/command/errors.h"
#include "core/command/replication.h"
#include "core/command/reply.h"
#include "core/pubsub/registry.h"
#include "core/script/scripts.h"

namespace slotkv::command {
namespace {

// Commands a RESP2 client that subscribes to something may run (server.c's processCommand).
bool RunsSubscribed(std::string_view name) {
  return name == "subscribe" || name == "psubscribe" || name == "ssubscribe" ||
         name == "unsubscribe" || name == "punsubscribe" || name == "sunsubscribe" ||
         name == "ping" || name == "quit" || name == "reset";
}

// Commands that run at once inside MULTI instead of being queued (multi.c's list).
bool RunsInMulti(std::string_view name) {
  return name == "exec" || name == "discard" || name == "multi" || name == "watch" ||
         name == "quit" || name == "reset";
}

// Whether an enable-*-command option's value lets a client at addr ("ip:port") run a protected
// command (Redis's allowProtectedAction): "yes", or "local" from 127.0.0.1 or ::1.
bool AllowsProtected(std::string_view option_value, std::string_view addr) {
  return option_value == "yes" ||
         (option_value == "local" && (addr.starts_with("127.0.0.1:") || addr.starts_with("::1:")));
}

Admission Refuse(ServerState& server, ClientState& client, const CommandSpec* spec,
                 std::string_view error, const std::vector<std::string>& args) {
  if (client.in_multi) client.multi_error = true;  // Redis's flagTransaction
  Admission a;
  if (spec && spec->name == "exec") {
    // EXEC itself refused: the transaction goes, and the error says why (execCommandAbort).
    DiscardTransaction(server, client);
    if (error.starts_with("ERR ")) error.remove_prefix(4);
    a.spec = a.call = spec;
    a.full_name = "exec";
    a.refused = true;
    a.reply = ErrorLine(std::string(kErrExecAbortBecause) + std::string(error));
    return a;
  }
  a.spec = spec;
  if (spec) {
    a.call = &CommandTable::Resolve(*spec, args);
    a.full_name = CommandTable::FullName(*spec, args);
  }
  a.refused = true;
  a.reply = ErrorLine(error);
  return a;
}

// Admit without CLIENT REPLY's rule.
Admission AdmitRequest(ServerState& server, ClientState& client, std::vector<std::string>& args) {
  const CommandSpec* spec = server.table->Find(args[0]);
  if (!spec) {
    return Refuse(server, client, nullptr,
                  UnknownCommand(args[0], args.data() + 1, args.size() - 1), args);
  }
  if (!CommandTable::ArityOk(*spec, args.size())) {
    return Refuse(server, client, spec, WrongArgs(spec->name), args);
  }
  // A container's subcommand: its own row's arity and flags (an unknown one reaches the
  // container's handler, which says so).
  const CommandSpec& call = CommandTable::Resolve(*spec, args);
  if (!CommandTable::ArityOk(call, args.size())) {
    return Refuse(server, client, spec, WrongArgs(call.name), args);
  }
  const uint32_t flags = call.flags;
  if (flags & kProtected) {
    const bool debug = spec->name == "debug";
    const std::string_view option = debug ? "enable-debug-command" : "enable-module-command";
    if (!AllowsProtected(server.config->Get(option), client.addr)) {
      return Refuse(server, client, spec, ProtectedNotAllowed(debug ? "DEBUG" : "MODULE", option),
                    args);
    }
  }
  if (server.auth_required() && !client.authenticated && !(spec->flags & kNoAuth)) {
    return Refuse(server, client, spec, kErrNoAuth, args);
  }
  // As Redis's processCommand: the user's ACL rules (a container's unknown subcommand goes on
  // to its handler's error, as Redis finds no such command).
  if (&call != spec || !spec->container || args.size() < 2) {
    const acl::Verdict v = CheckCall(server, client, *spec, args, acl::Context::kToplevel);
    if (!v.ok()) {
      if (v.denial == acl::Denial::kAuth) {  // its user was deleted: it is being closed
        client.close_after_reply = true;
        return Refuse(server, client, spec, kErrNoAuth, args);
      }
      return Refuse(server, client, spec, NoPermError(v, CommandTable::FullName(*spec, args)),
                    args);
    }
  }
  if (server.scripts && server.scripts->busy() && !(flags & kAllowBusy)) {
    return Refuse(server, client, spec,
                  "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                  "SHUTDOWN NOSAVE.",
                  args);
  }
  if (client.protocol == 2 && client.subscribed() && !RunsSubscribed(spec->name)) {
    return Refuse(server, client, spec,
                  "ERR Can't execute '" + CommandTable::FullName(*spec, args) +
                      "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                      "allowed in this context",
                  args);
  }
  // A monitor is a replica to Redis (CLIENT_SLAVE): it may not read, write or publish.
  if (client.monitor && (flags & (kWrite | kReadOnly | kMayReplicate))) {
    return Refuse(server, client, spec, kErrReplicaKeyspace, args);
  }
  // As Redis's MISCONF check: a write to a slot that refuses writes after an I/O failure is
  // refused before it runs (also in MULTI: EXEC then aborts), so no multi-key write is applied
  // in part to its healthy slots.
  if ((flags & kWrite) && server.keyspace->refusals() > 0) {
    for (size_t k : CommandTable::Keys(*spec, args)) {
      const uint32_t s = server.keyspace->SlotOfKey(args[k]);
      if (std::optional<std::string> why = server.keyspace->Refusal(s, client.db)) {
        return Refuse(server, client, spec, std::string(kErrWriteFailed) + *why, args);
      }
    }
  }
  // As Redis's processCommand: NOREPLICAS on a master short of good replicas, READONLY on a
  // read-only replica, MASTERDOWN on a replica cut off from its master that may not serve
  // stale data.
  if ((flags & kWrite) && server.replication != nullptr) {
    const std::string_view why = server.replication->RefuseWrite();
    if (!why.empty()) return Refuse(server, client, spec, std::string(why), args);
  }
  // (A container's unknown subcommand is let through to its handler's error.)
  if (!(flags & kStale) && !(&call == spec && spec->container) &&
      server.replication != nullptr) {
    const std::string_view why = server.replication->RefuseStale();
    if (!why.empty()) return Refuse(server, client, spec, std::string(why), args);
  }
  Admission a;
  a.spec = spec;
  a.full_name = CommandTable::FullName(*spec, args);
  // As Redis's processCommand: a paused command waits (CLIENT PAUSE, FAILOVER) before it is
  // queued or run; replicas' links never do.
  if (server.pause != nullptr && server.pause->active() && !client.replica &&
      server.pause->Holds(*spec, args, client.queued,
                          server.keyspace->clock()->MonotonicUs() / 1000)) {
    a.paused = true;
    return a;
  }
  if (client.in_multi && !RunsInMulti(spec->name)) {
    if (spec->flags & kNoMulti) return Refuse(server, client, spec, kErrNotInMulti, args);
    client.queued.push_back({spec, std::move(args)});
    args = {};
    a.reply = "+QUEUED\r\n";
    return a;
  }
  a.run = true;
  return a;
}

}  // namespace

Admission Admit(ServerState& server, ClientState& client, std::vector<std::string>& args) {
  if (!client.reply_off && !client.reply_skip) return AdmitRequest(server, client, args);
  // CLIENT REPLY ON answers even while replies are off; SKIP drops the next request's reply.
  // (Un)subscribe confirmations are pushes in Redis 7.0, which CLIENT REPLY keeps.
  const bool reply_control = args.size() >= 2 && Is(args[0], "CLIENT") && Is(args[1], "REPLY");
  const std::string_view name = args[0];
  const bool confirms_by_push = Is(name, "SUBSCRIBE") || Is(name, "PSUBSCRIBE") ||
                                Is(name, "SSUBSCRIBE") || Is(name, "UNSUBSCRIBE") ||
                                Is(name, "PUNSUBSCRIBE") || Is(name, "SUNSUBSCRIBE");
  Admission a = AdmitRequest(server, client, args);
  if (!a.paused) {
    a.quiet = !reply_control && !confirms_by_push;
    if (!reply_control) client.reply_skip = false;
  }
  return a;
}

void Unwatch(ServerState& server, std::shared_ptr<txn::Watch>& watch,
             std::vector<WatchedKey>& watched) {
  Executor& ex = *server.executor;
  // The entries hold the Watch until they go, so its address names it until then.
  for (WatchedKey& k : watched) {
    ex.Post(ex.OwnerOf(k.slot), [&server, k = std::move(k), w = watch.get()] {
      server.keyspace->watched().Remove(k.slot, k.db, k.key, w);
    });
  }
  watched.clear();
  watch.reset();
}

void DiscardTransaction(ServerState& server, ClientState& client) {
  client.in_multi = false;
  client.multi_error = false;
  client.queued.clear();
  Unwatch(server, client);
}

void UnsubscribeAll(ServerState& server, ClientState& client, int home) {
  auto drop = [&](pubsub::Kind kind, std::set<std::string>& names) {
    for (const std::string& name : names) server.pubsub->Unsubscribe(kind, name, {home, client.id});
    names.clear();
  };
  drop(pubsub::Kind::kChannel, client.channels);
  drop(pubsub::Kind::kPattern, client.patterns);
  drop(pubsub::Kind::kShard, client.shard_channels);
  if (client.monitor) server.pubsub->RemoveMonitor({home, client.id});
  client.monitor = false;
}

}  // namespace slotkv::command
