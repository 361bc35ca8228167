// Connection family: PING ECHO QUIT HELLO AUTH SELECT CLIENT RESET. They run on the client's
// own worker (AsyncHandler) because they read or change its ClientState; CLIENT LIST/KILL
// visit every worker.
#include <algorithm>

#include "core/base/redis_version.h"
#include "core/command/acl_check.h"
#include "core/command/args.h"
#include "core/command/client_pause.h"
#include "core/command/command_table.h"
#include "core/command/dispatch.h"
#include "core/command/replication.h"

namespace slotkv::command {
namespace {


Task Ping(AsyncContext& ctx) {
  if (ctx.args.size() > 2) {
    ctx.reply.Error(WrongArgs("ping"));
  } else if (ctx.client && ctx.client->subscribed() && ctx.reply.protocol() == 2) {
    // A subscribed RESP2 client gets pings in the shape of messages: ["pong", arg or ""].
    ctx.reply.Array(2);
    ctx.reply.Bulk("pong");
    ctx.reply.Bulk(ctx.args.size() == 2 ? ctx.args[1] : "");
  } else if (ctx.args.size() == 2) {
    ctx.reply.Bulk(ctx.args[1]);
  } else {
    ctx.reply.SimpleString("PONG");
  }
  co_return;
}

Task Echo(AsyncContext& ctx) {
  ctx.reply.Bulk(ctx.args[1]);
  co_return;
}

Task Quit(AsyncContext& ctx) {
  ctx.reply.Ok();
  ctx.client->close_after_reply = true;
  co_return;
}

// AUTH and HELLO AUTH: the client becomes user's when password opens it (not when the user is
// off or missing); a failure is logged in ACL LOG, its object the command as typed.
bool Authenticate(AsyncContext& ctx, const std::string& user, std::string_view password) {
  const uint64_t version = ctx.server.users->version();
  std::shared_ptr<const acl::User> u = ctx.server.users->Get(user);
  if (u && acl::PasswordMatches(*u, password)) {
    ctx.client->authenticated = true;
    ctx.client->user = std::move(u);
    ctx.client->user_version = version;
    return true;
  }
  LogDenial(ctx.server, *ctx.client, acl::Denial::kAuth, acl::Context::kToplevel, ctx.args[0],
            user);
  return false;
}

Task Auth(AsyncContext& ctx) {
  const size_t n = ctx.args.size();
  if (n > 3) {
    ctx.reply.Error(kErrSyntax);
    co_return;
  }
  if (n == 2 && (ctx.server.users->Default()->flags & acl::kNoPass)) {
    ctx.reply.Error(kErrAuthNoPassword);
    co_return;
  }
  const std::string user = n == 3 ? ctx.args[1] : "default";
  if (!Authenticate(ctx, user, ctx.args[n - 1])) {
    ctx.reply.Error(kErrWrongPass);
    co_return;
  }
  ctx.reply.Ok();
}

bool ValidClientName(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) { return c >= '!' && c <= '~'; });
}

