// Pub/Sub as the network layer sees it: the bytes of a message for a subscriber, in its
// protocol (pubsub/registry.h delivers them; the commands are in pubsub_commands.cc).
#pragma once

#include <string>

#include "core/pubsub/registry.h"

namespace slotkv::command {

// "message" / "pmessage" / "smessage" as Redis sends them: an array in RESP2, a push in RESP3.
std::string EncodeMessage(const pubsub::Message& message, int protocol);

}  // namespace slotkv::command
