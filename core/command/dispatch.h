// Admission: what every parsed request goes through before it runs, for the network layer and
// the test fixture alike: the command must exist, take that many arguments, be allowed before
// AUTH and, for a RESP2 client that subscribes to something, be one of the commands allowed
// then; inside MULTI it is queued instead (+QUEUED), and a refusal then makes the EXEC fail
// (EXECABORT), as Redis's processCommand and queueMultiCommand.
#pragma once

#include <string>
#include <vector>

#include "core/command/command_table.h"
#include "core/command/context.h"

namespace slotkv::command {

struct Admission {
  // The command's row (also for a refused request, when the name was known), and its name as
  // CLIENT LIST shows it ("client|list").
  const CommandSpec* spec = nullptr;
  // The row its stats go to: a container's subcommand row (CommandTable::Resolve), else spec.
  const CommandSpec* call = nullptr;
  std::string full_name;
  // Run spec with the args; else reply `reply` (RESP bytes) without running anything.
  bool run = false;
  std::string reply;
  bool refused = false;  // reply is an error refusing the request (rejected_calls)
  // A pause holds it (command/client_pause.h): admit it again once the pause ends.
  bool paused = false;
  // CLIENT REPLY OFF or SKIP is in effect: the request's reply is dropped (CLIENT REPLY itself
  // decides its own).
  bool quiet = false;
};

// Decides what to do with args (the name first). A queued request's args are moved into
// client.queued. REQUIRES: on the client's worker.
Admission Admit(ServerState& server, ClientState& client, std::vector<std::string>& args);

// Drops a WATCH session: removes the keys' entries on their owners (posted) and empties both.
// Any worker.
void Unwatch(ServerState& server, std::shared_ptr<txn::Watch>& watch,
             std::vector<WatchedKey>& watched);
// Drops the client's WATCH. REQUIRES: on the client's worker.
inline void Unwatch(ServerState& server, ClientState& client) {
  Unwatch(server, client.watch, client.watched);
}
// Leaves MULTI: the queue, the error flag and the WATCH go (DISCARD, RESET, a closing client).
void DiscardTransaction(ServerState& server, ClientState& client);
// Drops every subscription of the client, and its MONITOR feed; its worker is home (RESET, a
// closing client).
void UnsubscribeAll(ServerState& server, ClientState& client, int home);

}  // namespace slotkv::command
