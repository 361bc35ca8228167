#include <doctest/doctest.h>

#include "core/types/list_value.h"
