// Stream family, the reads that may block: XREAD and XREADGROUP, as Redis 7.0's xreadCommand
// and its blocked-client path (blocked.c serveClientsBlockedOnStreamKey).
//
// A call first checks every key on its owner (WRONGTYPE, XREADGROUP's NOGROUP, the IDs, "$"
// resolved to the stream's last ID), replying the first error before anything is served. It
// then serves each stream with something for it, key by key on the owners: XREAD the entries
// after the ID; XREADGROUP either the consumer's own pending entries after the ID (history,
// always served, deleted entries as [id, nil]) or, for ">", the entries after the group's last
// delivered ID, which become pending for the consumer unless NOACK. The consumer is created
// (or its seen time refreshed) only when it is served.
//
// With nothing served and BLOCK given, the client waits (blocking.h, blocking_call.h) until a
// write to one of the streams gives it something, then is served from that stream alone, at
// most COUNT entries (1000 without COUNT). XREADGROUP waiting on a stream that is deleted or
// replaced replies "UNBLOCKED the stream key no longer exists", on one whose group is destroyed
// "NOGROUP the consumer group this client was blocked on no longer exists"; XREAD keeps waiting.
// Inside MULTI BLOCK does not wait (the reply is a null array); a script may not use it.
//
// Each stream is read and written in its own step on its owner: an XREADGROUP of several
// streams is not one atomic change across them, unlike Redis.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/command/args.h"
#include "core/command/blocking_call.h"
#include "core/command/command_table.h"
#include "core/command/stream_access.h"