Task Hello(AsyncContext& ctx) {
  int protocol = ctx.client->protocol;
  size_t i = 1;
  if (ctx.args.size() >= 2) {
    std::optional<int64_t> ver = ParseInt64(ctx.args[1]);
    if (!ver) {
      ctx.reply.Error("ERR Protocol version is not an integer or out of range");
      co_return;
    }
    if (*ver < 2 || *ver > 3) {
      ctx.reply.Error("NOPROTO unsupported protocol version");
      co_return;
    }
    protocol = static_cast<int>(*ver);
    i = 2;
  }
  std::string setname;
  bool has_setname = false;
  for (; i < ctx.args.size(); ++i) {
    size_t left = ctx.args.size() - i - 1;
    if (Is(ctx.args[i], "AUTH") && left >= 2) {
      if (!Authenticate(ctx, ctx.args[i + 1], ctx.args[i + 2])) {
        ctx.reply.Error(kErrWrongPass);
        co_return;
      }
      i += 2;
    } else if (Is(ctx.args[i], "SETNAME") && left >= 1) {
      setname = ctx.args[++i];
      has_setname = true;
      if (!ValidClientName(setname)) {
        ctx.reply.Error(
            "ERR Client names cannot contain spaces, newlines or special characters.");
        co_return;
      }
    } else {
      ctx.reply.Error("ERR Syntax error in HELLO option '" + ctx.args[i] + "'");
      co_return;
    }
  }
  if (ctx.server.auth_required() && !ctx.client->authenticated) {
    ctx.reply.Error("NOAUTH HELLO must be called with the client already authenticated, "
                    "otherwise the HELLO AUTH <user> <pass> option can be used to "
                    "authenticate the client and select the RESP protocol version at the same "
                    "time");
    co_return;
  }
  if (has_setname) ctx.client->name = setname;
  ctx.client->protocol = protocol;
  Reply reply(protocol);
  reply.Map(7);
  reply.Bulk("server");
  reply.Bulk("redis");
  reply.Bulk("version");
  reply.Bulk(kRedisVersion);
  reply.Bulk("proto");
  reply.Integer(protocol);
  reply.Bulk("id");
  reply.Integer(static_cast<int64_t>(ctx.client->id));
  reply.Bulk("mode");
  reply.Bulk("standalone");
  reply.Bulk("role");
  const bool replica = ctx.server.replication && ctx.server.replication->is_replica();
  reply.Bulk(replica ? "replica" : "master");
  reply.Bulk("modules");
  reply.Array(0);
  ctx.reply.buffer() = std::move(reply.buffer());
}

Task Select(AsyncContext& ctx) {
  std::optional<int64_t> db = IntArg(ctx.args[1], ctx.reply);
  if (!db) co_return;
  if (*db < 0 || *db >= static_cast<int64_t>(ctx.server.keyspace->databases())) {
    ctx.reply.Error(kErrDbIndex);
    co_return;
  }
  ctx.client->db = static_cast<uint32_t>(*db);
  ctx.db = ctx.client->db;
  ctx.reply.Ok();
}

Task Reset(AsyncContext& ctx) {
  ClientState& c = *ctx.client;
  DiscardTransaction(ctx.server, c);
  UnsubscribeAll(ctx.server, c, ctx.home);
  if (c.tracking) ctx.server.tracking->Disable(c.id);
  c.tracking.reset();
  c.tracking_caching = c.tracking_broken = false;
  c.db = 0;
  c.protocol = 2;
  c.name.clear();
  c.authenticated = !ctx.server.auth_required();
  c.user = ctx.server.users->Default();
  c.user_version = 0;  // fetched again before the next command
  ctx.reply.SimpleString("RESET");
  co_return;
}

// CLIENT REPLY ON|OFF|SKIP: replies on (answered OK), off until ON, or off for the next
// request only (Admission::quiet); OFF and SKIP answer nothing, nor does an error while off.
void ClientReply(AsyncContext& ctx) {
  ClientState& c = *ctx.client;
  const std::string& mode = ctx.args[2];
  if (Is(mode, "ON")) {
    c.reply_off = c.reply_skip = false;
    ctx.reply.Ok();
  } else if (Is(mode, "OFF")) {
    c.reply_off = true;
  } else if (Is(mode, "SKIP")) {
    if (!c.reply_off) c.reply_skip = true;
  } else if (!c.reply_off) {
    ctx.reply.Error(kErrSyntax);
  }
}

// CLIENT LIST's flags, in Redis's order (networking.c): S a replica's link (O a monitor), P
// pubsub, x MULTI, b blocked, t tracking (R its redirection broken, B in BCAST mode), d a
// watched key changed, e no-evict; N none.
std::string Flags(const ClientInfo& c) {
  std::string f;
  if (c.monitor) f += 'O';
  if (c.replica) f += 'S';
  if (c.pubsub()) f += 'P';
  if (c.multi >= 0) f += 'x';
  if (c.blocked) f += 'b';
  if (c.tracking) f += 't';
  if (c.tracking_broken) f += 'R';
  if (c.tracking_bcast) f += 'B';
  if (c.watch_dirty) f += 'd';
  if (c.no_evict) f += 'e';
  return f.empty() ? "N" : f;
}

bool KnownType(std::string_view type) {
  return Is(type, "normal") || Is(type, "master") || Is(type, "replica") ||
         Is(type, "slave") || Is(type, "pubsub");
}

