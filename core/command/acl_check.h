// The ACL checks of the calls clients make, between the command table and core/acl: what a
// call touches (its row, keys with how it uses them, channels), the client's current user,
// the NOPERM texts and the ACL LOG entries.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "conf/config.h"
#include "core/acl/users.h"
#include "core/base/status.h"
#include "core/command/command_table.h"
#include "core/command/context.h"

namespace slotkv::command {

// Every row and subcommand row of table by id, as core/acl knows commands.
acl::Catalog BuildAclCatalog(const CommandTable& table);

// Passes the options the users follow (acl-pubsub-default) on to them.
void RefreshUserOptions(acl::Users& users, const conf::Config& config);

// The server's users at start: the default user (requirepass its password), then the config
// file's `user` lines, or aclfile's users. InvalidArgument with the errors (Redis refuses to
// start).
Result<std::unique_ptr<acl::Users>> StartUsers(const CommandTable& table,
                                               const conf::Config& config);

// What a call of spec with args touches: its row (a container's subcommand's), its keys with
// how the command uses each (CommandSpec::key_access), its channels.
acl::Call AclCall(const CommandSpec& spec, const std::vector<std::string>& args);

// The client's user, fetched again when the users changed since it was; nullptr when it was
// deleted (its connection is being closed). REQUIRES: on the client's worker.
const acl::User* ClientUser(ServerState& server, ClientState& client);

// Whether the client's user may run spec with args; a denial is logged in ACL LOG with
// context. Denial::kAuth when the user was deleted. REQUIRES: on the client's worker.
acl::Verdict CheckCall(ServerState& server, ClientState& client, const CommandSpec& spec,
                       const std::vector<std::string>& args, acl::Context context);

// The NOPERM error (without '-' and CRLF) of a denied top-level or queued call.
std::string NoPermError(const acl::Verdict& verdict, const std::string& full_name);

// Adds an entry to ACL LOG: reason and object (the command's full name, the key or channel,
// or the AUTH command as typed) for the client, whose line is taken from its worker's
// connections (client-info). REQUIRES: on the client's worker.
void LogDenial(ServerState& server, const ClientState& client, acl::Denial reason,
               acl::Context context, std::string object, std::string username);

// Whether the client's user may read every key in the call (SORT's BY and GET patterns).
bool FullKeyRead(ServerState& server, ClientState* client, const CommandSpec& spec,
                 const std::vector<std::string>& args);

}  // namespace slotkv::command
