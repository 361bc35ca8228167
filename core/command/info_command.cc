// INFO: the sections clients and tools parse.
#include "core/command/command_table.h"
