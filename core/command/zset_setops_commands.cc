#include "core/command/command_table.h"

namespace slotkv::command {

void RegisterZSetSetOpsCommands(CommandTable&) {}

}  // namespace slotkv::command
