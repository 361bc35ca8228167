// What the LATENCY command (latency_command.cc) shares with RecordCall and INFO: recording a
// call's latency, and a command's histogram summed over workers.
#pragma once

#include <cstdint>

#include "core/command/command_table.h"
#include "core/command/context.h"
#include "core/command/latency_histogram.h"

namespace slotkv::command {

// Records a finished call of us microseconds: into its command's histogram on this worker
// (latency-tracking), and as a "command" / "fast-command" event when it reached
// latency-monitor-threshold. REQUIRES: stat is the calling worker's.
void RecordLatency(ServerState& state, const CommandSpec& spec, CommandStat& stat, int64_t us);

// spec's histogram, every worker's counts summed.
LatencyHistogram CommandLatency(const ServerState& state, const CommandSpec& spec);

}  // namespace slotkv::command
