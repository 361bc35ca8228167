// Stream family, introspection: XINFO STREAM [FULL [COUNT count]] | GROUPS | CONSUMERS | HELP,
// as Redis 7.0's xinfoCommand.
//
// radix-tree-keys and radix-tree-nodes describe Redis's layout (a radix tree of listpacks of
// up to 100 entries), which slotkv does not have: they are given as that layout would count
// for the stream's length (keys: runs of 100 entries; nodes: keys + 1), a documented stand-in.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/stream_access.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kXInfoHelp[] = {
    "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CONSUMERS <key> <groupname>",
    "    Show consumers of <groupname>.",
    "GROUPS <key>",
    "    Show the stream consumer groups.",
    "STREAM <key> [FULL [COUNT <count>]",
    "    Show information about the stream.",
    "HELP",
    "    Prints this help.",
};

// An integer, or null when it cannot be known (lag, entries-read).
void ReplyKnown(Reply& reply, const std::optional<int64_t>& v) {
  if (v) {
    reply.Integer(*v);
  } else {
    reply.Null();
  }
}

std::optional<int64_t> EntriesRead(const StreamGroup& g) {
  if (g.entries_read == StreamGroup::kUnknownRead) return std::nullopt;
  return g.entries_read;
}

// The first count entries from the start (reverse: the end); count 0: all.
Result<std::vector<std::pair<StreamId, StreamFields>>> Entries(StreamAccess& s, bool reverse,
                                                                uint64_t count) {
  std::vector<std::pair<StreamId, StreamFields>> out;
  SLOTKV_RETURN_IF_ERROR(s.Walk(reverse ? StreamId::Max() : StreamId{}, reverse,
                                [&](const StreamId& id, const StreamFields& f) {
                                  out.emplace_back(id, f);
                                  return count == 0 || out.size() < count;
                                }));
  return out;
}

// What XINFO STREAM FULL shows of a group's pending entries: the first count (0: all) of
// the group's and of each consumer's, read before the reply begins.
using Pending = std::vector<std::pair<StreamId, StreamNack>>;
struct PendingShown {
  Pending group;
  std::vector<Pending> consumers;  // in g.consumers' order
};

Result<PendingShown> ShowPending(StreamAccess& s, StreamGroup& g, uint64_t count) {
  PendingShown out;
  const auto into = [count](Pending* to) {
    return [to, count](const StreamId& id, const StreamNack& nack) {
      to->emplace_back(id, nack);
      return count == 0 || to->size() < count;
    };
  };
  SLOTKV_RETURN_IF_ERROR(s.WalkPending(g, {}, false, into(&out.group)));
  for (const auto& [cname, c] : g.consumers) {
    SLOTKV_RETURN_IF_ERROR(s.WalkOwned(g, cname, {}, into(&out.consumers.emplace_back())));
  }
  return out;
}

void ReplyGroupFull(Reply& reply, StreamAccess& s, const std::string& name, const StreamGroup& g,
                    const PendingShown& shown) {
  reply.Map(7);
  reply.Bulk("name");
  reply.Bulk(name);
  reply.Bulk("last-delivered-id");
  ReplyStreamId(reply, g.last_id);
  reply.Bulk("entries-read");
  ReplyKnown(reply, EntriesRead(g));
  reply.Bulk("lag");
  ReplyKnown(reply, GroupLag(s.meta(), s.size(), g));
  reply.Bulk("pel-count");
  reply.Integer(static_cast<int64_t>(s.PendingCount(g)));
  reply.Bulk("pending");
  reply.Array(shown.group.size());
  for (const auto& [id, nack] : shown.group) {
    reply.Array(4);
    ReplyStreamId(reply, id);
    reply.Bulk(nack.consumer);
    reply.Integer(nack.delivery_time);
    reply.Integer(static_cast<int64_t>(nack.delivery_count));
  }
  reply.Bulk("consumers");
  reply.Array(g.consumers.size());
  size_t i = 0;
  for (const auto& [cname, c] : g.consumers) {
    const Pending& own = shown.consumers[i++];
    reply.Map(4);
    reply.Bulk("name");
    reply.Bulk(cname);
    reply.Bulk("seen-time");
    reply.Integer(c.seen_time);
    reply.Bulk("pel-count");
    reply.Integer(static_cast<int64_t>(s.PendingCount(c)));
    reply.Bulk("pending");
    reply.Array(own.size());
    for (const auto& [id, nack] : own) {
      reply.Array(3);
      ReplyStreamId(reply, id);
      reply.Integer(nack.delivery_time);
      reply.Integer(static_cast<int64_t>(nack.delivery_count));
    }
  }
}

