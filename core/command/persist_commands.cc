// Persist family: LASTSAVE SAVE BGSAVE BGREWRITEAOF.
//
// A write is in its slot's WAL before it is acknowledged; persisting moves the WAL's groups into
// the bucket and chunk files (Slot::Flush), after which their log files are unlinked. SAVE does
// it for every slot before it replies. BGSAVE and BGREWRITEAOF start the same background job:
// each worker flushes its slots one at a time between its requests, and the last to finish
// records the result. For BGREWRITEAOF that is the effect of Redis's AOF rewrite (the log
// shrinks to what is not yet persisted), for BGSAVE the RDB's (LASTSAVE moves). As Redis runs
// one child at a time, one job runs at a time: BGREWRITEAOF asked while a BGSAVE runs is
// scheduled, as is BGSAVE SCHEDULE while a rewrite runs, and inside EXEC both are scheduled
// (Redis's in_exec); a scheduled job starts when the running one ends.
#include <memory>
#include <string_view>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/server_family.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrBgSaveRunning = "ERR Background save already in progress";

int64_t NowMs(const ServerState& state) { return state.keyspace->clock()->NowMs(); }

PersistJobStats& StatsOf(ServerState& state, int kind) {
  return kind == kBgSaveJob ? state.bgsave : state.aof_rewrite;
}

Task LastSave(AsyncContext& ctx) {
  ctx.reply.Integer(ctx.server.last_save_s.load());
  co_return;
}

