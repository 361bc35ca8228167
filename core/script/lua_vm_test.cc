#include "core/script/lua_vm.h"

#include <doctest/doctest.h>

#include <map>

namespace slotkv::script {
namespace {

// Answers redis.call from a canned table (command name -> RESP reply) and records the calls.
struct FakeHost : Host {
  std::map<std::string, std::string> replies;
  std::vector<std::vector<std::string>> calls;
  std::vector<std::string> logged;
  std::string stop;
  std::string Call(std::vector<std::string> args, int resp) override {
    calls.push_back(args);
    auto it = replies.find(args[0]);
    return it != replies.end() ? it->second : "-ERR Unknown Redis command called from script\r\n";
  }
  void Log(int level, std::string_view message) override {
    logged.push_back(std::to_string(level) + ":" + std::string(message));
  }
  std::string Check() override { return stop; }
};

struct Vm {
  std::unique_ptr<LuaVm> vm = LuaVm::Create().value();
  FakeHost host;
  // Runs body (compiling it first) and returns the RESP reply.
  std::string Eval(const std::string& body, std::vector<std::string> keys = {},
                   std::vector<std::string> argv = {}, int protocol = 2) {
    const std::string sha = Sha1Hex(body);
    Status st = vm->Load(sha, body);
    if (!st.ok()) return "-" + std::string(st.message()) + "\r\n";
    return vm->Run(sha, keys, argv, host, protocol);
  }
  std::string Suffix(const std::string& body, int line = 1) {
    return " script: " + Sha1Hex(body) + ", on @user_script:" + std::to_string(line) + ".\r\n";
  }
};

TEST_CASE("SHA-1 of scripts and redis.sha1hex") {
  CHECK(Sha1Hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  Vm t;
  CHECK(t.Eval("return redis.sha1hex('')") == "$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n");
}

TEST_CASE("Lua values become Redis replies as Redis converts them") {
  Vm t;
  CHECK(t.Eval("return {1,2,{3,'x'},nil,4}") == "*3\r\n:1\r\n:2\r\n*2\r\n:3\r\n$1\r\nx\r\n");
  CHECK(t.Eval("return 3.99") == ":3\r\n");
  CHECK(t.Eval("return true") == ":1\r\n");
  CHECK(t.Eval("return false") == "$-1\r\n");
  CHECK(t.Eval("return redis.error_reply('MY err')") == "-MY err\r\n");
  CHECK(t.Eval("return redis.status_reply('FINE')") == "+FINE\r\n");
  CHECK(t.Eval("return {1,'a',true,false,{ok='x'}}") ==
        "*5\r\n:1\r\n$1\r\na\r\n:1\r\n$-1\r\n+x\r\n");
  CHECK(t.Eval("return {double=1.5}") == "$3\r\n1.5\r\n");
  CHECK(t.Eval("return {double=1.5}", {}, {}, 3) == ",1.5\r\n");
  CHECK(t.Eval("redis.setresp(3); return false") == ":0\r\n");
  CHECK(t.Eval("redis.setresp(3); return false", {}, {}, 3) == "#f\r\n");
  CHECK(t.Eval("return KEYS[1] .. ARGV[2]", {"k"}, {"a", "b"}) == "$2\r\nkb\r\n");
}

TEST_CASE("redis.call: replies become Lua values; errors raise, redis.pcall returns them") {
  Vm t;
  t.host.replies["get"] = "$-1\r\n";
  t.host.replies["ping"] = "+PONG\r\n";
  t.host.replies["incr"] = "-ERR value is not an integer or out of range\r\n";
  t.host.replies["hgetall"] = "*2\r\n$1\r\nf\r\n$1\r\nv\r\n";
  CHECK(t.Eval("return redis.call('get','x') == false") == ":1\r\n");
  CHECK(t.Eval("local t = redis.call('ping'); return type(t)..t.ok") == "$9\r\ntablePONG\r\n");
  const std::string incr = "return redis.call('incr', KEYS[1])";
  CHECK(t.Eval(incr, {"s"}) == "-ERR value is not an integer or out of range" + t.Suffix(incr));
  CHECK(t.Eval("return redis.pcall('incr', KEYS[1])", {"s"}) ==
        "-ERR value is not an integer or out of range\r\n");
  const std::string caught = "local ok,e = pcall(function() return redis.call('nope') end) return e";
  CHECK(t.Eval(caught) == "$44\r\nERR Unknown Redis command called from script\r\n");
  CHECK(t.Eval("return redis.call('hgetall','h')") == "*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
  CHECK(t.Eval("return redis.call('get', 5, 3.5)") == "$-1\r\n");
  CHECK(t.host.calls.back() == std::vector<std::string>{"get", "5", "3.5"});
  const std::string bad = "return redis.call('get', {})";
  CHECK(t.Eval(bad) ==
        "-ERR Lua redis lib command arguments must be strings or integers" + t.Suffix(bad));
  const std::string none = "return redis.call()";
  CHECK(t.Eval(none) ==
        "-ERR Please specify at least one argument for this redis lib call" + t.Suffix(none));
}

TEST_CASE("RESP3 replies after redis.setresp(3)") {
  Vm t;
  t.host.replies["hgetall"] = "%1\r\n$1\r\nf\r\n$1\r\nv\r\n";
  t.host.replies["exists"] = "#t\r\n";
  t.host.replies["zscore"] = ",1.5\r\n";
  CHECK(t.Eval("redis.setresp(3); return redis.call('hgetall','h').map.f") == "$1\r\nv\r\n");
  CHECK(t.Eval("redis.setresp(3); return redis.call('exists','h')") == ":1\r\n");
  CHECK(t.Eval("redis.setresp(3); return redis.call('zscore','z','m')", {}, {}, 3) ==
        ",1.5\r\n");
  const std::string bad = "redis.setresp(4)";
  CHECK(t.Eval(bad) == "-ERR user_script:1: RESP version must be 2 or 3." + t.Suffix(bad));
}

TEST_CASE("the sandbox: no globals written or invented, no os, io, require or loadstring") {
  Vm t;
  const std::string write = "x = 1";
  CHECK(t.Eval(write) == "-ERR user_script:1: Attempt to modify a readonly table" +
                             t.Suffix(write));
  const std::string read = "return y";
  CHECK(t.Eval(read) ==
        "-ERR user_script:1: Script attempted to access nonexistent global variable 'y'" +
            t.Suffix(read));
  for (const char* name : {"os", "io", "require", "dofile", "loadfile", "print", "getfenv",
                           "setfenv", "debug", "newproxy", "module", "package"}) {
    CAPTURE(name);
    const std::string body = std::string("return ") + name;
    CHECK(t.Eval(body).find("nonexistent global variable") != std::string::npos);
  }
  CHECK(t.Eval("return loadstring") == "$-1\r\n");
  const std::string lib = "string.foo = 1";
  CHECK(t.Eval(lib) ==
        "-ERR user_script:1: Attempt to modify a readonly table" + t.Suffix(lib));
  const std::string raw = "return rawset(_G,'x',1)";
  CHECK(t.Eval(raw) == "-ERR Attempt to modify a readonly table" + t.Suffix(raw));
  CHECK(t.Eval("return setmetatable(string, nil)").rfind("-ERR user_script:1: cannot change a "
                                                         "protected metatable", 0) == 0);
  CHECK(t.Eval("return cjson.encode({a=1})") == "$7\r\n{\"a\":1}\r\n");
  CHECK(t.Eval("return bit.band(7,3)") == ":3\r\n");
  CHECK(t.Eval("return ('abc'):upper()") == "$3\r\nABC\r\n");
  CHECK(t.Eval("local t = {}; t.x = 1; return t.x") == ":1\r\n");
}

TEST_CASE("errors: compile, runtime, and a host stop") {
  Vm t;
  CHECK(t.Eval("syntax error here") ==
        "-ERR Error compiling script (new function): user_script:1: '=' expected near "
        "'error'\r\n");
  const std::string boom = "error('boom')";
  CHECK(t.Eval(boom) == "-ERR user_script:1: boom" + t.Suffix(boom));
  const std::string line3 = "local a = 1\nlocal b = 2\nerror('x')";
  CHECK(t.Eval(line3) == "-ERR user_script:3: x" + t.Suffix(line3, 3));
  t.host.stop = "ERR Script killed by user with SCRIPT KILL...";
  const std::string loop = "while true do end";
  CHECK(t.Eval(loop) == "-ERR Script killed by user with SCRIPT KILL..." + t.Suffix(loop));
}

TEST_CASE("redis.log and the constants") {
  Vm t;
  CHECK(t.Eval("return redis.log(redis.LOG_WARNING, 'hi', 'there')") == "$-1\r\n");
  CHECK(t.host.logged == std::vector<std::string>{"3:hi there"});
  CHECK(t.Eval("return redis.REPL_ALL") == ":3\r\n");
  CHECK(t.Eval("return redis.REDIS_VERSION_NUM") == ":458767\r\n");
  CHECK(t.Eval("return redis.replicate_commands()") == ":1\r\n");
}

}  // namespace
}  // namespace slotkv::script
