// The Redis version slotkv answers as: INFO, HELLO, LOLWUT, Lua's redis.REDIS_VERSION. Its
// replies, errors and options are Redis 7.0.15's.
#pragma once

#include <string_view>

namespace slotkv {

inline constexpr std::string_view kRedisVersion = "7.0.15";

}  // namespace slotkv