// XINFO STREAM key [FULL [COUNT count]]
void XInfoStream(CommandContext& ctx, StreamAccess& s) {
  const std::vector<std::string>& a = ctx.args;
  bool full = false;
  int64_t count = 10;
  if (a.size() > 3) {
    if (!Is(a[3], "FULL") || (a.size() != 4 && (a.size() != 6 || !Is(a[4], "COUNT")))) {
      ctx.reply.Error(SubcommandSyntax("xinfo", a[1]));
      return;
    }
    full = true;
    if (a.size() == 6) {
      std::optional<int64_t> c = IntArg(a[5], ctx.reply);
      if (!c) return;
      count = *c < 0 ? 10 : *c;
    }
  }
  StreamMeta& m = s.meta();
  std::vector<PendingShown> shown;
  if (full) {
    for (auto& [name, g] : m.groups) {
      Result<PendingShown> one = ShowPending(s, g, static_cast<uint64_t>(count));
      if (Failed(one.status(), ctx.reply)) return;
      shown.push_back(std::move(one).value());
    }
  }
  const uint64_t length = s.size();
  const uint64_t nodes = (length + kStreamNodeEntries - 1) / kStreamNodeEntries;
  ctx.reply.Map(full ? 9 : 10);
  ctx.reply.Bulk("length");
  ctx.reply.Integer(static_cast<int64_t>(length));
  ctx.reply.Bulk("radix-tree-keys");
  ctx.reply.Integer(static_cast<int64_t>(nodes));
  ctx.reply.Bulk("radix-tree-nodes");
  ctx.reply.Integer(static_cast<int64_t>(nodes + 1));
  ctx.reply.Bulk("last-generated-id");
  ReplyStreamId(ctx.reply, m.last_id);
  ctx.reply.Bulk("max-deleted-entry-id");
  ReplyStreamId(ctx.reply, m.max_deleted);
  ctx.reply.Bulk("entries-added");
  ctx.reply.Integer(static_cast<int64_t>(m.entries_added));
  ctx.reply.Bulk("recorded-first-entry-id");
  ReplyStreamId(ctx.reply, m.first_id);
  if (!full) {
    ctx.reply.Bulk("groups");
    ctx.reply.Integer(static_cast<int64_t>(m.groups.size()));
    for (bool reverse : {false, true}) {
      ctx.reply.Bulk(reverse ? "last-entry" : "first-entry");
      Result<std::vector<std::pair<StreamId, StreamFields>>> e = Entries(s, reverse, 1);
      if (!e.ok()) {
        ctx.reply.Null();  // the reply has begun: a storage failure shows as no entry
      } else if (e->empty()) {
        ctx.reply.Null();
      } else {
        ReplyEntry(ctx.reply, (*e)[0].first, (*e)[0].second);
      }
    }
    return;
  }
  ctx.reply.Bulk("entries");
  Result<std::vector<std::pair<StreamId, StreamFields>>> entries =
      Entries(s, false, static_cast<uint64_t>(count));
  if (!entries.ok()) entries = std::vector<std::pair<StreamId, StreamFields>>();
  ctx.reply.Array(entries->size());
  for (const auto& [id, f] : *entries) ReplyEntry(ctx.reply, id, f);
  ctx.reply.Bulk("groups");
  ctx.reply.Array(m.groups.size());
  size_t i = 0;
  for (const auto& [name, g] : m.groups) ReplyGroupFull(ctx.reply, s, name, g, shown[i++]);
}

