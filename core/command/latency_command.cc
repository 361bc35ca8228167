// LATENCY DOCTOR | GRAPH | HISTORY | LATEST | RESET | HISTOGRAM | HELP, as Redis 7.0's
// latency.c: the event monitor (latency_events.h) and the per-command histograms
// (latency_histogram.h).
//
// Events slotkv records: "command" and "fast-command" (kFast rows), a call at least
// latency-monitor-threshold ms long. Blocking commands are left out of both the events and the
// histograms: slotkv times them from the request to the reply, wait included (Redis times the
// run only).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/latency.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kLatencyHelp[] = {
    "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DOCTOR",
    "    Return a human readable latency analysis report.",
    "GRAPH <event>",
    "    Return an ASCII latency graph for the <event> class.",
    "HISTORY <event>",
    "    Return time-latency samples for the <event> class.",
    "LATEST",
    "    Return the latest latency samples for all events.",
    "RESET [<event> ...]",
    "    Reset latency data of one or more <event> classes.",
    "    (default: reset all data for all event classes)",
    "HISTOGRAM [COMMAND ...]",
    "    Return a cumulative distribution of latencies in the format of a histogram for the "
    "specified command names.",
    "    If no commands are specified then all histograms are replied.",
    "HELP",
    "    Prints this help.",
};

int64_t NowSeconds(const ServerState& state) { return state.keyspace->clock()->NowMs() / 1000; }

// Redis's sparkline (sparkline.c): rows of "_o#|" per sample, then each label downwards.
std::string Sparkline(const std::vector<std::pair<double, std::string>>& samples, double min,
                      double max) {
  constexpr int kRows = 4;
  constexpr int kColumns = 80;
  constexpr std::string_view kFill = "_o#";
  const int steps = static_cast<int>(kFill.size()) * kRows;
  const double range = max - min == 0 ? 1 : max - min;
  std::string out;
  for (size_t offset = 0; offset < samples.size(); offset += kColumns) {
    if (offset != 0) out.push_back('\n');
    const size_t len = std::min<size_t>(kColumns, samples.size() - offset);
    for (int row = 0;; ++row) {
      std::string chars(len, ' ');
      bool more = false;
      for (size_t j = 0; j < len; ++j) {
        const auto& [value, label] = samples[offset + j];
        if (row < kRows) {
          // As sparkline.c: the product truncated, then divided, then truncated again.
          int step = static_cast<int>(static_cast<int>((value - min) * steps) / range);
          step = std::clamp(step, 0, steps - 1);
          const int at = step - (kRows - row - 1) * static_cast<int>(kFill.size());
          more = true;
          if (at >= 0 && at < static_cast<int>(kFill.size())) {
            chars[j] = kFill[static_cast<size_t>(at)];
          } else if (at >= static_cast<int>(kFill.size())) {
            chars[j] = '|';
          }
        } else if (row == kRows) {
          more = true;  // a blank line above the labels
          break;
        } else if (static_cast<int>(label.size()) > row - kRows - 1) {
          more = true;
          chars[j] = label[static_cast<size_t>(row - kRows - 1)];
        }
      }
      if (!more) break;
      out += chars;
      out.push_back('\n');
    }
  }
  return out;
}

std::string Graph(const std::string& event, const LatencyEvents::Series& s, int64_t now_s) {
  std::vector<std::pair<double, std::string>> samples;
  int64_t min = 0, max = 0;
  for (const LatencyEvents::Sample& x : s.InOrder()) {
    if (samples.empty()) {
      min = max = x.ms;
    } else {
      min = std::min(min, x.ms);
      max = std::max(max, x.ms);
    }
    const int64_t ago = now_s - x.time_s;
    char label[32];
    if (ago < 60) {
      std::snprintf(label, sizeof(label), "%llds", static_cast<long long>(ago));
    } else if (ago < 3600) {
      std::snprintf(label, sizeof(label), "%lldm", static_cast<long long>(ago / 60));
    } else if (ago < 86400) {
      std::snprintf(label, sizeof(label), "%lldh", static_cast<long long>(ago / 3600));
    } else {
      std::snprintf(label, sizeof(label), "%lldd", static_cast<long long>(ago / 86400));
    }
    samples.emplace_back(static_cast<double>(x.ms), label);
  }
  return event + " - high " + std::to_string(max) + " ms, low " + std::to_string(min) +
         " ms (all time high " + std::to_string(s.max_ms) + " ms)\n" + std::string(80, '-') + "\n" +
         Sparkline(samples, static_cast<double>(min), static_cast<double>(max));
}

