// Pub/Sub family: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE SSUBSCRIBE SUNSUBSCRIBE PUBLISH
// SPUBLISH PUBSUB, as Redis 7.0's pubsub.c. The subscriptions live in the server's registry
// (pubsub/registry.h), keyed by the client's worker and id, and in the client's own state,
// which the confirmations count: channels and patterns together, shard channels apart. Messages
// reach subscribers on every worker; a RESP2 client that subscribes to anything is limited to
// these commands, PING, QUIT and RESET (dispatch.h), and RESP3 clients get push frames.
#include <string>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/errors.h"
#include "core/command/pubsub.h"
#include "core/command/replication.h"

namespace slotkv::command {

std::string EncodeMessage(const pubsub::Message& m, int protocol, bool subscribed) {
  if (m.kind == pubsub::Kind::kMonitor) return m.payload;
  Reply reply(protocol);
  if (m.kind == pubsub::Kind::kInvalidate) {
    if (protocol == 3) {
      reply.Push(2);
      reply.Bulk("invalidate");
    } else if (subscribed) {
      reply.Push(3);
      reply.Bulk("message");
      reply.Bulk("__redis__:invalidate");
    } else {
      return {};  // RESP2 has no way to tell a client that is not subscribed
    }
    if (m.everything) {
      reply.Null();
    } else {
      reply.Array(1);
      reply.Bulk(m.payload);
    }
    return std::move(reply.buffer());
  }
  switch (m.kind) {
    case pubsub::Kind::kChannel:
      reply.Push(3);
      reply.Bulk("message");
      break;
    case pubsub::Kind::kPattern:
      reply.Push(4);
      reply.Bulk("pmessage");
      reply.Bulk(m.pattern);
      break;
    case pubsub::Kind::kShard:
      reply.Push(3);
      reply.Bulk("smessage");
      break;
    case pubsub::Kind::kMonitor:
    case pubsub::Kind::kInvalidate:
      break;
  }
  reply.Bulk(m.channel);
  reply.Bulk(m.payload);
  return std::move(reply.buffer());
}

namespace {

using pubsub::Kind;

// What one kind of subscription is called in replies, and where the client keeps it.
struct KindInfo {
  std::string_view subscribe;
  std::string_view unsubscribe;
  std::set<std::string> ClientState::*set;
};

KindInfo InfoOf(Kind kind) {
  switch (kind) {
    case Kind::kChannel:
      return {"subscribe", "unsubscribe", &ClientState::channels};
    case Kind::kPattern:
      return {"psubscribe", "punsubscribe", &ClientState::patterns};
    case Kind::kShard:
      return {"ssubscribe", "sunsubscribe", &ClientState::shard_channels};
    case Kind::kMonitor:  // a feed, not a subscription by name
    case Kind::kInvalidate:
      break;
  }
  return {};
}

// The count a confirmation carries: channels and patterns, or shard channels.
int64_t Count(const ClientState& c, Kind kind) {
  return static_cast<int64_t>(kind == Kind::kShard ? c.shard_channels.size()
                                                   : c.channels.size() + c.patterns.size());
}

void Confirm(AsyncContext& ctx, std::string_view what, const std::string* name, Kind kind) {
  ctx.reply.Push(3);
  ctx.reply.Bulk(what);
  if (name) {
    ctx.reply.Bulk(*name);
  } else {
    ctx.reply.Null();
  }
  ctx.reply.Integer(Count(*ctx.client, kind));
}

Task SubscribeGeneric(AsyncContext& ctx, Kind kind) {
  const KindInfo info = InfoOf(kind);
  ClientState& c = *ctx.client;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    const std::string& name = ctx.args[i];
    if ((c.*info.set).insert(name).second) {
      ctx.server.pubsub->Subscribe(kind, name, {ctx.home, c.id});
    }
    Confirm(ctx, info.subscribe, &name, kind);
  }
  co_return;
}

// Drops one subscription of the client (when it has it) and confirms it.
void DropOne(AsyncContext& ctx, Kind kind, const std::string& name) {
  ClientState& c = *ctx.client;
  if ((c.*InfoOf(kind).set).erase(name) > 0) {
    ctx.server.pubsub->Unsubscribe(kind, name, {ctx.home, c.id});
  }
  Confirm(ctx, InfoOf(kind).unsubscribe, &name, kind);
}

Task UnsubscribeGeneric(AsyncContext& ctx, Kind kind) {
  const KindInfo info = InfoOf(kind);
  ClientState& c = *ctx.client;
  if (ctx.args.size() > 1) {
    for (size_t i = 1; i < ctx.args.size(); ++i) DropOne(ctx, kind, ctx.args[i]);
    co_return;
  }
  // Every subscription of the kind; when there is none, one confirmation with a null name.
  if ((c.*info.set).empty()) {
    Confirm(ctx, info.unsubscribe, nullptr, kind);
    co_return;
  }
  const std::set<std::string> all = c.*info.set;
  for (const std::string& name : all) DropOne(ctx, kind, name);
}

Task Subscribe(AsyncContext& ctx) { return SubscribeGeneric(ctx, Kind::kChannel); }
Task PSubscribe(AsyncContext& ctx) { return SubscribeGeneric(ctx, Kind::kPattern); }
Task SSubscribe(AsyncContext& ctx) { return SubscribeGeneric(ctx, Kind::kShard); }
Task Unsubscribe(AsyncContext& ctx) { return UnsubscribeGeneric(ctx, Kind::kChannel); }
Task PUnsubscribe(AsyncContext& ctx) { return UnsubscribeGeneric(ctx, Kind::kPattern); }
Task SUnsubscribe(AsyncContext& ctx) { return UnsubscribeGeneric(ctx, Kind::kShard); }

Task Publish(AsyncContext& ctx) {
  ctx.reply.Integer(ctx.server.pubsub->Publish(Kind::kChannel, ctx.args[1], ctx.args[2]));
  if (ctx.server.replication) ctx.server.replication->OnPublish(false, ctx.args[1], ctx.args[2]);
  co_return;
}

Task SPublish(AsyncContext& ctx) {
  ctx.reply.Integer(ctx.server.pubsub->Publish(Kind::kShard, ctx.args[1], ctx.args[2]));
  if (ctx.server.replication) ctx.server.replication->OnPublish(true, ctx.args[1], ctx.args[2]);
  co_return;
}

constexpr std::string_view kPubSubHelp[] = {
    "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CHANNELS [<pattern>]",
    "    Return the currently active channels matching a <pattern> (default: '*').",
    "NUMPAT",
    "    Return number of subscriptions to patterns.",
    "NUMSUB [<channel> ...]",
    "    Return the number of subscribers for the specified channels, excluding",
    "    pattern subscriptions(default: no channels).",
    "SHARDCHANNELS [<pattern>]",
    "    Return the currently active shard level channels matching a <pattern> (default: '*').",
    "SHARDNUMSUB [<shardchannel> ...]",
    "    Return the number of subscribers for the specified shard level channel(s)",
    "HELP",
    "    Prints this help.",
};

Task PubSubCommand(AsyncContext& ctx) {
  const auto& a = ctx.args;
  const std::string& sub = a[1];
  const pubsub::Registry& registry = *ctx.server.pubsub;
  if (Is(sub, "CHANNELS") || Is(sub, "SHARDCHANNELS")) {
    if (a.size() > 3) {
      ctx.reply.Error(SubcommandSyntax("pubsub", sub));
      co_return;
    }
    const Kind kind = Is(sub, "CHANNELS") ? Kind::kChannel : Kind::kShard;
    std::vector<std::string> names = registry.Channels(kind, a.size() == 3 ? &a[2] : nullptr);
    ctx.reply.Array(names.size());
    for (const std::string& n : names) ctx.reply.Bulk(n);
  } else if (Is(sub, "NUMSUB") || Is(sub, "SHARDNUMSUB")) {
    const Kind kind = Is(sub, "NUMSUB") ? Kind::kChannel : Kind::kShard;
    ctx.reply.Array(2 * (a.size() - 2));
    for (size_t i = 2; i < a.size(); ++i) {
      ctx.reply.Bulk(a[i]);
      ctx.reply.Integer(registry.NumSub(kind, a[i]));
    }
  } else if (Is(sub, "NUMPAT")) {
    ctx.reply.Integer(registry.NumPat());
  } else if (Is(sub, "HELP")) {
    ctx.reply.Help(kPubSubHelp);
  } else {
    ctx.reply.Error(UnknownSubcommand("pubsub", sub));
  }
  co_return;
}

}  // namespace