// Persists every database of slot s (its groups leave the log for the bucket files).
// REQUIRES: on s's owner.
Status FlushSlot(ServerState& state, uint32_t s) {
  Status first;
  for (uint32_t db = 0; db < state.keyspace->databases(); ++db) {
    Result<slot::Slot*> slot = state.keyspace->Get(s, db, /*create=*/false);
    Status st = !slot.ok() ? slot.status() : *slot ? (*slot)->Flush() : Status::OK();
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  return first;
}

void MarkSaved(ServerState& state) {
  state.last_save_s = NowMs(state) / 1000;
  state.saves.fetch_add(1);
}

// SAVE: every slot of every database persisted on its owner before the reply.
Task Save(AsyncContext& ctx) {
  if (ctx.server.background_persist.load() == kBgSaveJob) {
    ctx.reply.Error(kErrBgSaveRunning);
    co_return;
  }
  const int workers = ctx.server.executor->workers();
  const uint32_t slots = ctx.server.keyspace->slots();
  Status failure;
  for (int w = 0; w < workers; ++w) {
    for (uint32_t s = static_cast<uint32_t>(w); s < slots; s += static_cast<uint32_t>(workers)) {
      co_await ctx.ToSlot(s);  // after any transaction holding it
      Status st = FlushSlot(ctx.server, s);
      if (!st.ok() && failure.ok()) failure = std::move(st);
    }
  }
  co_await ctx.ToHome();
  if (Failed(failure, ctx.reply)) co_return;
  MarkSaved(ctx.server);
  ctx.reply.Ok();
}

// A background job in flight.
struct Job {
  Job(ServerState* s, int k, int workers) : state(s), kind(k), workers_left(workers) {}
  ServerState* state;
  int kind;
  std::atomic<int> workers_left;
  std::atomic<bool> failed{false};
};

void StartScheduled(ServerState& state);

// The last worker's end of a job: its result, then a scheduled job's start.
void Finish(const Job& job) {
  ServerState& state = *job.state;
  PersistJobStats& st = StatsOf(state, job.kind);
  st.last_ok = !job.failed;
  st.failures_in_row = job.failed ? st.failures_in_row + 1 : 0;
  st.last_time_s = (NowMs(state) - st.started_ms) / 1000;
  st.runs.fetch_add(1);
  if (!job.failed && job.kind == kBgSaveJob) MarkSaved(state);
  state.background_persist = kNoPersistJob;
  StartScheduled(state);
}

// One slot of worker w's share; `turn`: run by the release of a transaction holding s.
void Step(std::shared_ptr<Job> job, int w, uint32_t s, bool turn = false) {
  ServerState& state = *job->state;
  if (s < state.keyspace->slots()) {
    txn::SlotLocks& locks = state.keyspace->locks();
    if (!turn && !locks.Free(s)) {
      locks.Defer(s, nullptr, [job = std::move(job), w, s] { Step(job, w, s, true); });
      return;
    }
    if (!FlushSlot(state, s).ok()) job->failed = true;
    const uint32_t next = s + static_cast<uint32_t>(state.executor->workers());
    state.executor->Post(w, [job = std::move(job), w, next] { Step(job, w, next); });
    return;
  }
  if (job->workers_left.fetch_sub(1) == 1) Finish(*job);
}

// Starts a job of `kind` unless one runs; false then.
bool TryStart(ServerState& state, int kind) {
  int idle = kNoPersistJob;
  if (!state.background_persist.compare_exchange_strong(idle, kind)) return false;
  StatsOf(state, kind).started_ms = NowMs(state);
  const int workers = state.executor->workers();
  auto job = std::make_shared<Job>(&state, kind, workers);
  for (int w = 0; w < workers; ++w) {
    state.executor->Post(w, [job, w] { Step(job, w, static_cast<uint32_t>(w)); });
  }
  return true;
}

// Starts a scheduled job if none runs (as Redis's serverCron: the rewrite first). Called when
// a job ends and after a command schedules one (the running job may have ended meanwhile).
void StartScheduled(ServerState& state) {
  for (int kind : {kAofRewriteJob, kBgSaveJob}) {
    PersistJobStats& st = StatsOf(state, kind);
    if (st.scheduled.load() && TryStart(state, kind)) st.scheduled = false;
  }
}

// Schedules a job of `kind` for when none runs.
void Schedule(ServerState& state, int kind) {
  StatsOf(state, kind).scheduled = true;
  StartScheduled(state);
}

// BGSAVE [SCHEDULE]: starts the persist and replies at once.
Task BgSave(AsyncContext& ctx) {
  if (ctx.args.size() > 2 || (ctx.args.size() == 2 && !Is(ctx.args[1], "SCHEDULE"))) {
    ctx.reply.Error(kErrSyntax);
    co_return;
  }
  const bool schedule = ctx.args.size() == 2;
  if (ctx.server.background_persist.load() == kBgSaveJob) {
    ctx.reply.Error(kErrBgSaveRunning);
  } else if (ctx.no_block || !TryStart(ctx.server, kBgSaveJob)) {  // in EXEC, or a rewrite runs
    if (schedule || ctx.no_block) {
      Schedule(ctx.server, kBgSaveJob);
      ctx.reply.SimpleString("Background saving scheduled");
    } else {
      ctx.reply.Error(
          "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE "
          "SCHEDULE in order to schedule a BGSAVE whenever possible.");
    }
  } else {
    ctx.reply.SimpleString("Background saving started");
  }
}

// BGREWRITEAOF: the same persist, as the AOF rewrite.
Task BgRewriteAof(AsyncContext& ctx) {
  if (ctx.server.background_persist.load() == kAofRewriteJob) {
    ctx.reply.Error("ERR Background append only file rewriting already in progress");
  } else if (ctx.no_block || !TryStart(ctx.server, kAofRewriteJob)) {
    ctx.server.aof_rewrite.failures_in_row = 0;  // as Redis, on scheduling
    Schedule(ctx.server, kAofRewriteJob);
    ctx.reply.SimpleString("Background append only file rewriting scheduled");
  } else {
    ctx.reply.SimpleString("Background append only file rewriting started");
  }
  co_return;
}

}  // namespace

// Arity, flags, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO and
// COMMAND DOCS.
void RegisterPersistCommands(CommandTable& t) {
  t.Add({.name = "lastsave",
         .arity = 1, .flags = kLoading | kStale | kFast,
         .run_async = LastSave, .group = "server",
         .summary = "Returns the Unix timestamp of the last successful save to disk.",
         .since = "1.0.0", .acl = "admin fast dangerous"});
  t.Add({.name = "save",
         .arity = 1, .flags = kNoMulti | kAdmin | kNoScript | kNoAsyncLoading,
         .run_async = Save, .group = "server",
         .summary = "Synchronously saves the database(s) to disk.",
         .since = "1.0.0", .acl = "admin slow dangerous"});
  t.Add({.name = "bgsave",
         .arity = -1, .flags = kAdmin | kNoScript | kNoAsyncLoading,
         .run_async = BgSave, .group = "server",
         .summary = "Asynchronously saves the database(s) to disk.",
         .since = "1.0.0", .acl = "admin slow dangerous"});
  t.Add({.name = "bgrewriteaof",
         .arity = 1, .flags = kAdmin | kNoScript | kNoAsyncLoading,
         .run_async = BgRewriteAof, .group = "server",
         .summary = "Asynchronously rewrite the append-only file",
         .since = "1.0.0", .acl = "admin slow dangerous"});
}

}  // namespace slotkv::command
