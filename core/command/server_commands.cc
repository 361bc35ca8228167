// Server family: DBSIZE FLUSHDB FLUSHALL SWAPDB TIME SHUTDOWN SLOWLOG COMMAND, and the
// registration of INFO (info_command.cc) and CONFIG (config_command.cc). LASTSAVE, SAVE, BGSAVE
// and BGREWRITEAOF are in persist_commands.cc.
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "core/acl/user.h"
#include "core/base/glob.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"
#include "core/command/replication.h"
#include "core/command/server_family.h"

namespace slotkv::command {

int64_t ServerTimeUs(const ServerState& state) {
  Clock* clock = state.keyspace->clock();
  if (clock != SystemClock()) return clock->NowMs() * 1000;
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

// ---- DBSIZE FLUSHDB FLUSHALL ---------------------------------------------------------------

Task DbSize(AsyncContext& ctx) {
  std::vector<uint64_t> counts;
  Status failure;
  co_await CountKeys(ctx, ctx.db, &counts, &failure);
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Integer(static_cast<int64_t>(std::accumulate(counts.begin(), counts.end(), 0ull)));
}

// FLUSHDB [ASYNC | SYNC] and FLUSHALL [ASYNC | SYNC]: either way the data is gone on return.
Task Flush(AsyncContext& ctx, bool all) {
  if (ctx.args.size() > 2 ||
      (ctx.args.size() == 2 && !Is(ctx.args[1], "ASYNC") && !Is(ctx.args[1], "SYNC"))) {
    ctx.reply.Error(kErrSyntax);
    co_return;
  }
  Status failure;
  const uint32_t first = all ? 0 : ctx.db;
  const uint32_t last = all ? ctx.server.keyspace->databases() - 1 : ctx.db;
  for (uint32_t db = first; db <= last; ++db) {
    co_await ForEachSlot(
        ctx,
        [&](Store& store) {
          Status st = store.Clear();
          if (!st.ok() && failure.ok()) failure = std::move(st);
          if (ctx.server.tracking != nullptr) ctx.server.tracking->ForgetHere();
          return true;
        },
        db);
  }
  if (Failed(failure, ctx.reply)) co_return;
  if (ctx.server.tracking != nullptr) ctx.server.tracking->InvalidateEverything();
  ctx.reply.Ok();
}

Task FlushDb(AsyncContext& ctx) { return Flush(ctx, false); }
Task FlushAll(AsyncContext& ctx) { return Flush(ctx, true); }

// ---- SWAPDB --------------------------------------------------------------------------------

// SWAPDB index1 index2, with every slot held (kAllSlots): the new map is recorded
// (slotkv.meta) first, then each slot follows it on its owner (Keyspace::AdoptDbMap touches
// WATCHes and wakes blocked clients, as Redis), and replicas get it before any write that
// comes after it. Unlike Redis 7.0, which leaves client-side caches stale, every tracking
// client gets a null invalidation, as after FLUSHALL.
Task SwapDb(AsyncContext& ctx) {
  Keyspace& ks = *ctx.server.keyspace;
  auto index = [](const std::string& arg) -> std::optional<int64_t> {
    std::optional<int64_t> v = ParseInt64(arg);
    if (!v || *v < INT32_MIN || *v > INT32_MAX) return std::nullopt;
    return v;
  };
  const std::optional<int64_t> a = index(ctx.args[1]);
  const std::optional<int64_t> b = index(ctx.args[2]);
  if (!a || !b) {
    ctx.reply.Error(!a ? kErrSwapDbFirst : kErrSwapDbSecond);
    co_return;
  }
  const auto databases = static_cast<int64_t>(ks.databases());
  if (*a < 0 || *a >= databases || *b < 0 || *b >= databases) {
    ctx.reply.Error(kErrDbIndex);
    co_return;
  }
  if (*a == *b) {
    ctx.reply.Ok();
    co_return;
  }
  std::vector<uint32_t> map = ks.db_map();
  std::swap(map[static_cast<size_t>(*a)], map[static_cast<size_t>(*b)]);
  if (Status st = ks.SetDbMap(map); !st.ok()) {
    ctx.reply.Error(std::string(kErrWriteFailed) + st.ToString());
    co_return;
  }
  Tracking* tracking = ctx.server.tracking;
  co_await ForEachSlot(
      ctx,
      [&](Store& store) {
        ks.AdoptDbMap(store.slot());
        if (tracking != nullptr) tracking->ForgetHere();
        return true;
      },
      0);
  if (tracking != nullptr) tracking->InvalidateEverything();
  if (ctx.server.replication != nullptr) ctx.server.replication->OnSwapDb(map);
  ctx.reply.Ok();
}

// ---- TIME SHUTDOWN -------------------------------------------------------------------------

Task Time(AsyncContext& ctx) {
  const int64_t us = ServerTimeUs(ctx.server);
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::to_string(us / 1'000'000));
  ctx.reply.Bulk(std::to_string(us % 1'000'000));
  co_return;
}

// SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]. On success nothing is replied: the
// connection closes and the server persists every slot and exits. Every mode persists: the
// data is in the WAL anyway, so NOSAVE could only make the next start replay more.
Task Shutdown(AsyncContext& ctx) {
  bool nosave = false;
  bool save = false;
  bool abort = false;
  bool other = false;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    const std::string& a = ctx.args[i];
    if (Is(a, "NOSAVE")) {
      nosave = true;
    } else if (Is(a, "SAVE")) {
      save = true;
    } else if (Is(a, "NOW") || Is(a, "FORCE")) {
      other = true;
    } else if (Is(a, "ABORT")) {
      abort = true;
    } else {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
  }
  if ((abort && (nosave || save || other)) || (nosave && save)) {
    ctx.reply.Error(kErrSyntax);
    co_return;
  }
  if (abort) {
    ctx.reply.Error("ERR No shutdown in progress.");  // a shutdown never waits for anything
    co_return;
  }
  if (ctx.server.shutdown) ctx.server.shutdown();
  ctx.client->close_after_reply = true;
}

// ---- SLOWLOG -------------------------------------------------------------------------------

constexpr std::string_view kSlowlogHelp[] = {
    "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "GET [<count>]",
    "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
    "    Entries are made of:",
    "    id, timestamp, time in microseconds, arguments array, client IP and port,",
    "    client name",
    "LEN",
    "    Return the length of the slowlog.",
    "RESET",
    "    Reset the slowlog.",
    "HELP",
    "    Prints this help.",
};

Task Slowlog(AsyncContext& ctx) {
  const std::string& sub = ctx.args[1];
  const size_t n = ctx.args.size();
  SlowLog& log = *ctx.server.slowlog;
  // Arities are the subcommand rows' (checked before the call); GET takes fewer.
  if (Is(sub, "GET")) {
    if (n > 3) {
      ctx.reply.Error(WrongArgs("slowlog|get"));
      co_return;
    }
    int64_t count = 10;
    if (n == 3) {
      std::optional<int64_t> v = ParseInt64(ctx.args[2]);
      if (!v || *v < -1) {
        ctx.reply.Error("ERR count should be greater than or equal to -1");
        co_return;
      }
      count = *v;
    }
    std::vector<SlowLogEntry> entries = log.Get(count);
    ctx.reply.Array(entries.size());
    for (const SlowLogEntry& e : entries) {
      ctx.reply.Array(6);
      ctx.reply.Integer(static_cast<int64_t>(e.id));
      ctx.reply.Integer(e.time_s);
      ctx.reply.Integer(e.duration_us);
      ctx.reply.Array(e.args.size());
      for (const std::string& a : e.args) ctx.reply.Bulk(a);
      ctx.reply.Bulk(e.client_addr);
      ctx.reply.Bulk(e.client_name);
    }
  } else if (Is(sub, "LEN")) {
    ctx.reply.Integer(static_cast<int64_t>(log.size()));
  } else if (Is(sub, "RESET")) {
    log.Reset();
    ctx.reply.Ok();
  } else if (Is(sub, "HELP")) {
    ctx.reply.Help(kSlowlogHelp);
  } else {
    ctx.reply.Error(UnknownSubcommand("slowlog", sub));
  }
}

// ---- COMMAND -------------------------------------------------------------------------------

// Flags in the order Redis 7.0 lists them (it hides may_replicate); "movablekeys"
// (MovableKeys) and "allow_busy" follow.
constexpr std::pair<uint32_t, std::string_view> kFlagNames[] = {
    {kWrite, "write"},       {kReadOnly, "readonly"},
    {kDenyOom, "denyoom"},   {kAdmin, "admin"},
    {kPubSub, "pubsub"},     {kNoScript, "noscript"},
    {kBlocking, "blocking"}, {kLoading, "loading"},
    {kStale, "stale"},       {kSkipMonitor, "skip_monitor"},
    {kSkipSlowlog, "skip_slowlog"}, {kAsking, "asking"},
    {kFast, "fast"},
    {kNoAuth, "no_auth"},    {kNoMandatoryKeys, "no_mandatory_keys"},
    {kNoAsyncLoading, "no_async_loading"}, {kNoMulti, "no_multi"},
};

// Whether a row's keys move with its arguments (a KeysFn; a container's are its
// subcommands').
bool MovableKeys(const CommandSpec& spec) { return spec.keys != nullptr && !spec.container; }

// The row's ACL categories, in the order Redis 7.0 lists them.
std::vector<std::string_view> AclCategories(const CommandSpec& spec) {
  const uint32_t bits = acl::CategoryBits(spec.acl);
  std::vector<std::string_view> names;
  for (size_t i = 0; i < acl::kCategoryCount; ++i) {
    if (bits & (uint32_t{1} << i)) names.push_back(acl::kCategories[i]);
  }
  return names;
}

// One COMMAND INFO entry in the Redis 7 layout: name, arity, flags, first key, last key, step,
// ACL categories, tips, key specs, subcommands. slotkv's rows carry no tips or key specs:
// those two are empty.
void WriteCommandInfo(Reply& reply, const CommandSpec& spec) {
  reply.Array(10);
  reply.Bulk(spec.name);
  reply.Integer(spec.arity);
  // A container's flags stand for its subcommands' here (CLIENT's noscript ...); Redis shows a
  // container that needs a subcommand with none (COMMAND, which runs alone, keeps its own).
  const uint32_t flags = spec.container && spec.arity <= -2 ? 0 : spec.flags;
  size_t nflags = (MovableKeys(spec) ? 1 : 0) + ((flags & kAllowBusy) ? 1 : 0);
  for (const auto& [flag, name] : kFlagNames) nflags += (flags & flag) ? 1 : 0;
  reply.Set(nflags);
  for (const auto& [flag, name] : kFlagNames) {
    if (flags & flag) reply.SimpleString(name);
  }
  if (MovableKeys(spec)) reply.SimpleString("movablekeys");
  if (flags & kAllowBusy) reply.SimpleString("allow_busy");
  reply.Integer(spec.first_key);
  reply.Integer(spec.last_key);
  reply.Integer(spec.step);
  std::vector<std::string_view> cats = AclCategories(spec);
  reply.Set(cats.size());
  for (std::string_view c : cats) reply.SimpleString("@" + std::string(c));
  reply.Set(0);  // tips
  reply.Set(0);  // key specs
  reply.Set(spec.subcommands.size());
  for (const CommandSpec& sub : spec.subcommands) WriteCommandInfo(reply, sub);
}

void WriteCommandDocs(Reply& reply, const CommandSpec& spec) {
  reply.Bulk(spec.name);
  reply.Map(3);
  reply.Bulk("summary");
  reply.Bulk(spec.summary);
  reply.Bulk("since");
  reply.Bulk(spec.since);
  reply.Bulk("group");
  reply.Bulk(spec.group);
}

constexpr std::string_view kCommandHelp[] = {
    "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "(no subcommand)",
    "    Return details about all Redis commands.",
    "COUNT",
    "    Return the total number of commands in this Redis server.",
    "LIST",
    "    Return a list of all commands in this Redis server.",
    "INFO [<command-name> ...]",
    "    Return details about multiple Redis commands.",
    "    If no command names are given, documentation details for all",
    "    commands are returned.",
    "DOCS [<command-name> ...]",
    "    Return documentation details about multiple Redis commands.",
    "    If no command names are given, documentation details for all",
    "    commands are returned.",
    "GETKEYS <full-command>",
    "    Return the keys from a full Redis command.",
    "GETKEYSANDFLAGS <full-command>",
    "    Return the keys and the access flags from a full Redis command.",
    "HELP",
    "    Prints this help.",
};

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
void CommandList(AsyncContext& ctx) {
  const size_t n = ctx.args.size();
  std::function<bool(const CommandSpec&)> keep = [](const CommandSpec&) { return true; };
  if (n == 5 && Is(ctx.args[2], "FILTERBY")) {
    const std::string& what = ctx.args[3];
    const std::string& value = ctx.args[4];
    if (Is(what, "MODULE")) {
      keep = [](const CommandSpec&) { return false; };  // no modules
    } else if (Is(what, "ACLCAT")) {
      const uint32_t bit = acl::CategoryBit(value);
      keep = [bit](const CommandSpec& spec) { return (acl::CategoryBits(spec.acl) & bit) != 0; };
    } else if (Is(what, "PATTERN")) {
      keep = [&value](const CommandSpec& spec) { return GlobMatch(value, spec.name, true); };
    } else {
      ctx.reply.Error(kErrSyntax);
      return;
    }
  } else if (n != 2) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  std::vector<std::string_view> names;
  ctx.server.table->ForEachRow([&](const CommandSpec& spec) {
    if (keep(spec)) names.push_back(spec.name);
  });
  ctx.reply.Array(names.size());
  for (std::string_view name : names) ctx.reply.Bulk(name);
}

// COMMAND GETKEYS|GETKEYSANDFLAGS command arg...: the keys of that call (CommandTable::Keys),
// with_flags each with its key spec's flags (CommandTable::KeyFlags).
void CommandGetKeys(AsyncContext& ctx, bool with_flags) {
  const CommandSpec* spec = ctx.server.table->Find(ctx.args[2]);
  const std::vector<std::string> call(ctx.args.begin() + 2, ctx.args.end());
  // As Redis's lookupCommand: a container's subcommand row, and an unknown one is no command.
  const CommandSpec* row = spec ? &CommandTable::Resolve(*spec, call) : nullptr;
  if (!row || (row == spec && spec->container && call.size() > 1)) {
    ctx.reply.Error("ERR Invalid command specified");
    return;
  }
  // (A shard channel is a key to the table, not to Redis: not_key.)
  if ((row->first_key == 0 && row->keys == nullptr) || row->key_specs == "not_key") {
    ctx.reply.Error("ERR The command has no key arguments");
    return;
  }
  if (!CommandTable::ArityOk(*row, call.size())) {
    ctx.reply.Error("ERR Invalid number of arguments specified for command");
    return;
  }
  std::vector<size_t> keys = CommandTable::Keys(*spec, call);
  if (keys.empty() && !(spec->flags & kNoMandatoryKeys)) {
    ctx.reply.Error("ERR Invalid arguments specified for command");
    return;
  }
  const std::vector<std::string_view> flags =
      with_flags ? CommandTable::KeyFlags(*spec, call, keys.size())
                 : std::vector<std::string_view>{};
  ctx.reply.Array(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!with_flags) {
      ctx.reply.Bulk(ctx.args[keys[i] + 2]);
      continue;
    }
    ctx.reply.Array(2);
    ctx.reply.Bulk(ctx.args[keys[i] + 2]);
    const std::vector<std::string> words = acl::SplitWords(flags[i]);
    ctx.reply.Set(words.size());
    for (const std::string& w : words) ctx.reply.SimpleString(w);
  }
}

