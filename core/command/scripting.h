// What the two scripting families share (script_commands.cc, function_commands.cc).
#pragma once

#include "core/command/context.h"

namespace slotkv::command {

// SCRIPT KILL / FUNCTION KILL: stops the busy scripts that wrote nothing, and replies OK,
// NOTBUSY or UNKILLABLE as Redis does.
void KillScripts(ServerState& server, Reply& reply);

}  // namespace slotkv::command
