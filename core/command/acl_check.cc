#include "core/command/acl_check.h"

#include <algorithm>
#include <set>

#include "core/command/args.h"

namespace slotkv::command {
namespace {

// What a key spec's flags let a call do to the key (Redis's ACLSelectorCheckKey): access
// reads it; insert, update and delete write it.
uint8_t AccessOf(std::string_view flags) {
  uint8_t access = 0;
  while (!flags.empty()) {
    const size_t space = flags.find(' ');
    const std::string_view word = flags.substr(0, space);
    if (word == "access") access |= acl::kRead;
    if (word == "insert" || word == "update" || word == "delete") access |= acl::kWrite;
    if (space == std::string_view::npos) break;
    flags.remove_prefix(space + 1);
  }
  return access;
}

acl::Context ContextOf(const ClientState& client, acl::Context context) {
  return client.in_multi && context == acl::Context::kToplevel ? acl::Context::kMulti : context;
}

}  // namespace

acl::Catalog BuildAclCatalog(const CommandTable& table) {
  acl::Catalog catalog(table.id_count());
  table.ForEachRow([&](const CommandSpec& row) {
    acl::CommandInfo& info = catalog[static_cast<size_t>(row.id)];
    info.name = std::string(row.name);
    info.categories = acl::CategoryBits(row.acl);
    info.no_auth = (row.flags & kNoAuth) != 0;
    for (const CommandSpec& sub : row.subcommands) {
      info.subcommands.push_back(sub.id);
      catalog[static_cast<size_t>(sub.id)].parent = row.id;
    }
  });
  return catalog;
}

void RefreshUserOptions(acl::Users& users, const conf::Config& config) {
  users.SetPubsubDefault(config.Get("acl-pubsub-default") == "allchannels");
}

Result<std::unique_ptr<acl::Users>> StartUsers(const CommandTable& table,
                                               const conf::Config& config) {
  auto users = std::make_unique<acl::Users>(BuildAclCatalog(table));
  RefreshUserOptions(*users, config);
  users->SetDefaultPassword(config.Get("requirepass"));
  const std::string aclfile = config.Get("aclfile");
  // The config file's `user` lines, as Redis's ACLLoadConfiguredUsers: the default user is
  // reset first, another user may be declared once.
  const std::vector<std::vector<std::string>> declared = config.users();
  if (!aclfile.empty() && !declared.empty()) {
    return Status::InvalidArgument(
        "Configuring Redis with users defined in redis.conf and at the same setting an ACL "
        "file path is invalid. This setup is very likely to lead to configuration errors and "
        "security holes, please define either an ACL file or declare users directly in your "
        "redis.conf, but not both.");
  }
  std::set<std::string> seen;
  for (const std::vector<std::string>& words : declared) {
    if (!seen.insert(words[0]).second) {
      return Status::InvalidArgument("user '" + words[0] + "': Duplicate user found. A user "
                                     "can only be defined once in config files");
    }
    std::vector<std::string> rules(words.begin() + 1, words.end());
    if (words[0] == "default") rules.insert(rules.begin(), "reset");
    std::string error = users->SetUser(words[0], rules);
    if (!error.empty()) {
      return Status::InvalidArgument("user '" + words[0] + "': " + error.substr(4));
    }
  }
  if (!aclfile.empty()) {
    std::string error = users->Load(aclfile);
    if (!error.empty()) {
      return Status::InvalidArgument("ACL errors in " + aclfile + ": " + error.substr(4));
    }
  }
  return users;
}

acl::Call AclCall(const CommandSpec& spec, const std::vector<std::string>& args) {
  const CommandSpec& row = CommandTable::Resolve(spec, args);
  acl::Call call{.id = row.id, .args = args};
  const std::vector<size_t> keys = CommandTable::Keys(spec, args);
  const std::vector<std::string_view> flags = CommandTable::KeyFlags(spec, args, keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    // Shard channels are keys to the table (their slot) but channels to the ACL.
    if (flags[i] != "not_key") call.keys.push_back({keys[i], AccessOf(flags[i])});
  }
  // As Redis's ACLDoesCommandHaveChannels: the publishing and subscribing commands.
  const std::string_view name = row.name;
  if (name == "publish" || name == "spublish") {
    call.channels.push_back(1);
  } else if (name == "subscribe" || name == "ssubscribe" || name == "psubscribe") {
    for (size_t i = 1; i < args.size(); ++i) call.channels.push_back(i);
    call.channel_patterns = name == "psubscribe";
  }
  return call;
}

const acl::User* ClientUser(ServerState& server, ClientState& client) {
  const uint64_t version = server.users->version();
  if (client.user == nullptr) {  // a client that never had one (the test fixture's)
    client.user = server.users->Default();
    client.user_version = version;
  } else if (client.user_version != version) {
    std::shared_ptr<const acl::User> now = server.users->Get(client.user->name);
    // Deleted: the old user and version stay, so every later call finds it gone too.
    if (now == nullptr) return nullptr;
    client.user = std::move(now);
    client.user_version = version;
  }
  return client.user.get();
}

acl::Verdict CheckCall(ServerState& server, ClientState& client, const CommandSpec& spec,
                       const std::vector<std::string>& args, acl::Context context) {
  const acl::User* user = ClientUser(server, client);
  if (user == nullptr) return {acl::Denial::kAuth, 0};
  if (user->unrestricted) return {};
  const acl::Call call = AclCall(spec, args);
  const acl::Verdict verdict = acl::Check(*user, server.users->catalog(), call);
  if (!verdict.ok()) {
    std::string object = verdict.denial == acl::Denial::kCommand
                             ? std::string(server.users->catalog()[call.id].name)
                             : args[verdict.pos];
    LogDenial(server, client, verdict.denial, context, std::move(object), user->name);
  }
  return verdict;
}

std::string NoPermError(const acl::Verdict& verdict, const std::string& full_name) {
  switch (verdict.denial) {
    case acl::Denial::kKey:
      return "NOPERM this user has no permissions to access one of the keys used as arguments";
    case acl::Denial::kChannel:
      return "NOPERM this user has no permissions to access one of the channels used as "
             "arguments";
    default:
      return "NOPERM this user has no permissions to run the '" + full_name + "' command";
  }
}

void LogDenial(ServerState& server, const ClientState& client, acl::Denial reason,
               acl::Context context, std::string object, std::string username) {
  ClientInfo info;
  bool found = false;
  for (const ClientInfo& c : server.clients->ListLocal()) {
    if (c.id == client.id) {
      info = c;
      found = true;
    }
  }
  if (!found) {
    info.id = client.id;
    info.addr = client.addr;
    info.name = client.name;
    info.db = client.db;
    info.protocol = client.protocol;
    if (client.user) info.user = client.user->name;
  }
  std::string line = FormatClient(info);
  line.pop_back();  // the newline
  server.acl_log->Add({.reason = reason, .context = ContextOf(client, context),
                       .object = std::move(object), .username = std::move(username),
                       .time_ms = server.keyspace->clock()->NowMs(),
                       .client_info = std::move(line)},
                      static_cast<size_t>(std::max<int64_t>(0, server.acllog_max_len.load())));
}

bool FullKeyRead(ServerState& server, ClientState* client, const CommandSpec& spec,
                 const std::vector<std::string>& args) {
  if (client == nullptr) return true;
  const acl::User* user = ClientUser(server, *client);
  if (user == nullptr) return false;
  return user->unrestricted || acl::UnrestrictedKeyAccess(*user, server.users->catalog(),
                                                          AclCall(spec, args), acl::kRead);
}

}  // namespace slotkv::command