// Redis's createLatencyReport over the events (only "command" and "fast-command" occur here).
std::string Doctor(const ServerState& state,
                   const std::map<std::string, LatencyEvents::Series>& all) {
  const int64_t threshold = state.latency_monitor_threshold_ms.load();
  if (all.empty() && threshold == 0) {
    return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
           "instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
           "order to enable it. If we weren't in a deep space mission I'd suggest to take a "
           "look at https://redis.io/topics/latency-monitor.\n";
  }
  std::string report;
  bool slowlog_enable = false, slowlog_tune = false, slowlog_inspect = false;
  bool scheduler = false, large_objects = false;
  int advices = 0, n = 0;
  const int64_t now = NowSeconds(state);
  for (const auto& [event, s] : all) {
    if (++n == 1) {
      report +=
          "Dave, I have observed latency spikes in this Redis instance. You don't mind "
          "talking about it, do you Dave?\n\n";
    }
    const std::vector<LatencyEvents::Sample> samples = s.InOrder();
    int64_t sum = 0, oldest = 0;
    for (const LatencyEvents::Sample& x : samples) {
      sum += x.ms;
      if (oldest == 0 || x.time_s < oldest) oldest = x.time_s;
    }
    const int64_t count = static_cast<int64_t>(samples.size());
    const int64_t avg = count ? sum / count : 0;
    int64_t mad = 0;
    for (const LatencyEvents::Sample& x : samples) mad += std::abs(avg - x.ms);
    if (count) mad /= count;
    const int64_t period = count ? std::max<int64_t>(now - oldest, 1) : 0;
    char line[512];
    std::snprintf(line, sizeof(line),
                  "%d. %s: %lld latency spikes (average %lldms, mean deviation %lldms, period "
                  "%.2f sec). Worst all time event %lldms.",
                  n, event.c_str(), static_cast<long long>(count), static_cast<long long>(avg),
                  static_cast<long long>(mad),
                  count ? static_cast<double>(period) / static_cast<double>(count) : 0.0,
                  static_cast<long long>(s.max_ms));
    report += line;
    if (event == "command") {
      const int64_t slower_than = state.slowlog_slower_than.load();
      if (slower_than < 0) {
        slowlog_enable = true;
        ++advices;
      } else if (slower_than / 1000 > threshold) {
        slowlog_tune = true;
        ++advices;
      }
      slowlog_inspect = large_objects = true;
      advices += 2;
    }
    if (event == "fast-command") {
      scheduler = true;
      ++advices;
    }
    report += "\n";
  }
  if (n == 0 && advices == 0) {
    return report +
           "Dave, no latency spike was observed during the lifetime of this Redis "
           "instance, not in the slightest bit. I honestly think you ought to sit down "
           "calmly, take a stress pill, and think things over.\n";
  }
  report += "\nI have a few advices for you:\n\n";
  const std::string threshold_us = std::to_string(threshold * 1000);
  if (slowlog_enable) {
    report +=
        "- There are latency issues with potentially slow commands you are using. Try to "
        "enable the Slow Log Redis feature using the command 'CONFIG SET "
        "slowlog-log-slower-than " +
        threshold_us +
        "'. If the Slow log is disabled Redis "
        "is not able to log slow commands execution for you.\n";
  }
  if (slowlog_tune) {
    report +=
        "- Your current Slow Log configuration only logs events that are slower than your "
        "configured latency monitor threshold. Please use 'CONFIG SET "
        "slowlog-log-slower-than " +
        threshold_us + "'.\n";
  }
  if (slowlog_inspect) {
    report +=
        "- Check your Slow Log to understand what are the commands you are running which "
        "are too slow to execute. Please check https://redis.io/commands/slowlog for more "
        "information.\n";
  }
  if (scheduler) {
    report +=
        "- The system is slow to execute Redis code paths not containing system calls. "
        "This usually means the system does not provide Redis CPU time to run for long "
        "periods. You should try to:\n"
        "  1) Lower the system load.\n"
        "  2) Use a computer / VM just for Redis if you are running other software in the "
        "same system.\n"
        "  3) Check if you have a \"noisy neighbour\" problem.\n"
        "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency "
        "in your system.\n"
        "  5) Check if the problem is allocator-related by recompiling Redis with "
        "MALLOC=libc, if you are using Jemalloc. However this may create fragmentation "
        "problems.\n";
  }
  if (large_objects) {
    report +=
        "- Deleting, expiring or evicting (because of maxmemory policy) large objects is "
        "a blocking operation. If you have very large objects that are often deleted, "
        "expired, or evicted, try to fragment those objects into multiple smaller "
        "objects.\n";
  }
  return report;
}

// One command's histogram as LATENCY HISTOGRAM replies it.
void ReplyHistogram(Reply& reply, const LatencyHistogram& h) {
  reply.Map(2);
  reply.Bulk("calls");
  reply.Integer(static_cast<int64_t>(h.total()));
  reply.Bulk("histogram_usec");
  const std::vector<std::pair<int64_t, uint64_t>> cdf = h.Distribution();
  reply.Map(cdf.size());
  for (const auto& [us, calls] : cdf) {
    reply.Integer(us);
    reply.Integer(static_cast<int64_t>(calls));
  }
}

