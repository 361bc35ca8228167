// CONFIG GET / SET / RESETSTAT / REWRITE over the option table (conf/config.h).
#include "core/command/command_table.h"
