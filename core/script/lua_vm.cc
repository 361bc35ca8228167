#include "core/base/hash.h"
#include "core/base/redis_version.h"
#include "core/script/lua_vm.h"

#include <nettle/sha1.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/command/reply.h"
#include "core/script/lua_reply.h"

extern "C" {
#include <lauxlib.h>
#include <lua-bitop.h>
#include <lua-cjson.h>
#include <lua.h>
#include <lualib.h>
}

namespace slotkv::script {

std::string Sha1Hex(std::string_view data) {
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, data.size(), reinterpret_cast<const uint8_t*>(data.data()));
  uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, sizeof digest, digest);
  return HexLower(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

namespace {

// The globals a script may name (Redis 7.0.15's allow lists; struct and cmsgpack are not
// packaged for Lua 5.1 by Debian). loadstring is allowed but nil.
constexpr const char* kAllowedGlobals[] = {
    "string", "cjson", "bit", "math", "table", "redis", "xpcall", "tostring", "setmetatable",
    "next", "assert", "tonumber", "rawequal", "collectgarbage", "getmetatable", "rawset",
    "pcall", "coroutine", "type", "_G", "select", "unpack", "gcinfo", "pairs", "ipairs",
    "error", "loadstring", "KEYS", "ARGV"};
// Library tables made read-only like _G.
constexpr const char* kReadonlyTables[] = {"string", "cjson", "bit", "math", "table",
                                           "coroutine", "redis"};

// Registry keys.
constexpr const char* kRunKey = "slotkv.run";          // light userdata: the RunState
constexpr const char* kProtectedKey = "slotkv.ro";     // set of read-only tables
constexpr const char* kGlobalsKey = "slotkv.globals";  // the table behind _G

// What the current Run gives the C functions.
struct RunState {
  Host* host = nullptr;
  int resp = 2;            // redis.setresp
  std::string last_error;  // the last error redis.call raised (it carries its own code)
};

RunState* Run(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kRunKey);
  auto* run = static_cast<RunState*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return run;
}

// Raises msg with the position of the function `level` frames up (1: the caller), as the
// VM's own errors.
int ErrorAt(lua_State* L, int level, const char* msg) {
  luaL_where(L, level);
  lua_pushstring(L, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

// Redis's error for a name the sandbox does not have, at the caller's line.
int RaiseNonexistent(lua_State* L, const char* name) {
  luaL_where(L, 1);
  lua_pushstring(L, "Script attempted to access nonexistent global variable '");
  lua_pushstring(L, name ? name : "?");
  lua_pushstring(L, "'");
  lua_concat(L, 4);
  return lua_error(L);
}

int ReadonlyError(lua_State* L) { return ErrorAt(L, 1, "Attempt to modify a readonly table"); }

// __index of the table behind _G: a name outside the allow list is an error. (No C++ object
// may be alive when lua_error longjmps out: its destructor would never run.)
int MissingGlobal(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  if (name) {
    for (const char* allowed : kAllowedGlobals) {
      if (std::strcmp(allowed, name) == 0) return 0;  // nil
    }
  }
  return RaiseNonexistent(L, name);
}

// rawset that refuses the read-only tables.
int SafeRawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_getfield(L, LUA_REGISTRYINDEX, kProtectedKey);
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  const bool readonly = lua_toboolean(L, -1);
  lua_pop(L, 2);
  if (readonly) {
    lua_pushstring(L, "Attempt to modify a readonly table");
    return lua_error(L);
  }
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

// Moves the fields of the table at (absolute) index t into a hidden table and makes t
// read-only: reads go through to the hidden table, writes fail, the metatable cannot change.
void MakeReadonly(lua_State* L, int t) {
  lua_newtable(L);  // hidden
  const int hidden = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, t) != 0) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, hidden);  // hidden[k] = v, k stays for lua_next
  }
  // Clear t.
  for (;;) {
    lua_pushnil(L);
    if (lua_next(L, t) == 0) break;
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_rawset(L, t);
  }
  lua_newtable(L);  // metatable
  lua_pushvalue(L, hidden);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyError);
  lua_setfield(L, -2, "__newindex");
  lua_pushstring(L, "readonly");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, t);
  lua_getfield(L, LUA_REGISTRYINDEX, kProtectedKey);
  lua_pushvalue(L, t);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_remove(L, hidden);
}

