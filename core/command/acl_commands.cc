// ACL family: ACL CAT|DELUSER|DRYRUN|GENPASS|GETUSER|HELP|LIST|LOAD|LOG|SAVE|SETUSER|USERS|
// WHOAMI, as Redis 7.0. They run on the client's worker; DELUSER, LOAD and SETUSER then visit
// every worker to close the connections that lost their user (or, for SETUSER, a channel they
// subscribe to).
#include <functional>

#include "core/acl/users.h"
#include "core/base/hash.h"
#include "core/command/acl_check.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/errors.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kNoAclFile =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify "
    "users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
    "Redis configuration file set) in order to store users in the Redis configuration.";

constexpr std::string_view kAclHelp[] = {
    "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CAT [<category>]",
    "    List all commands that belong to <category>, or all command categories",
    "    when no category is specified.",
    "DELUSER <username> [<username> ...]",
    "    Delete a list of users.",
    "DRYRUN <username> <command> [<arg> ...]",
    "    Returns whether the user can execute the given command without executing the command.",
    "GETUSER <username>",
    "    Get the user's details.",
    "GENPASS [<bits>]",
    "    Generate a secure 256-bit user password. The optional `bits` argument can",
    "    be used to specify a different size.",
    "LIST",
    "    Show users details in config file format.",
    "LOAD",
    "    Reload users from the ACL file.",
    "LOG [<count> | RESET]",
    "    Show the ACL log entries.",
    "SAVE",
    "    Save the current config to the ACL file.",
    "SETUSER <username> <attribute> [<attribute> ...]",
    "    Create or modify a user with the specified attributes.",
    "USERS",
    "    List all the registered usernames.",
    "WHOAMI",
    "    Return the current connection username.",
    "HELP",
    "    Print this help.",
};

// Closes the connections of every worker for which match holds; the caller's own closes once
// this reply is written (Redis's CLIENT_CLOSE_AFTER_COMMAND). Ends home.
Task CloseClients(AsyncContext& ctx, std::function<bool(const ClientState&)> match) {
  const uint64_t self = ctx.client->id;
  bool close_self = false;
  for (int w = 0; w < ctx.server.executor->workers(); ++w) {
    co_await ctx.ToWorker(w);
    ctx.server.clients->KillLocal([&](const ClientInfo&, const ClientState& s) {
      if (s.id != self) return match(s);
      close_self = close_self || match(s);
      return false;
    });
  }
  co_await ctx.ToHome();
  if (close_self) ctx.client->close_after_reply = true;
}

bool OfUser(const ClientState& s, std::string_view name) {
  return s.user != nullptr && s.user->name == name;
}

// Whether every channel pattern of before is one of after's (ACLKillPubsubClientsIfNeeded):
// then no subscriber of the user can have lost a channel.
bool KeepsChannels(const acl::User& before, const acl::User& after) {
  for (const acl::Selector& s : after.selectors) {
    if (s.all_channels) return true;
  }
  for (const acl::Selector& s : before.selectors) {
    for (const std::string& c : s.channels) {
      if (!acl::ChannelAllowed(after, c, /*literal=*/true)) return false;
    }
  }
  return true;
}

// Whether a subscriber of user subscribes to something user no longer allows.
bool LostChannel(const acl::User& user, const ClientState& s) {
  for (const std::string& p : s.patterns) {
    if (!acl::ChannelAllowed(user, p, /*literal=*/true)) return true;
  }
  for (const auto* names : {&s.channels, &s.shard_channels}) {
    for (const std::string& c : *names) {
      if (!acl::ChannelAllowed(user, c, /*literal=*/false)) return true;
    }
  }
  return false;
}

Task SetUser(AsyncContext& ctx) {
  const std::string name = ctx.args[2];
  std::shared_ptr<const acl::User> before;
  const std::string error = ctx.server.users->SetUser(
      name, std::span(ctx.args).subspan(3), &before);
  if (!error.empty()) {
    ctx.reply.Error(error);
    co_return;
  }
  std::shared_ptr<const acl::User> after = ctx.server.users->Get(name);
  if (before && after && !KeepsChannels(*before, *after)) {
    co_await CloseClients(ctx, [&](const ClientState& s) {
      return OfUser(s, name) && s.subscribed() && LostChannel(*after, s);
    });
  }
  ctx.reply.Ok();
}

Task DelUser(AsyncContext& ctx) {
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    if (ctx.args[i] == "default") {
      ctx.reply.Error("ERR The 'default' user cannot be removed");
      co_return;
    }
  }
  std::vector<std::string> deleted;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    if (ctx.server.users->Delete(ctx.args[i])) deleted.push_back(ctx.args[i]);
  }
  if (!deleted.empty()) {
    co_await CloseClients(ctx, [&](const ClientState& s) {
      return std::any_of(deleted.begin(), deleted.end(),
                         [&](const std::string& n) { return OfUser(s, n); });
    });
  }
  ctx.reply.Integer(static_cast<int64_t>(deleted.size()));
}

