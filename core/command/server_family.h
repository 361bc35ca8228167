// Internal to the server family: the handlers that live in their own files (INFO in
// info_command.cc, CONFIG in config_command.cc), registered by RegisterServerCommands in
// server_commands.cc, plus the helpers those files share.
#pragma once

#include <cstdint>

#include "core/command/context.h"

namespace slotkv::command {

// INFO [section ...]: a verbatim string of "# Section\r\n" blocks, as Redis 7.0 lays it out.
Task InfoCommand(AsyncContext& ctx);

// CONFIG GET | SET | RESETSTAT | REWRITE | HELP over the option table (conf/config.h).
Task ConfigCommand(AsyncContext& ctx);

// Wall-clock microseconds since the epoch as the server sees them (TIME, INFO
// server_time_usec): the keyspace clock, with microsecond precision when it is the system
// clock (a test's manual clock only has milliseconds).
int64_t ServerTimeUs(const ServerState& state);

}  // namespace slotkv::command
