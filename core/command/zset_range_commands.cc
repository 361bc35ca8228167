#include "core/command/command_table.h"

namespace slotkv::command {

void RegisterZSetRangeCommands(CommandTable&) {}

}  // namespace slotkv::command
