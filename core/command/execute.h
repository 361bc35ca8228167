// Running one-key commands on the calling worker, and the per-command bookkeeping every command
// gets (commandstats, slowlog).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/no_wait_reads.h"
#include "core/command/command_table.h"
#include "core/command/context.h"

namespace slotkv::command {

int64_t NowUs();
// The last NowUs() this thread read (0 before the first): free, and as fresh as the last command
// this thread ran (Run reads the clock after each).
int64_t LastNowUs();

// Runs a one-key command on the calling worker (the owner of slot) and returns its reply
// bytes. The writes join the worker's dirty slots: the caller commits them before the reply
// leaves, and asks write_failures for their outcome with *trace, which the slots written are
// added to (its mark taken before; nullptr for a command that writes nothing).
// REQUIRES: spec.run; on the owner of slot.
std::string Execute(ServerState& state, const CommandSpec& spec,
                    std::vector<std::string>& args, uint32_t slot, uint32_t db, int protocol,
                    const std::string& client_addr, const std::string& client_name,
                    WriteTrace* trace);

// Execute for a read-only command whose reads must not wait for the disk (NoWaitReads). When
// one would, the run is dropped (no reply, nothing counted; the command changed no data) and
// false is returned with the regions it missed appended to *blocked (counted in read_waits):
// fetch them (IoRing) and try again. True with the reply in *reply otherwise.
// REQUIRES: spec.run; spec.flags has kReadOnly and not kWrite; on the owner of slot.
bool TryExecute(ServerState& state, const CommandSpec& spec, std::vector<std::string>& args,
                uint32_t slot, uint32_t db, int protocol, const std::string& client_addr,
                const std::string& client_name, std::string* reply,
                std::vector<BlockedRead>* blocked);

// Runs run() with the calling thread's reads made no-wait (NoWaitReads): true when none of them
// missed the page cache; else false, with the regions missed appended to *blocked (counted in
// the worker's read_waits), to fetch (IoRing) before running it again. What run() did is to be
// dropped on false. The one rule for every read that parks: TryExecute, ForEachKeySlotReading.
template <typename Run>
bool RunWithoutWaiting(ServerState& state, std::vector<BlockedRead>* blocked, Run&& run) {
  NoWaitReads no_wait;
  run();
  if (no_wait.blocked().empty()) return true;
  for (BlockedRead& r : no_wait.Take()) blocked->push_back(r);
  WorkerStats::Add((*state.stats)[static_cast<size_t>(state.executor->current())]->read_waits);
  return false;
}

// Whether spec, run with args as a task, holds its slots to the end (txn/slot_locks.h): it
// has keys, or writes every slot (CommandTable::AllSlots), and does not visit them one at a time
// (kBlocking, kVisits), and runs no transaction of its own (kOwnTransaction).
bool HoldsSlots(const CommandSpec& spec, const std::vector<std::string>& args);
// Appends the slots spec run with args reaches: those of its keys, or every slot (AllSlots).
void AddSlots(const Keyspace& keyspace, const CommandSpec& spec,
              const std::vector<std::string>& args, std::vector<uint32_t>* slots);
// Runs a coroutine command to its end. One that HoldsSlots becomes a holder, and takes all its
// slots first unless it reaches them in the global order itself (kOrderedVisits); it ends
// with Finish (its units committed, its slots given back) on the home worker.
Task RunTask(const CommandSpec& spec, AsyncContext& ctx);
// Runs spec's coroutine with ctx, its writes told to keyspace notifications (notify.h), the
// call fed to MONITOR (FeedCall): every run of a coroutine command goes through it (RunTask,
// EXEC, scripts).
Task RunAsync(const CommandSpec& spec, AsyncContext& ctx);

// Counts one finished call in the calling worker's stats and the slow log; error_code: its
// error reply's (Reply::error_code), empty when it did not fail.
void RecordCall(ServerState& state, const CommandSpec& spec,
                const std::vector<std::string>& args, int64_t usec, std::string_view error_code,
                const std::string& client_addr, const std::string& client_name);

}  // namespace slotkv::command
