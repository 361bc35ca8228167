// Conversions between RESP replies and Lua values for scripts (internal to core/script):
// Redis 7.0.15's redisProtocolToLuaType and luaReplyToRedisReply, RESP2 and RESP3.
#pragma once

#include <string>
#include <string_view>

#include "core/command/reply.h"

extern "C" {
#include <lua.h>
}

namespace slotkv::script {

// A number as Redis writes it into a command argument: the shortest text that reads back.
std::string NumberArg(lua_Number n);
// Reads the line after p's type byte; p moves past its CRLF.
std::string_view Line(const char*& p, const char* end);
// Pushes a table {field = value} (Redis's status and error replies in Lua).
void PushTableField(lua_State* L, const char* field, std::string_view value);
// Pushes the reply at p as Redis's redisProtocolToLuaType does; p moves past it.
void PushReply(lua_State* L, const char*& p, const char* end, int depth);
// The string field `name` of the table at index t, if it has one.
bool StringField(lua_State* L, int t, const char* name, std::string* out);
// Writes the value at index i as Redis's luaReplyToRedisReply does.
void WriteValue(lua_State* L, int i, command::Reply& reply, int resp, int depth);

}  // namespace slotkv::script