namespace slotkv::command {
namespace {

// Redis's XREAD_BLOCKED_DEFAULT_COUNT.
constexpr int64_t kBlockedDefaultCount = 1000;

struct ReadCall {
  bool group_mode = false;  // XREADGROUP
  std::string group;
  std::string consumer;
  bool noack = false;
  int64_t count = 0;    // 0: no limit
  int64_t timeout = -1;  // ms; -1: no BLOCK
  size_t streams_arg = 0;
  size_t num = 0;
  std::vector<StreamId> ids;  // per stream: read after this; the maximum stands for ">"
};

// What serving one stream gave.
struct Served {
  bool served = false;  // the stream appears in the reply (possibly with no entries)
  std::vector<std::pair<StreamId, std::optional<StreamFields>>> entries;
};

// Parses the options up to STREAMS; nullopt after replying the error.
std::optional<ReadCall> ParseRead(const std::vector<std::string>& a, bool group_mode,
                                  Reply& reply) {
  ReadCall call;
  call.group_mode = group_mode;
  bool group_given = false;
  for (size_t i = 1; i < a.size(); ++i) {
    const size_t more = a.size() - i - 1;
    const std::string& o = a[i];
    if (Is(o, "BLOCK") && more > 0) {
      std::optional<int64_t> ms = MsTimeoutArg(a[++i], reply);
      if (!ms) return std::nullopt;
      call.timeout = *ms;
    } else if (Is(o, "COUNT") && more > 0) {
      std::optional<int64_t> c = IntArg(a[++i], reply);
      if (!c) return std::nullopt;
      call.count = *c < 0 ? 0 : *c;
    } else if (Is(o, "STREAMS") && more > 0) {
      call.streams_arg = i + 1;
      const size_t rest = a.size() - call.streams_arg;
      if (rest % 2 != 0) {
        // Redis 7.0 says this to XREADGROUP too.
        reply.Error(
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified.");
        return std::nullopt;
      }
      call.num = rest / 2;
      break;
    } else if (Is(o, "GROUP") && more >= 2) {
      if (!group_mode) {
        reply.Error(
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
        return std::nullopt;
      }
      call.group = a[i + 1];
      call.consumer = a[i + 2];
      group_given = true;
      i += 2;
    } else if (Is(o, "NOACK")) {
      if (!group_mode) {
        reply.Error(
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
        return std::nullopt;
      }
      call.noack = true;
    } else {
      reply.Error(kErrSyntax);
      return std::nullopt;
    }
  }
  if (call.streams_arg == 0) {
    reply.Error(kErrSyntax);
    return std::nullopt;
  }
  if (group_mode && !group_given) {
    reply.Error("ERR Missing GROUP option for XREADGROUP");
    return std::nullopt;
  }
  return call;
}

// Checks stream i on its owner and resolves its ID; false after replying the error.
bool CheckStream(ReadCall& call, size_t i, Store& store, WorkerStats& stats, Reply& reply,
                 const std::vector<std::string>& a) {
  const std::string& key = a[call.streams_arg + i];
  const std::string& arg = a[call.streams_arg + call.num + i];
  StreamAccess s(store);
  if (!s.Open(key, stats, Lookup::kRead, reply)) return false;
  if (call.group_mode && s.FindGroup(call.group) == nullptr) {
    reply.Error("NOGROUP No such key '" + key + "' or consumer group '" + call.group +
                "' in XREADGROUP with GROUP option");
    return false;
  }
  if (arg == "$") {
    if (call.group_mode) {
      reply.Error(
          "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
          "history of this consumer by specifying a proper ID, or use the > ID to get new "
          "messages. The $ ID would just return an empty result set.");
      return false;
    }
    call.ids[i] = s.exists() ? s.meta().last_id : StreamId{};
    return true;
  }
  if (arg == ">") {
    if (!call.group_mode) {
      reply.Error(
          "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
          "<consumer> option.");
      return false;
    }
    call.ids[i] = StreamId::Max();
    return true;
  }
  std::optional<StreamId> id = ParseIdOrReply(arg, {.strict = true}, reply);
  if (!id) return false;
  call.ids[i] = *id;
  return true;
}

// The last entry's ID (Redis's streamLastValidID), or nullopt when there is none.
Result<std::optional<StreamId>> LastEntryId(StreamAccess& s) {
  std::optional<StreamId> last;
  SLOTKV_RETURN_IF_ERROR(s.Walk(StreamId::Max(), true, [&](const StreamId& id, const auto&) {
    last = id;
    return false;
  }));
  return last;
}

// Serves stream i (open in s, existing) for call with at most count entries (0: all); *out
// tells what. For XREADGROUP the group must exist. *created: the consumer was created.
Status ServeStream(const ReadCall& call, size_t i, StreamAccess& s, int64_t count, Served* out,
                   bool* created) {
  const StreamId gt = call.ids[i];
  const auto take = [&](size_t n) { return count == 0 || n < static_cast<size_t>(count); };
  // No entry is past the last ID: nothing new costs no descent (the common empty poll).
  if (!call.group_mode) {
    if (gt >= s.meta().last_id) return Status::OK();
    SLOTKV_ASSIGN_OR_RETURN(std::optional<StreamId> last, LastEntryId(s));
    if (!last || *last <= gt) return Status::OK();
    out->served = true;
    StreamId start = gt;
    start.Incr();
    return s.Walk(start, false, [&](const StreamId& id, const StreamFields& f) {
      out->entries.emplace_back(id, f);
      return take(out->entries.size());
    });
  }
  StreamMeta& meta = s.meta();
  StreamGroup& group = *s.FindGroup(call.group);
  const int64_t now = s.NowMs();
  if (gt != StreamId::Max()) {  // the consumer's history
    out->served = true;
    group.Consumer(call.consumer, now, created).seen_time = now;
    s.MarkChanged();
    StreamId start = gt;
    start.Incr();
    std::vector<std::pair<StreamId, uint64_t>> pending;  // read before they change
    SLOTKV_RETURN_IF_ERROR(
        s.WalkOwned(group, call.consumer, start, [&](const StreamId& id, const StreamNack& n) {
          pending.emplace_back(id, n.delivery_count);
          return take(pending.size());
        }));
    for (const auto& [id, count] : pending) {
      SLOTKV_ASSIGN_OR_RETURN(std::optional<StreamFields> f, s.Get(id));
      if (f) SLOTKV_RETURN_IF_ERROR(s.SetPending(group, id, call.consumer, now, count + 1));
      out->entries.emplace_back(id, std::move(f));
    }
    return Status::OK();
  }
  if (group.last_id >= meta.last_id) return Status::OK();
  SLOTKV_ASSIGN_OR_RETURN(std::optional<StreamId> last, LastEntryId(s));
  if (!last || *last <= group.last_id) return Status::OK();
  out->served = true;
  group.Consumer(call.consumer, now, created).seen_time = now;
  s.MarkChanged();
  StreamId start = group.last_id;
  start.Incr();
  const uint64_t length = s.size();
  SLOTKV_RETURN_IF_ERROR(s.Walk(start, false, [&](const StreamId& id, const StreamFields& f) {
    out->entries.emplace_back(id, f);
    return take(out->entries.size());
  }));
  for (const auto& [id, f] : out->entries) {
    AdvanceGroup(meta, length, group, id);
    if (!call.noack) SLOTKV_RETURN_IF_ERROR(s.SetPending(group, id, call.consumer, now, 1));
  }
  return Status::OK();
}

void ReplyServed(Reply& reply, const Served& served) {
  reply.Array(served.entries.size());
  for (const auto& [id, f] : served.entries) {
    if (f) {
      ReplyEntry(reply, id, *f);
    } else {
      reply.Array(2);
      ReplyStreamId(reply, id);
      reply.NullArray();
    }
  }
}

// [[key, entries] ...] in RESP2, {key: entries ...} in RESP3.
void ReplyStreams(Reply& reply, const std::vector<std::pair<std::string, Served>>& streams) {
  if (reply.protocol() == 3) {
    reply.Map(streams.size());
  } else {
    reply.Array(streams.size());
  }
  for (const auto& [key, served] : streams) {
    if (reply.protocol() != 3) reply.Array(2);
    reply.Bulk(key);
    ReplyServed(reply, served);
  }
}

// What OpenAndServe found at a stream's key.
enum class Found {
  kStream,   // the stream (and XREADGROUP's group)
  kNone,     // no key, or one of another type
  kNoGroup,  // XREADGROUP: the stream without the group
};

// Opens stream i and serves it (writing it when served, telling its events); *found says what
// was there. Replies the storage failure and returns false then.
bool OpenAndServe(AsyncContext& ctx, const ReadCall& call, size_t i, Store& store, int64_t count,
                  Found* found, Served* out) {
  const std::string& key = ctx.args[call.streams_arg + i];
  StreamAccess s(store);
  WorkerStats& stats = StatsHere(ctx.server);
  bool wrong_type = false;
  if (Failed(s.Open(key, stats, Lookup::kRead, &wrong_type), ctx.reply)) return false;
  if (!s.exists() || wrong_type) {
    *found = Found::kNone;
    return true;
  }
  if (call.group_mode && s.FindGroup(call.group) == nullptr) {
    *found = Found::kNoGroup;
    return true;
  }
  *found = Found::kStream;
  bool created = false;
  if (Failed(ServeStream(call, i, s, count, out, &created), ctx.reply) ||
      Failed(s.Write(), ctx.reply)) {
    return false;
  }
  if (created) {
    std::vector<std::string> args = {"", key};
    CommandContext sub{args, ctx.reply, store, ctx.server, stats};
    NotifyStream(sub, "xgroup-createconsumer");
  }
  return true;
}

// BlockOn's try for one stream after the wait began (blocked.c's path): XREADGROUP's stream
// or group gone is an error; XREAD waits on.
Try TryStream(AsyncContext& ctx, const BlockCall& block, Store& store, const std::string& key) {
  const auto& call = *static_cast<const ReadCall*>(block.data);
  size_t i = 0;
  while (i < call.num && ctx.args[call.streams_arg + i] != key) ++i;
  const int64_t count = call.count != 0 ? call.count : kBlockedDefaultCount;
  Found found = Found::kNone;
  Served served;
  if (!OpenAndServe(ctx, call, i, store, count, &found, &served)) return Try::kReplied;
  if (call.group_mode && found == Found::kNone) {
    ctx.reply.Error("UNBLOCKED the stream key no longer exists");
    return Try::kReplied;
  }
  if (found == Found::kNoGroup) {
    ctx.reply.Error("NOGROUP the consumer group this client was blocked on no longer exists");
    return Try::kReplied;
  }
  if (!served.served) return Try::kEmpty;
  ReplyStreams(ctx.reply, {{key, std::move(served)}});
  return Try::kReplied;
}

Task XReadGeneric(AsyncContext& ctx, bool group_mode) {
  std::optional<ReadCall> parsed = ParseRead(ctx.args, group_mode, ctx.reply);
  if (!parsed) co_return;
  if (parsed->timeout >= 0 && ctx.client != nullptr && ctx.client->script) {
    ctx.reply.Error("ERR " + ctx.args[0] + " command is not allowed with BLOCK option from "
                    "scripts");
    co_return;
  }
  ReadCall call = std::move(*parsed);
  call.ids.resize(call.num);
  for (size_t i = 0; i < call.num; ++i) {
    const uint32_t s = ctx.server.keyspace->SlotOfKey(ctx.args[call.streams_arg + i]);
    co_await ctx.ToSlot(s);
    Store store = ctx.StoreOf(s);
    if (!CheckStream(call, i, store, StatsHere(ctx.server), ctx.reply, ctx.args)) co_return;
  }
  std::vector<std::pair<std::string, Served>> streams;
  for (size_t i = 0; i < call.num; ++i) {
    const std::string& key = ctx.args[call.streams_arg + i];
    const uint32_t s = ctx.server.keyspace->SlotOfKey(key);
    co_await ctx.ToSlot(s);
    Store store = ctx.StoreOf(s);
    Found found = Found::kNone;
    Served served;
    if (!OpenAndServe(ctx, call, i, store, call.count, &found, &served)) co_return;
    if (served.served) streams.emplace_back(key, std::move(served));
  }
  co_await ctx.ToHome();
  if (!streams.empty()) {
    ReplyStreams(ctx.reply, streams);
    co_return;
  }
  if (call.timeout < 0 || ctx.no_block) {
    ctx.reply.NullArray();
    co_return;
  }
  BlockCall block{.type = ValueType::kStream, .first_key = call.streams_arg,
                  .num_keys = call.num, .timeout_ms = call.timeout, .try_key = TryStream,
                  .data = &call};
  co_await BlockOn(ctx, block);
}

Task XRead(AsyncContext& ctx) { co_await XReadGeneric(ctx, false); }
Task XReadGroup(AsyncContext& ctx) { co_await XReadGeneric(ctx, true); }

// The keys of XREAD / XREADGROUP: the first half of what follows STREAMS (Redis's
// xreadGetKeys); none for a call it cannot read.
std::vector<size_t> XReadKeys(const std::vector<std::string>& a) {
  size_t streams = 0;
  for (size_t i = 1; i < a.size(); ++i) {
    if (Is(a[i], "BLOCK") || Is(a[i], "COUNT")) {
      ++i;
    } else if (Is(a[i], "GROUP")) {
      i += 2;
    } else if (Is(a[i], "NOACK")) {
      continue;
    } else if (Is(a[i], "STREAMS")) {
      streams = i;
      break;
    } else {
      break;
    }
  }
  std::vector<size_t> keys;
  if (streams == 0) return keys;
  const size_t rest = a.size() - streams - 1;
  if (rest == 0 || rest % 2 != 0) return keys;
  for (size_t k = 0; k < rest / 2; ++k) keys.push_back(streams + 1 + k);
  return keys;
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS; the keys follow STREAMS (Redis's movablekeys: the rows name none).
void RegisterStreamReadCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "xread", .arity = -4, .flags = kReadOnly | kBlocking, .first_key = 0,
         .last_key = 0, .step = 0, .run_async = XRead, .keys = XReadKeys, .group = "stream",
         .summary = "Return never seen elements in multiple streams, with IDs greater than the "
                    "ones reported by the caller for each stream. Can block.",
         .since = "5.0.0", .acl = "read stream slow blocking", .key_specs = "RO access"});
  t.Add({.name = "xreadgroup", .arity = -7, .flags = kWrite | kBlocking, .first_key = 0,
         .last_key = 0, .step = 0, .run_async = XReadGroup, .keys = XReadKeys,
         .group = "stream",
         .summary = "Return new entries from a stream using a consumer group, or access the "
                    "history of the pending entries for a given consumer. Can block.",
         .since = "5.0.0", .acl = "write stream slow blocking", .key_specs = "RO access"});
  // clang-format on
}

}  // namespace slotkv::command