// Whether c is of CLIENT LIST / CLIENT KILL's TYPE type (normal, pubsub, master, replica).
bool OfType(const ClientInfo& c, std::string_view type) {
  if (Is(type, "pubsub")) return c.pubsub() && !c.replica;
  if (Is(type, "replica") || Is(type, "slave")) return c.replica;
  if (Is(type, "master")) return false;  // the link to a master is not a served connection
  return !c.pubsub() && !c.replica;      // normal
}


// Every client of every worker, by id.
Task ListClients(AsyncContext& ctx, std::vector<ClientInfo>* out) {
  for (int w = 0; w < ctx.server.executor->workers(); ++w) {
    co_await ctx.ToWorker(w);
    std::vector<ClientInfo> local = ctx.server.clients->ListLocal();
    out->insert(out->end(), local.begin(), local.end());
  }
  co_await ctx.ToHome();
  std::sort(out->begin(), out->end(),
            [](const ClientInfo& a, const ClientInfo& b) { return a.id < b.id; });
}

// The info of the calling client (its entry is on the home worker).
ClientInfo SelfInfo(AsyncContext& ctx) {
  for (const ClientInfo& c : ctx.server.clients->ListLocal()) {
    if (c.id == ctx.client->id) return c;
  }
  return ClientInfo();
}

Task ClientList(AsyncContext& ctx) {
  std::vector<uint64_t> ids;
  std::string type;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    if (Is(ctx.args[i], "TYPE") && i + 1 < ctx.args.size()) {
      type = ctx.args[++i];
      if (!KnownType(type)) {
        ctx.reply.Error("ERR Unknown client type '" + type + "'");
        co_return;
      }
    } else if (Is(ctx.args[i], "ID") && i + 1 < ctx.args.size()) {
      for (++i; i < ctx.args.size(); ++i) {
        std::optional<int64_t> id = ParseInt64(ctx.args[i]);
        if (!id || *id <= 0) {
          ctx.reply.Error("ERR Invalid client ID");
          co_return;
        }
        ids.push_back(static_cast<uint64_t>(*id));
      }
    } else {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
  }
  std::vector<ClientInfo> clients;
  co_await ListClients(ctx, &clients);
  std::string text;
  for (const ClientInfo& c : clients) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), c.id) == ids.end()) continue;
    if (!type.empty() && !OfType(c, type)) continue;
    text += FormatClient(c);
  }
  ctx.reply.Verbatim(text);
}

// CLIENT UNBLOCK client-id [TIMEOUT|ERROR]: 1 when the client was blocked (its blocking
// command then replies as on a timeout, or the UNBLOCKED error), else 0.
Task ClientUnblock(AsyncContext& ctx) {
  std::optional<int64_t> id = IntArg(ctx.args[2], ctx.reply);
  if (!id) co_return;
  bool error = false;
  if (ctx.args.size() == 4) {
    if (Is(ctx.args[3], "ERROR")) {
      error = true;
    } else if (!Is(ctx.args[3], "TIMEOUT")) {
      ctx.reply.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
      co_return;
    }
  }
  bool unblocked = false;
  for (int w = 0; w < ctx.server.executor->workers() && !unblocked; ++w) {
    co_await ctx.ToWorker(w);
    unblocked = ctx.server.clients->UnblockLocal(static_cast<uint64_t>(*id), error);
  }
  co_await ctx.ToHome();
  ctx.reply.Integer(unblocked ? 1 : 0);
}