// ---- the redis table ----------------------------------------------------------------------

// redis.call (raise = 1) and redis.pcall (raise = 0). The work is done in CallInner, so every
// C++ object is gone before lua_error longjmps out of here.
enum class CallOutcome { kValue, kRaise };

CallOutcome CallInner(lua_State* L, bool raise) {
  RunState* run = Run(L);
  const int argc = lua_gettop(L);
  // An error: pushed as the value redis.pcall returns, or as the message redis.call raises.
  auto fail = [&](std::string msg) {
    if (!raise) {
      PushTableField(L, "err", msg);
      return CallOutcome::kValue;
    }
    run->last_error = std::move(msg);
    lua_pushlstring(L, run->last_error.data(), run->last_error.size());
    return CallOutcome::kRaise;
  };
  if (argc == 0) return fail("ERR Please specify at least one argument for this redis lib call");
  std::vector<std::string> args;
  args.reserve(static_cast<size_t>(argc));
  for (int j = 1; j <= argc; ++j) {
    if (lua_type(L, j) == LUA_TNUMBER) {
      args.push_back(NumberArg(lua_tonumber(L, j)));
    } else if (lua_type(L, j) == LUA_TSTRING) {
      size_t n = 0;
      const char* s = lua_tolstring(L, j, &n);
      args.emplace_back(s, n);
    } else {
      return fail("ERR Lua redis lib command arguments must be strings or integers");
    }
  }
  const std::string bytes = run->host->Call(std::move(args), run->resp);
  const char* p = bytes.data();
  if (raise && !bytes.empty() && (bytes[0] == '-' || bytes[0] == '!')) {
    return fail(std::string(Line(p, bytes.data() + bytes.size())));
  }
  PushReply(L, p, bytes.data() + bytes.size(), 0);
  return CallOutcome::kValue;
}

int Call(lua_State* L, bool raise) {
  if (CallInner(L, raise) == CallOutcome::kRaise) return lua_error(L);
  return 1;
}

int RedisCall(lua_State* L) { return Call(L, true); }
int RedisPCall(lua_State* L) { return Call(L, false); }

int ReplyHelper(lua_State* L, const char* field) {
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
    return luaL_error(L, "wrong number or type of arguments");
  }
  lua_newtable(L);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, field);
  return 1;
}
int ErrorReply(lua_State* L) { return ReplyHelper(L, "err"); }
int StatusReply(lua_State* L) { return ReplyHelper(L, "ok"); }

int Sha1HexLua(lua_State* L) {
  if (lua_gettop(L) != 1) return luaL_error(L, "wrong number of arguments");
  size_t n = 0;
  const char* s = lua_tolstring(L, 1, &n);
  const std::string hex = Sha1Hex(std::string_view(s ? s : "", s ? n : 0));
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

int Log(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) return luaL_error(L, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) return luaL_error(L, "First argument must be a number (log level).");
  const int level = static_cast<int>(lua_tonumber(L, 1));
  if (level < 0 || level > 3) return luaL_error(L, "Invalid debug level.");
  std::string msg;
  for (int j = 2; j <= argc; ++j) {
    size_t n = 0;
    const char* s = lua_tolstring(L, j, &n);
    if (!s) continue;
    if (j > 2) msg += ' ';
    msg.append(s, n);
  }
  if (RunState* run = Run(L)) {
    run->host->Log(level, msg);
  } else {  // a library loading
    std::fprintf(stderr, "%s\n", msg.c_str());
  }
  return 0;
}

