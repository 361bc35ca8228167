// ClientPause: CLIENT PAUSE and a FAILOVER's pause, as Redis's pauseClients. While a pause is
// on, the commands it covers wait before they run: ALL every command, WRITE the ones that
// may change the dataset or reach replicas (kWrite and kMayReplicate, and EXEC of a
// transaction holding one). A waiting command holds its connection's later requests too,
// and runs (admitted again: a FAILOVER that made this node a replica refuses it then) once
// the pause ends. Replicas' links never wait. Active expiry waits too, so the dataset holds
// still (a FAILOVER waits for a replica to reach the master's offsets).
//
// Each purpose keeps its own pause; the strictest one in force applies.
//
// Thread rule: any thread (atomics).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "core/command/command_table.h"
#include "core/command/context.h"

namespace slotkv::command {

enum class PauseMode : int { kNone = 0, kWrite = 1, kAll = 2 };
enum class PausePurpose : int { kClient = 0, kFailover = 1 };

class ClientPause {
 public:
  static constexpr int64_t kForever = INT64_MAX;

  // Pauses for purpose in mode until end_ms (monotonic ms; kForever: until Unpause). As
  // Redis's pauseClients: the mode replaces the purpose's, an earlier end does not.
  void Pause(PausePurpose purpose, PauseMode mode, int64_t end_ms);
  void Unpause(PausePurpose purpose);
  // Whether a pause was set and not unpaused (a CLIENT PAUSE may have timed out since): the
  // check per request, before the clock is read.
  bool active() const;
  // The strictest pause in force at now_ms.
  PauseMode Mode(int64_t now_ms) const;
  // Whether the call spec + args (for EXEC: queued, the transaction's commands) waits at
  // now_ms; a container's subcommand by its own flags (CommandTable::CallFlags).
  bool Holds(const CommandSpec& spec, const std::vector<std::string>& args,
             const std::vector<QueuedCommand>& queued, int64_t now_ms) const;

 private:
  struct Purpose {
    std::atomic<int64_t> end_ms{0};
    std::atomic<int> mode{0};
  };
  std::array<Purpose, 2> purposes_;
};

}  // namespace slotkv::command