Task Command(AsyncContext& ctx) {
  const CommandTable& table = *ctx.server.table;
  const size_t n = ctx.args.size();
  if (n == 1) {
    ctx.reply.Array(table.size());
    for (const CommandSpec& spec : table.all()) WriteCommandInfo(ctx.reply, spec);
    co_return;
  }
  // Arities are the subcommand rows' (checked before the call).
  const std::string& sub = ctx.args[1];
  if (Is(sub, "COUNT")) {
    ctx.reply.Integer(static_cast<int64_t>(table.size()));
  } else if (Is(sub, "INFO")) {
    if (n == 2) {
      ctx.reply.Array(table.size());
      for (const CommandSpec& spec : table.all()) WriteCommandInfo(ctx.reply, spec);
      co_return;
    }
    ctx.reply.Array(n - 2);
    for (size_t i = 2; i < n; ++i) {
      const CommandSpec* spec = table.FindFull(ctx.args[i]);
      if (spec) {
        WriteCommandInfo(ctx.reply, *spec);
      } else {
        ctx.reply.Null();
      }
    }
  } else if (Is(sub, "DOCS")) {
    std::vector<const CommandSpec*> found;
    if (n == 2) {
      for (const CommandSpec& spec : table.all()) found.push_back(&spec);
    } else {
      for (size_t i = 2; i < n; ++i) {
        const CommandSpec* spec = table.Find(ctx.args[i]);
        if (spec) found.push_back(spec);
      }
    }
    ctx.reply.Map(found.size());
    for (const CommandSpec* spec : found) WriteCommandDocs(ctx.reply, *spec);
  } else if (Is(sub, "LIST")) {
    CommandList(ctx);
  } else if (Is(sub, "GETKEYS") || Is(sub, "GETKEYSANDFLAGS")) {
    CommandGetKeys(ctx, Is(sub, "GETKEYSANDFLAGS"));
  } else if (Is(sub, "HELP")) {
    ctx.reply.Help(kCommandHelp);
  } else {
    ctx.reply.Error(UnknownSubcommand("command", sub));
  }
}

}  // namespace

