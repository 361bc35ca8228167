// Transaction family: MULTI EXEC DISCARD WATCH UNWATCH, as Redis 7.0's multi.c.
//
// MULTI makes the connection queue its commands (Admit, dispatch.h); EXEC runs them as one
// transaction across slot owners (txn/slot_locks.h): it takes every slot its commands and
// watched keys reach, in the global order, on their owners; checks the WATCH; runs the
// commands in order, hopping to each one's owner; then commits each slot's writes as one WAL
// unit and gives the slots back, on every worker at once. No other request reads or writes
// those slots in between, so no client sees the transaction half done, and a crash leaves
// each slot's part whole or absent. Commands with no keys run on the client's worker; those
// that reach every slot (KEYS, FLUSHDB ...) make EXEC take every slot.
//
// When every queued command has one key, commands of different slots touch different keys
// and commute: EXEC then runs them owner by owner (each reply in its place), and without a
// WATCH to check once everything is taken it runs each owner's commands as soon as it has
// taken that owner's slots (two-phase locking lets a transaction work while it still takes).
// Two keys on two workers then cost two hops where running in queue order costs four.
//
// WATCH registers each key with its slot's owner (txn/watched_keys.h); a write there marks
// the client's watch dirty, and EXEC replies a null array when it is, or when a watched key
// that had an expiry time at WATCH has expired since (Redis's isWatchedKeyExpired).
#include <algorithm>

#include "core/command/acl_check.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/dispatch.h"
#include "core/command/errors.h"
#include "core/command/execute.h"
#include "core/command/monitor.h"
#include "core/command/fanout.h"

namespace slotkv::command {
namespace {

Task Multi(AsyncContext& ctx) {
  if (ctx.client->in_multi) {
    ctx.reply.Error(kErrNestedMulti);
    co_return;
  }
  ctx.client->in_multi = true;
  ctx.reply.Ok();
}

Task Discard(AsyncContext& ctx) {
  if (!ctx.client->in_multi) {
    ctx.reply.Error(kErrDiscardNoMulti);
    co_return;
  }
  DiscardTransaction(ctx.server, *ctx.client);
  ctx.reply.Ok();
}

Task Unwatch(AsyncContext& ctx) {
  Unwatch(ctx.server, *ctx.client);
  ctx.reply.Ok();
  co_return;
}

// WATCH key [key ...]: each key is registered on its owner in the step that reads its expiry
// time, so no write can slip between the two.
Task Watch(AsyncContext& ctx) {
  ClientState& client = *ctx.client;
  if (client.in_multi) {
    ctx.reply.Error(kErrWatchInMulti);
    co_return;
  }
  if (!client.watch) client.watch = std::make_shared<txn::Watch>();
  std::shared_ptr<txn::Watch> watch = client.watch;
  std::vector<size_t> positions(ctx.args.size() - 1);
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = i + 1;
  std::vector<WatchedKey> added;
  Status failure;
  co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
    for (size_t p : ps) {
      const std::string& key = ctx.args[p];
      Result<std::optional<slot::KeyMeta>> meta = store.GetMeta(key);
      if (!meta.ok()) {
        if (failure.ok()) failure = meta.status();
        continue;
      }
      ctx.server.keyspace->watched().Add(store.slot(), ctx.db, key, watch);
      added.push_back({ctx.db, key, store.slot(), *meta ? (*meta)->expire_at_ms : 0});
    }
  });
  // Home again (ForEachKeySlot ends there): the client's list may change now.
  for (WatchedKey& k : added) {
    const bool known =
        std::any_of(client.watched.begin(), client.watched.end(),
                    [&](const WatchedKey& w) { return w.db == k.db && w.key == k.key; });
    if (!known) client.watched.push_back(std::move(k));
  }
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Ok();
}

// Whether a watched key with an expiry time at WATCH has expired since.
bool WatchedKeyExpired(const std::vector<WatchedKey>& watched, int64_t now_ms) {
  return std::any_of(watched.begin(), watched.end(), [&](const WatchedKey& k) {
    return k.expire_at_ms != 0 && k.expire_at_ms <= now_ms;
  });
}

// EXEC's state that lives on after the client's own is reset.
struct ExecState {
  std::vector<QueuedCommand> queued;
  // [i]: the error reply of a queued command the client's ACL user may no longer run, else "".
  std::vector<std::string> refused;
  std::shared_ptr<txn::Watch> watch;
  std::vector<WatchedKey> watched;
  uint32_t db = 0;
  int protocol = 2;
  std::string addr;
  std::string name;
};

// Looks at the watch once every slot is taken (a write of a watched key came before, and set
// the flag, or waits for the transaction) and drops it; true after replying the null array.
bool WatchFailed(AsyncContext& ctx, ExecState& st) {
  const bool dirty = (st.watch && st.watch->dirty.load()) ||
                     WatchedKeyExpired(st.watched, ctx.server.keyspace->clock()->NowMs());
  Unwatch(ctx.server, st.watch, st.watched);
  if (dirty) ctx.reply.NullArray();
  return dirty;
}

