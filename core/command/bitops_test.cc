#include <doctest/doctest.h>

#include "core/command/bitops.h"
