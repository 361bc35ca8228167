// BlockOn: the loop of a blocking command (blocking.h's design): try each key on its owner,
// queueing on those with nothing to serve, park, and on a claim serve from the claimed key;
// a timeout replies a null array. The blocking families (blocking_commands.cc, XREAD /
// XREADGROUP in stream_read_commands.cc) describe a call and how to serve it from one key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/command/context.h"
#include "core/command/list_access.h"
#include "core/command/task.h"
#include "core/command/zset_access.h"

namespace slotkv::command {

// What trying one key gave.
enum class Try {
  kEmpty,    // no data: wait on the key
  kReplied,  // served (or an error was replied): done
  kMove,     // BLMOVE across slots: the source has data, run the two-step move
};

// One blocking call: its keys (a run of arguments), the type it waits for, and how to serve
// itself from one key on that key's owner.
struct BlockCall {
  ValueType type = ValueType::kList;
  size_t first_key = 1;
  size_t num_keys = 1;
  int64_t timeout_ms = 0;  // 0 = forever
  End list_end = End::kLeft;
  End list_to = End::kLeft;  // BLMOVE's destination end
  ZEnd zset_end = ZEnd::kMin;
  int64_t count = 1;
  // BLMOVE / BRPOPLPUSH: inside EXEC they reply as LMOVE does, a null bulk (a timeout is a null
  // array, as Redis's replyToBlockedClientTimedOut).
  bool moves = false;
  Try (*try_key)(AsyncContext& ctx, const BlockCall& call, Store& store,
                 const std::string& key) = nullptr;
  // The caller's own state for try_key (a plain pointer: it lives in the caller's frame,
  // which awaits BlockOn).
  void* data = nullptr;
};

// Runs the blocking loop of call; ends on the client's worker.
Task BlockOn(AsyncContext& ctx, BlockCall call);

}  // namespace slotkv::command