// Runs one queued command inside the transaction and appends its reply to ctx's. db and
// protocol follow what the command leaves on the client (SELECT, HELLO).
Task RunQueued(AsyncContext& ctx, ExecState& st, QueuedCommand& cmd) {
  const CommandSpec& spec = *cmd.spec;
  if (spec.run) {
    const uint32_t slot =
        ctx.server.keyspace->SlotOfKey(cmd.args[static_cast<size_t>(spec.first_key)]);
    co_await ctx.ToSlot(slot);  // held since the start
    ctx.reply.buffer() +=
        Execute(ctx.server, spec, cmd.args, slot, st.db, st.protocol, st.addr, st.name,
                &ctx.trace);
    FeedMonitors(ctx.server, spec, cmd.args, st.db, st.addr);
    co_return;
  }
  // A coroutine command starts on the client's worker, as it would alone; it shares the
  // transaction's slots and does not block.
  co_await ctx.ToHome();
  AsyncContext sub(std::move(cmd.args), st.protocol, &ctx.server, ctx.client, ctx.home);
  sub.db = st.db;
  sub.holder = ctx.holder;
  sub.no_block = true;
  const int64_t start = NowUs();
  co_await RunAsync(spec, sub);
  ctx.Absorb(sub);
  RecordCall(ctx.server, spec, sub.args, NowUs() - start, sub.reply.error_code(), st.addr,
             st.name);
  ctx.reply.buffer() += sub.reply.buffer();
  // Only commands that never leave the client's worker change its state (SELECT, HELLO ...).
  if (ctx.server.executor->current() == ctx.home) {
    st.db = ctx.client->db;
    st.protocol = ctx.client->protocol;
  }
}

// The slot of each queued command when every one has one key (runs on its owner); else
// empty.
std::vector<uint32_t> OneKeySlots(const Keyspace& keyspace, const ExecState& st) {
  std::vector<uint32_t> slots;
  for (const QueuedCommand& cmd : st.queued) {
    if (!cmd.spec->run) return {};
    slots.push_back(keyspace.SlotOfKey(cmd.args[static_cast<size_t>(cmd.spec->first_key)]));
  }
  return slots;
}

// Runs the queued commands whose slots the calling worker owns, each reply at its command's
// place. REQUIRES: the transaction holds those slots.
void RunOwnedHere(AsyncContext& ctx, ExecState& st, const std::vector<uint32_t>& slots,
                  std::vector<std::string>* replies) {
  const Executor& ex = *ctx.server.executor;
  for (size_t i = 0; i < st.queued.size(); ++i) {
    if (ex.OwnerOf(slots[i]) != ex.current() || !st.refused[i].empty()) continue;
    QueuedCommand& cmd = st.queued[i];
    (*replies)[i] =
        Execute(ctx.server, *cmd.spec, cmd.args, slots[i], st.db, st.protocol, st.addr, st.name,
                &ctx.trace);
    FeedMonitors(ctx.server, *cmd.spec, cmd.args, st.db, st.addr);
  }
}

// EXEC of one-key commands (OneKeySlots): owner by owner, see the file comment.
Task ExecOneKey(AsyncContext& ctx, ExecState& st, std::vector<uint32_t> slots) {
  Executor& ex = *ctx.server.executor;
  std::vector<std::string> replies = st.refused;
  std::vector<uint32_t> order = slots;
  for (const WatchedKey& k : st.watched) order.push_back(k.slot);
  order = ctx.InLockOrder(std::move(order));
  ctx.Hold(/*units=*/true);
  if (st.watched.empty() && !(st.watch && st.watch->dirty.load())) {
    // Nothing can make the EXEC fail now: each owner's commands run once its slots are taken
    // (the global order keeps one owner's slots together).
    for (size_t i = 0; i < order.size(); ++i) {
      co_await ctx.ToSlot(order[i]);
      if (i + 1 == order.size() || ex.OwnerOf(order[i + 1]) != ex.current()) {
        RunOwnedHere(ctx, st, slots, &replies);
      }
    }
  } else {
    co_await ctx.LockSlots(order);
    if (WatchFailed(ctx, st)) co_return;
    // Where LockSlots ended first, then every other owner.
    const int last = ex.current();
    RunOwnedHere(ctx, st, slots, &replies);
    for (int w = 0; w < ex.workers(); ++w) {
      const bool owns = std::any_of(slots.begin(), slots.end(),
                                    [&](uint32_t s) { return ex.OwnerOf(s) == w; });
      if (w == last || !owns) continue;
      co_await ctx.ToWorker(w);
      RunOwnedHere(ctx, st, slots, &replies);
    }
  }
  ctx.reply.Array(replies.size());
  for (const std::string& r : replies) ctx.reply.buffer() += r;
}