// LATENCY HISTOGRAM [command ...]: the commands named (unknown ones, and ones never called,
// left out), or every command called; "config|get" names a subcommand.
void Histogram(AsyncContext& ctx) {
  const CommandTable& table = *ctx.server.table;
  std::vector<const CommandSpec*> specs;
  if (ctx.args.size() == 2) {
    table.ForEachRow([&](const CommandSpec& spec) { specs.push_back(&spec); });
  } else {
    // A container stands for its subcommands too (a command named twice is given twice).
    for (size_t j = 2; j < ctx.args.size(); ++j) {
      const CommandSpec* spec = table.FindFull(ctx.args[j]);
      if (spec == nullptr) continue;
      specs.push_back(spec);
      for (const CommandSpec& sub : spec->subcommands) specs.push_back(&sub);
    }
  }
  std::vector<std::pair<const CommandSpec*, LatencyHistogram>> found;
  for (const CommandSpec* spec : specs) {
    LatencyHistogram h = CommandLatency(ctx.server, *spec);
    if (h.total() > 0) found.emplace_back(spec, std::move(h));
  }
  ctx.reply.Map(found.size());
  for (const auto& [spec, h] : found) {
    ctx.reply.Bulk(spec->name);
    ReplyHistogram(ctx.reply, h);
  }
}

Task Latency(AsyncContext& ctx) {
  // Arities are the subcommand rows' (checked before the call).
  const std::string& sub = ctx.args[1];
  std::string name;
  for (std::string_view s :
       {"doctor", "graph", "history", "latest", "reset", "histogram", "help"}) {
    if (Is(sub, s)) name = s;
  }
  if (name.empty()) {
    ctx.reply.Error(UnknownSubcommand("latency", sub));
    co_return;
  }
  LatencyEvents& events = ctx.server.latency_events;
  if (name == "help") {
    ctx.reply.Help(kLatencyHelp);
  } else if (name == "histogram") {
    Histogram(ctx);
  } else if (name == "reset") {
    ctx.reply.Integer(events.Reset({ctx.args.begin() + 2, ctx.args.end()}));
  } else {
    const std::map<std::string, LatencyEvents::Series> all = events.Snapshot();
    if (name == "doctor") {
      ctx.reply.Verbatim(Doctor(ctx.server, all));
    } else if (name == "latest") {
      ctx.reply.Array(all.size());
      for (const auto& [event, s] : all) {
        ctx.reply.Array(4);
        ctx.reply.Bulk(event);
        ctx.reply.Integer(s.last().time_s);
        ctx.reply.Integer(s.last().ms);
        ctx.reply.Integer(s.max_ms);
      }
    } else {
      auto it = all.find(ctx.args[2]);
      if (name == "graph" && it == all.end()) {
        ctx.reply.Error("ERR No samples available for event '" + ctx.args[2] + "'");
      } else if (name == "graph") {
        ctx.reply.Verbatim(Graph(it->first, it->second, NowSeconds(ctx.server)));
      } else {
        const std::vector<LatencyEvents::Sample> samples =
            it == all.end() ? std::vector<LatencyEvents::Sample>() : it->second.InOrder();
        ctx.reply.Array(samples.size());
        for (const LatencyEvents::Sample& x : samples) {
          ctx.reply.Array(2);
          ctx.reply.Integer(x.time_s);
          ctx.reply.Integer(x.ms);
        }
      }
    }
  }
}

}  // namespace

LatencyHistogram CommandLatency(const ServerState& state, const CommandSpec& spec) {
  LatencyHistogram h;
  for (const auto& w : *state.stats) {
    if (const std::atomic<uint64_t>* counts = w->per_command[spec.id].latency.counts()) {
      h.Add(counts);
    }
  }
  return h;
}

void RecordLatency(ServerState& state, const CommandSpec& spec, CommandStat& stat, int64_t us) {
  if (spec.flags & kBlocking) return;  // timed with its wait: see the file comment
  if (state.latency_tracking.load(std::memory_order_relaxed)) stat.latency.Record(us);
  const int64_t threshold = state.latency_monitor_threshold_ms.load(std::memory_order_relaxed);
  if (threshold > 0 && us / 1000 >= threshold) {
    state.latency_events.Add((spec.flags & kFast) ? "fast-command" : "command", NowSeconds(state),
                             us / 1000);
  }
}

void RegisterLatencyCommand(CommandTable& t) {
  // clang-format off
  t.Add({.name = "latency", .arity = -2, .flags = 0, .run_async = Latency, .group = "server",
         .summary = "A container for latency diagnostics commands", .since = "2.8.13",
         .acl = "slow",
         .subcommands = {
             Subcommand("latency|doctor", 2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("latency|graph", 3, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("latency|help", 2, kLoading | kStale, "slow"),
             Subcommand("latency|histogram", -2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("latency|history", 3, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("latency|latest", 2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("latency|reset", -2, kAdminSubcommand, "admin slow dangerous"),
         }});
  // clang-format on
}

}  // namespace slotkv::command
