// Stream family, consumer groups: XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER|HELP,
// XACK, XPENDING, XCLAIM, XAUTOCLAIM, as Redis 7.0's t_stream.c. XREADGROUP is in
// stream_read_commands.cc.
//
// A group and its consumers are part of the stream's StreamMeta (stream_value.h), its pending
// entries (PEL) too in a one-value stream, in pages in a paged one (StreamAccess reaches
// either); all written with the stream by the command that changed them. Times (delivery,
// a consumer's seen time) are the wall clock in ms, taken once per command as Redis's
// commandTimeSnapshot. Looking a consumer up refreshes its seen time (streamLookupConsumer),
// so XCLAIM and XAUTOCLAIM write even when they claim nothing.
//
// Keyspace events as Redis tells them: "xgroup-create", "xgroup-setid", "xgroup-destroy",
// "xgroup-createconsumer" (also when XCLAIM / XAUTOCLAIM create the consumer),
// "xgroup-delconsumer"; XACK, XPENDING and the claims tell none.
#include <optional>
#include <string>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/stream_access.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kXGroupHelp[] = {
    "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
    "HELP",
    "    Prints this help.",
};

// "NOGROUP No such key 'k' or consumer group 'g'" + suffix.
std::string NoGroup(std::string_view key, std::string_view group, std::string_view suffix = {}) {
  return "NOGROUP No such key '" + std::string(key) + "' or consumer group '" +
         std::string(group) + "'" + std::string(suffix);
}

// The group args[2] of the stream open in s, or null after replying NOGROUP.
StreamGroup* GroupOrReply(CommandContext& ctx, StreamAccess& s) {
  if (StreamGroup* g = s.FindGroup(ctx.args[2])) return g;
  ctx.reply.Error(NoGroup(ctx.args[1], ctx.args[2]));
  return nullptr;
}

// The ENTRIESREAD option of XGROUP CREATE / SETID from args[5] on (with MKSTREAM for CREATE);
// false after replying.
bool ParseGroupOptions(CommandContext& ctx, bool create, bool* mkstream, int64_t* entries_read) {
  const std::vector<std::string>& a = ctx.args;
  for (size_t i = 5; i < a.size();) {
    if (create && Is(a[i], "MKSTREAM")) {
      *mkstream = true;
      ++i;
    } else if (Is(a[i], "ENTRIESREAD") && i + 1 < a.size()) {
      std::optional<int64_t> n = IntArg(a[i + 1], ctx.reply);
      if (!n) return false;
      if (*n < 0 && *n != StreamGroup::kUnknownRead) {
        ctx.reply.Error("ERR value for ENTRIESREAD must be positive or -1");
        return false;
      }
      *entries_read = *n;
      i += 2;
    } else {
      ctx.reply.Error(SubcommandSyntax("xgroup", a[1]));
      return false;
    }
  }
  return true;
}