Task ClientKill(AsyncContext& ctx) {
  // Old form: CLIENT KILL addr:port -> OK or an error. New form: filters -> count.
  const bool old_form = ctx.args.size() == 3;
  std::optional<uint64_t> id;
  std::string addr;
  std::string laddr;
  std::string type;
  std::optional<std::string> user;
  bool skipme = true;
  if (old_form) {
    addr = ctx.args[2];
    skipme = false;
  } else {
    if ((ctx.args.size() - 2) % 2 != 0) {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
    for (size_t i = 2; i + 1 < ctx.args.size(); i += 2) {
      const std::string& opt = ctx.args[i];
      const std::string& val = ctx.args[i + 1];
      if (Is(opt, "ID")) {
        std::optional<int64_t> v = ParseInt64(val);
        if (!v || *v <= 0) {
          ctx.reply.Error("ERR client-id should be greater than 0");
          co_return;
        }
        id = static_cast<uint64_t>(*v);
      } else if (Is(opt, "ADDR")) {
        addr = val;
      } else if (Is(opt, "LADDR")) {
        laddr = val;
      } else if (Is(opt, "SKIPME")) {
        if (Is(val, "yes")) {
          skipme = true;
        } else if (Is(val, "no")) {
          skipme = false;
        } else {
          ctx.reply.Error(kErrSyntax);
          co_return;
        }
      } else if (Is(opt, "TYPE")) {
        if (!KnownType(val)) {
          ctx.reply.Error("ERR Unknown client type '" + val + "'");
          co_return;
        }
        type = val;
      } else if (Is(opt, "USER")) {
        if (ctx.server.users->Get(val) == nullptr) {
          ctx.reply.Error("ERR No such user '" + val + "'");
          co_return;
        }
        user = val;
      } else {
        ctx.reply.Error(kErrSyntax);
        co_return;
      }
    }
  }
  const uint64_t self = ctx.client->id;
  bool kill_self = false;
  auto match = [&](const ClientInfo& c, const ClientState&) {
    if (id && c.id != *id) return false;
    if (!addr.empty() && c.addr != addr) return false;
    if (!laddr.empty() && c.laddr != laddr) return false;
    if (!type.empty() && !OfType(c, type)) return false;
    if (user && c.user != *user) return false;
    if (c.id == self) {
      if (!skipme) kill_self = true;
      return false;
    }
    return true;
  };
  int killed = 0;
  for (int w = 0; w < ctx.server.executor->workers(); ++w) {
    co_await ctx.ToWorker(w);
    killed += ctx.server.clients->KillLocal(match);
  }
  co_await ctx.ToHome();
  if (kill_self) {
    ++killed;
    ctx.client->close_after_reply = true;
  }
  // A replica's link to its master is no served connection: TYPE master drops it (it
  // reconnects, continuing its streams), as Redis's freeClient of the master client.
  const bool master_type = type.empty() || Is(type, "master");
  if (master_type && !id && addr.empty() && laddr.empty() && ctx.server.replication) {
    killed += ctx.server.replication->DropMasterLink() ? 1 : 0;
  }
  if (old_form) {
    if (killed == 0) {
      ctx.reply.Error("ERR No such client");
    } else {
      ctx.reply.Ok();
    }
  } else {
    ctx.reply.Integer(killed);
  }
}

// CLIENT PAUSE timeout [WRITE|ALL] (client_pause.h).
void ClientPauseCommand(AsyncContext& ctx) {
  PauseMode mode = PauseMode::kAll;
  if (ctx.args.size() == 4) {
    if (Is(ctx.args[3], "WRITE")) {
      mode = PauseMode::kWrite;
    } else if (!Is(ctx.args[3], "ALL")) {
      ctx.reply.Error("ERR CLIENT PAUSE mode must be WRITE or ALL");
      return;
    }
  }
  std::optional<int64_t> timeout = MsTimeoutArg(ctx.args[2], ctx.reply);
  if (!timeout) return;
  const int64_t now_ms = ctx.server.keyspace->clock()->MonotonicUs() / 1000;
  const int64_t end_ms = *timeout > ClientPause::kForever - now_ms ? ClientPause::kForever
                                                                     : now_ms + *timeout;
  ctx.server.pause->Pause(PausePurpose::kClient, mode, end_ms);
  ctx.reply.Ok();
}

constexpr std::string_view kClientHelp[] = {
    "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CACHING (YES|NO)",
    "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
    "GETREDIR",
    "    Return the client ID we are redirecting to when tracking is enabled.",
    "GETNAME",
    "    Return the name of the current connection.",
    "ID",
    "    Return the ID of the current connection.",
    "INFO",
    "    Return information about the current client connection.",
    "KILL <ip:port>",
    "    Kill connection made from <ip:port>.",
    "KILL <option> <value> [<option> <value> [...]]",
    "    Kill connections. Options are: ID <client-id>, ADDR <ip:port>, LADDR <ip:port>,",
    "    SKIPME (YES|NO), TYPE normal, USER <username>.",
    "LIST [options ...]",
    "    Return information about client connections. Options: TYPE normal, ID <id> [...]",
    "UNBLOCK <clientid> [TIMEOUT|ERROR]",
    "    Unblock the specified blocked client.",
    "PAUSE <timeout> [WRITE|ALL]",
    "    Suspend all, or just write, clients for <timeout> milliseconds.",
    "UNPAUSE",
    "    Stop the current client pause, resuming traffic.",
    "REPLY (ON|OFF|SKIP)",
    "    Control the replies sent to the current connection.",
    "SETNAME <name>",
    "    Assign the name <name> to the current connection.",
    "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
    "         [OPTIN] [OPTOUT] [NOLOOP]",
    "    Control server assisted client side caching.",
    "TRACKINGINFO",
    "    Report tracking status for the current connection.",
    "NO-EVICT (ON|OFF)",
    "    Protect current client connection from eviction.",
    "HELP",
    "    Print this help.",
};

Task Client(AsyncContext& ctx) {
  // Arities are the subcommand rows' (checked before the call); some take fewer.
  const std::string& sub = ctx.args[1];
  const size_t n = ctx.args.size();
  if (Is(sub, "ID")) {
    ctx.reply.Integer(static_cast<int64_t>(ctx.client->id));
  } else if (Is(sub, "GETNAME")) {
    if (ctx.client->name.empty()) {
      ctx.reply.Null();
    } else {
      ctx.reply.Bulk(ctx.client->name);
    }
  } else if (Is(sub, "SETNAME")) {
    if (!ValidClientName(ctx.args[2])) {
      ctx.reply.Error("ERR Client names cannot contain spaces, newlines or special characters.");
      co_return;
    }
    ctx.client->name = ctx.args[2];
    ctx.reply.Ok();
  } else if (Is(sub, "INFO")) {
    ctx.reply.Verbatim(FormatClient(SelfInfo(ctx)));
  } else if (Is(sub, "LIST")) {
    co_await ClientList(ctx);
  } else if (Is(sub, "KILL")) {
    co_await ClientKill(ctx);
  } else if (Is(sub, "UNBLOCK")) {
    if (n > 4) {
      ctx.reply.Error(WrongArgs("client|unblock"));
      co_return;
    }
    co_await ClientUnblock(ctx);
  } else if (Is(sub, "PAUSE")) {
    if (n > 4) {
      ctx.reply.Error(SubcommandSyntax("client", sub));
    } else {
      ClientPauseCommand(ctx);
    }
  } else if (Is(sub, "UNPAUSE")) {
    ctx.server.pause->Unpause(PausePurpose::kClient);
    ctx.reply.Ok();
  } else if (Is(sub, "REPLY")) {
    ClientReply(ctx);
  } else if (Is(sub, "NO-EVICT")) {
    if (Is(ctx.args[2], "ON") || Is(ctx.args[2], "OFF")) {
      ctx.client->no_evict = Is(ctx.args[2], "ON");
      ctx.reply.Ok();
    } else {
      ctx.reply.Error(kErrSyntax);
    }
  } else if (IsTrackingSubcommand(sub)) {
    co_await ClientTrackingCommand(ctx);
  } else if (Is(sub, "HELP")) {
    ctx.reply.Help(kClientHelp);
  } else {
    ctx.reply.Error(UnknownSubcommand("client", sub));
  }
}

}  // namespace

