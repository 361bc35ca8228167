// List family.
#include "core/command/command_table.h"

namespace slotkv::command {

void RegisterListCommands(CommandTable& t) {}

}  // namespace slotkv::command