// As Redis's execCommand: the ACL rules are checked again, in case they changed since the
// commands were queued; a command refused then answers NOPERM in its place.
std::vector<std::string> RefusedNow(ServerState& server, ClientState& client,
                                    const std::vector<QueuedCommand>& queued) {
  std::vector<std::string> refused(queued.size());
  for (size_t i = 0; i < queued.size(); ++i) {
    const acl::Verdict v =
        CheckCall(server, client, *queued[i].spec, queued[i].args, acl::Context::kMulti);
    if (v.ok()) continue;
    const std::string_view reason =
        v.denial == acl::Denial::kKey       ? "no permission to touch the specified keys"
        : v.denial == acl::Denial::kChannel ? "no permission to access one of the channels "
                                              "used as arguments"
                                            : "no permission to execute the command or "
                                              "subcommand";
    refused[i] = "-NOPERM ACLs rules changed between the moment the transaction was "
                 "accumulated and the EXEC call. This command is no longer allowed for the "
                 "following reason: " + std::string(reason) + "\r\n";
  }
  return refused;
}

Task Exec(AsyncContext& ctx) {
  ClientState& client = *ctx.client;
  if (!client.in_multi) {
    ctx.reply.Error(kErrExecNoMulti);
    co_return;
  }
  const bool aborted = client.multi_error;
  ExecState st;
  st.queued = std::move(client.queued);
  st.watch = std::move(client.watch);
  st.watched = std::move(client.watched);
  st.db = client.db;
  st.protocol = client.protocol;
  st.addr = client.addr;
  st.name = client.name;
  client.in_multi = false;
  client.multi_error = false;
  client.queued.clear();
  client.watch.reset();
  client.watched.clear();
  if (aborted) {
    Unwatch(ctx.server, st.watch, st.watched);
    ctx.reply.Error(kErrExecAbort);
    co_return;
  }
  st.refused = RefusedNow(ctx.server, client, st.queued);
  if (std::vector<uint32_t> one_key = OneKeySlots(*ctx.server.keyspace, st); !one_key.empty()) {
    co_await ExecOneKey(ctx, st, std::move(one_key));
    co_return;
  }
  // Take every slot the commands and the watched keys reach, then look at the watch. The
  // keys' entries stay until then.
  std::vector<uint32_t> slots;
  for (const QueuedCommand& cmd : st.queued) {
    AddSlots(*ctx.server.keyspace, *cmd.spec, cmd.args, &slots);
  }
  for (const WatchedKey& k : st.watched) slots.push_back(k.slot);
  ctx.Hold(/*units=*/true);
  co_await ctx.LockSlots(std::move(slots));
  if (WatchFailed(ctx, st)) co_return;
  ctx.reply.Array(st.queued.size());
  for (size_t i = 0; i < st.queued.size(); ++i) {
    if (st.refused[i].empty()) {
      co_await RunQueued(ctx, st, st.queued[i]);
    } else {
      ctx.reply.buffer() += st.refused[i];
    }
  }
}


}  // namespace

void RegisterTransactionCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "multi", .arity = 1,
         .flags = kNoScript | kLoading | kStale | kFast | kAllowBusy,
         .run_async = Multi, .group = "transactions",
         .summary = "Mark the start of a transaction block", .since = "1.2.0",
         .acl = "fast transaction"});
  t.Add({.name = "exec", .arity = 1, .flags = kNoScript | kLoading | kStale | kSkipSlowlog,
         .run_async = Exec, .group = "transactions",
         .summary = "Execute all commands issued after MULTI", .since = "1.2.0",
         .acl = "slow transaction"});
  t.Add({.name = "discard", .arity = 1,
         .flags = kNoScript | kLoading | kStale | kFast | kAllowBusy,
         .run_async = Discard, .group = "transactions",
         .summary = "Discard all commands issued after MULTI", .since = "2.0.0",
         .acl = "fast transaction"});
  t.Add({.name = "watch", .arity = -2,
         .flags = kVisits | kNoScript | kLoading | kStale | kFast | kAllowBusy,
         .first_key = 1, .last_key = -1, .step = 1, .run_async = Watch,
         .group = "transactions",
         .summary = "Watch the given keys to determine execution of the MULTI/EXEC block",
         .since = "2.2.0", .acl = "fast transaction", .key_specs = "RO"});
  t.Add({.name = "unwatch", .arity = 1,
         .flags = kNoScript | kLoading | kStale | kFast | kAllowBusy,
         .run_async = Unwatch, .group = "transactions",
         .summary = "Forget about all watched keys", .since = "2.2.0",
         .acl = "fast transaction"});
  // clang-format on
}

}  // namespace slotkv::command