void RegisterConnectionCommands(CommandTable& t) {
  constexpr uint32_t kConn = kNoScript | kLoading | kStale | kFast;
  t.Add({.name = "ping", .arity = -1, .flags = kFast, .run_async = Ping,
         .group = "connection", .summary = "Returns the server's liveliness response.",
         .since = "1.0.0", .acl = "fast connection"});
  t.Add({.name = "echo", .arity = 2, .flags = kFast | kStale | kLoading, .run_async = Echo,
         .group = "connection", .summary = "Returns the given string.", .since = "1.0.0",
         .acl = "fast connection"});
  t.Add({.name = "quit", .arity = -1, .flags = kConn | kNoAuth | kAllowBusy, .run_async = Quit,
         .group = "connection", .summary = "Closes the connection.", .since = "1.0.0",
         .acl = "fast connection"});
  t.Add({.name = "auth", .arity = -2, .flags = kConn | kNoAuth | kAllowBusy, .run_async = Auth,
         .group = "connection", .summary = "Authenticates the connection.", .since = "1.0.0",
         .acl = "fast connection"});
  t.Add({.name = "hello", .arity = -1, .flags = kConn | kNoAuth | kAllowBusy, .run_async = Hello,
         .group = "connection", .summary = "Handshakes with the Redis server.",
         .since = "6.0.0", .acl = "fast connection"});
  t.Add({.name = "select", .arity = 2, .flags = kLoading | kStale | kFast, .run_async = Select,
         .group = "connection", .summary = "Changes the selected database.", .since = "1.0.0",
         .acl = "fast connection"});
  t.Add({.name = "reset", .arity = 1, .flags = kConn | kNoAuth | kAllowBusy, .run_async = Reset,
         .group = "connection", .summary = "Resets the connection.", .since = "6.2.0",
         .acl = "fast connection"});
  t.Add({.name = "client", .arity = -2, .flags = kNoScript | kLoading | kStale,
         .run_async = Client, .group = "connection",
         .summary = "A container for client connection commands.", .since = "2.4.0",
         .acl = "slow",
         .subcommands = {
             Subcommand("client|caching", 3, kNoScript | kLoading | kStale, "slow connection"),
             Subcommand("client|getname", 2, kNoScript | kLoading | kStale, "slow connection"),
             Subcommand("client|getredir", 2, kNoScript | kLoading | kStale, "slow connection"),
             Subcommand("client|help", 2, kLoading | kStale, "slow connection"),
             Subcommand("client|id", 2, kNoScript | kLoading | kStale, "slow connection"),
             Subcommand("client|info", 2, kNoScript | kLoading | kStale, "slow connection"),
             Subcommand("client|kill", -3, kAdminSubcommand, "admin slow dangerous connection"),
             Subcommand("client|list", -2, kAdminSubcommand, "admin slow dangerous connection"),
             Subcommand("client|no-evict", 3, kAdminSubcommand, "admin slow dangerous connection"),
             Subcommand("client|pause", -3, kAdminSubcommand, "admin slow dangerous connection"),
             Subcommand("client|reply", 3, kNoScript | kLoading | kStale, "slow connection"),
             Subcommand("client|setname", 3, kNoScript | kLoading | kStale, "slow connection"),
             Subcommand("client|tracking", -3, kNoScript | kLoading | kStale, "slow connection"),
             Subcommand("client|trackinginfo", 2, kNoScript | kLoading | kStale, "slow connection"),
             Subcommand("client|unblock", -3, kAdminSubcommand, "admin slow dangerous connection"),
             Subcommand("client|unpause", 2, kAdminSubcommand, "admin slow dangerous connection"),
         }});
}

std::string FormatClient(const ClientInfo& c) {
  return "id=" + std::to_string(c.id) + " addr=" + c.addr + " laddr=" + c.laddr +
         " fd=" + std::to_string(c.fd) + " name=" + c.name + " age=" + std::to_string(c.age_s) +
         " idle=" + std::to_string(c.idle_s) + " flags=" + Flags(c) +
         " db=" + std::to_string(c.db) + " sub=" + std::to_string(c.subs) +
         " psub=" + std::to_string(c.psubs) + " ssub=" + std::to_string(c.ssubs) +
         " multi=" + std::to_string(c.multi) + " qbuf=" + std::to_string(c.query_buffer) +
         " qbuf-free=0 argv-mem=0 multi-mem=0 rbs=16384 rbp=0 obl=0 oll=0 omem=" +
         std::to_string(c.output_buffer) + " tot-mem=0 events=r cmd=" + c.last_command +
         " user=" + c.user + " redir=" + std::to_string(c.redirect) +
         " resp=" + std::to_string(c.protocol) + "\n";
}

}  // namespace slotkv::command