// XGROUP <sub> key group ..., on the key's owner (arity checked by XGroup).
void XGroupOnKey(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  const std::string& sub = a[1];
  const size_t n = a.size();
  bool mkstream = false;
  int64_t entries_read = StreamGroup::kUnknownRead;
  if ((Is(sub, "CREATE") || Is(sub, "SETID")) &&
      !ParseGroupOptions(ctx, Is(sub, "CREATE"), &mkstream, &entries_read)) {
    return;
  }
  StreamAccess s(ctx.store);
  if (!s.Open(a[2], ctx.stats, Lookup::kWrite, ctx.reply)) return;
  const std::string& name = a[3];
  StreamGroup* group = nullptr;
  if (!mkstream) {
    if (!s.exists()) {
      ctx.reply.Error(
          "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
          "want to use the MKSTREAM option to create an empty stream automatically.");
      return;
    }
    group = s.FindGroup(name);
    if (group == nullptr && !Is(sub, "CREATE") && !Is(sub, "DESTROY")) {
      ctx.reply.Error("NOGROUP No such consumer group '" + name + "' for key name '" + a[2] + "'");
      return;
    }
  }
  if (Is(sub, "CREATE")) {
    if (n > 8) {
      ctx.reply.Error(SubcommandSyntax("xgroup", sub));
      return;
    }
    StreamId id;
    if (a[4] == "$") {
      if (s.exists()) id = s.meta().last_id;
    } else {
      std::optional<StreamId> parsed = ParseIdOrReply(a[4], {.strict = true}, ctx.reply);
      if (!parsed) return;
      id = *parsed;
    }
    if (!s.exists()) s.Create();
    Result<StreamGroup*> created = s.CreateGroup(name);
    if (Failed(created.status(), ctx.reply)) return;
    if (*created == nullptr) {
      if (Failed(s.Write(), ctx.reply)) return;  // a stream MKSTREAM made stays
      ctx.reply.Error("BUSYGROUP Consumer Group name already exists");
      return;
    }
    (*created)->last_id = id;
    (*created)->entries_read = entries_read;
    if (Failed(s.Write(), ctx.reply)) return;
    ctx.reply.Ok();
    NotifyStream(ctx, "xgroup-create", 2);
  } else if (Is(sub, "SETID")) {
    if (n != 5 && n != 7) {
      ctx.reply.Error(SubcommandSyntax("xgroup", sub));
      return;
    }
    StreamId id = s.meta().last_id;
    if (a[4] != "$") {
      std::optional<StreamId> parsed = ParseIdOrReply(a[4], {}, ctx.reply);
      if (!parsed) return;
      id = *parsed;
    }
    group->last_id = id;
    group->entries_read = entries_read;
    s.MarkChanged();
    if (Failed(s.Write(), ctx.reply)) return;
    ctx.reply.Ok();
    NotifyStream(ctx, "xgroup-setid", 2);
  } else if (Is(sub, "DESTROY")) {
    if (group == nullptr) {
      ctx.reply.Integer(0);
      return;
    }
    if (Failed(s.DestroyGroup(name).status(), ctx.reply) || Failed(s.Write(), ctx.reply)) return;
    ctx.store.SignalKey(a[2]);  // its blocked XREADGROUP clients get NOGROUP
    ctx.reply.Integer(1);
    NotifyStream(ctx, "xgroup-destroy", 2);
  } else if (Is(sub, "CREATECONSUMER")) {
    bool created = false;
    group->Consumer(a[4], s.NowMs(), &created);
    if (created) {
      s.MarkChanged();
      if (Failed(s.Write(), ctx.reply)) return;
    }
    ctx.reply.Integer(created ? 1 : 0);
    if (created) NotifyStream(ctx, "xgroup-createconsumer", 2);
  } else {  // DELCONSUMER
    Result<std::optional<uint64_t>> pending = s.DeleteConsumer(*group, a[4]);
    if (Failed(pending.status(), ctx.reply) || Failed(s.Write(), ctx.reply)) return;
    ctx.reply.Integer(static_cast<int64_t>(pending->value_or(0)));
    if (*pending) NotifyStream(ctx, "xgroup-delconsumer", 2);
  }
}

// XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER key group ..., XGROUP HELP.
Task XGroup(AsyncContext& ctx) {
  co_await RunStreamContainer(ctx, "xgroup", kXGroupHelp, XGroupOnKey);
}

