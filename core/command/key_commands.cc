// Keyspace family: DEL EXISTS and the other generic key commands.
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"

namespace slotkv::command {
namespace {

// DEL / UNLINK key [key ...]: how many existed.
Task Del(AsyncContext& ctx) {
  int64_t removed = 0;
  Status failure;
  co_await ForEachKeySlot(ctx, CommandTable::KeyPositions(*ctx.server.table->Find("del"),
                                                          ctx.args.size()),
                          [&](Store& store, const std::vector<size_t>& positions) {
                            for (size_t p : positions) {
                              Result<bool> r = store.Delete(ctx.args[p]);
                              if (!r.ok()) {
                                if (failure.ok()) failure = r.status();
                                return;
                              }
                              removed += *r ? 1 : 0;
                            }
                          });
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Integer(removed);
}

// EXISTS key [key ...]: how many of the keys exist (a key named twice counts twice).
Task Exists(AsyncContext& ctx) {
  int64_t found = 0;
  Status failure;
  std::vector<size_t> positions;
  for (size_t i = 1; i < ctx.args.size(); ++i) positions.push_back(i);
  co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
    for (size_t p : ps) {
      Result<std::optional<slot::KeyMeta>> m = store.GetMeta(ctx.args[p]);
      if (!m.ok()) {
        if (failure.ok()) failure = m.status();
        return;
      }
      found += m->has_value() ? 1 : 0;
    }
  });
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Integer(found);
}

}  // namespace

void RegisterKeyCommands(CommandTable& t) {
  t.Add({.name = "del", .arity = -2, .flags = kWrite, .first_key = 1, .last_key = -1,
         .step = 1, .run_async = Del, .group = "generic", .summary = "Deletes one or more keys.",
         .since = "1.0.0", .acl = "keyspace write slow"});
  t.Add({.name = "exists", .arity = -2, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = -1, .step = 1, .run_async = Exists, .group = "generic",
         .summary = "Determines whether one or more keys exist.", .since = "1.0.0",
         .acl = "keyspace read fast"});
}

}  // namespace slotkv::command