void ReplySelector(Reply& reply, const acl::Selector& s, const acl::Catalog& catalog) {
  reply.Bulk("commands");
  reply.Bulk(acl::DescribeCommands(s, catalog));
  reply.Bulk("keys");
  reply.Bulk(acl::DescribeKeys(s));
  reply.Bulk("channels");
  reply.Bulk(acl::DescribeChannels(s));
}

void GetUser(AsyncContext& ctx) {
  std::shared_ptr<const acl::User> user = ctx.server.users->Get(ctx.args[2]);
  if (!user) {
    ctx.reply.Null();
    return;
  }
  const acl::Catalog& catalog = ctx.server.users->catalog();
  Reply& r = ctx.reply;
  r.Map(6);
  r.Bulk("flags");
  const std::vector<std::string_view> flags = acl::FlagNames(*user);
  r.Set(flags.size());
  for (std::string_view f : flags) r.Bulk(f);
  r.Bulk("passwords");
  r.Array(user->passwords.size());
  for (const std::string& p : user->passwords) r.Bulk(p);
  ReplySelector(r, user->selectors.front(), catalog);
  r.Bulk("selectors");
  r.Array(user->selectors.size() - 1);
  for (size_t i = 1; i < user->selectors.size(); ++i) {
    r.Map(3);
    ReplySelector(r, user->selectors[i], catalog);
  }
}

void ListUsers(AsyncContext& ctx, bool names_only) {
  const std::vector<std::shared_ptr<const acl::User>> users = ctx.server.users->All();
  ctx.reply.Array(users.size());
  for (const auto& u : users) {
    ctx.reply.Bulk(names_only ? u->name
                              : "user " + u->name + " " +
                                    acl::Describe(*u, ctx.server.users->catalog()));
  }
}

void Cat(AsyncContext& ctx) {
  if (ctx.args.size() == 2) {
    ctx.reply.Array(acl::kCategoryCount);
    for (std::string_view c : acl::kCategories) ctx.reply.Bulk(c);
    return;
  }
  const uint32_t bit = acl::CategoryBit(ctx.args[2]);
  if (bit == 0) {
    ctx.reply.Error("ERR Unknown category '" + ctx.args[2].substr(0, 128) + "'");
    return;
  }
  std::vector<std::string_view> names;
  for (const acl::CommandInfo& c : ctx.server.users->catalog()) {
    if (c.categories & bit) names.push_back(c.name);
  }
  ctx.reply.Array(names.size());
  for (std::string_view n : names) ctx.reply.Bulk(n);
}

void GenPass(AsyncContext& ctx) {
  constexpr int64_t kMaxBits = 4096;
  int64_t bits = 256;
  if (ctx.args.size() == 3) {
    std::optional<int64_t> v = IntArg(ctx.args[2], ctx.reply);
    if (!v) return;
    bits = *v;
  }
  if (bits <= 0 || bits > kMaxBits) {
    ctx.reply.Error("ERR ACL GENPASS argument must be the number of bits for the output "
                    "password, a positive number up to 4096");
    return;
  }
  ctx.reply.Bulk(RandomHex(static_cast<size_t>((bits + 3) / 4)));
}

void Log(AsyncContext& ctx) {
  int64_t count = 10;
  if (ctx.args.size() == 3) {
    if (Is(ctx.args[2], "RESET")) {
      ctx.server.acl_log->Reset();
      ctx.reply.Ok();
      return;
    }
    std::optional<int64_t> v = IntArg(ctx.args[2], ctx.reply);
    if (!v) return;
    count = std::max<int64_t>(*v, 0);
  }
  static constexpr std::string_view kReasons[] = {"", "command", "key", "auth", "channel"};
  static constexpr std::string_view kContexts[] = {"toplevel", "multi", "lua"};
  const std::vector<acl::LogEntry> entries =
      ctx.server.acl_log->Latest(static_cast<size_t>(count));
  const int64_t now = ctx.server.keyspace->clock()->NowMs();
  ctx.reply.Array(entries.size());
  for (const acl::LogEntry& e : entries) {
    ctx.reply.Map(7);
    ctx.reply.Bulk("count");
    ctx.reply.Integer(static_cast<int64_t>(e.count));
    ctx.reply.Bulk("reason");
    ctx.reply.Bulk(kReasons[static_cast<size_t>(e.reason)]);
    ctx.reply.Bulk("context");
    ctx.reply.Bulk(kContexts[static_cast<size_t>(e.context)]);
    ctx.reply.Bulk("object");
    ctx.reply.Bulk(e.object);
    ctx.reply.Bulk("username");
    ctx.reply.Bulk(e.username);
    ctx.reply.Bulk("age-seconds");
    ctx.reply.Double(static_cast<double>(now - e.time_ms) / 1000);
    ctx.reply.Bulk("client-info");
    ctx.reply.Bulk(e.client_info);
  }
}

