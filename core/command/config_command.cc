// CONFIG GET / SET / RESETSTAT / REWRITE / HELP over the option table (conf/config.h), with
// Redis 7.0's replies and error texts.
#include <cassert>
#include <set>

#include "core/acl/users.h"
#include "core/base/ascii.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/server_family.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kConfigHelp[] = {
    "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "GET <pattern>",
    "    Return parameters matching the glob-like <pattern> and their values.",
    "SET <directive> <value>",
    "    Set the configuration <directive> to <value>.",
    "RESETSTAT",
    "    Reset statistics reported by the INFO command.",
    "REWRITE",
    "    Rewrite the configuration file.",
    "HELP",
    "    Prints this help.",
};

// CONFIG GET pattern [pattern ...]: a map of every matching option, each once.
void ConfigGet(AsyncContext& ctx) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    for (auto& [name, value] : ctx.server.config->Match(ctx.args[i])) {
      if (seen.insert(name).second) out.emplace_back(std::move(name), std::move(value));
    }
  }
  ctx.reply.Map(out.size());
  for (const auto& [name, value] : out) {
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
}

// The reason part of Config::Set's InvalidArgument, as Redis words it. Config says
// "argument '<value>' for '<name>': <why>"; Redis lists an enum's choices with ", ".
std::string SetFailure(const conf::OptionDef& def, std::string_view value, const Status& st) {
  std::string why(st.message());
  const std::string prefix =
      "argument '" + std::string(value) + "' for '" + std::string(def.name) + "': ";
  if (why.compare(0, prefix.size(), prefix) == 0) why.erase(0, prefix.size());
  if (def.type != conf::OptionType::kEnum) return why;
  std::string listed;
  for (char c : why) listed += c == '|' ? std::string(", ") : std::string(1, c);
  return listed;
}

std::string SetError(std::string_view arg, std::string_view why) {
  return "ERR CONFIG SET failed (possibly related to argument '" + std::string(arg) + "') - " +
         std::string(why);
}

// CONFIG SET name value [name value ...]: all or nothing, as Redis 7.0. Every name is checked
// first (unknown, immutable, twice); then the values are set in order and, when one is refused,
// the ones already set get their old values back. A name and its old name (alias) are not the
// same name twice: Redis sets both, in order.
void ConfigSet(AsyncContext& ctx) {
  const size_t n = ctx.args.size();
  if (n % 2 != 0) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  conf::Config& config = *ctx.server.config;
  std::vector<const conf::OptionDef*> defs;
  std::set<std::string> names;  // lowercased, as given
  std::string error;
  for (size_t i = 2; i < n; i += 2) {
    const std::string& name = ctx.args[i];
    const conf::OptionDef* def = conf::FindOption(name);
    if (!def) {
      if (error.empty()) {
        error = "ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'";
      }
      continue;
    }
    if (!error.empty()) continue;
    if (!def->runtime) {
      error = SetError(name, "can't set immutable config");
    } else if (!names.insert(AsciiLower(name)).second) {
      error = SetError(name, "duplicate parameter");
    }
    defs.push_back(def);
  }
  if (!error.empty()) {
    ctx.reply.Error(error);
    return;
  }
  std::vector<std::string> old;
  for (const conf::OptionDef* def : defs) old.push_back(config.Get(def->name));
  for (size_t k = 0; k < defs.size(); ++k) {
    const std::string& value = ctx.args[2 + 2 * k + 1];
    Status st = config.Set(defs[k]->name, value, /*runtime=*/true);
    if (st.ok()) continue;
    for (size_t j = 0; j < k; ++j) {
      // An option's previous value passed the same checks when it was set.
      [[maybe_unused]] Status restored = config.Set(defs[j]->name, old[j], true);
      assert(restored.ok());
    }
    ctx.reply.Error(SetError(ctx.args[2 + 2 * k], SetFailure(*defs[k], value, st)));
    return;
  }
  ctx.server.RefreshLive();
  // requirepass is the default user's password (Redis's updateRequirePass).
  for (const conf::OptionDef* def : defs) {
    if (def->name == "requirepass") ctx.server.users->SetDefaultPassword(config.Get(def->name));
  }
  ctx.reply.Ok();
}

// Zeroes the counters of the calling worker (each worker writes only its own).
void ZeroLocalStats(ServerState& state) {
  WorkerStats& s = *(*state.stats)[static_cast<size_t>(state.executor->current())];
  auto zero = [](std::atomic<uint64_t>& c) { c.store(0, std::memory_order_relaxed); };
  for (size_t i = 0; i < state.table->id_count(); ++i) {
    CommandStat& cs = s.per_command[i];
    zero(cs.calls);
    zero(cs.usec);
    zero(cs.failed_calls);
    zero(cs.rejected_calls);
    cs.latency.Reset();
  }
  zero(s.commands_processed);
  zero(s.connections_received);
  zero(s.rejected_connections);
  zero(s.net_input_bytes);
  zero(s.net_output_bytes);
  zero(s.reads_processed);
  zero(s.writes_processed);
  zero(s.keyspace_hits);
  zero(s.keyspace_misses);
  zero(s.error_replies);
  zero(s.loop_lag_max_us);
}

// CONFIG RESETSTAT: the INFO stats, errorstats and commandstats of every worker, and SLOWLOG. The engine's
// own counters (expired_keys, the slotkv_* fields) are cumulative per slot and stay.
Task ResetStat(AsyncContext& ctx) {
  ctx.server.error_stats.Reset();
  for (int w = 0; w < ctx.server.executor->workers(); ++w) {
    co_await ctx.ToWorker(w);
    ZeroLocalStats(ctx.server);
  }
  co_await ctx.ToHome();
  ctx.server.slowlog->Reset();
  ctx.reply.Ok();
}

}  // namespace

Task ConfigCommand(AsyncContext& ctx) {
  // Arities are the subcommand rows' (checked before the call).
  const std::string& sub = ctx.args[1];
  if (Is(sub, "GET")) {
    ConfigGet(ctx);
  } else if (Is(sub, "SET")) {
    ConfigSet(ctx);
  } else if (Is(sub, "RESETSTAT")) {
    co_await ResetStat(ctx);
  } else if (Is(sub, "REWRITE")) {
    // Without an aclfile, the users are kept as `user` lines of the config file (Redis's
    // rewriteConfigUserOption).
    std::vector<std::string> users;
    const bool with_users = ctx.server.config->Get("aclfile").empty();
    if (with_users) {
      for (const auto& u : ctx.server.users->All()) {
        users.push_back("user " + u->name + " " + acl::Describe(*u, ctx.server.users->catalog()));
      }
    }
    Status st = ctx.server.config->Rewrite(with_users ? &users : nullptr);
    if (st.IsNotSupported()) {
      ctx.reply.Error("ERR " + std::string(st.message()));
    } else if (!st.ok()) {
      ctx.reply.Error("ERR Rewriting config file: " + std::string(st.message()));
    } else {
      ctx.reply.Ok();
    }
  } else if (Is(sub, "HELP")) {
    ctx.reply.Help(kConfigHelp);
  } else {
    ctx.reply.Error(UnknownSubcommand("config", sub));
  }
}

}  // namespace slotkv::command
