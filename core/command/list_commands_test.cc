#include <doctest/doctest.h>

#include "core/command/command_test_util.h"