int SetResp(lua_State* L) {
  if (lua_gettop(L) != 1) return luaL_error(L, "redis.setresp() requires one argument.");
  const int resp = static_cast<int>(lua_tonumber(L, 1));
  if (resp != 2 && resp != 3) return luaL_error(L, "RESP version must be 2 or 3.");
  Run(L)->resp = resp;
  return 0;
}

int ReturnTrue(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}
int ReturnNothing(lua_State*) { return 0; }

void SetNumber(lua_State* L, const char* name, lua_Number v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}

// The log levels and the version, in the redis table on top of the stack (both APIs have them).
void SetLogAndVersion(lua_State* L) {
  SetNumber(L, "LOG_DEBUG", 0);
  SetNumber(L, "LOG_VERBOSE", 1);
  SetNumber(L, "LOG_NOTICE", 2);
  SetNumber(L, "LOG_WARNING", 3);
  lua_pushlstring(L, kRedisVersion.data(), kRedisVersion.size());
  lua_setfield(L, -2, "REDIS_VERSION");
  SetNumber(L, "REDIS_VERSION_NUM", 0x07000f);
}

void OpenRedis(lua_State* L) {
  lua_newtable(L);
  const std::pair<const char*, lua_CFunction> functions[] = {
      {"call", RedisCall},
      {"pcall", RedisPCall},
      {"error_reply", ErrorReply},
      {"status_reply", StatusReply},
      {"sha1hex", Sha1HexLua},
      {"log", Log},
      {"setresp", SetResp},
      {"replicate_commands", ReturnTrue},  // scripts always replicate their effects
      {"set_repl", ReturnNothing},
      {"breakpoint", ReturnNothing},
      {"debug", ReturnNothing},
  };
  for (const auto& [name, fn] : functions) {
    lua_pushcfunction(L, fn);
    lua_setfield(L, -2, name);
  }
  SetLogAndVersion(L);
  SetNumber(L, "REPL_NONE", 0);
  SetNumber(L, "REPL_AOF", 1);
  SetNumber(L, "REPL_SLAVE", 2);
  SetNumber(L, "REPL_REPLICA", 2);
  SetNumber(L, "REPL_ALL", 3);
  lua_setglobal(L, "redis");
}

void OpenLib(lua_State* L, const char* name, lua_CFunction open) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 1);
  if (name[0] != '\0' && lua_istable(L, -1)) {
    lua_setglobal(L, name);
  } else {
    lua_pop(L, 1);
  }
}

// The error handler of a run (Redis's __redis__err__handler): the error as a table
// {err=..., source=..., line=...}, a message that redis.call did not raise getting "ERR ".
int ErrorHandler(lua_State* L) {
  lua_Debug ar;
  std::string source = "?";
  int line = 0;
  for (int level = 1; lua_getstack(L, level, &ar); ++level) {
    lua_getinfo(L, "Sl", &ar);
    if (std::strcmp(ar.what, "C") == 0) continue;
    source = ar.source;
    line = ar.currentline;
    break;
  }
  std::string err;
  if (lua_istable(L, 1)) {
    if (!StringField(L, 1, "err", &err)) err = "ERR unknown error";
  } else {
    size_t n = 0;
    const char* s = lua_tolstring(L, 1, &n);
    std::string msg = s ? std::string(s, n) : "unknown error";
    RunState* run = Run(L);
    err = run && msg == run->last_error ? msg : "ERR " + msg;
  }
  lua_newtable(L);
  lua_pushlstring(L, err.data(), err.size());
  lua_setfield(L, -2, "err");
  lua_pushstring(L, source.c_str());
  lua_setfield(L, -2, "source");
  lua_pushinteger(L, line);
  lua_setfield(L, -2, "line");
  return 1;
}

void Hook(lua_State* L, lua_Debug*) {
  RunState* run = Run(L);
  if (!run) return;
  run->last_error = run->host->Check();
  if (run->last_error.empty()) return;
  lua_pushlstring(L, run->last_error.data(), run->last_error.size());
  lua_error(L);
}

