// Internal to the server family: the handlers that live in their own files (INFO in
// info_command.cc, CONFIG in config_command.cc), registered by RegisterServerCommands in
// server_commands.cc, plus the helpers those files share.
#pragma once

#include <cstdint>
#include <vector>

#include "core/command/context.h"

namespace slotkv::command {

// INFO [section ...]: a verbatim string of "# Section\r\n" blocks, as Redis 7.0 lays it out.
Task InfoCommand(AsyncContext& ctx);

// CONFIG GET | SET | RESETSTAT | REWRITE | HELP over the option table (conf/config.h).
Task ConfigCommand(AsyncContext& ctx);

// What INFO and MEMORY STATS need from the engine slots, gathered on their owners.
struct EngineTotals {
  std::vector<uint64_t> keys;   // [db]
  uint64_t internal_keys = 0;   // pages of paged collections and their bookkeeping keys
  slot::SlotStats stats;        // summed over every database of every slot
  Status failure;
};
// Visits each worker once and reads the slots it owns (every database); counts keys only when
// asked (KeyCount may read bucket pages). Ends home.
Task GatherEngine(AsyncContext& ctx, bool count_keys, EngineTotals* out);

// Wall-clock microseconds since the epoch as the server sees them (TIME, INFO
// server_time_usec): the keyspace clock, with microsecond precision when it is the system
// clock (a test's manual clock only has milliseconds).
int64_t ServerTimeUs(const ServerState& state);

}  // namespace slotkv::command
