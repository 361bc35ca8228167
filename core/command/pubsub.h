// Pub/Sub as the network layer sees it: the bytes of a message for a subscriber, in its
// protocol (pubsub/registry.h delivers them; the commands are in pubsub_commands.cc).
#pragma once

#include <string>

#include "core/pubsub/registry.h"

namespace slotkv::command {

// "message" / "pmessage" / "smessage" as Redis sends them: an array in RESP2, a push in RESP3.
// An invalidation (kInvalidate) is a push ["invalidate", [key] or null] in RESP3; in RESP2 a
// "message" on __redis__:invalidate to a subscribed REDIRECT target, nothing to another client
// (empty).
std::string EncodeMessage(const pubsub::Message& message, int protocol, bool subscribed = false);

}  // namespace slotkv::command
