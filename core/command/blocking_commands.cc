// Blocking family: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN BZPOPMAX BZMPOP, as Redis
// 7.0's t_list.c / t_zset.c / blocked.c.
//
// Each command first tries its keys in argument order, each on its owner; the first key
// holding data serves the client at once, a key of another type replies WRONGTYPE. When every
// key is empty the client waits (blocking.h) until a write fills one of them (served in arrival
// order, from any client on any worker), the timeout passes (a null array, as Redis's
// replyToBlockedClientTimedOut) or the connection closes. A timeout of 0 waits forever.
//
// Redis's arguments checks come first, in its order: BLPOP & co. parse the timeout before
// looking at keys; BLMPOP / BZMPOP check numkeys, the direction and COUNT first.
//
// These visit their keys one at a time (AsyncContext): BLMOVE whose source and destination live
// in different slots moves the element in two steps; if another client empties the source in
// between, the client waits again. Inside EXEC they run as part of the transaction and do not
// block: with nothing to serve they reply the timeout's null array at once, as Redis does.
#include <cmath>
#include <limits>
#include <optional>

#include "core/command/blocking.h"
#include "core/command/blocking_call.h"
#include "core/command/command_table.h"
#include "core/command/list_access.h"
#include "core/command/zset_access.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrUnblocked = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
// Waits longer than this (about 35 years) get no timer: they end with the connection.
constexpr int64_t kMaxTimerMs = int64_t{1} << 40;

// The timeout argument in seconds as Redis's getTimeoutFromObjectOrReply reads it: a long
// double, times 1000, truncated to whole milliseconds, at least 1 ms when positive. nullopt
// after replying the error.
std::optional<int64_t> ParseTimeoutMs(std::string_view arg, int64_t now_ms, Reply& reply) {
  std::optional<long double> seconds = ParseLongDouble(arg);
  if (!seconds) {
    reply.Error(kErrTimeoutNotFloat);
    return std::nullopt;
  }
  const long double ms = *seconds * 1000.0L;
  // A value past the int64 range converts to INT64_MIN on x86 in Redis, hence "negative".
  const bool fits = ms > -9.2e18L && ms < 9.2e18L;
  int64_t tval = fits ? static_cast<int64_t>(ms) : std::numeric_limits<int64_t>::min();
  if (tval == 0 && ms > 0) tval = 1;
  if (tval < 0) {
    reply.Error(kErrTimeoutNegative);
    return std::nullopt;
  }
  if (tval > std::numeric_limits<int64_t>::max() - now_ms) {
    reply.Error(kErrTimeoutRange);
    return std::nullopt;
  }
  return tval;
}

int64_t WallMs(ServerState& server) { return server.keyspace->clock()->NowMs(); }

}  // namespace