// ---- FUNCTION LOAD ------------------------------------------------------------------------

constexpr const char* kLoadKey = "slotkv.load";  // light userdata: the LoadState

// What a library registers while it loads.
struct LoadState {
  std::vector<LuaVm::Function> functions;
  std::string last_error;  // raised by register_function: it carries its own code
};

LoadState* Loading(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kLoadKey);
  auto* load = static_cast<LoadState*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return load;
}

bool ValidName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

constexpr const char* kFunctionFlags[] = {"no-writes", "allow-oom", "allow-stale", "no-cluster",
                                          "allow-cross-slot-keys"};

// Checks and records one registration (name, callback at stack index cb, flags table at index
// flags or 0, description); "" or the error to raise.
std::string Register(lua_State* L, LoadState& load, std::string name, int cb, int flags,
                     const char* description) {
  if (!ValidName(name)) {
    // Redis 7.0 names the function a library here.
    return "ERR Library names can only contain letters, numbers, or underscores(_) and must be "
           "at least one character long";
  }
  if (lua_type(L, cb) != LUA_TFUNCTION) return "ERR callback must be a function";
  LuaVm::Function f;
  f.name = std::move(name);
  for (const LuaVm::Function& other : load.functions) {
    if (other.name == f.name) return "ERR Function already exists in the library";
  }
  if (flags != 0) {
    if (lua_type(L, flags) != LUA_TTABLE) {
      return "ERR flags argument to register_function must be a table representing function "
             "flags";
    }
    for (int i = 1;; ++i) {
      lua_rawgeti(L, flags, i);
      if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        break;
      }
      const char* flag = lua_tostring(L, -1);
      bool known = false;
      for (const char* k : kFunctionFlags) known = known || (flag && std::strcmp(k, flag) == 0);
      lua_pop(L, 1);
      if (!known) return "ERR unknown flag given";
      f.flags.emplace_back(flag);
    }
  }
  if (description) {
    f.description = description;
    f.has_description = true;
  }
  lua_pushvalue(L, cb);
  lua_setfield(L, LUA_REGISTRYINDEX, ("fn_" + f.name).c_str());
  load.functions.push_back(std::move(f));
  return "";
}

std::string RegisterInner(lua_State* L) {
  LoadState* load = Loading(L);
  if (!load) return "ERR redis.register_function can only be called on FUNCTION LOAD command";
  if (lua_gettop(L) == 2 && lua_type(L, 1) == LUA_TSTRING) {
    return Register(L, *load, lua_tostring(L, 1), 2, 0, nullptr);
  }
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TTABLE) {
    return "ERR wrong arguments to redis.register_function";
  }
  lua_getfield(L, 1, "function_name");
  lua_getfield(L, 1, "callback");
  lua_getfield(L, 1, "flags");
  lua_getfield(L, 1, "description");
  const char* name = lua_tostring(L, 2);
  if (!name) {
    return "ERR function_name argument given to redis.register_function must be a string";
  }
  const char* description = lua_isnil(L, 5) ? nullptr : lua_tostring(L, 5);
  return Register(L, *load, name, 3, lua_isnil(L, 4) ? 0 : 4, description);
}

int RegisterFunction(lua_State* L) {
  bool raise = false;
  {  // every C++ object goes before lua_error
    std::string err = RegisterInner(L);
    if (!err.empty()) {
      if (LoadState* load = Loading(L)) load->last_error = err;
      lua_pushlstring(L, err.data(), err.size());
      raise = true;
    }
  }
  return raise ? lua_error(L) : 0;
}

// A field a library reads of `redis` while it loads that the loading API lacks.
int MissingLoadingField(lua_State* L) { return RaiseNonexistent(L, lua_tostring(L, 2)); }

// The `redis` a library sees while it loads.
void PushLoadingRedis(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, RegisterFunction);
  lua_setfield(L, -2, "register_function");
  lua_pushcfunction(L, Log);
  lua_setfield(L, -2, "log");
  SetLogAndVersion(L);
  lua_newtable(L);
  lua_pushcfunction(L, MissingLoadingField);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
}

