// FUNCTION LOAD DELETE FLUSH LIST STATS DUMP RESTORE KILL HELP, as Redis 7.0's functions.c: the
// libraries of Redis 7 functions (script/functions.h keeps them, on disk too). FCALL and
// FCALL_RO run them (script_commands.cc).
#include "core/base/ascii.h"
#include "core/base/glob.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/errors.h"
#include "core/command/scripting.h"
#include "core/script/functions.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kFunctionHelp[] = {
    "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "LOAD [REPLACE] <FUNCTION CODE>",
    "    Create a new library with the given library name and code.",
    "DELETE <LIBRARY NAME>",
    "    Delete the given library.",
    "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
    "    Return general information on all the libraries:",
    "    * Library name",
    "    * The engine used to run the Library",
    "    * Library description",
    "    * Functions list",
    "    * Library code (if WITHCODE is given)",
    "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
    "STATS",
    "    Return information about the current function running:",
    "    * Function name",
    "    * Command used to run the function",
    "    * Duration in MS that the function is running",
    "    If no function is running, return nil",
    "    In addition, returns a list of available engines.",
    "KILL",
    "    Kill the current running function.",
    "FLUSH [ASYNC|SYNC]",
    "    Delete all the libraries.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the libraries.",
    "    * SYNC: Synchronously flush the libraries.",
    "DUMP",
    "    Return a serialized payload representing the current libraries, can be restored using "
    "FUNCTION RESTORE command",
    "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
    "    Restore the libraries represented by the given payload, it is possible to give a restore "
    "policy to",
    "    control how to handle existing libraries (default APPEND):",
    "    * FLUSH: delete all existing libraries.",
    "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
    "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
    "replace the old",
    "      libraries with the new libraries (notice that even on this option there is a chance "
    "of failure",
    "      in case of functions name collision with another library).",
    "HELP",
    "    Prints this help.",
};

// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE].
void List(AsyncContext& ctx) {
  const auto& a = ctx.args;
  bool with_code = false;
  std::optional<std::string> pattern;
  for (size_t i = 2; i < a.size(); ++i) {
    if (Is(a[i], "WITHCODE")) {
      with_code = true;
    } else if (Is(a[i], "LIBRARYNAME")) {
      if (i + 1 >= a.size()) {
        ctx.reply.Error("ERR library name argument was not given");
        return;
      }
      pattern = a[++i];
    } else {
      ctx.reply.Error("ERR Unknown argument " + a[i]);
      return;
    }
  }
  std::vector<script::Functions::Library> libraries = ctx.server.functions->List();
  std::erase_if(libraries, [&](const script::Functions::Library& lib) {
    return pattern && !GlobMatch(*pattern, lib.name, false);
  });
  ctx.reply.Array(libraries.size());
  for (const script::Functions::Library& lib : libraries) {
    ctx.reply.Map(with_code ? 4 : 3);
    ctx.reply.Bulk("library_name");
    ctx.reply.Bulk(lib.name);
    ctx.reply.Bulk("engine");
    ctx.reply.Bulk("LUA");
    ctx.reply.Bulk("functions");
    ctx.reply.Array(lib.functions.size());
    for (const script::LuaVm::Function& f : lib.functions) {
      ctx.reply.Map(3);
      ctx.reply.Bulk("name");
      ctx.reply.Bulk(f.name);
      ctx.reply.Bulk("description");
      if (f.has_description) {
        ctx.reply.Bulk(f.description);
      } else {
        ctx.reply.Null();
      }
      ctx.reply.Bulk("flags");
      ctx.reply.Set(f.flags.size());
      for (const std::string& flag : f.flags) ctx.reply.SimpleString(flag);
    }
    if (with_code) {
      ctx.reply.Bulk("library_code");
      ctx.reply.Bulk(lib.code);
    }
  }
}

void Stats(AsyncContext& ctx) {
  size_t functions = 0;
  const std::vector<script::Functions::Library> libraries = ctx.server.functions->List();
  for (const auto& lib : libraries) functions += lib.functions.size();
  ctx.reply.Map(2);
  ctx.reply.Bulk("running_script");
  ctx.reply.Null();  // a busy script is killed with SCRIPT KILL / FUNCTION KILL
  ctx.reply.Bulk("engines");
  ctx.reply.Map(1);
  ctx.reply.Bulk("LUA");
  ctx.reply.Map(2);
  ctx.reply.Bulk("libraries_count");
  ctx.reply.Integer(static_cast<int64_t>(libraries.size()));
  ctx.reply.Bulk("functions_count");
  ctx.reply.Integer(static_cast<int64_t>(functions));
}