void DryRun(AsyncContext& ctx) {
  std::shared_ptr<const acl::User> user = ctx.server.users->Get(ctx.args[2]);
  if (!user) {
    ctx.reply.Error("ERR User '" + ctx.args[2] + "' not found");
    return;
  }
  const std::vector<std::string> args(ctx.args.begin() + 3, ctx.args.end());
  const CommandSpec* spec = ctx.server.table->Find(args[0]);
  const CommandSpec* row = spec ? &CommandTable::Resolve(*spec, args) : nullptr;
  if (!row || (row == spec && spec->container && args.size() > 1)) {
    ctx.reply.Error("ERR Command '" + args[0] + "' not found");
    return;
  }
  if (!CommandTable::ArityOk(*row, args.size())) {
    ctx.reply.Error(WrongArgs(row->name));
    return;
  }
  const acl::Verdict v = acl::Check(*user, ctx.server.users->catalog(), AclCall(*spec, args));
  switch (v.denial) {
    case acl::Denial::kNone:
      ctx.reply.Ok();
      break;
    case acl::Denial::kKey:
      ctx.reply.Bulk("This user has no permissions to access the '" + args[v.pos] + "' key");
      break;
    case acl::Denial::kChannel:
      ctx.reply.Bulk("This user has no permissions to access the '" + args[v.pos] +
                     "' channel");
      break;
    default:
      ctx.reply.Bulk("This user has no permissions to run the '" + std::string(row->name) +
                     "' command");
  }
}

Task Load(AsyncContext& ctx) {
  std::vector<std::string> dropped;
  const std::string error = ctx.server.users->Load(ctx.server.config->Get("aclfile"), &dropped);
  if (!error.empty()) {
    ctx.reply.Error(error);
    co_return;
  }
  co_await CloseClients(ctx, [&](const ClientState& s) {
    return std::any_of(dropped.begin(), dropped.end(),
                       [&](const std::string& n) { return OfUser(s, n); });
  });
  ctx.reply.Ok();
}

Task Acl(AsyncContext& ctx) {
  const std::string& sub = ctx.args[1];
  const size_t n = ctx.args.size();
  // Arities are the subcommand rows' (checked before the call).
  const bool file = !ctx.server.config->Get("aclfile").empty();
  if (Is(sub, "SETUSER")) {
    co_await SetUser(ctx);
  } else if (Is(sub, "DELUSER")) {
    co_await DelUser(ctx);
  } else if (Is(sub, "GETUSER")) {
    GetUser(ctx);
  } else if (Is(sub, "LIST") || Is(sub, "USERS")) {
    ListUsers(ctx, Is(sub, "USERS"));
  } else if (Is(sub, "WHOAMI")) {
    const acl::User* user = ClientUser(ctx.server, *ctx.client);
    ctx.reply.Bulk(user ? user->name : "default");
  } else if ((Is(sub, "LOAD") || Is(sub, "SAVE")) && !file) {
    ctx.reply.Error(kNoAclFile);
  } else if (Is(sub, "LOAD")) {
    co_await Load(ctx);
  } else if (Is(sub, "SAVE")) {
    if (ctx.server.users->Save(ctx.server.config->Get("aclfile"))) {
      ctx.reply.Ok();
    } else {
      ctx.reply.Error("ERR There was an error trying to save the ACLs. Please check the server "
                      "logs for more information");
    }
  } else if (Is(sub, "CAT") || Is(sub, "GENPASS") || Is(sub, "LOG")) {
    // Their rows take any count from 2; they take one argument at most.
    if (n > 3) {
      ctx.reply.Error(SubcommandSyntax("acl", sub));
    } else if (Is(sub, "CAT")) {
      Cat(ctx);
    } else if (Is(sub, "GENPASS")) {
      GenPass(ctx);
    } else {
      Log(ctx);
    }
  } else if (Is(sub, "DRYRUN")) {
    DryRun(ctx);
  } else if (Is(sub, "HELP")) {
    ctx.reply.Help(kAclHelp);
  } else {
    ctx.reply.Error(UnknownSubcommand("acl", sub));
  }
}

}  // namespace

void RegisterAclCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "acl", .arity = -2, .flags = 0, .run_async = Acl, .group = "server",
         .summary = "A container for Access List Control commands", .since = "6.0.0",
         .acl = "slow",
         .subcommands = {
             Subcommand("acl|cat", -2, kNoScript | kLoading | kStale, "slow"),
             Subcommand("acl|deluser", -3, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("acl|dryrun", -4, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("acl|genpass", -2, kNoScript | kLoading | kStale, "slow"),
             Subcommand("acl|getuser", 3, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("acl|help", 2, kLoading | kStale, "slow"),
             Subcommand("acl|list", 2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("acl|load", 2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("acl|log", -2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("acl|save", 2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("acl|setuser", -3, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("acl|users", 2, kAdminSubcommand, "admin slow dangerous"),
             Subcommand("acl|whoami", 2, kNoScript | kLoading | kStale, "slow"),
         }});
  // clang-format on
}

}  // namespace slotkv::command
