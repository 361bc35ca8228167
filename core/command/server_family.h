// Internal to the server family: the handlers that live in their own files (INFO in
// info_command.cc, CONFIG in config_command.cc), registered by RegisterServerCommands in
// server_commands.cc, plus the helpers those files share.
#pragma once

#include <cstdint>
#include <vector>

#include "core/command/context.h"
#include "core/command/process_memory.h"

namespace slotkv::command {

// INFO [section ...]: a verbatim string of "# Section\r\n" blocks, as Redis 7.0 lays it out.
Task InfoCommand(AsyncContext& ctx);

// CONFIG GET | SET | RESETSTAT | REWRITE | HELP over the option table (conf/config.h).
Task ConfigCommand(AsyncContext& ctx);

// What INFO and MEMORY STATS / DOCTOR report, gathered on every worker at once.
struct ServerFigures {
  // From the engine slots.
  std::vector<uint64_t> keys;   // [db]; only when counted
  uint64_t internal_keys = 0;   // pages of paged collections and their bookkeeping keys
  slot::SlotStats stats;        // summed over every database of every slot
  Status failure;
  // From the connections: query and output buffer bytes, by class, and the largest.
  uint64_t clients = 0;
  uint64_t replicas = 0;
  uint64_t clients_normal_bytes = 0;
  uint64_t clients_replica_bytes = 0;
  uint64_t max_input_buffer = 0;
  uint64_t max_output_buffer = 0;
  // The script cache and the function libraries: counts and bytes.
  uint64_t scripts = 0;
  uint64_t scripts_bytes = 0;
  uint64_t functions = 0;
  uint64_t libraries = 0;
  uint64_t functions_bytes = 0;
  ProcessMemory process;
  uint64_t startup = 0;  // ServerState::startup_allocated

  // slotkv's caches and maps of writes not yet persisted.
  uint64_t caches() const;
  uint64_t wal_maps() const { return stats.wal_map_bytes; }
  uint64_t key_count() const;
  // Redis's overhead (startup, client buffers, script caches; slotkv's caches and write maps),
  // and the allocations beyond it.
  uint64_t overhead() const;
  uint64_t used() const { return process.used(); }
  uint64_t dataset() const { return used() > overhead() ? used() - overhead() : 0; }
  uint64_t net() const { return used() > startup ? used() - startup : 1; }
};
// Visits each worker once: the slots it owns (every database; keys counted only when asked:
// KeyCount may read bucket pages) and its connections. Ends home; a failure in out->failure.
Task GatherFigures(AsyncContext& ctx, bool count_keys, ServerFigures* out);

// Wall-clock microseconds since the epoch as the server sees them (TIME, INFO
// server_time_usec): the keyspace clock, with microsecond precision when it is the system
// clock (a test's manual clock only has milliseconds).
int64_t ServerTimeUs(const ServerState& state);

}  // namespace slotkv::command
