#include "core/command/acl_check.h"

#include <algorithm>

#include "core/command/args.h"

namespace slotkv::command {
namespace {

// The access of one key_access word ("R", "W", "RW", "-").
uint8_t AccessOf(std::string_view word) {
  uint8_t access = 0;
  if (word.find('R') != std::string_view::npos) access |= acl::kRead;
  if (word.find('W') != std::string_view::npos) access |= acl::kWrite;
  return access;
}

// The key_access of a call: the row's, else by its flags.
std::string_view KeyAccess(const CommandSpec& row, const std::vector<std::string>& args) {
  // SET ... GET reads the old value: Redis's one command whose key flags vary with its
  // arguments (setGetKeys).
  if (row.name == "set") {
    for (size_t i = 3; i < args.size(); ++i) {
      if (Is(args[i], "GET")) return "RW";
    }
  }
  if (!row.key_access.empty()) return row.key_access;
  if (row.flags & kReadOnly) return "R";
  if (row.flags & kWrite) return "W";
  return "RW";
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

Result<std::unique_ptr<acl::Users>> StartUsers(const CommandTable& table,
                                               const conf::Config& config) {
  auto users = std::make_unique<acl::Users>(BuildAclCatalog(table));
  users->SetDefaultPassword(config.Get("requirepass"));
  const std::string aclfile = config.Get("aclfile");
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
  // Shard channels are keys to the table (their slot) but channels to the ACL.
  if (!(row.flags & kPubSub)) {
    const std::string_view access = KeyAccess(row, args);
    size_t word_start = 0;
    for (size_t pos : CommandTable::Keys(spec, args)) {
      const size_t space = access.find(' ', word_start);
      call.keys.push_back({pos, AccessOf(access.substr(word_start, space - word_start))});
      if (space != std::string_view::npos) word_start = space + 1;
    }
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
