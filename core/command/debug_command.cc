// DEBUG, Redis's debugging command, protected as in Redis 7.0: refused before authentication
// unless enable-debug-command (default no) lets the client run it (Admit, kProtected). slotkv
// has the subcommands that mean the same here, with Redis's replies: SLEEP, SET-ACTIVE-EXPIRE,
// LOG, ERROR, PROTOCOL, SEGFAULT, PANIC, ASSERT and HELP (which lists just those). The others
// (RELOAD, DIGEST, OBJECT, POPULATE, the encoding dumps ...) look at Redis's in-memory
// structures or its RDB reload and answer Redis's unknown-subcommand error.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>
#include <thread>

#include "core/command/args.h"
#include "core/command/command_table.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kDebugHelp[] = {
    "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ASSERT",
    "    Crash by assertion failed.",
    "ERROR <string>",
    "    Return a Redis protocol error with <string> as message. Useful for clients",
    "    unit tests to simulate Redis errors.",
    "LOG <message>",
    "    Write <message> to the server log.",
    "PANIC",
    "    Crash the server simulating a panic.",
    "PROTOCOL <type>",
    "    Reply with a test value of the specified type. <type> can be: string,",
    "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
    "    true, false.",
    "SEGFAULT",
    "    Crash the server with sigsegv.",
    "SET-ACTIVE-EXPIRE <0|1>",
    "    Setting it to 0 disables expiring keys in background when they are not",
    "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
    "    default.",
    "SLEEP <seconds>",
    "    Stop the server for <seconds>. Decimals allowed.",
    "HELP",
    "    Prints this help.",
};

// DEBUG PROTOCOL <type>: Redis's test value of each RESP3 type; false for an unknown type.
bool ReplyProtocolSample(Reply& reply, std::string_view type) {
  if (Is(type, "string")) {
    reply.Bulk("Hello World");
  } else if (Is(type, "integer")) {
    reply.Integer(12345);
  } else if (Is(type, "double")) {
    reply.Double(3.141);
  } else if (Is(type, "bignum")) {
    reply.BigNumber("1234567999999999999999999999999999999");
  } else if (Is(type, "null")) {
    reply.Null();
  } else if (Is(type, "array") || Is(type, "set")) {
    if (Is(type, "array")) {
      reply.Array(3);
    } else {
      reply.Set(3);
    }
    for (int j = 0; j < 3; ++j) reply.Integer(j);
  } else if (Is(type, "map")) {
    reply.Map(3);
    for (int j = 0; j < 3; ++j) {
      reply.Integer(j);
      reply.Bool(j == 1);
    }
  } else if (Is(type, "attrib")) {
    if (reply.protocol() == 3) {
      reply.Attribute(1);
      reply.Bulk("key-popularity");
      reply.Array(2);
      reply.Bulk("key:123");
      reply.Integer(90);
    }
    // An attribute is no reply of its own: a real one follows.
    reply.Bulk("Some real reply following the attribute");
  } else if (Is(type, "push")) {
    if (reply.protocol() != 3) {
      reply.Error("ERR RESP2 is not supported by this command");
      return true;
    }
    reply.Push(2);
    reply.Bulk("server-cpu-usage");
    reply.Integer(42);
    reply.Bulk("Some real reply following the push reply");
  } else if (Is(type, "true") || Is(type, "false")) {
    reply.Bool(Is(type, "true"));
  } else if (Is(type, "verbatim")) {
    reply.Verbatim("This is a verbatim\nstring");
  } else {
    return false;
  }
  return true;
}

Task Debug(AsyncContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  const std::string& sub = a[1];
  if (Is(sub, "HELP") && a.size() == 2) {
    ctx.reply.Help(kDebugHelp);
  } else if (Is(sub, "SLEEP") && a.size() == 3) {
    // As Redis: strtod's reading ("x" is 0), and the whole worker waits (Redis: the server).
    const double seconds = std::strtod(a[2].c_str(), nullptr);
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    ctx.reply.Ok();
  } else if (Is(sub, "SET-ACTIVE-EXPIRE") && a.size() == 3) {
    ctx.server.active_expire = std::atoi(a[2].c_str()) != 0;  // as Redis's atoi
    ctx.reply.Ok();
  } else if (Is(sub, "LOG") && a.size() == 3) {
    std::fprintf(stderr, "DEBUG LOG: %s\n", a[2].c_str());
    ctx.reply.Ok();
  } else if (Is(sub, "ERROR") && a.size() == 3) {
    ctx.reply.Error(a[2]);
  } else if (Is(sub, "PROTOCOL") && a.size() == 3) {
    if (!ReplyProtocolSample(ctx.reply, a[2])) {
      ctx.reply.Error(
          "ERR Wrong protocol type name. Please use one of the following: "
          "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
    }
  } else if (Is(sub, "SEGFAULT") && a.size() == 2) {
    std::fflush(stderr);
    std::raise(SIGSEGV);
  } else if (Is(sub, "PANIC") && a.size() == 2) {
    std::fprintf(stderr, "DEBUG PANIC called at Unix time %lld\n",
                 static_cast<long long>(std::time(nullptr)));
    std::abort();
  } else if (Is(sub, "ASSERT") && a.size() == 2) {
    std::fprintf(stderr, "=== ASSERTION FAILED ===\n==> debug_command.cc '1 == 2' is not true\n");
    std::abort();
  } else {
    ctx.reply.Error(SubcommandSyntax("debug", sub));
  }
  co_return;
}

}  // namespace

// Arity, flags, ACL categories, summary and since as redis-server 7.0.15's COMMAND INFO and
// COMMAND DOCS (kProtected hidden, as Redis hides it).
void RegisterDebugCommand(CommandTable& t) {
  t.Add({.name = "debug", .arity = -2,
         .flags = kAdmin | kNoScript | kLoading | kStale | kProtected, .run_async = Debug,
         .group = "server", .summary = "A container for debugging commands", .since = "1.0.0",
         .acl = "admin slow dangerous"});
}

}  // namespace slotkv::command
