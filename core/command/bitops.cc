#include "core/command/bitops.h"
