// MONITOR: every call a client makes, as one line to each monitoring connection (Redis's
// replicationFeedMonitors).
//
// Line: `+<unix s>.<us> [<db> <addr>] "arg" ...` (addr `lua` for a script's calls), each
// argument quoted as Redis's sdscatrepr does; AUTH's arguments, HELLO's AUTH pair and MIGRATE's
// AUTH / AUTH2 credentials show as "(redacted)" (not when they do not parse, as in Redis). Not
// fed: admin commands (kAdmin, and admin subcommands: CONFIG, CLIENT LIST ...) and requests
// refused before running.
//
// When. Redis feeds a call when it ends, except EVAL / FCALL (before the calls their script
// makes) and a blocking command (when it blocks, once). slotkv feeds a connection's one-key
// requests when it dispatches them, on the client's worker, so a pipeline's lines keep its
// order while its keys run on several owners; other commands when they end (FeedCall), and
// the commands of an EXEC or a script around each call. An EXEC of one-key commands shows them
// owner by owner (it runs them so).
//
// Thread rule: any worker; the lines fed from one worker reach a monitor in that order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/command_table.h"
#include "core/command/context.h"

namespace slotkv::command {

// The line of a call that ended at unix_us, in database db, from addr.
std::string MonitorLine(int64_t unix_us, uint32_t db, std::string_view addr,
                        const CommandSpec& spec, const std::vector<std::string>& args);

// Feeds a call to the monitors, if anyone monitors and the row is shown.
void FeedMonitors(ServerState& state, const CommandSpec& spec, const std::vector<std::string>& args,
                  uint32_t db, std::string_view addr);
// FeedMonitors for a call starting (starting) or ending (!starting): fed once, when it starts
// for kSkipMonitor and kBlocking rows, when it ends for the others.
void FeedCall(ServerState& state, const CommandSpec& spec, const std::vector<std::string>& args,
              uint32_t db, std::string_view addr, bool starting);

}  // namespace slotkv::command
