// Bitmap family: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO over string values.
#include "core/command/args.h"
#include "core/command/command_table.h"

namespace slotkv::command {

void RegisterBitmapCommands(CommandTable& t) {}

}  // namespace slotkv::command
