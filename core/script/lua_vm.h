// LuaVm: one sandboxed Lua 5.1 interpreter for EVAL scripts, as Redis 7.0's script_lua.c and
// eval.c set theirs up: the allowed globals only (no os, io, require, loadstring, print,
// getfenv, debug ...), every global table read-only ("Attempt to modify a readonly table"),
// reads of unknown globals refused ("Script attempted to access nonexistent global variable
// 'x'"), the redis.* API, cjson and bit. Redis also bundles struct and cmsgpack: Debian does
// not package them for Lua 5.1, so they are absent.
//
// The VM is pure: redis.call / redis.pcall reach the server through a Host, which runs the
// command and returns its reply's RESP bytes; the VM converts between Lua values and RESP both
// ways with Redis's rules (RESP2 by default, RESP3 after redis.setresp(3)).
//
// Thread rule: one thread at a time (the worker running its script).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/base/status.h"

struct lua_State;

namespace slotkv::script {

// What a running script asks of the server.
class Host {
 public:
  virtual ~Host() = default;
  // Runs a command for redis.call / redis.pcall and returns its reply as RESP bytes in
  // protocol `resp` (an error reply for refusals: unknown command, not allowed from scripts).
  virtual std::string Call(std::vector<std::string> args, int resp) = 0;
  // redis.log(level, message): 0 debug, 1 verbose, 2 notice, 3 warning.
  virtual void Log(int level, std::string_view message) = 0;
  // Asked now and then while the script runs: a non-empty error ends it with that error.
  virtual std::string Check() { return {}; }
};

// The SHA-1 of data in lower-case hex (EVALSHA's ids, redis.sha1hex).
std::string Sha1Hex(std::string_view data);

class LuaVm {
 public:
  static Result<std::unique_ptr<LuaVm>> Create();
  ~LuaVm();

  // Compiles body as the script `sha` unless it is compiled already. InvalidArgument with
  // Redis's "Error compiling script (new function): user_script:1: ..." text.
  Status Load(const std::string& sha, std::string_view body);
  bool Loaded(const std::string& sha) const { return loaded_.count(sha) > 0; }
  // Forgets every compiled script (SCRIPT FLUSH).
  void Flush();

  // Runs script `sha` (REQUIRES: Loaded) with KEYS and ARGV, reaching the server through host,
  // and returns its reply in RESP protocol `protocol` (the client's). A Lua error becomes
  // Redis's error reply ("-ERR user_script:1: boom script: <sha>, on @user_script:1.").
  std::string Run(const std::string& sha, const std::vector<std::string>& keys,
                  const std::vector<std::string>& argv, Host& host, int protocol);

  // Redis 7 functions. A function a library registers: name, flags, description.
  struct Function {
    std::string name;
    std::vector<std::string> flags;  // no-writes allow-oom allow-stale no-cluster ...
    std::string description;
    bool has_description = false;
  };
  // Runs a library's code (its #! line already blanked) as FUNCTION LOAD does: `redis` offers
  // only register_function, log and the constants meanwhile; the functions it registers are
  // kept here. InvalidArgument with Redis's text ("ERR Error registering functions: ...",
  // "ERR No functions registered").
  Result<std::vector<Function>> LoadLibrary(std::string_view code);
  // Forgets every registered function.
  void DropFunctions();
  // Runs registered function name (REQUIRES: registered here) with its keys and args as its
  // two arguments; as Run otherwise ("... script: <name>, on @user_function:<line>.").
  std::string RunFunction(const std::string& name, const std::vector<std::string>& keys,
                          const std::vector<std::string>& argv, Host& host, int protocol);
  // Which set of libraries this interpreter holds (the caller's generation number).
  uint64_t libraries_generation = UINT64_MAX;

 private:
  LuaVm() = default;
  // Calls the function on top of the stack with args already pushed (nargs) under the error
  // handler; the reply, or the error with " script: <name>, on <source>:<line>." after it.
  std::string CallProtected(int nargs, const std::string& name, Host& host, int protocol);
  lua_State* L_ = nullptr;
  std::unordered_set<std::string> loaded_;
  std::vector<std::string> functions_;
};

}  // namespace slotkv::script