void RegisterServerCommands(CommandTable& t) {
  constexpr uint32_t kLoadingStale = kLoading | kStale;
  t.Add({.name = "dbsize",
         .arity = 1, .flags = kAllSlots | kReadOnly | kFast,
         .run_async = DbSize, .group = "server",
         .summary = "Returns the number of keys in the database.",
         .since = "1.0.0", .acl = "keyspace read fast"});
  t.Add({.name = "flushdb",
         .arity = -1, .flags = kOrderedVisits | kAllSlots | kWrite,
         .run_async = FlushDb, .group = "server",
         .summary = "Removes all keys from the current database.",
         .since = "1.0.0", .acl = "keyspace write slow dangerous"});
  t.Add({.name = "flushall",
         .arity = -1, .flags = kOrderedVisits | kAllSlots | kWrite,
         .run_async = FlushAll, .group = "server",
         .summary = "Removes all keys from all databases.",
         .since = "1.0.0", .acl = "keyspace write slow dangerous"});
  t.Add({.name = "swapdb",
         .arity = 3, .flags = kAllSlots | kWrite | kFast,
         .run_async = SwapDb, .group = "server",
         .summary = "Swaps two Redis databases",
         .since = "4.0.0", .acl = "keyspace write fast dangerous"});
  t.Add({.name = "info",
         .arity = -1, .flags = kLoadingStale,
         .run_async = InfoCommand, .group = "server",
         .summary = "Returns information and statistics about the server.",
         .since = "1.0.0", .acl = "slow dangerous"});
  t.Add({.name = "config",
         .arity = -2, .flags = 0, .run_async = ConfigCommand,
         .group = "server", .summary = "A container for server configuration commands.",
         .since = "2.0.0", .acl = "slow",
         .subcommands = {
             Subcommand("config|get", -3, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("config|help", 2, kLoading | kStale, "slow"),
             Subcommand("config|resetstat", 2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("config|rewrite", 2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("config|set", -4, kAdminSubcommand, "admin slow dangerous"),
         }});
  t.Add({.name = "slowlog",
         .arity = -2, .flags = 0, .run_async = Slowlog,
         .group = "server", .summary = "A container for slow log commands.",
         .since = "2.2.12", .acl = "slow",
         .subcommands = {
             Subcommand("slowlog|get", -2, kAdmin | kLoading | kStale, "admin slow dangerous"),
             Subcommand("slowlog|help", 2, kLoading | kStale, "slow"),
             Subcommand("slowlog|len", 2, kAdmin | kLoading | kStale, "admin slow dangerous"),
             Subcommand("slowlog|reset", 2, kAdmin | kLoading | kStale, "admin slow dangerous"),
         }});
  t.Add({.name = "command",
         .arity = -1, .flags = kLoadingStale,
         .run_async = Command, .group = "server",
         .summary = "Returns detailed information about all commands.",
         .since = "2.8.13", .acl = "slow connection",
         .subcommands = {
             Subcommand("command|count", 2, kLoading | kStale, "slow connection"),
             Subcommand("command|docs", -2, kLoading | kStale, "slow connection"),
             Subcommand("command|getkeys", -4, kLoading | kStale, "slow connection"),
             Subcommand("command|getkeysandflags", -4, kLoading | kStale, "slow connection"),
             Subcommand("command|help", 2, kLoading | kStale, "slow connection"),
             Subcommand("command|info", -2, kLoading | kStale, "slow connection"),
             Subcommand("command|list", -2, kLoading | kStale, "slow connection"),
         }});
  t.Add({.name = "time",
         .arity = 1, .flags = kLoadingStale | kFast,
         .run_async = Time, .group = "server",
         .summary = "Returns the server time.",
         .since = "2.6.0", .acl = "fast"});
  t.Add({.name = "shutdown",
         .arity = -1, .flags = kNoMulti | kAdmin | kNoScript | kLoadingStale | kAllowBusy,
         .run_async = Shutdown, .group = "server",
         .summary = "Synchronously saves the database(s) to disk and shuts down the Redis "
                    "server.",
         .since = "1.0.0", .acl = "admin slow dangerous"});
}

}  // namespace slotkv::command