// The blocking loop (blocking.h): try every key on its owner, queueing on the empty ones; park;
// on a claim, serve from the claimed key on its owner or queue again. Ends on the home worker.
Task BlockOn(AsyncContext& ctx, BlockCall call) {
  ServerState& server = ctx.server;
  Blocking& blocking = *server.blocking;
  Executor& executor = *server.executor;
  auto waiter = std::make_shared<Waiter>(call.type, ctx.db);
  ctx.waiter = waiter;
  uint64_t timer = 0;
  if (call.timeout_ms > 0 && call.timeout_ms <= kMaxTimerMs && !ctx.no_block) {
    timer = executor.RunAfter(call.timeout_ms, [waiter] {
      if (waiter->RequestStop(Waiter::Stop::kTimeout)) waiter->handle().resume();
    });
  }
  const auto key_at = [&](size_t i) -> const std::string& { return ctx.args[call.first_key + i]; };
  std::vector<bool> queued(call.num_keys, false);
  bool counted = false;
  bool done = false;
  while (!done) {
    const Waiter::Stop stop = waiter->stop();
    if (stop == Waiter::Stop::kTimeout) ctx.reply.NullArray();
    if (stop == Waiter::Stop::kError) ctx.reply.Error(kErrUnblocked);
    if (stop != Waiter::Stop::kNone) break;
    const uint32_t gen = waiter->NewRound();
    std::optional<size_t> move_from;
    for (size_t i = 0; i < call.num_keys && !done && !move_from; ++i) {
      const uint32_t s = server.keyspace->SlotOfKey(key_at(i));
      co_await ctx.ToSlot(s);
      Store store = ctx.StoreOf(s);
      const Try t = call.try_key(ctx, call, store, key_at(i));
      if (t == Try::kReplied) {
        done = true;
      } else if (t == Try::kMove) {
        move_from = i;
      } else if (!ctx.no_block) {
        blocking.Add(waiter, gen, i, key_at(i));
        queued[i] = true;
      }
    }
    if (!done && !move_from && ctx.no_block) {
      // Inside EXEC: as Redis, a blocking command with nothing to serve times out at once.
      if (call.moves) {
        ctx.reply.Null();
      } else {
        ctx.reply.NullArray();
      }
      (void)waiter->EndRound(gen);  // nothing was queued: no claim can have come
      break;
    }
    if (!done && !move_from) {
      if (!counted) {
        blocking.blocked_clients.fetch_add(1);
        waiter->set_blocked(true);
        counted = true;
      }
      ctx.LeaveVisit();  // nobody waits for a slot while this client waits for data
      co_await ParkWaiter{waiter.get(), gen};
      const Waiter::Outcome out = waiter->outcome();
      if (out.stop != Waiter::Stop::kNone) continue;  // the loop's head replies
      // Claimed for key out.key: serve from it on its owner (already there unless the claim
      // came before the park).
      const uint32_t s = server.keyspace->SlotOfKey(key_at(out.key));
      co_await ctx.ToSlot(s);
      Store store = ctx.StoreOf(s);
      const Try t = call.try_key(ctx, call, store, key_at(out.key));
      if (t == Try::kReplied) done = true;
      if (t == Try::kMove) move_from = out.key;
    } else if (std::optional<size_t> claimed = waiter->EndRound(gen)) {
      // Served without parking, but a key was claimed for us meanwhile: pass it on.
      blocking.HandBack(ctx.db, key_at(*claimed));
    }
    if (move_from) {
      bool missing = false;
      co_await MoveElement(ctx, key_at(*move_from), ctx.args[2], call.list_end, call.list_to,
                           &missing);
      done = !missing;
    }
  }
  co_await ctx.ToHome();
  if (timer != 0) executor.CancelTimer(timer);
  if (counted) {
    blocking.blocked_clients.fetch_sub(1);
    waiter->set_blocked(false);
  }
  for (size_t i = 0; i < call.num_keys; ++i) {
    if (!queued[i]) continue;
    const std::string& key = key_at(i);
    executor.Post(executor.OwnerOf(server.keyspace->SlotOfKey(key)),
                  [&blocking, waiter, key] { blocking.Remove(waiter.get(), key); });
  }
}