// Sets t[i] = args[i-1] for a new table t.
void PushList(lua_State* L, const std::vector<std::string>& items) {
  lua_createtable(L, static_cast<int>(items.size()), 0);
  for (size_t i = 0; i < items.size(); ++i) {
    lua_pushlstring(L, items[i].data(), items[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

}  // namespace

Result<std::unique_ptr<LuaVm>> LuaVm::Create() {
  std::unique_ptr<LuaVm> vm(new LuaVm());
  lua_State* L = luaL_newstate();
  if (L == nullptr) return Status::IOError("lua: out of memory");
  vm->L_ = L;
  OpenLib(L, "", luaopen_base);
  OpenLib(L, LUA_TABLIBNAME, luaopen_table);
  OpenLib(L, LUA_STRLIBNAME, luaopen_string);
  OpenLib(L, LUA_MATHLIBNAME, luaopen_math);
  OpenLib(L, "cjson", luaopen_cjson);
  OpenLib(L, "bit", luaopen_bit);
  OpenRedis(L);
  lua_pushcfunction(L, SafeRawset);
  lua_setglobal(L, "rawset");
  // Only the allowed globals stay.
  std::vector<std::string> drop;
  lua_pushnil(L);
  while (lua_next(L, LUA_GLOBALSINDEX) != 0) {
    lua_pop(L, 1);
    const char* name = lua_tostring(L, -1);
    bool allowed = false;
    for (const char* a : kAllowedGlobals) allowed = allowed || (name && std::strcmp(a, name) == 0);
    if (!allowed && name) drop.emplace_back(name);
  }
  for (const std::string& name : drop) {
    lua_pushnil(L);
    lua_setglobal(L, name.c_str());
  }
  lua_pushnil(L);
  lua_setglobal(L, "loadstring");
  // Read-only tables, _G last: a table of the protected ones first.
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, kProtectedKey);
  for (const char* name : kReadonlyTables) {
    lua_getglobal(L, name);
    if (lua_istable(L, -1)) MakeReadonly(L, lua_gettop(L));
    lua_pop(L, 1);
  }
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  MakeReadonly(L, lua_gettop(L));
  // The table behind _G: unknown names are errors; KEYS and ARGV are set here per run.
  lua_getmetatable(L, -1);
  lua_getfield(L, -1, "__index");
  lua_newtable(L);
  lua_pushcfunction(L, MissingGlobal);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, kGlobalsKey);
  lua_pop(L, 2);
  lua_sethook(L, Hook, LUA_MASKCOUNT, 100000);
  return vm;
}

LuaVm::~LuaVm() {
  if (L_) lua_close(L_);
}

Status LuaVm::Load(const std::string& sha, std::string_view body) {
  if (Loaded(sha)) return Status::OK();
  lua_State* L = L_;
  if (luaL_loadbuffer(L, body.data(), body.size(), "@user_script") != 0) {
    std::string msg = lua_tostring(L, -1) ? lua_tostring(L, -1) : "?";
    lua_pop(L, 1);
    return Status::InvalidArgument("ERR Error compiling script (new function): " + msg);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, ("f_" + sha).c_str());
  loaded_.insert(sha);
  return Status::OK();
}

void LuaVm::Flush() {
  for (const std::string& sha : loaded_) {
    lua_pushnil(L_);
    lua_setfield(L_, LUA_REGISTRYINDEX, ("f_" + sha).c_str());
  }
  loaded_.clear();
  lua_gc(L_, LUA_GCCOLLECT, 0);
}

std::string LuaVm::CallProtected(int nargs, const std::string& name, Host& host,
                                 int protocol) {
  lua_State* L = L_;
  RunState run;
  run.host = &host;
  lua_pushlightuserdata(L, &run);
  lua_setfield(L, LUA_REGISTRYINDEX, kRunKey);
  const int func = lua_gettop(L) - nargs;
  lua_pushcfunction(L, ErrorHandler);
  lua_insert(L, func);
  command::Reply reply(protocol);
  if (lua_pcall(L, nargs, 1, func) == 0) {
    WriteValue(L, -1, reply, run.resp, 0);
  } else {
    std::string err, source;
    if (lua_istable(L, -1)) {
      StringField(L, -1, "err", &err);
      StringField(L, -1, "source", &source);
      lua_getfield(L, -1, "line");
      const int line = static_cast<int>(lua_tonumber(L, -1));
      lua_pop(L, 1);
      err += " script: " + name + ", on " + source + ":" + std::to_string(line) + ".";
    } else {
      err = "ERR " + std::string(lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error");
    }
    reply.Error(err);
  }
  lua_settop(L, 0);
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kRunKey);
  // Collect a little each run, as Redis does, so garbage from a big script goes soon.
  lua_gc(L, LUA_GCSTEP, 1);
  return std::move(reply.buffer());
}

std::string LuaVm::Run(const std::string& sha, const std::vector<std::string>& keys,
                       const std::vector<std::string>& argv, Host& host, int protocol) {
  lua_State* L = L_;
  lua_getfield(L, LUA_REGISTRYINDEX, kGlobalsKey);
  PushList(L, keys);
  lua_setfield(L, -2, "KEYS");  // the hidden table has no __newindex
  PushList(L, argv);
  lua_setfield(L, -2, "ARGV");
  lua_pop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, ("f_" + sha).c_str());
  return CallProtected(0, sha, host, protocol);
}

