// MODULE LIST|LOAD|LOADEX|UNLOAD|HELP, as Redis 7.0 answers them with no module loaded. slotkv
// loads no modules (its commands are built in): LIST is empty; LOAD and LOADEX fail as Redis
// does for a module that does not load, UNLOAD as for a name that is not loaded, once
// enable-module-command lets the caller try (otherwise Admit refuses them, kProtected, before
// authentication, as Redis does).
#include <cstdio>
#include <string>
#include <string_view>

#include "core/command/args.h"
#include "core/command/command_table.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kModuleHelp[] = {
    "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "LIST",
    "    Return a list of loaded modules.",
    "LOAD <path> [<arg> ...]",
    "    Load a module library from <path>, passing to it any optional arguments.",
    "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
    "    Load a module library from <path>, while passing it module configurations and "
    "optional arguments.",
    "UNLOAD <name>",
    "    Unload a module.",
    "HELP",
    "    Prints this help.",
};

Task Module(AsyncContext& ctx) {
  // Arities are the subcommand rows' (checked before the call).
  const std::string& sub = ctx.args[1];
  if (Is(sub, "HELP")) {
    ctx.reply.Help(kModuleHelp);
  } else if (Is(sub, "LIST")) {
    ctx.reply.Array(0);
  } else if (Is(sub, "UNLOAD")) {  // Admit let the client try (kProtected)
    ctx.reply.Error("ERR Error unloading module: no such module with that name");
  } else if (Is(sub, "LOAD") || Is(sub, "LOADEX")) {
    std::fprintf(stderr, "Module %s failed to load: slotkv loads no modules\n",
                 ctx.args[2].c_str());
    ctx.reply.Error("ERR Error loading the extension. Please check the server logs.");
  } else {
    ctx.reply.Error(UnknownSubcommand("module", sub));
  }
  co_return;
}

}  // namespace

// Arity, flags, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO and
// COMMAND DOCS.
void RegisterModuleCommand(CommandTable& t) {
  constexpr uint32_t kLoadFlags = kAdmin | kNoScript | kNoAsyncLoading | kProtected;
  // clang-format off
  t.Add({.name = "module", .arity = -2, .flags = 0, .run_async = Module, .group = "server",
         .summary = "A container for module commands", .since = "4.0.0", .acl = "slow",
         .subcommands = {
             Subcommand("module|help", 2, kLoading | kStale, "slow"),
             Subcommand("module|list", 2, kAdmin | kNoScript, "admin slow dangerous"),
             Subcommand("module|load", -3, kLoadFlags, "admin slow dangerous"),
             Subcommand("module|loadex", -3, kLoadFlags, "admin slow dangerous"),
             Subcommand("module|unload", 3, kLoadFlags, "admin slow dangerous"),
         }});
  // clang-format on
}

}  // namespace slotkv::command