namespace {

// ---- serving from one key -------------------------------------------------------------------

// BLPOP / BRPOP: [key, element].
Try TryListPop(AsyncContext& ctx, const BlockCall& call, Store& store, const std::string& key) {
  ListAccess list(store);
  if (!list.Open(key, StatsHere(ctx.server), Lookup::kWrite, ctx.reply)) return Try::kReplied;
  if (!list.exists()) return Try::kEmpty;
  Result<std::string> v = list.Pop(call.list_end);
  if (Failed(v.status(), ctx.reply) || Failed(list.Write(), ctx.reply)) return Try::kReplied;
  ctx.reply.Array(2);
  ctx.reply.Bulk(key);
  ctx.reply.Bulk(*v);
  return Try::kReplied;
}

// BLMPOP: [key, [elements]].
Try TryListMPop(AsyncContext& ctx, const BlockCall& call, Store& store, const std::string& key) {
  return ListMPopFrom(store, StatsHere(ctx.server), key, call.list_end, call.count, ctx.reply)
             ? Try::kReplied
             : Try::kEmpty;
}

// BLMOVE / BRPOPLPUSH: kMove when the source holds a list; BlockOn then runs the move right
// away (in this same step when both keys share a slot).
Try TryListMove(AsyncContext& ctx, const BlockCall&, Store& store, const std::string& key) {
  ListAccess list(store);
  if (!list.Open(key, StatsHere(ctx.server), Lookup::kWrite, ctx.reply)) return Try::kReplied;
  return list.exists() ? Try::kMove : Try::kEmpty;
}

// BZPOPMIN / BZPOPMAX: [key, member, score].
Try TryZSetPop(AsyncContext& ctx, const BlockCall& call, Store& store, const std::string& key) {
  ZSetAccess zset(store);
  if (!zset.Open(key, StatsHere(ctx.server), Lookup::kWrite, ctx.reply)) return Try::kReplied;
  if (!zset.exists()) return Try::kEmpty;
  Result<std::vector<ZSetValue::Entry>> popped = zset.Pop(call.zset_end, 1);
  if (Failed(popped.status(), ctx.reply) || Failed(zset.Write(), ctx.reply)) {
    return Try::kReplied;
  }
  ctx.reply.Array(3);
  ctx.reply.Bulk(key);
  ctx.reply.Bulk((*popped)[0].member);
  ctx.reply.Double((*popped)[0].score);
  return Try::kReplied;
}

// BZMPOP: [key, [[member, score] ...]].
Try TryZSetMPop(AsyncContext& ctx, const BlockCall& call, Store& store, const std::string& key) {
  return ZMPopFrom(store, StatsHere(ctx.server), key, call.zset_end, call.count, ctx.reply)
             ? Try::kReplied
             : Try::kEmpty;
}

// ---- commands -------------------------------------------------------------------------------

// BLPOP / BRPOP key [key ...] timeout.
Task BPopGeneric(AsyncContext& ctx, End end) {
  std::optional<int64_t> timeout = ParseTimeoutMs(ctx.args.back(), WallMs(ctx.server), ctx.reply);
  if (!timeout) co_return;
  BlockCall call{.type = ValueType::kList, .first_key = 1, .num_keys = ctx.args.size() - 2,
                 .timeout_ms = *timeout, .list_end = end, .try_key = TryListPop};
  co_await BlockOn(ctx, call);
}

Task BLPop(AsyncContext& ctx) { co_await BPopGeneric(ctx, End::kLeft); }
Task BRPop(AsyncContext& ctx) { co_await BPopGeneric(ctx, End::kRight); }

Task BMoveGeneric(AsyncContext& ctx, End from, End to, std::string_view timeout_arg) {
  std::optional<int64_t> timeout = ParseTimeoutMs(timeout_arg, WallMs(ctx.server), ctx.reply);
  if (!timeout) co_return;
  BlockCall call{.type = ValueType::kList, .first_key = 1, .num_keys = 1,
                 .timeout_ms = *timeout, .list_end = from, .list_to = to,
                 .moves = true, .try_key = TryListMove};
  co_await BlockOn(ctx, call);
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout.
Task BLMove(AsyncContext& ctx) {
  std::optional<End> from = ParseEnd(ctx.args[3]);
  std::optional<End> to = ParseEnd(ctx.args[4]);
  if (!from || !to) {
    ctx.reply.Error(kErrSyntax);
    co_return;
  }
  co_await BMoveGeneric(ctx, *from, *to, ctx.args[5]);
}

// BRPOPLPUSH source destination timeout: BLMOVE source destination RIGHT LEFT timeout.
Task BRPopLPush(AsyncContext& ctx) {
  co_await BMoveGeneric(ctx, End::kRight, End::kLeft, ctx.args[3]);
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count].
Task BLMPop(AsyncContext& ctx) {
  std::optional<MPopArgs> m = ParseMPopArgs(ctx.args, 2, ctx.reply);
  if (!m) co_return;
  std::optional<int64_t> timeout = ParseTimeoutMs(ctx.args[1], WallMs(ctx.server), ctx.reply);
  if (!timeout) co_return;
  BlockCall call{.type = ValueType::kList, .first_key = m->first_key, .num_keys = m->num_keys,
                 .timeout_ms = *timeout, .list_end = m->end, .count = m->count,
                 .try_key = TryListMPop};
  co_await BlockOn(ctx, call);
}

// BZPOPMIN / BZPOPMAX key [key ...] timeout.
Task BZPopGeneric(AsyncContext& ctx, ZEnd end) {
  std::optional<int64_t> timeout = ParseTimeoutMs(ctx.args.back(), WallMs(ctx.server), ctx.reply);
  if (!timeout) co_return;
  BlockCall call{.type = ValueType::kZSet, .first_key = 1, .num_keys = ctx.args.size() - 2,
                 .timeout_ms = *timeout, .zset_end = end, .try_key = TryZSetPop};
  co_await BlockOn(ctx, call);
}

Task BZPopMin(AsyncContext& ctx) { co_await BZPopGeneric(ctx, ZEnd::kMin); }
Task BZPopMax(AsyncContext& ctx) { co_await BZPopGeneric(ctx, ZEnd::kMax); }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count].
Task BZMPop(AsyncContext& ctx) {
  std::optional<ZMPopArgs> m = ParseZMPopArgs(ctx.args, 2, ctx.reply);
  if (!m) co_return;
  std::optional<int64_t> timeout = ParseTimeoutMs(ctx.args[1], WallMs(ctx.server), ctx.reply);
  if (!timeout) co_return;
  BlockCall call{.type = ValueType::kZSet, .first_key = m->first_key, .num_keys = m->num_keys,
                 .timeout_ms = *timeout, .zset_end = m->end, .count = m->count,
                 .try_key = TryZSetMPop};
  co_await BlockOn(ctx, call);
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS. BLMPOP's and BZMPOP's keys follow numkeys (Redis's movablekeys): their
// rows name no key positions, as Redis's (0 0 0).
void RegisterBlockingCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "blmove", .arity = 6, .flags = kWrite | kDenyOom | kNoScript | kBlocking,
         .first_key = 1, .last_key = 2, .step = 1, .run_async = BLMove, .group = "list",
         .summary = "Pop an element from a list, push it to another list and return it; or "
                    "block until one is available",
         .since = "6.2.0", .acl = "write list slow blocking", .key_specs = "RW access delete|RW insert"});
  t.Add({.name = "blmpop", .arity = -5, .flags = kWrite | kBlocking, .first_key = 0,
         .last_key = 0, .step = 0, .run_async = BLMPop, .keys = KeysAfterTimeoutNumKeys,
         .group = "list", .summary = "Pop elements from a list, or block until one is available",
         .since = "7.0.0", .acl = "write list slow blocking", .key_specs = "RW access delete"});
  t.Add({.name = "blpop", .arity = -3, .flags = kWrite | kNoScript | kBlocking, .first_key = 1,
         .last_key = -2, .step = 1, .run_async = BLPop, .group = "list",
         .summary = "Remove and get the first element in a list, or block until one is "
                    "available",
         .since = "2.0.0", .acl = "write list slow blocking", .key_specs = "RW access delete"});
  t.Add({.name = "brpop", .arity = -3, .flags = kWrite | kNoScript | kBlocking, .first_key = 1,
         .last_key = -2, .step = 1, .run_async = BRPop, .group = "list",
         .summary = "Remove and get the last element in a list, or block until one is "
                    "available",
         .since = "2.0.0", .acl = "write list slow blocking", .key_specs = "RW access delete"});
  t.Add({.name = "brpoplpush", .arity = 4, .flags = kWrite | kDenyOom | kNoScript | kBlocking,
         .first_key = 1, .last_key = 2, .step = 1, .run_async = BRPopLPush, .group = "list",
         .summary = "Pop an element from a list, push it to another list and return it; or "
                    "block until one is available",
         .since = "2.2.0", .acl = "write list slow blocking", .key_specs = "RW access delete|RW insert"});
  t.Add({.name = "bzmpop", .arity = -5, .flags = kWrite | kBlocking, .first_key = 0,
         .last_key = 0, .step = 0, .run_async = BZMPop, .keys = KeysAfterTimeoutNumKeys,
         .group = "sorted-set",
         .summary = "Remove and return members with scores in a sorted set or block until one "
                    "is available",
         .since = "7.0.0", .acl = "write sortedset slow blocking", .key_specs = "RW access delete"});
  t.Add({.name = "bzpopmax", .arity = -3, .flags = kWrite | kNoScript | kBlocking | kFast,
         .first_key = 1, .last_key = -2, .step = 1, .run_async = BZPopMax,
         .group = "sorted-set",
         .summary = "Remove and return the member with the highest score from one or more "
                    "sorted sets, or block until one is available",
         .since = "5.0.0", .acl = "write sortedset fast blocking", .key_specs = "RW access delete"});
  t.Add({.name = "bzpopmin", .arity = -3, .flags = kWrite | kNoScript | kBlocking | kFast,
         .first_key = 1, .last_key = -2, .step = 1, .run_async = BZPopMin,
         .group = "sorted-set",
         .summary = "Remove and return the member with the lowest score from one or more "
                    "sorted sets, or block until one is available",
         .since = "5.0.0", .acl = "write sortedset fast blocking", .key_specs = "RW access delete"});
  // clang-format on
}

}  // namespace slotkv::command
