#include "core/command/command_table.h"

namespace slotkv::command {

void RegisterZSetCommands(CommandTable&) {}

}  // namespace slotkv::command