void RegisterPubSubCommands(CommandTable& t) {
  constexpr uint32_t kSub = kPubSub | kNoScript | kLoading | kStale;
  // clang-format off
  t.Add({.name = "subscribe", .arity = -2, .flags = kSub, .run_async = Subscribe,
         .group = "pubsub", .summary = "Listen for messages published to the given channels",
         .since = "2.0.0", .acl = "pubsub slow"});
  t.Add({.name = "unsubscribe", .arity = -1, .flags = kSub, .run_async = Unsubscribe,
         .group = "pubsub", .summary = "Stop listening for messages posted to the given channels",
         .since = "2.0.0", .acl = "pubsub slow"});
  t.Add({.name = "psubscribe", .arity = -2, .flags = kSub, .run_async = PSubscribe,
         .group = "pubsub",
         .summary = "Listen for messages published to channels matching the given patterns",
         .since = "2.0.0", .acl = "pubsub slow"});
  t.Add({.name = "punsubscribe", .arity = -1, .flags = kSub, .run_async = PUnsubscribe,
         .group = "pubsub",
         .summary = "Stop listening for messages posted to channels matching the given patterns",
         .since = "2.0.0", .acl = "pubsub slow"});
  // Shard channels are keys for Redis Cluster's routing; here they take no slot.
  t.Add({.name = "ssubscribe", .arity = -2, .flags = kSub | kVisits, .first_key = 1,
         .last_key = -1, .step = 1, .run_async = SSubscribe, .group = "pubsub",
         .summary = "Listen for messages published to the given shard channels",
         .since = "7.0.0", .acl = "pubsub slow", .key_specs = "not_key"});
  t.Add({.name = "sunsubscribe", .arity = -1, .flags = kSub | kVisits, .first_key = 1,
         .last_key = -1, .step = 1, .run_async = SUnsubscribe, .group = "pubsub",
         .summary = "Stop listening for messages posted to the given shard channels",
         .since = "7.0.0", .acl = "pubsub slow", .key_specs = "not_key"});
  t.Add({.name = "publish", .arity = 3,
         .flags = kPubSub | kLoading | kStale | kFast | kMayReplicate,
         .run_async = Publish, .group = "pubsub", .summary = "Post a message to a channel",
         .since = "2.0.0", .acl = "pubsub fast"});
  t.Add({.name = "spublish", .arity = 3,
         .flags = kPubSub | kLoading | kStale | kFast | kMayReplicate | kVisits,
         .first_key = 1, .last_key = 1, .step = 1, .run_async = SPublish, .group = "pubsub",
         .summary = "Post a message to a shard channel", .since = "7.0.0",
         .acl = "pubsub fast", .key_specs = "not_key"});
  t.Add({.name = "pubsub", .arity = -2, .flags = 0, .run_async = PubSubCommand,
         .group = "pubsub", .summary = "A container for Pub/Sub commands", .since = "2.8.0",
         .acl = "slow",
         .subcommands = {
             Subcommand("pubsub|channels", -2, kPubSub | kLoading | kStale, "pubsub slow"),
             Subcommand("pubsub|help", 2, kLoading | kStale, "slow"),
             Subcommand("pubsub|numpat", 2, kPubSub | kLoading | kStale, "pubsub slow"),
             Subcommand("pubsub|numsub", -2, kPubSub | kLoading | kStale, "pubsub slow"),
             Subcommand("pubsub|shardchannels", -2, kPubSub | kLoading | kStale, "pubsub slow"),
             Subcommand("pubsub|shardnumsub", -2, kPubSub | kLoading | kStale, "pubsub slow"),
         }});
  // clang-format on
}

}  // namespace slotkv::command