Task FunctionCommand(AsyncContext& ctx) {
  const auto& a = ctx.args;
  const std::string& sub = a[1];
  script::Functions& functions = *ctx.server.functions;
  // Arities are the subcommand rows' (checked before the call); FLUSH and RESTORE take fewer.
  auto at_most = [&](size_t n, std::string_view name) {
    if (a.size() > n) ctx.reply.Error(WrongArgs(name));
    return a.size() <= n;
  };
  if (Is(sub, "LOAD")) {
    bool replace = false;
    for (size_t i = 2; i + 1 < a.size(); ++i) {
      if (!Is(a[i], "REPLACE")) {
        ctx.reply.Error("ERR Unknown option given: " + a[i]);
        co_return;
      }
      replace = true;
    }
    Result<std::string> name = functions.Load(a.back(), replace);
    if (!name.ok()) {
      ctx.reply.Error(name.status().message());
      co_return;
    }
    ctx.reply.Bulk(*name);
  } else if (Is(sub, "DELETE")) {
    Status st = functions.Delete(a[2]);
    if (!st.ok()) {
      ctx.reply.Error(st.message());
      co_return;
    }
    ctx.reply.Ok();
  } else if (Is(sub, "FLUSH")) {
    if (!at_most(3, "function|flush")) co_return;
    if (a.size() == 3 && !Is(a[2], "ASYNC") && !Is(a[2], "SYNC")) {
      ctx.reply.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
      co_return;
    }
    if (Failed(functions.Flush(), ctx.reply)) co_return;
    ctx.reply.Ok();
  } else if (Is(sub, "LIST")) {
    List(ctx);
  } else if (Is(sub, "STATS")) {
    Stats(ctx);
  } else if (Is(sub, "DUMP")) {
    ctx.reply.Bulk(functions.Dump());
  } else if (Is(sub, "RESTORE")) {
    if (!at_most(4, "function|restore")) co_return;
    const std::string policy = a.size() == 4 ? AsciiUpper(a[3]) : "APPEND";
    if (policy != "APPEND" && policy != "REPLACE" && policy != "FLUSH") {
      ctx.reply.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or "
                      "REPLACE.");
      co_return;
    }
    Status st = functions.Restore(a[2], policy);
    if (!st.ok()) {
      ctx.reply.Error(st.message());
      co_return;
    }
    ctx.reply.Ok();
  } else if (Is(sub, "KILL")) {
    KillScripts(ctx.server, ctx.reply);
  } else if (Is(sub, "HELP")) {
    ctx.reply.Help(kFunctionHelp);
  } else {
    ctx.reply.Error(UnknownSubcommand("function", sub));
  }
  co_return;
}

}  // namespace

void RegisterFunctionCommands(CommandTable& t) {
  t.Add({.name = "function", .arity = -2, .flags = 0, .run_async = FunctionCommand,
         .group = "scripting", .summary = "A container for function commands", .since = "7.0.0",
         .acl = "slow",
         .subcommands = {
             Subcommand("function|delete", 3, kWrite | kNoScript, "write slow scripting"),
             Subcommand("function|dump", 2, kNoScript, "slow scripting"),
             Subcommand("function|flush", -2, kWrite | kNoScript, "write slow scripting"),
             Subcommand("function|help", 2, kLoading | kStale, "slow scripting"),
             Subcommand("function|kill", 2, kNoScript | kAllowBusy, "slow scripting"),
             Subcommand("function|list", -2, kNoScript, "slow scripting"),
             Subcommand("function|load", -3, kWrite | kDenyOom | kNoScript, "write slow scripting"),
             Subcommand("function|restore", -3, kWrite | kDenyOom | kNoScript,
                        "write slow scripting"),
             Subcommand("function|stats", 2, kNoScript | kAllowBusy, "slow scripting"),
         }});
}

}  // namespace slotkv::command
