// Server family: DBSIZE FLUSHDB FLUSHALL INFO CONFIG and the other server commands.
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"

namespace slotkv::command {
namespace {

Task DbSize(AsyncContext& ctx) {
  uint64_t total = 0;
  Status failure;
  co_await ForEachSlot(
      ctx,
      [&](Store& store) {
        Result<uint64_t> n = store.KeyCount();
        if (!n.ok()) {
          failure = n.status();
          return false;
        }
        total += *n;
        return true;
      },
      ctx.db);
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Integer(static_cast<int64_t>(total));
}

// FLUSHDB [ASYNC | SYNC] and FLUSHALL [ASYNC | SYNC]: either way the data is gone on return.
Task Flush(AsyncContext& ctx, bool all) {
  if (ctx.args.size() > 2 || (ctx.args.size() == 2 && !Is(ctx.args[1], "ASYNC") &&
                              !Is(ctx.args[1], "SYNC"))) {
    ctx.reply.Error(kErrSyntax);
    co_return;
  }
  Status failure;
  const uint32_t first = all ? 0 : ctx.db;
  const uint32_t last = all ? ctx.server.keyspace->databases() - 1 : ctx.db;
  for (uint32_t db = first; db <= last; ++db) {
    co_await ForEachSlot(
        ctx,
        [&](Store& store) {
          Status st = store.Clear();
          if (!st.ok() && failure.ok()) failure = std::move(st);
          return true;
        },
        db);
  }
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Ok();
}

Task FlushDb(AsyncContext& ctx) { return Flush(ctx, false); }
Task FlushAll(AsyncContext& ctx) { return Flush(ctx, true); }

}  // namespace

void RegisterServerCommands(CommandTable& t) {
  t.Add({.name = "dbsize", .arity = 1, .flags = kReadOnly | kFast, .run_async = DbSize,
         .group = "server", .summary = "Returns the number of keys in the database.",
         .since = "1.0.0", .acl = "keyspace read fast"});
  t.Add({.name = "flushdb", .arity = -1, .flags = kWrite, .run_async = FlushDb,
         .group = "server", .summary = "Removes all keys from the current database.",
         .since = "1.0.0", .acl = "keyspace write slow dangerous"});
  t.Add({.name = "flushall", .arity = -1, .flags = kWrite, .run_async = FlushAll,
         .group = "server", .summary = "Removes all keys from all databases.", .since = "1.0.0",
         .acl = "keyspace write slow dangerous"});
}

}  // namespace slotkv::command