// XACK key group id [id ...]: a missing key or group acknowledges nothing (before the IDs are
// read); the IDs are all read before any is acknowledged.
void XAck(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  StreamAccess s(ctx.store);
  if (!s.Open(a[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  StreamGroup* group = s.FindGroup(a[2]);
  if (group == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  std::vector<StreamId> ids;
  for (size_t j = 3; j < a.size(); ++j) {
    std::optional<StreamId> id = ParseIdOrReply(a[j], {.strict = true}, ctx.reply);
    if (!id) return;
    ids.push_back(*id);
  }
  int64_t acked = 0;
  for (const StreamId& id : ids) {
    Result<bool> one = s.Ack(*group, id);
    if (Failed(one.status(), ctx.reply)) return;
    acked += *one ? 1 : 0;
  }
  if (Failed(s.Write(), ctx.reply)) return;
  ctx.reply.Integer(acked);
}

// XPENDING key group: [count, first ID, last ID, [[consumer, count as a string] ...]] (the
// consumers with pending entries).
Status ReplyPendingSummary(Reply& reply, StreamAccess& s, StreamGroup& g) {
  std::optional<StreamId> first, last;
  const auto take = [](std::optional<StreamId>* to) {
    return [to](const StreamId& id, const StreamNack&) {
      *to = id;
      return false;
    };
  };
  SLOTKV_RETURN_IF_ERROR(s.WalkPending(g, {}, false, take(&first)));
  SLOTKV_RETURN_IF_ERROR(s.WalkPending(g, StreamId::Max(), true, take(&last)));
  reply.Array(4);
  reply.Integer(static_cast<int64_t>(s.PendingCount(g)));
  if (!first || !last) {
    reply.Null();
    reply.Null();
    reply.NullArray();
    return Status::OK();
  }
  ReplyStreamId(reply, *first);
  ReplyStreamId(reply, *last);
  size_t with_pending = 0;
  for (const auto& [name, c] : g.consumers) with_pending += s.PendingCount(c) == 0 ? 0 : 1;
  reply.Array(with_pending);
  for (const auto& [name, c] : g.consumers) {
    if (s.PendingCount(c) == 0) continue;
    reply.Array(2);
    reply.Bulk(name);
    reply.Bulk(std::to_string(s.PendingCount(c)));
  }
  return Status::OK();
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
void XPending(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  const size_t argc = a.size();
  if (argc != 3 && (argc < 6 || argc > 9)) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  int64_t min_idle = 0, count = 0;
  StreamId start, end;
  const std::string* consumer_name = nullptr;
  if (argc >= 6) {
    size_t at = 3;
    if (Is(a[3], "IDLE")) {
      std::optional<int64_t> idle = IntArg(a[4], ctx.reply);
      if (!idle) return;
      min_idle = *idle;
      if (argc < 8) {
        ctx.reply.Error(kErrSyntax);
        return;
      }
      at += 2;
    }
    std::optional<int64_t> c = IntArg(a[at + 2], ctx.reply);
    if (!c) return;
    count = *c < 0 ? 0 : *c;
    std::optional<StreamId> s = ParseRangeStart(a[at], ctx.reply);
    if (!s) return;
    std::optional<StreamId> e = ParseRangeEnd(a[at + 1], ctx.reply);
    if (!e) return;
    start = *s;
    end = *e;
    if (at + 3 < argc) consumer_name = &a[at + 3];
  }
  StreamAccess s(ctx.store);
  if (!s.Open(a[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  StreamGroup* group = GroupOrReply(ctx, s);
  if (group == nullptr) return;
  if (argc == 3) {
    Failed(ReplyPendingSummary(ctx.reply, s, *group), ctx.reply);
    return;
  }
  if (consumer_name != nullptr && !group->consumers.contains(*consumer_name)) {
    ctx.reply.Array(0);
    return;
  }
  const int64_t now = s.NowMs();
  std::vector<std::pair<StreamId, StreamNack>> out;
  const auto visit = [&](const StreamId& id, const StreamNack& nack) {
    if (id > end || count == 0) return false;
    if (min_idle != 0 && now - nack.delivery_time < min_idle) return true;
    out.emplace_back(id, nack);
    --count;
    return true;
  };
  const Status st = consumer_name != nullptr ? s.WalkOwned(*group, *consumer_name, start, visit)
                                             : s.WalkPending(*group, start, false, visit);
  if (Failed(st, ctx.reply)) return;
  ctx.reply.Array(out.size());
  for (const auto& [id, nack] : out) {
    ctx.reply.Array(4);
    ReplyStreamId(ctx.reply, id);
    ctx.reply.Bulk(nack.consumer);
    ctx.reply.Integer(std::max<int64_t>(now - nack.delivery_time, 0));
    ctx.reply.Integer(static_cast<int64_t>(nack.delivery_count));
  }
}

// One entry a claim took: its ID, and its fields unless JUSTID.
struct Claimed {
  StreamId id;
  std::optional<StreamFields> fields;
};

void ReplyClaimed(Reply& reply, const std::vector<Claimed>& claimed, bool justid) {
  reply.Array(claimed.size());
  for (const Claimed& c : claimed) {
    if (justid) {
      ReplyStreamId(reply, c.id);
    } else {
      ReplyEntry(reply, c.id, *c.fields);
    }
  }
}

// The claiming consumer's first lookup in a command (streamLookupConsumer, then
// streamCreateConsumer): created if missing, its seen time refreshed.
void LookUpConsumer(StreamGroup& g, const std::string& name, int64_t now, bool* looked_up,
                    bool* created) {
  if (*looked_up) return;
  g.Consumer(name, now, created).seen_time = now;
  *looked_up = true;
}

// Hands pending entry id (whose entry is nack) over to consumer name (created on first use,
// *created then) as XCLAIM / XAUTOCLAIM do: delivered at time; delivery count set to retry
// (>= 0) or, unless justid, incremented.
Status Claim(StreamAccess& s, StreamGroup& g, const StreamId& id, const StreamNack& nack,
             const std::string& name, int64_t now, int64_t time, int64_t retry, bool justid,
             bool* looked_up, bool* created) {
  LookUpConsumer(g, name, now, looked_up, created);
  uint64_t count = nack.delivery_count;
  if (retry >= 0) {
    count = static_cast<uint64_t>(retry);
  } else if (!justid) {
    ++count;
  }
  return s.SetPending(g, id, name, time, count);
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms] [RETRYCOUNT count]
// [FORCE] [JUSTID] [LASTID id]
void XClaim(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  StreamAccess s(ctx.store);
  if (!s.Open(a[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  StreamGroup* group = GroupOrReply(ctx, s);
  if (group == nullptr) return;
  std::optional<int64_t> min_idle = ParseInt64(a[4]);
  if (!min_idle) {
    ctx.reply.Error("ERR Invalid min-idle-time argument for XCLAIM");
    return;
  }
  std::vector<StreamId> ids;
  size_t j = 5;
  for (; j < a.size(); ++j) {
    std::optional<StreamId> id = ParseStreamId(a[j], {.strict = true});
    if (!id) break;
    ids.push_back(*id);
  }
  const int64_t now = s.NowMs();
  int64_t delivery = -1, retry = -1;
  bool force = false, justid = false;
  StreamId last_id;
  for (; j < a.size(); ++j) {
    const bool more = j + 1 < a.size();
    const std::string& opt = a[j];
    const auto number = [&](std::string_view what) -> std::optional<int64_t> {
      std::optional<int64_t> v = ParseInt64(a[++j]);
      if (!v) ctx.reply.Error("ERR Invalid " + std::string(what) + " option argument for XCLAIM");
      return v;
    };
    if (Is(opt, "FORCE")) {
      force = true;
    } else if (Is(opt, "JUSTID")) {
      justid = true;
    } else if (Is(opt, "IDLE") && more) {
      std::optional<int64_t> v = number("IDLE");
      if (!v) return;
      delivery = now - *v;
    } else if (Is(opt, "TIME") && more) {
      std::optional<int64_t> v = number("TIME");
      if (!v) return;
      delivery = *v;
    } else if (Is(opt, "RETRYCOUNT") && more) {
      std::optional<int64_t> v = number("RETRYCOUNT");
      if (!v) return;
      retry = *v;
    } else if (Is(opt, "LASTID") && more) {
      std::optional<StreamId> v = ParseIdOrReply(a[++j], {.strict = true}, ctx.reply);
      if (!v) return;
      last_id = *v;
    } else {
      ctx.reply.Error("ERR Unrecognized XCLAIM option '" + opt + "'");
      return;
    }
  }
  if (last_id > group->last_id) {
    group->last_id = last_id;
    s.MarkChanged();
  }
  if (delivery < 0 || delivery > now) delivery = now;
  bool looked_up = false, created = false;
  std::vector<Claimed> claimed;
  for (const StreamId& id : ids) {
    Result<std::optional<StreamNack>> nack = s.FindPending(*group, id);
    if (Failed(nack.status(), ctx.reply)) return;
    Result<std::optional<StreamFields>> entry = s.Get(id);
    if (Failed(entry.status(), ctx.reply)) return;
    if (!*entry) {  // gone from the stream: gone from the PEL too
      if (*nack && Failed(s.Ack(*group, id).status(), ctx.reply)) return;
      continue;
    }
    if (!*nack) {
      if (!force) continue;
      // A new pending entry (Redis's FORCE), delivered once before the claim's own delivery.
      LookUpConsumer(*group, a[3], now, &looked_up, &created);
      if (Failed(s.SetPending(*group, id, a[3], delivery, 1), ctx.reply)) return;
      *nack = StreamNack{a[3], delivery, 1};
    } else if (*min_idle > 0 && now - (*nack)->delivery_time < *min_idle) {
      continue;
    }
    if (Failed(Claim(s, *group, id, **nack, a[3], now, delivery, retry, justid, &looked_up,
                     &created),
               ctx.reply)) {
      return;
    }
    claimed.push_back({id, justid ? std::nullopt : std::move(*entry)});
  }
  if (Failed(s.Write(), ctx.reply)) return;
  ReplyClaimed(ctx.reply, claimed, justid);
  if (created) NotifyStream(ctx, "xgroup-createconsumer");
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]: claims up to count
// idle pending entries from start on (looking at 10 x count at most) and replies [the next
// start (0-0 at the end), the claimed entries, the IDs it dropped from the PEL because their
// entries were deleted].
void XAutoClaim(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  std::optional<int64_t> min_idle = ParseInt64(a[4]);
  if (!min_idle) {
    ctx.reply.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
    return;
  }
  std::optional<StreamId> start = ParseRangeStart(a[5], ctx.reply);
  if (!start) return;
  constexpr int64_t kAttemptsFactor = 10;
  int64_t count = 100;
  bool justid = false;
  for (size_t j = 6; j < a.size(); ++j) {
    if (Is(a[j], "COUNT") && j + 1 < a.size()) {
      std::optional<int64_t> c = ParseInt64(a[j + 1]);
      if (!c || *c < 1 || *c > INT64_MAX / 16) {
        ctx.reply.Error("ERR COUNT must be > 0");
        return;
      }
      count = *c;
      ++j;
    } else if (Is(a[j], "JUSTID")) {
      justid = true;
    } else {
      ctx.reply.Error(kErrSyntax);
      return;
    }
  }
  StreamAccess s(ctx.store);
  if (!s.Open(a[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  StreamGroup* group = GroupOrReply(ctx, s);
  if (group == nullptr) return;
  const int64_t now = s.NowMs();
  const auto attempts = static_cast<uint64_t>(count * kAttemptsFactor);
  // The pending entries it may look at, and the one after them (the next start): read before
  // any changes.
  std::vector<std::pair<StreamId, StreamNack>> seen;
  if (Failed(s.WalkPending(*group, *start, false,
                           [&](const StreamId& id, const StreamNack& nack) {
                             seen.emplace_back(id, nack);
                             return seen.size() <= attempts;
                           }),
             ctx.reply)) {
    return;
  }
  bool looked_up = false, created = false;
  std::vector<Claimed> claimed;
  std::vector<StreamId> deleted;
  size_t i = 0;
  for (; i < seen.size() && i < attempts && count > 0; ++i) {
    const auto& [id, nack] = seen[i];
    Result<std::optional<StreamFields>> entry = s.Get(id);
    if (Failed(entry.status(), ctx.reply)) return;
    if (!*entry) {
      if (Failed(s.Ack(*group, id).status(), ctx.reply)) return;
      deleted.push_back(id);
      --count;
      continue;
    }
    if (*min_idle > 0 && now - nack.delivery_time < *min_idle) continue;
    if (Failed(Claim(s, *group, id, nack, a[3], now, now, -1, justid, &looked_up, &created),
               ctx.reply)) {
      return;
    }
    claimed.push_back({id, justid ? std::nullopt : std::move(*entry)});
    --count;
  }
  const StreamId next = i < seen.size() ? seen[i].first : StreamId{};
  if (looked_up) s.MarkChanged();
  if (Failed(s.Write(), ctx.reply)) return;
  ctx.reply.Array(3);
  ReplyStreamId(ctx.reply, next);
  ReplyClaimed(ctx.reply, claimed, justid);
  ctx.reply.Array(deleted.size());
  for (const StreamId& id : deleted) ReplyStreamId(ctx.reply, id);
  if (created) NotifyStream(ctx, "xgroup-createconsumer");
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS.
void RegisterStreamGroupCommands(CommandTable& t) {
  // clang-format off
  // A container command as in Redis: no flags or keys of its own (its subcommands write, with
  // the key at 2).
  t.Add({.name = "xgroup", .arity = -2, .flags = 0, .run_async = XGroup,
         .group = "stream", .summary = "A container for consumer groups commands",
         .since = "5.0.0", .acl = "slow",
         .subcommands = {
             Subcommand("xgroup|create", -5, kWrite | kDenyOom, "write stream slow", 2, "RW insert"),
             Subcommand("xgroup|createconsumer", 5, kWrite | kDenyOom, "write stream slow", 2, "RW insert"),
             Subcommand("xgroup|delconsumer", 5, kWrite, "write stream slow", 2, "RW delete"),
             Subcommand("xgroup|destroy", 4, kWrite, "write stream slow", 2, "RW delete"),
             Subcommand("xgroup|help", 2, kLoading | kStale, "stream slow"),
             Subcommand("xgroup|setid", -5, kWrite, "write stream slow", 2, "RW update"),
         }});
  t.Add({.name = "xack", .arity = -4, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = XAck, .group = "stream",
         .summary = "Marks a pending message as correctly processed, effectively removing it "
                    "from the pending entries list of the consumer group. Return value of the "
                    "command is the number of messages successfully acknowledged, that is, the "
                    "IDs we were actually able to resolve in the PEL.",
         .since = "5.0.0", .acl = "write stream fast", .key_specs = "RW update"});
  t.Add({.name = "xpending", .arity = -3, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = XPending, .group = "stream",
         .summary = "Return information and entries from a stream consumer group pending "
                    "entries list, that are messages fetched but never acknowledged.",
         .since = "5.0.0", .acl = "read stream slow", .key_specs = "RO access"});
  t.Add({.name = "xclaim", .arity = -6, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = XClaim, .group = "stream",
         .summary = "Changes (or acquires) ownership of a message in a consumer group, as if the "
                    "message was delivered to the specified consumer.",
         .since = "5.0.0", .acl = "write stream fast", .key_specs = "RW update"});
  t.Add({.name = "xautoclaim", .arity = -6, .flags = kWrite | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = XAutoClaim, .group = "stream",
         .summary = "Changes (or acquires) ownership of messages in a consumer group, as if the "
                    "messages were delivered to the specified consumer.",
         .since = "6.2.0", .acl = "write stream fast", .key_specs = "RW delete"});
  // clang-format on
}

}  // namespace slotkv::command
