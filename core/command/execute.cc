#include "core/command/execute.h"

#include <chrono>

#include "core/command/blocking.h"
#include "core/command/latency.h"
#include "core/command/monitor.h"
#include "core/command/notify.h"


namespace slotkv::command {

namespace {
thread_local int64_t tl_last_now_us = 0;
}  // namespace

int64_t NowUs() {
  tl_last_now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::steady_clock::now().time_since_epoch())
                       .count();
  return tl_last_now_us;
}

int64_t LastNowUs() { return tl_last_now_us; }

namespace {

// Runs spec; false (nothing recorded, no reply) when no_wait is given and a read missed.
bool Run(ServerState& state, const CommandSpec& spec, std::vector<std::string>& args,
         uint32_t slot, uint32_t db, int protocol, const std::string& client_addr,
         const std::string& client_name, std::string* out, NoWaitReads* no_wait,
         WriteTrace* trace) {
  int64_t start = NowUs();
  Store store(state.keyspace, slot, db,
              &(*state.dirty)[static_cast<size_t>(state.executor->current())], trace);
  CommandNotifier notifier(state, &spec, &args);
  store.set_observer(&notifier);
  Reply reply(protocol);
  CommandContext ctx{args, reply, store, state,
                     *(*state.stats)[static_cast<size_t>(state.executor->current())]};
  spec.run(ctx);
  if (no_wait != nullptr && !no_wait->blocked().empty()) return false;
  RecordCall(state, spec, args, NowUs() - start, reply.error_code(), client_addr, client_name);
  // Clients blocked on a key this command filled are served before anything else runs here.
  if (state.blocking) state.blocking->ServeReady();
  *out = std::move(reply.buffer());
  return true;
}

}  // namespace

std::string Execute(ServerState& state, const CommandSpec& spec,
                    std::vector<std::string>& args, uint32_t slot, uint32_t db, int protocol,
                    const std::string& client_addr, const std::string& client_name,
                    WriteTrace* trace) {
  std::string reply;
  Run(state, spec, args, slot, db, protocol, client_addr, client_name, &reply, nullptr, trace);
  return reply;
}

bool TryExecute(ServerState& state, const CommandSpec& spec, std::vector<std::string>& args,
                uint32_t slot, uint32_t db, int protocol, const std::string& client_addr,
                const std::string& client_name, std::string* reply,
                std::vector<BlockedRead>* blocked) {
  return RunWithoutWaiting(state, blocked, [&] {
    Run(state, spec, args, slot, db, protocol, client_addr, client_name, reply,
        NoWaitReads::Current(), nullptr);
  });
}

bool HoldsSlots(const CommandSpec& spec, const std::vector<std::string>& args) {
  if (spec.flags & (kBlocking | kVisits | kOwnTransaction)) return false;
  if (CommandTable::AllSlots(spec, args) && (spec.flags & kWrite)) return true;
  return !CommandTable::Keys(spec, args).empty();
}

void AddSlots(const Keyspace& keyspace, const CommandSpec& spec,
              const std::vector<std::string>& args, std::vector<uint32_t>* slots) {
  if (CommandTable::AllSlots(spec, args)) {
    for (uint32_t s = 0; s < keyspace.slots(); ++s) slots->push_back(s);
    return;
  }
  for (size_t k : CommandTable::Keys(spec, args)) slots->push_back(keyspace.SlotOfKey(args[k]));
}

Task RunTask(const CommandSpec& spec, AsyncContext& ctx) {
  if (HoldsSlots(spec, ctx.args)) {
    if (CommandTable::AllSlots(spec, ctx.args)) {
      ctx.Hold(/*units=*/false);
    } else {
      ctx.HoldKeys(CommandTable::Keys(spec, ctx.args));
    }
    if (!(spec.flags & kOrderedVisits)) {
      std::vector<uint32_t> slots;
      AddSlots(*ctx.server.keyspace, spec, ctx.args, &slots);
      co_await ctx.LockSlots(std::move(slots));
    }
  }
  co_await RunAsync(spec, ctx);
  co_await ctx.Finish();
}

Task RunAsync(const CommandSpec& spec, AsyncContext& ctx) {
  CommandNotifier notifier(ctx.server, &spec, &ctx.args);
  ctx.observer = &notifier;
  // The address is fixed at accept: read from any worker (a task may start off its home).
  const std::string_view addr = ctx.client ? std::string_view(ctx.client->addr) : "";
  FeedCall(ctx.server, spec, ctx.args, ctx.db, addr, /*starting=*/true);
  co_await spec.run_async(ctx);
  FeedCall(ctx.server, spec, ctx.args, ctx.db, addr, /*starting=*/false);
  ctx.observer = nullptr;
}

void RecordCall(ServerState& state, const CommandSpec& spec,
                const std::vector<std::string>& args, int64_t usec, std::string_view error_code,
                const std::string& client_addr, const std::string& client_name) {
  WorkerStats& stats = *(*state.stats)[static_cast<size_t>(state.executor->current())];
  // A container's call counts for its subcommand's row (cmdstat_config|get), as Redis 7.
  const CommandSpec& row = CommandTable::Resolve(spec, args);
  CommandStat& cs = stats.per_command[row.id];
  RecordLatency(state, row, cs, usec);
  WorkerStats::Add(cs.calls);
  WorkerStats::Add(cs.usec, static_cast<uint64_t>(usec));
  WorkerStats::Add(stats.commands_processed);
  if (!error_code.empty()) {
    WorkerStats::Add(cs.failed_calls);
    WorkerStats::Add(stats.error_replies);
    state.error_stats.Add(error_code);
  }
  int64_t slower_than = state.slowlog_slower_than.load(std::memory_order_relaxed);
  if (slower_than >= 0 && usec >= slower_than && !(spec.flags & kSkipSlowlog)) {
    state.slowlog->Add(args, usec, state.keyspace->clock()->NowMs() / 1000,
                       client_addr, client_name,
                       static_cast<size_t>(state.slowlog_max_len.load()));
  }
}

}  // namespace slotkv::command
