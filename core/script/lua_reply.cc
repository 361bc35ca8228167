// Conversions between RESP replies and Lua values, as Redis 7.0.15's script_lua.c does them
// (redisProtocolToLuaType, luaReplyToRedisReply), in RESP2 and RESP3.
#include "core/script/lua_reply.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include <lauxlib.h>
}

namespace slotkv::script {

std::string NumberArg(lua_Number n) {
  char buf[64];
  if (std::isfinite(n) && n == std::floor(n) && std::fabs(n) < 1e17) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(n));
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(n));
    if (std::strtod(buf, nullptr) == static_cast<double>(n)) break;
  }
  return buf;
}

// ---- RESP reply -> Lua --------------------------------------------------------------------

std::string_view Line(const char*& p, const char* end) {
  const char* start = p + 1;
  const char* cr = static_cast<const char*>(std::memchr(start, '\r', end - start));
  if (cr == nullptr) cr = end;
  std::string_view line(start, cr - start);
  p = cr + 2 <= end ? cr + 2 : end;
  return line;
}

void PushTableField(lua_State* L, const char* field, std::string_view value) {
  lua_newtable(L);
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, field);
}

namespace {

constexpr int kMaxReplyDepth = 1000;

// A bulk string (or RESP3 verbatim string) whose length line was len_text; p moves past it.
void PushBulk(lua_State* L, const char*& p, const char* end, std::string_view len_text,
              bool verbatim) {
  const long long len = std::atoll(std::string(len_text).c_str());
  if (len < 0) {
    lua_pushboolean(L, 0);
    return;
  }
  const char* data = p;
  p = std::min(end, p + len + 2);
  if (!verbatim) {
    lua_pushlstring(L, data, static_cast<size_t>(len));
    return;
  }
  // "txt:..." -> {verbatim_string={format="txt", string="..."}}
  std::string_view v(data, static_cast<size_t>(len));
  lua_newtable(L);
  lua_newtable(L);
  lua_pushlstring(L, v.data(), std::min<size_t>(3, v.size()));
  lua_setfield(L, -2, "format");
  std::string_view text = v.size() > 4 ? v.substr(4) : std::string_view();
  lua_pushlstring(L, text.data(), text.size());
  lua_setfield(L, -2, "string");
  lua_setfield(L, -2, "verbatim_string");
}

}  // namespace

void PushReply(lua_State* L, const char*& p, const char* end, int depth) {
  if (p >= end || depth > kMaxReplyDepth) {
    lua_pushnil(L);
    return;
  }
  const char type = *p;
  std::string_view line = Line(p, end);
  switch (type) {
    case '+':
      PushTableField(L, "ok", line);
      return;
    case '-':
    case '!':
      PushTableField(L, "err", line);
      return;
    case ':':
      lua_pushnumber(L, static_cast<lua_Number>(std::atoll(std::string(line).c_str())));
      return;
    case '$':
      PushBulk(L, p, end, line, false);
      return;
    case '=':
      PushBulk(L, p, end, line, true);
      return;
    case '_':
      lua_pushnil(L);
      return;
    case '#':
      lua_pushboolean(L, line == "t");
      return;
    case ',':
      lua_newtable(L);
      lua_pushnumber(L, std::strtod(std::string(line).c_str(), nullptr));
      lua_setfield(L, -2, "double");
      return;
    case '(':
      PushTableField(L, "big_number", line);
      return;
    case '*':
    case '>': {
      const long long n = std::atoll(std::string(line).c_str());
      if (n < 0) {
        lua_pushboolean(L, 0);
        return;
      }
      lua_createtable(L, static_cast<int>(n), 0);
      for (long long i = 1; i <= n; ++i) {
        PushReply(L, p, end, depth + 1);
        lua_rawseti(L, -2, static_cast<int>(i));
      }
      return;
    }
    case '%':
    case '~': {
      const long long n = std::atoll(std::string(line).c_str());
      lua_newtable(L);
      lua_newtable(L);
      for (long long i = 0; i < n; ++i) {
        PushReply(L, p, end, depth + 1);
        if (type == '%') {
          PushReply(L, p, end, depth + 1);
        } else {
          lua_pushboolean(L, 1);
        }
        lua_rawset(L, -3);
      }
      lua_setfield(L, -2, type == '%' ? "map" : "set");
      return;
    }
    default:
      lua_pushnil(L);
  }
}

// ---- Lua -> reply -------------------------------------------------------------------------

bool StringField(lua_State* L, int t, const char* name, std::string* out) {
  lua_getfield(L, t, name);
  const bool is = lua_type(L, -1) == LUA_TSTRING;
  if (is) {
    size_t n = 0;
    const char* s = lua_tolstring(L, -1, &n);
    out->assign(s, n);
  }
  lua_pop(L, 1);
  return is;
}

void WriteValue(lua_State* L, int i, command::Reply& reply, int resp, int depth) {
  i = i < 0 ? lua_gettop(L) + i + 1 : i;
  if (depth > kMaxReplyDepth) {
    reply.Error("ERR reached lua stack limit");
    return;
  }
  switch (lua_type(L, i)) {
    case LUA_TSTRING: {
      size_t n = 0;
      const char* s = lua_tolstring(L, i, &n);
      reply.Bulk(std::string_view(s, n));
      return;
    }
    case LUA_TBOOLEAN:
      if (resp == 3) {
        reply.Bool(lua_toboolean(L, i));
      } else if (lua_toboolean(L, i)) {
        reply.Integer(1);
      } else {
        reply.Null();
      }
      return;
    case LUA_TNUMBER:
      reply.Integer(static_cast<int64_t>(lua_tonumber(L, i)));
      return;
    case LUA_TTABLE:
      break;
    default:
      reply.Null();
      return;
  }
  std::string text;
  if (StringField(L, i, "err", &text)) {
    reply.Error(text);
    return;
  }
  if (StringField(L, i, "ok", &text)) {
    reply.SimpleString(text);
    return;
  }
  lua_getfield(L, i, "double");
  if (lua_type(L, -1) == LUA_TNUMBER) {
    reply.Double(lua_tonumber(L, -1));
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (StringField(L, i, "big_number", &text)) {
    reply.Bulk(text);
    return;
  }
  for (const char* kind : {"map", "set"}) {
    lua_getfield(L, i, kind);
    if (lua_type(L, -1) != LUA_TTABLE) {
      lua_pop(L, 1);
      continue;
    }
    const int t = lua_gettop(L);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
      ++n;
      lua_pop(L, 1);
    }
    if (kind[0] == 'm') {
      reply.Map(n);
    } else {
      reply.Set(n);
    }
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
      WriteValue(L, -2, reply, resp, depth + 1);
      if (kind[0] == 'm') WriteValue(L, -1, reply, resp, depth + 1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return;
  }
  // An array: elements 1.. up to the first nil.
  size_t n = 0;
  for (;; ++n) {
    lua_rawgeti(L, i, static_cast<int>(n + 1));
    const bool nil = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (nil) break;
  }
  reply.Array(n);
  for (size_t k = 1; k <= n; ++k) {
    lua_rawgeti(L, i, static_cast<int>(k));
    WriteValue(L, -1, reply, resp, depth + 1);
    lua_pop(L, 1);
  }
}

}  // namespace slotkv::script
