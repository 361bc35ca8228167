// Replication as the commands see it: the node's role, the refusal of client writes on a
// replica, and the handlers of REPLICAOF, ROLE, WAIT, INFO replication and a replica's link
// commands. repl/ implements it (repl/replication.h); without it (unit tests) those commands
// answer as a master with no replicas would.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/command/context.h"

namespace slotkv::command {

class Replication {
 public:
  virtual ~Replication() = default;
  // Why a client's write must be refused before it runs ("READONLY ..." on a read-only
  // replica, "NOREPLICAS ..." on a master short of good replicas); empty when it may run.
  // Any worker.
  virtual std::string_view RefuseWrite() const = 0;
  // Whether this node is a replica: it never expires keys itself (its master's deletes do).
  virtual bool is_replica() const = 0;
  // Takes the replication options again (after CONFIG SET).
  virtual void Refresh() = 0;
  // REPLICAOF host port | NO ONE (and SLAVEOF). On the client's worker.
  virtual void ReplicaOf(AsyncContext& ctx) = 0;
  // ROLE's reply.
  virtual void Role(Reply& reply) = 0;
  // The lines of INFO's replication section ("role:..." first).
  virtual std::string Info() = 0;
  // WAIT numreplicas timeout: replies with how many replicas acknowledged every write made so
  // far, once that many did or the timeout (ms, 0 = none) passed.
  virtual Task Wait(AsyncContext& ctx, int64_t replicas, int64_t timeout_ms) = 0;
  // SLOTKV.SYNC ...: the client is a replica starting its link; from now on its connection
  // carries the replication streams. SLOTKV.ACK ...: its acknowledgements (no reply).
  virtual void Sync(AsyncContext& ctx) = 0;
  virtual void Ack(AsyncContext& ctx) = 0;
};

}  // namespace slotkv::command
