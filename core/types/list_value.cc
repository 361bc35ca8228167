#include "core/types/list_value.h"
