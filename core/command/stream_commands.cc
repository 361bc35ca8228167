// Stream family, the entry commands: XADD XRANGE XREVRANGE XLEN XDEL XTRIM XSETID, as Redis
// 7.0's t_stream.c. Consumer groups are in stream_group_commands.cc, XREAD / XREADGROUP in
// stream_read_commands.cc, XINFO in stream_info_command.cc.
//
// A stream is one value of type kStream up to paged-collection-threshold entries and paged
// above (stream_access.h); writes keep the key's TTL, and a stream stays when its last entry
// goes. Keyspace events are the family's own ("xadd", "xtrim", "xdel", "xsetid"), told after
// the write as Redis tells them.
//
// Approximate trimming (MAXLEN ~ / MINID ~) removes whole runs of 100 entries from the oldest
// (Redis's nodes of stream-node-max-entries), at most LIMIT entries (10000 by default).
#include <optional>
#include <string>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/stream_access.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrIdNotAbove =
    "ERR The ID specified in XADD is equal or smaller than the target stream top item";
constexpr std::string_view kErrIdZero = "ERR The ID specified in XADD must be greater than 0-0";
constexpr std::string_view kErrExhausted =
    "ERR The stream has exhausted the last possible ID, unable to add more items";
constexpr std::string_view kErrTooLarge = "ERR Elements are too large to be stored";
constexpr std::string_view kErrMaxLenAndMinId =
    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";

// What XADD and XTRIM take before the ID (XADD) or to the end (XTRIM), as
// streamParseAddOrTrimArgsOrReply.
struct AddOrTrimArgs {
  TrimArgs trim;
  bool nomkstream = false;
  bool id_given = false;
  bool seq_given = true;
  StreamId id;
  size_t id_pos = 0;  // XADD: the ID's argument ("*" or an ID)
};

// Parses from args[2]; nullopt after replying the error.
std::optional<AddOrTrimArgs> ParseAddOrTrim(const std::vector<std::string>& a, bool xadd,
                                            Reply& reply) {
  using Strategy = TrimArgs::Strategy;
  AddOrTrimArgs out;
  bool limit_given = false;
  size_t i = 2;
  for (; i < a.size(); ++i) {
    const size_t more = a.size() - 1 - i;
    const std::string& opt = a[i];
    if (xadd && opt == "*") break;
    if ((Is(opt, "MAXLEN") || Is(opt, "MINID")) && more > 0) {
      if (out.trim.strategy != Strategy::kNone) {
        reply.Error(kErrMaxLenAndMinId);
        return std::nullopt;
      }
      out.trim.approx = false;
      if (more >= 2 && (a[i + 1] == "~" || a[i + 1] == "=")) {
        out.trim.approx = a[i + 1] == "~";
        ++i;
      }
      if (Is(opt, "MAXLEN")) {
        std::optional<int64_t> n = IntArg(a[i + 1], reply);
        if (!n) return std::nullopt;
        if (*n < 0) {
          reply.Error("ERR The MAXLEN argument must be >= 0.");
          return std::nullopt;
        }
        out.trim.maxlen = static_cast<uint64_t>(*n);
        out.trim.strategy = Strategy::kMaxLen;
      } else {
        std::optional<StreamId> id = ParseIdOrReply(a[i + 1], {.strict = true}, reply);
        if (!id) return std::nullopt;
        out.trim.minid = *id;
        out.trim.strategy = Strategy::kMinId;
      }
      ++i;
    } else if (Is(opt, "LIMIT") && more > 0) {
      std::optional<int64_t> n = IntArg(a[i + 1], reply);
      if (!n) return std::nullopt;
      if (*n < 0) {
        reply.Error("ERR The LIMIT argument must be >= 0.");
        return std::nullopt;
      }
      out.trim.limit = *n;
      limit_given = true;
      ++i;
    } else if (xadd && Is(opt, "NOMKSTREAM")) {
      out.nomkstream = true;
    } else if (xadd) {
      std::optional<StreamId> id = ParseStreamId(opt, {.strict = true, .seq_star = true},
                                                 &out.seq_given);
      if (!id) {
        reply.Error("ERR Invalid stream ID specified as stream command argument");
        return std::nullopt;
      }
      out.id = *id;
      out.id_given = true;
      break;
    } else {
      reply.Error(kErrSyntax);
      return std::nullopt;
    }
  }
  out.id_pos = i;
  if (out.trim.limit != 0 && out.trim.strategy == Strategy::kNone) {
    reply.Error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return std::nullopt;
  }
  if (!xadd && out.trim.strategy == Strategy::kNone) {
    reply.Error("ERR syntax error, XTRIM must be called with a trimming strategy");
    return std::nullopt;
  }
  if (limit_given && !out.trim.approx) {
    reply.Error("ERR syntax error, LIMIT cannot be used without the special ~ option");
    return std::nullopt;
  }
  if (!limit_given) out.trim.limit = out.trim.approx ? 100 * kStreamNodeEntries : 0;
  return out;
}

