// CLIENT TRACKING | CACHING | GETREDIR | TRACKINGINFO, as Redis 7.0's networking.c and
// tracking.c, and what the network layer calls for a tracking client (RememberReads,
// EndTrackingCommand); the table and the invalidations are tracking.h's.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/context.h"
#include "core/command/tracking.h"

namespace slotkv::command {

namespace {

// Whether a read by client is remembered, caching telling whether CLIENT CACHING came before
// it: not in BCAST mode; in OPTIN mode after CLIENT CACHING YES, in OPTOUT mode unless after
// CLIENT CACHING NO.
bool RemembersNow(const ClientState& c, bool caching) {
  if (!c.tracking || c.tracking->bcast) return false;
  return c.tracking->optin ? caching : !(c.tracking->optout && caching);
}

}  // namespace

void RememberKeys(ServerState& server, uint64_t client, const CommandSpec& spec,
                  const std::vector<std::string>& args) {
  if (!(CommandTable::CallFlags(spec, args) & kReadOnly) || (spec.flags & kPubSub)) return;
  Tracking& tracking = *server.tracking;
  Executor& executor = *server.executor;
  for (size_t k : CommandTable::Keys(spec, args)) {
    const int owner = executor.OwnerOf(server.keyspace->SlotOfKey(args[k]));
    if (owner == executor.current()) {
      tracking.Remember(args[k], client);
    } else {
      executor.Post(owner, [&tracking, key = args[k], client] { tracking.Remember(key, client); });
    }
  }
}

namespace {

// CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX prefix ...] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
Task ClientTrackingSteps(AsyncContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  TrackingSettings s;
  int64_t redirect = 0;
  for (size_t j = 3; j < a.size(); ++j) {
    const bool more = j + 1 < a.size();
    if (Is(a[j], "REDIRECT") && more) {
      if (redirect != 0) {
        ctx.reply.Error("ERR A client can only redirect to a single other client");
        co_return;
      }
      std::optional<int64_t> id = IntArg(a[++j], ctx.reply);
      if (!id) co_return;
      redirect = *id;
      // The client must exist now (it may go later: then "tracking-redir-broken").
      bool found = false;
      for (int w = 0; w < ctx.server.executor->workers() && !found; ++w) {
        co_await ctx.ToWorker(w);
        for (const ClientInfo& c : ctx.server.clients->ListLocal()) {
          if (c.id == static_cast<uint64_t>(redirect)) {
            found = true;
            s.redirect_worker = w;
          }
        }
      }
      co_await ctx.ToHome();
      if (!found) {
        ctx.reply.Error("ERR The client ID you want redirect to does not exist");
        co_return;
      }
    } else if (Is(a[j], "BCAST")) {
      s.bcast = true;
    } else if (Is(a[j], "OPTIN")) {
      s.optin = true;
    } else if (Is(a[j], "OPTOUT")) {
      s.optout = true;
    } else if (Is(a[j], "NOLOOP")) {
      s.noloop = true;
    } else if (Is(a[j], "PREFIX") && more) {
      s.prefixes.push_back(a[++j]);
    } else {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
  }
  ClientState& c = *ctx.client;
  Tracking& tracking = *ctx.server.tracking;
  if (Is(a[2], "OFF")) {
    tracking.Disable(c.id);
    c.tracking.reset();
    c.tracking_caching = false;
    c.tracking_broken = false;
    ctx.reply.Ok();
    co_return;
  }
  if (!Is(a[2], "ON")) {
    ctx.reply.Error(kErrSyntax);
    co_return;
  }
  const char* refusal = nullptr;
  if (!s.bcast && !s.prefixes.empty()) {
    refusal = "ERR PREFIX option requires BCAST mode to be enabled";
  } else if (c.tracking && c.tracking->bcast != s.bcast) {
    refusal =
        "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and "
        "then re-enabling it with a different mode.";
  } else if (s.bcast && (s.optin || s.optout)) {
    refusal = "ERR OPTIN and OPTOUT are not compatible with BCAST";
  } else if (s.optin && s.optout) {
    refusal = "ERR You can't specify both OPTIN mode and OPTOUT mode";
  } else if (c.tracking && ((s.optin && c.tracking->optout) || (s.optout && c.tracking->optin))) {
    refusal =
        "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and "
        "then re-enabling it with a different mode.";
  }
  if (refusal != nullptr) {
    ctx.reply.Error(refusal);
    co_return;
  }
  if (s.bcast) {
    if (std::string collision = tracking.PrefixCollision(c.id, s.prefixes); !collision.empty()) {
      ctx.reply.Error(collision);
      co_return;
    }
  }
  s.worker = ctx.home;
  s.redirect = static_cast<uint64_t>(redirect);
  tracking.Enable(c.id, s);
  c.tracking = tracking.SettingsOf(c.id);
  c.tracking_broken = false;
  ctx.reply.Ok();
}

// CLIENT CACHING YES|NO
void ClientCaching(AsyncContext& ctx) {
  ClientState& c = *ctx.client;
  if (!c.tracking) {
    ctx.reply.Error(
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN "
        "or OPTOUT mode enabled");
    return;
  }
  if (Is(ctx.args[2], "YES")) {
    if (!c.tracking->optin) {
      ctx.reply.Error(
          "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
      return;
    }
  } else if (Is(ctx.args[2], "NO")) {
    if (!c.tracking->optout) {
      ctx.reply.Error(
          "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
      return;
    }
  } else {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  // Inside EXEC (no_block) its word was taken into account when EXEC remembered the
  // transaction's reads (RememberReads), and it ends with the transaction.
  if (!ctx.no_block) c.tracking_caching = true;
  ctx.reply.Ok();
}

// CLIENT TRACKINGINFO: {flags, redirect, prefixes}.
void ClientTrackingInfo(AsyncContext& ctx) {
  const ClientState& c = *ctx.client;
  std::vector<std::string_view> flags = {c.tracking ? "on" : "off"};
  if (c.tracking) {
    const TrackingSettings& s = *c.tracking;
    if (s.bcast) flags.push_back("bcast");
    if (s.optin) flags.push_back("optin");
    if (s.optin && c.tracking_caching) flags.push_back("caching-yes");
    if (s.optout) flags.push_back("optout");
    if (s.optout && c.tracking_caching) flags.push_back("caching-no");
    if (s.noloop) flags.push_back("noloop");
    if (c.tracking_broken) flags.push_back("broken_redirect");
  }
  ctx.reply.Map(3);
  ctx.reply.Bulk("flags");
  ctx.reply.Set(flags.size());
  for (std::string_view f : flags) ctx.reply.Bulk(f);
  ctx.reply.Bulk("redirect");
  ctx.reply.Integer(c.tracking ? static_cast<int64_t>(c.tracking->redirect) : -1);
  ctx.reply.Bulk("prefixes");
  const std::vector<std::string> none;
  const std::vector<std::string>& prefixes = c.tracking ? c.tracking->prefixes : none;
  ctx.reply.Array(prefixes.size());
  for (const std::string& p : prefixes) ctx.reply.Bulk(p);
}

}  // namespace

Task ClientTrackingCommand(AsyncContext& ctx) {
  // Arities are the subcommand rows' (checked before the call).
  const std::string& sub = ctx.args[1];
  if (Is(sub, "TRACKING")) {
    co_await ClientTrackingSteps(ctx);
  } else if (Is(sub, "CACHING")) {
    ClientCaching(ctx);
  } else if (Is(sub, "GETREDIR")) {
    const ClientState& c = *ctx.client;
    ctx.reply.Integer(c.tracking ? static_cast<int64_t>(c.tracking->redirect) : -1);
  } else {  // TRACKINGINFO
    ClientTrackingInfo(ctx);
  }
}

bool IsTrackingSubcommand(std::string_view sub) {
  return Is(sub, "TRACKING") || Is(sub, "CACHING") || Is(sub, "GETREDIR") ||
         Is(sub, "TRACKINGINFO");
}

void RememberReads(ServerState& server, ClientState& client, const CommandSpec& spec,
                   const std::vector<std::string>& args) {
  if (server.tracking == nullptr) return;
  if (spec.name == "exec") {
    // A CLIENT CACHING queued in the transaction holds for the commands after it.
    bool caching = client.tracking_caching;
    for (const QueuedCommand& q : client.queued) {
      if (q.spec->name == "client" && q.args.size() == 3 && Is(q.args[1], "CACHING")) {
        caching = caching || (client.tracking && ((client.tracking->optin && Is(q.args[2], "YES")) ||
                                                  (client.tracking->optout && Is(q.args[2], "NO"))));
      } else if (RemembersNow(client, caching)) {
        RememberKeys(server, client.id, *q.spec, q.args);
      }
    }
  } else {
    client.tracking_reads = RemembersNow(client, client.tracking_caching);
    // A read-only script is not a read: the commands it runs are (ScriptRun::Call).
    const bool script = spec.name == "eval_ro" || spec.name == "evalsha_ro" ||
                        spec.name == "fcall_ro";
    if (client.tracking_reads && !script) RememberKeys(server, client.id, spec, args);
  }
  // CLIENT CACHING's word holds for the next command, or a whole transaction.
  const bool keeps = spec.name == "client" || spec.name == "multi" ||
                     (client.in_multi && spec.name != "exec" && spec.name != "discard");
  if (!keeps) client.tracking_caching = false;
}

}  // namespace slotkv::command