std::string LuaVm::RunFunction(const std::string& name, const std::vector<std::string>& keys,
                               const std::vector<std::string>& argv, Host& host,
                               int protocol) {
  lua_State* L = L_;
  lua_getfield(L, LUA_REGISTRYINDEX, ("fn_" + name).c_str());
  PushList(L, keys);
  PushList(L, argv);
  return CallProtected(2, name, host, protocol);
}

void LuaVm::DropFunctions() {
  for (const std::string& name : functions_) {
    lua_pushnil(L_);
    lua_setfield(L_, LUA_REGISTRYINDEX, ("fn_" + name).c_str());
  }
  functions_.clear();
}

Result<std::vector<LuaVm::Function>> LuaVm::LoadLibrary(std::string_view code) {
  lua_State* L = L_;
  LoadState load;
  lua_pushlightuserdata(L, &load);
  lua_setfield(L, LUA_REGISTRYINDEX, kLoadKey);
  // While the library runs, `redis` is the loading API only.
  lua_getfield(L, LUA_REGISTRYINDEX, kGlobalsKey);
  const int globals = lua_gettop(L);
  lua_getfield(L, globals, "redis");
  const int full_redis = lua_gettop(L);
  PushLoadingRedis(L);
  lua_setfield(L, globals, "redis");
  std::string error;
  if (luaL_loadbuffer(L, code.data(), code.size(), "@user_function") != 0) {
    error = std::string("ERR Error compiling function: ") +
            (lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
  } else if (lua_pcall(L, 0, 0, 0) != 0) {
    const char* msg = lua_tostring(L, -1);
    const std::string text = msg ? msg : "unknown error";
    error = "ERR Error registering functions: " +
            (text == load.last_error ? text : "ERR " + text);
  } else if (load.functions.empty()) {
    error = "ERR No functions registered";
  }
  lua_pushvalue(L, full_redis);
  lua_setfield(L, globals, "redis");
  lua_settop(L, 0);
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kLoadKey);
  if (!error.empty()) {
    for (const Function& f : load.functions) {
      lua_pushnil(L);
      lua_setfield(L, LUA_REGISTRYINDEX, ("fn_" + f.name).c_str());
    }
    return Status::InvalidArgument(error);
  }
  for (const Function& f : load.functions) functions_.push_back(f.name);
  return std::move(load.functions);
}

}  // namespace slotkv::script
