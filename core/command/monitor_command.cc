// MONITOR (monitor.h) and the lines it feeds.
#include <chrono>
#include <cstdio>

#include "core/command/args.h"
#include "core/command/monitor.h"
#include "core/pubsub/registry.h"

namespace slotkv::command {
namespace {

// Appends s quoted and escaped as Redis's sdscatrepr.
void AppendRepr(std::string* out, std::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '\\':
        out->append("\\\\");
        break;
      case '"':
        out->append("\\\"");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\a':
        out->append("\\a");
        break;
      case '\b':
        out->append("\\b");
        break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out->push_back(static_cast<char>(c));
        } else {
          char hex[8];
          std::snprintf(hex, sizeof(hex), "\\x%02x", c);
          out->append(hex);
        }
    }
  }
  out->push_back('"');
}

// Which of args are credentials Redis redacts as it parses them (a call that fails to parse
// before them keeps them): AUTH [user] pass, HELLO's AUTH user pass, MIGRATE's AUTH pass and
// AUTH2 user pass.
std::vector<bool> Redactions(const CommandSpec& spec, const std::vector<std::string>& args) {
  std::vector<bool> out(args.size(), false);
  const size_t n = args.size();
  if (spec.name == "auth" && n <= 3) {
    for (size_t i = 1; i < n; ++i) out[i] = true;
  } else if (spec.name == "hello") {
    for (size_t j = 2; j < n;) {
      if (Is(args[j], "AUTH") && j + 2 < n) {
        out[j + 1] = out[j + 2] = true;
        j += 3;
      } else if (Is(args[j], "SETNAME") && j + 1 < n) {
        j += 2;
      } else {
        break;
      }
    }
  } else if (spec.name == "migrate") {
    for (size_t j = 6; j < n; ++j) {
      if (Is(args[j], "AUTH") && j + 1 < n) {
        out[++j] = true;
      } else if (Is(args[j], "AUTH2") && j + 2 < n) {
        out[j + 1] = out[j + 2] = true;
        j += 2;
      } else if (Is(args[j], "KEYS")) {
        break;
      }
    }
  }
  return out;
}

// MONITOR: this connection gets every call's line from now on. Again: no reply (Redis ignores
// it); inside MULTI (or EXEC) refused.
Task Monitor(AsyncContext& ctx) {
  ClientState& c = *ctx.client;
  if (ctx.no_block) {
    ctx.reply.Error(kErrMonitorDenyBlocking);
    co_return;
  }
  if (c.monitor) co_return;
  c.monitor = true;
  ctx.server.pubsub->AddMonitor({ctx.home, c.id});
  ctx.reply.Ok();
}

}  // namespace

std::string MonitorLine(int64_t unix_us, uint32_t db, std::string_view addr,
                        const CommandSpec& spec, const std::vector<std::string>& args) {
  char head[64];
  std::snprintf(head, sizeof(head), "+%lld.%06lld [%u ", static_cast<long long>(unix_us / 1000000),
                static_cast<long long>(unix_us % 1000000), db);
  std::string line = head;
  line.append(addr).append("] ");
  const std::vector<bool> redacted = Redactions(spec, args);
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) line.push_back(' ');
    AppendRepr(&line, redacted[i] ? std::string_view("(redacted)") : args[i]);
  }
  line.append("\r\n");
  return line;
}

void FeedMonitors(ServerState& state, const CommandSpec& spec, const std::vector<std::string>& args,
                  uint32_t db, std::string_view addr) {
  if (state.pubsub == nullptr || !state.pubsub->monitored() ||
      (CommandTable::CallFlags(spec, args) & kAdmin))
    return;
  const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  state.pubsub->FeedMonitors(MonitorLine(now_us, db, addr, spec, args));
}

void FeedCall(ServerState& state, const CommandSpec& spec, const std::vector<std::string>& args,
              uint32_t db, std::string_view addr, bool starting) {
  if (((spec.flags & (kSkipMonitor | kBlocking)) != 0) == starting) {
    FeedMonitors(state, spec, args, db, addr);
  }
}

void RegisterMonitorCommand(CommandTable& t) {
  // clang-format off
  t.Add({.name = "monitor", .arity = 1, .flags = kAdmin | kNoScript | kLoading | kStale,
         .run_async = Monitor, .group = "server",
         .summary = "Listen for all requests received by the server in real time",
         .since = "1.0.0", .acl = "admin slow dangerous"});
  // clang-format on
}

}  // namespace slotkv::command