// XINFO GROUPS key
void XInfoGroups(CommandContext& ctx, StreamAccess& s) {
  StreamMeta& m = s.meta();
  ctx.reply.Array(m.groups.size());
  for (const auto& [name, g] : m.groups) {
    ctx.reply.Map(6);
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(name);
    ctx.reply.Bulk("consumers");
    ctx.reply.Integer(static_cast<int64_t>(g.consumers.size()));
    ctx.reply.Bulk("pending");
    ctx.reply.Integer(static_cast<int64_t>(s.PendingCount(g)));
    ctx.reply.Bulk("last-delivered-id");
    ReplyStreamId(ctx.reply, g.last_id);
    ctx.reply.Bulk("entries-read");
    ReplyKnown(ctx.reply, EntriesRead(g));
    ctx.reply.Bulk("lag");
    ReplyKnown(ctx.reply, GroupLag(m, s.size(), g));
  }
}

// XINFO CONSUMERS key group
void XInfoConsumers(CommandContext& ctx, StreamAccess& s) {
  const std::vector<std::string>& a = ctx.args;
  auto it = s.meta().groups.find(a[3]);
  if (it == s.meta().groups.end()) {
    ctx.reply.Error("NOGROUP No such consumer group '" + a[3] + "' for key name '" + a[2] + "'");
    return;
  }
  const int64_t now = s.NowMs();
  ctx.reply.Array(it->second.consumers.size());
  for (const auto& [name, c] : it->second.consumers) {
    ctx.reply.Map(3);
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(name);
    ctx.reply.Bulk("pending");
    ctx.reply.Integer(static_cast<int64_t>(s.PendingCount(c)));
    ctx.reply.Bulk("idle");
    ctx.reply.Integer(std::max<int64_t>(now - c.seen_time, 0));
  }
}

// XINFO <sub> key ..., on the key's owner (arity checked by XInfo).
void XInfoOnKey(CommandContext& ctx) {
  StreamAccess s(ctx.store);
  if (!s.Open(ctx.args[2], ctx.stats, Lookup::kRead, ctx.reply)) return;
  if (!s.exists()) {
    ctx.reply.Error("ERR no such key");
    return;
  }
  const std::string& sub = ctx.args[1];
  if (Is(sub, "STREAM")) {
    XInfoStream(ctx, s);
  } else if (Is(sub, "GROUPS")) {
    XInfoGroups(ctx, s);
  } else {
    XInfoConsumers(ctx, s);
  }
}

// XINFO STREAM|GROUPS|CONSUMERS key ..., XINFO HELP.
Task XInfo(AsyncContext& ctx) {
  co_await RunStreamContainer(ctx, "xinfo", kXInfoHelp, XInfoOnKey);
}

}  // namespace

void RegisterStreamInfoCommand(CommandTable& t) {
  // clang-format off
  // A container command as in Redis: no flags or keys of its own (its subcommands are
  // read-only, with the key at 2).
  t.Add({.name = "xinfo", .arity = -2, .flags = 0, .run_async = XInfo,
         .group = "stream", .summary = "A container for stream introspection commands",
         .since = "5.0.0", .acl = "slow",
         .subcommands = {
             Subcommand("xinfo|consumers", 4, kReadOnly, "read stream slow", 2, "RO access"),
             Subcommand("xinfo|groups", 3, kReadOnly, "read stream slow", 2, "RO access"),
             Subcommand("xinfo|help", 2, kLoading | kStale, "stream slow"),
             Subcommand("xinfo|stream", -3, kReadOnly, "read stream slow", 2, "RO access"),
         }});
  // clang-format on
}

}  // namespace slotkv::command