// The ID XADD gives its entry after last (REQUIRES: last is not the maximum): the next one
// by the clock, or the one asked for; nullopt after replying why it cannot be.
std::optional<StreamId> NextId(const AddOrTrimArgs& args, const StreamId& last, int64_t now_ms,
                               Reply& reply) {
  if (!args.id_given) {
    const auto ms = static_cast<uint64_t>(now_ms);
    if (ms > last.ms) return StreamId{ms, 0};
    StreamId next = last;
    next.Incr();
    return next;
  }
  if (args.seq_given) {
    if (args.id <= last) {
      reply.Error(kErrIdNotAbove);
      return std::nullopt;
    }
    return args.id;
  }
  // ms-*: the next seq of that millisecond.
  if (args.id.ms < last.ms) {
    reply.Error(kErrIdNotAbove);
    return std::nullopt;
  }
  if (args.id.ms > last.ms) return StreamId{args.id.ms, 0};
  if (last.seq == UINT64_MAX) {
    reply.Error(kErrTooLarge);  // what Redis 7.0 says here
    return std::nullopt;
  }
  return StreamId{last.ms, last.seq + 1};
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value ...
void XAdd(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  std::optional<AddOrTrimArgs> args = ParseAddOrTrim(a, true, ctx.reply);
  if (!args) return;
  if (args->id_given && args->seq_given && args->id.zero()) {
    ctx.reply.Error(kErrIdZero);
    return;
  }
  const size_t field_pos = args->id_pos + 1;
  if (field_pos > a.size() || a.size() - field_pos < 2 || (a.size() - field_pos) % 2 == 1) {
    ctx.reply.Error(WrongArgs("xadd"));
    return;
  }
  StreamAccess s(ctx.store);
  if (!s.Open(a[1], ctx.stats, Lookup::kWrite, ctx.reply)) return;
  if (!s.exists()) {
    if (args->nomkstream) {
      ctx.reply.Null();
      return;
    }
    s.Create();
  }
  if (s.meta().last_id == StreamId::Max()) {
    ctx.reply.Error(kErrExhausted);
    return;
  }
  std::optional<StreamId> id = NextId(*args, s.meta().last_id, s.NowMs(), ctx.reply);
  if (!id) return;
  StreamFields fields(a.begin() + static_cast<std::ptrdiff_t>(field_pos), a.end());
  if (Failed(AddEntry(s, *id, std::move(fields)), ctx.reply)) return;
  Result<uint64_t> trimmed = Trim(s, args->trim);
  if (Failed(trimmed.status(), ctx.reply) || Failed(s.Write(), ctx.reply)) return;
  ctx.store.SignalKey(a[1]);
  ReplyStreamId(ctx.reply, *id);
  NotifyStream(ctx, "xadd");
  if (*trimmed > 0) NotifyStream(ctx, "xtrim");
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
void XTrim(CommandContext& ctx) {
  std::optional<AddOrTrimArgs> args = ParseAddOrTrim(ctx.args, false, ctx.reply);
  if (!args) return;
  StreamAccess s(ctx.store);
  if (!s.Open(ctx.args[1], ctx.stats, Lookup::kWrite, ctx.reply)) return;
  if (!s.exists()) {
    ctx.reply.Integer(0);
    return;
  }
  Result<uint64_t> trimmed = Trim(s, args->trim);
  if (Failed(trimmed.status(), ctx.reply) || Failed(s.Write(), ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(*trimmed));
  if (*trimmed > 0) NotifyStream(ctx, "xtrim");
}

// XRANGE key start end [COUNT count] / XREVRANGE key end start [COUNT count]
void XRangeGeneric(CommandContext& ctx, bool rev) {
  const std::vector<std::string>& a = ctx.args;
  std::optional<StreamId> start = ParseRangeStart(rev ? a[3] : a[2], ctx.reply);
  if (!start) return;
  std::optional<StreamId> end = ParseRangeEnd(rev ? a[2] : a[3], ctx.reply);
  if (!end) return;
  int64_t count = -1;
  for (size_t j = 4; j < a.size(); ++j) {
    if (Is(a[j], "COUNT") && j + 1 < a.size()) {
      std::optional<int64_t> c = IntArg(a[j + 1], ctx.reply);
      if (!c) return;
      count = *c < 0 ? 0 : *c;
      ++j;
    } else {
      ctx.reply.Error(kErrSyntax);
      return;
    }
  }
  StreamAccess s(ctx.store);
  if (!s.Open(a[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  if (!s.exists()) {
    ctx.reply.Array(0);
    return;
  }
  if (count == 0) {
    ctx.reply.NullArray();
    return;
  }
  std::vector<std::pair<StreamId, StreamFields>> out;
  Status st;
  if (*start <= *end) {
    st = s.Walk(rev ? *end : *start, rev, [&](const StreamId& id, const StreamFields& f) {
      if (rev ? id < *start : id > *end) return false;
      out.emplace_back(id, f);
      return count < 0 || out.size() < static_cast<uint64_t>(count);
    });
  }
  if (Failed(st, ctx.reply)) return;
  ctx.reply.Array(out.size());
  for (const auto& [id, f] : out) ReplyEntry(ctx.reply, id, f);
}

void XRange(CommandContext& ctx) { XRangeGeneric(ctx, false); }
void XRevRange(CommandContext& ctx) { XRangeGeneric(ctx, true); }

// XLEN key
void XLen(CommandContext& ctx) {
  StreamAccess s(ctx.store);
  if (!s.Open(ctx.args[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(s.size()));
}

// XDEL key id [id ...]: the key is looked up before the IDs are read, as Redis 7.0.
void XDel(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  StreamAccess s(ctx.store);
  if (!s.Open(a[1], ctx.stats, Lookup::kWrite, ctx.reply)) return;
  if (!s.exists()) {
    ctx.reply.Integer(0);
    return;
  }
  std::vector<StreamId> ids;
  for (size_t j = 2; j < a.size(); ++j) {
    std::optional<StreamId> id = ParseIdOrReply(a[j], {.strict = true}, ctx.reply);
    if (!id) return;
    ids.push_back(*id);
  }
  int64_t deleted = 0;
  for (const StreamId& id : ids) {
    Result<bool> d = DeleteEntry(s, id);
    if (Failed(d.status(), ctx.reply)) return;
    deleted += *d ? 1 : 0;
  }
  if (Failed(s.Write(), ctx.reply)) return;
  ctx.reply.Integer(deleted);
  if (deleted > 0) NotifyStream(ctx, "xdel");
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
void XSetId(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  std::optional<StreamId> id = ParseIdOrReply(a[2], {.strict = true}, ctx.reply);
  if (!id) return;
  int64_t entries_added = -1;
  StreamId max_deleted;
  for (size_t i = 3; i < a.size(); i += 2) {
    const bool more = i + 1 < a.size();
    if (Is(a[i], "ENTRIESADDED") && more) {
      std::optional<int64_t> n = IntArg(a[i + 1], ctx.reply);
      if (!n) return;
      if (*n < 0) {
        ctx.reply.Error("ERR entries_added must be positive");
        return;
      }
      entries_added = *n;
    } else if (Is(a[i], "MAXDELETEDID") && more) {
      std::optional<StreamId> m = ParseIdOrReply(a[i + 1], {.strict = true}, ctx.reply);
      if (!m) return;
      if (*id < *m) {
        ctx.reply.Error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
        return;
      }
      max_deleted = *m;
    } else {
      ctx.reply.Error(kErrSyntax);
      return;
    }
  }
  StreamAccess s(ctx.store);
  if (!s.Open(a[1], ctx.stats, Lookup::kWrite, ctx.reply)) return;
  if (!s.exists()) {
    ctx.reply.Error("ERR no such key");
    return;
  }
  if (s.size() > 0) {
    std::optional<StreamId> top;
    Status st = s.Walk(StreamId::Max(), true, [&](const StreamId& e, const StreamFields&) {
      top = e;
      return false;
    });
    if (Failed(st, ctx.reply)) return;
    if (top && *id < *top) {
      ctx.reply.Error("ERR The ID specified in XSETID is smaller than the target stream top item");
      return;
    }
    if (entries_added != -1 && s.size() > static_cast<uint64_t>(entries_added)) {
      ctx.reply.Error(
          "ERR The entries_added specified in XSETID is smaller than the target stream length");
      return;
    }
  }
  StreamMeta& m = s.meta();
  m.last_id = *id;
  if (entries_added != -1) m.entries_added = static_cast<uint64_t>(entries_added);
  if (!max_deleted.zero()) m.max_deleted = max_deleted;
  s.MarkChanged();
  if (Failed(s.Write(), ctx.reply)) return;
  ctx.reply.SimpleString("OK");
  NotifyStream(ctx, "xsetid");
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS.
void RegisterStreamCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "xadd", .arity = -5, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = XAdd, .group = "stream",
         .summary = "Appends a new entry to a stream", .since = "5.0.0",
         .acl = "write stream fast", .key_specs = "RW update"});
  t.Add({.name = "xrange", .arity = -4, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = XRange, .group = "stream",
         .summary = "Return a range of elements in a stream, with IDs matching the specified "
                    "IDs interval",
         .since = "5.0.0", .acl = "read stream slow", .key_specs = "RO access"});
  t.Add({.name = "xrevrange", .arity = -4, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = XRevRange, .group = "stream",
         .summary = "Return a range of elements in a stream, with IDs matching the specified "
                    "IDs interval, in reverse order (from greater to smaller IDs) compared to "
                    "XRANGE",
         .since = "5.0.0", .acl = "read stream slow", .key_specs = "RO access"});
  t.Add({.name = "xlen", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = XLen, .group = "stream",
         .summary = "Return the number of entries in a stream", .since = "5.0.0",
         .acl = "read stream fast", .key_specs = "RO"});
  t.Add({.name = "xdel", .arity = -3, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = XDel, .group = "stream",
         .summary = "Removes the specified entries from the stream. Returns the number of items "
                    "actually deleted, that may be different from the number of IDs passed in "
                    "case certain IDs do not exist.",
         .since = "5.0.0", .acl = "write stream fast", .key_specs = "RW delete"});
  t.Add({.name = "xtrim", .arity = -4, .flags = kWrite, .first_key = 1, .last_key = 1,
         .step = 1, .run = XTrim, .group = "stream",
         .summary = "Trims the stream to (approximately if '~' is passed) a certain size",
         .since = "5.0.0", .acl = "write stream slow", .key_specs = "RW delete"});
  t.Add({.name = "xsetid", .arity = -3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = XSetId, .group = "stream",
         .summary = "An internal command for replicating stream values", .since = "5.0.0",
         .acl = "write stream fast", .key_specs = "RW update"});
  // clang-format on
}

}  // namespace slotkv::command
