// Sorted-set operations over several keys: ZUNION ZINTER ZDIFF ZUNIONSTORE ZINTERSTORE
// ZDIFFSTORE ZINTERCARD ZMPOP, as Redis 7.0's t_zset.c (zunionInterDiffGenericCommand,
// zmpopGenericCommand).
//
// Inputs: a source may be a sorted set or a plain set (every member scoring 1); a missing key
// is an empty set; any other type is WRONGTYPE. Scores are multiplied by the WEIGHTS and
// combined by AGGREGATE exactly as Redis does, NaNs included: a weighted score that is NaN
// (inf * 0) counts as 0, and a SUM of inf and -inf is 0; in an intersection only the first
// (smallest) input's weighted score is cleared that way, so a NaN from another input turns a
// SUM into 0 and leaves MIN / MAX unchanged. Inputs are combined smallest first (ties in
// argument order), as Redis sorts them, so sums round as Redis's do; ZDIFF keeps the argument
// order (the first key is the one subtracted from).
//
// Errors in Redis's order: numkeys (not an integer, below 1, more than the arguments left),
// then the sources (WRONGTYPE), then the options: a bad option is replied only once every
// source has been looked up.
//
// *STORE writes the result as a sorted set, replacing the destination whatever its type,
// without TTL; an empty result deletes the destination and replies 0. A result small enough
// for Redis's listpack stores a -0 score as 0, as Redis does (ClearNegativeZeros).
//
// Several keys: when every key (the destination included) is in one slot and no input is
// paged, a command runs in one step on that slot's owner. Otherwise the sources are read on
// their owners, the result is computed and a destination is written on its owner afterwards,
// the command holding its keys throughout (RunTask's HoldKeys: another client's command on
// any of them waits). A paged input is read whole only when its members are all needed (see
// zset_setops.cc, "paged inputs"). ZMPOP tries its keys in order, each on its owner, as LMPOP.
//
// Keyspace hits/misses: every source lookup counts (Redis uses lookupKeyRead for all of them,
// *STORE included); ZMPOP's do not (lookupKeyWrite).
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"
#include "core/command/zset_access.h"
#include "core/command/zset_setops.h"

namespace slotkv::command {
namespace {

using zset_ops::Aggregate;
using zset_ops::Compute;
using zset_ops::Op;
using zset_ops::Output;
using zset_ops::ReadSources;
using zset_ops::Request;
using zset_ops::RequestFailed;
using zset_ops::Sources;
using zset_ops::StoreResult;

// Error texts only this file replies with (errors.h belongs to the framework).
constexpr std::string_view kErrWeight = "ERR weight value is not a float";
constexpr std::string_view kErrLimit = "ERR LIMIT can't be negative";

// numkeys below 1 for command (its lower-case name).
std::string NeedKeys(std::string_view command) {
  return "ERR at least 1 input key is needed for '" + std::string(command) + "' command";
}


// Parses numkeys at args[numkeys_pos] and the options after the keys into *req (whose op, out
// and name are set). False after replying a numkeys error; a bad option is only noted in
// req->option_error. Options may repeat, the last one winning.
bool ParseRequest(const std::vector<std::string>& a, size_t numkeys_pos, Request* req,
                  Reply& reply) {
  std::optional<int64_t> numkeys = IntArg(a[numkeys_pos], reply);
  if (!numkeys) return false;
  if (*numkeys < 1) {
    reply.Error(NeedKeys(req->name));
    return false;
  }
  if (static_cast<uint64_t>(*numkeys) > a.size() - numkeys_pos - 1) {
    reply.Error(kErrSyntax);
    return false;
  }
  const size_t n = static_cast<size_t>(*numkeys);
  req->first = numkeys_pos + 1;
  req->end = req->first + n;
  req->weights.assign(n, 1.0);
  const bool weighted = req->op != Op::kDiff && req->out != Output::kCard;
  for (size_t j = req->end; j < a.size();) {
    const size_t remaining = a.size() - j;
    if (weighted && remaining >= n + 1 && Is(a[j], "WEIGHTS")) {
      for (size_t i = 0; i < n; ++i) {
        std::optional<double> w = ParseDouble(a[j + 1 + i]);
        if (!w) {
          req->option_error = kErrWeight;
          return true;
        }
        req->weights[i] = *w;
      }
      j += n + 1;
    } else if (weighted && remaining >= 2 && Is(a[j], "AGGREGATE")) {
      if (Is(a[j + 1], "SUM")) {
        req->aggregate = Aggregate::kSum;
      } else if (Is(a[j + 1], "MIN")) {
        req->aggregate = Aggregate::kMin;
      } else if (Is(a[j + 1], "MAX")) {
        req->aggregate = Aggregate::kMax;
      } else {
        req->option_error = kErrSyntax;
        return true;
      }
      j += 2;
    } else if (req->out == Output::kReply && Is(a[j], "WITHSCORES")) {
      req->with_scores = true;
      ++j;
    } else if (req->out == Output::kCard && remaining >= 2 && Is(a[j], "LIMIT")) {
      std::optional<int64_t> limit = ParseInt64(a[j + 1]);
      if (!limit || *limit < 0) {
        req->option_error = kErrLimit;
        return true;
      }
      req->limit = *limit;
      j += 2;
    } else {
      req->option_error = kErrSyntax;
      return true;
    }
  }
  return true;
}

// ---- commands -----------------------------------------------------------------------------

// The steps of a parsed request, writing args[1] for kStore; ends on any worker.
Task SetOpSteps(AsyncContext& ctx, const Request& req) {
  std::vector<size_t> positions(req.end - req.first);
  std::iota(positions.begin(), positions.end(), req.first);
  Sources src;
  src.first = req.first;
  src.inputs.resize(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) src.inputs[i].weight = req.weights[i];
  Keyspace& keyspace = *ctx.server.keyspace;
  const std::string& dst = ctx.args[1];
  const uint32_t slot = keyspace.SlotOfKey(ctx.args[req.first]);
  bool one_slot = req.out != Output::kStore || keyspace.SlotOfKey(dst) == slot;
  for (size_t p : positions) one_slot = one_slot && keyspace.SlotOfKey(ctx.args[p]) == slot;

  if (one_slot) {  // one step on one owner, unless an input is paged (Compute)
    co_await ctx.ToSlot(slot);
    Store store = ctx.StoreOf(slot);
    ReadSources(ctx, store, positions, &src);
  } else {
    co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
      ReadSources(ctx, store, ps, &src);
    });
  }
  if (RequestFailed(req, src, ctx.reply)) co_return;
  ZSetValue result;
  int64_t card = 0;
  bool ok = true;
  co_await Compute(ctx, req, src, &result, &card, &ok);
  if (!ok) co_return;
  if (req.out == Output::kCard) {
    ctx.reply.Integer(card);
    co_return;
  }
  if (req.out == Output::kReply) {
    ReplyEntries(ctx.reply, std::vector<ZSetValue::Entry>(result.begin(), result.end()),
                 req.with_scores);
    co_return;
  }
  const uint32_t dst_slot = keyspace.SlotOfKey(dst);
  co_await ctx.ToSlot(dst_slot);
  Store store = ctx.StoreOf(dst_slot);
  StoreResult(store, dst, std::move(result), ctx.reply);
}

// Runs `name` (op, out): numkeys is args[2] for *STORE (after the destination), else args[1].
Task SetOp(AsyncContext& ctx, std::string_view name, Op op, Output out) {
  Request req;
  req.op = op;
  req.out = out;
  req.name = name;
  if (!ParseRequest(ctx.args, out == Output::kStore ? 2 : 1, &req, ctx.reply)) co_return;
  co_await SetOpSteps(ctx, req);
  co_await ctx.ToHome();
}

// ZUNION / ZINTER numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX]
// [WITHSCORES], ZDIFF numkeys key [key ...] [WITHSCORES]: the result's members (with scores).
Task ZUnion(AsyncContext& ctx) { co_await SetOp(ctx, "zunion", Op::kUnion, Output::kReply); }
Task ZInter(AsyncContext& ctx) { co_await SetOp(ctx, "zinter", Op::kInter, Output::kReply); }
Task ZDiff(AsyncContext& ctx) { co_await SetOp(ctx, "zdiff", Op::kDiff, Output::kReply); }
// ZUNIONSTORE / ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight ...]
// [AGGREGATE SUM|MIN|MAX], ZDIFFSTORE destination numkeys key [key ...]: the result's size.
Task ZUnionStore(AsyncContext& ctx) {
  co_await SetOp(ctx, "zunionstore", Op::kUnion, Output::kStore);
}
Task ZInterStore(AsyncContext& ctx) {
  co_await SetOp(ctx, "zinterstore", Op::kInter, Output::kStore);
}
Task ZDiffStore(AsyncContext& ctx) { co_await SetOp(ctx, "zdiffstore", Op::kDiff, Output::kStore); }
// ZINTERCARD numkeys key [key ...] [LIMIT limit]: the intersection's size, at most limit
// (0 = no limit).
Task ZInterCard(AsyncContext& ctx) { co_await SetOp(ctx, "zintercard", Op::kInter, Output::kCard); }

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]: [key, [[member, score] ...]] from the first
// key holding a sorted set, a null array when none does. Arguments are checked before any key
// (numkeys, then MIN|MAX, then COUNT given once); keys are tried in order, each on its owner;
// with every key in one slot, in one atomic step.
Task ZMPop(AsyncContext& ctx) {
  const auto& a = ctx.args;
  std::optional<ZMPopArgs> m = ParseZMPopArgs(a, 1, ctx.reply);
  if (!m) co_return;
  const ZEnd end = m->end;
  const int64_t count = m->count;
  const size_t end_pos = m->first_key + m->num_keys;
  Keyspace& keyspace = *ctx.server.keyspace;
  const uint32_t slot = keyspace.SlotOfKey(a[2]);
  bool one_slot = true;
  for (size_t p = 3; p < end_pos; ++p) one_slot = one_slot && keyspace.SlotOfKey(a[p]) == slot;
  bool replied = false;
  if (one_slot) {
    co_await ctx.ToSlot(slot);
    Store store = ctx.StoreOf(slot);
    for (size_t p = 2; p < end_pos && !replied; ++p) {
      replied = ZMPopFrom(store, StatsHere(ctx.server), a[p], end, count, ctx.reply);
    }
  } else {
    for (size_t p = 2; p < end_pos && !replied; ++p) {
      const uint32_t s = keyspace.SlotOfKey(a[p]);
      co_await ctx.ToSlot(s);
      Store store = ctx.StoreOf(s);
      replied = ZMPopFrom(store, StatsHere(ctx.server), a[p], end, count, ctx.reply);
    }
  }
  if (!replied) ctx.reply.NullArray();
  co_await ctx.ToHome();
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS. These commands' keys follow numkeys (Redis's "movablekeys", a flag slotkv's
// table does not have): their rows give Redis's key positions, the destination (1 1 1) for
// *STORE and none (0 0 0) for the others.
void RegisterZSetSetOpsCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "zdiff", .arity = -3, .flags = kReadOnly, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = ZDiff, .keys = KeysAfterNumKeys, .group = "sorted-set",
         .summary = "Subtract multiple sorted sets", .since = "6.2.0",
         .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zdiffstore", .arity = -4, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run_async = ZDiffStore, .keys = DestinationAndNumKeys,
         .group = "sorted-set",
         .summary = "Subtract multiple sorted sets and store the resulting sorted set in a new key",
         .since = "6.2.0", .acl = "write sortedset slow", .key_specs = "OW update|RO access"});
  t.Add({.name = "zinter", .arity = -3, .flags = kReadOnly, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = ZInter, .keys = KeysAfterNumKeys, .group = "sorted-set",
         .summary = "Intersect multiple sorted sets", .since = "6.2.0",
         .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zintercard", .arity = -3, .flags = kReadOnly, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = ZInterCard, .keys = KeysAfterNumKeys, .group = "sorted-set",
         .summary = "Intersect multiple sorted sets and return the cardinality of the result",
         .since = "7.0.0", .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zinterstore", .arity = -4, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run_async = ZInterStore, .keys = DestinationAndNumKeys,
         .group = "sorted-set", .summary =
             "Intersect multiple sorted sets and store the resulting sorted set in a new key",
         .since = "2.0.0", .acl = "write sortedset slow", .key_specs = "OW update|RO access"});
  t.Add({.name = "zmpop", .arity = -4, .flags = kWrite, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = ZMPop, .keys = KeysAfterNumKeys, .group = "sorted-set",
         .summary = "Remove and return members with scores in a sorted set", .since = "7.0.0",
         .acl = "write sortedset slow", .key_specs = "RW access delete"});
  t.Add({.name = "zunion", .arity = -3, .flags = kReadOnly, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = ZUnion, .keys = KeysAfterNumKeys, .group = "sorted-set",
         .summary = "Add multiple sorted sets", .since = "6.2.0", .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zunionstore", .arity = -4, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run_async = ZUnionStore, .keys = DestinationAndNumKeys,
         .group = "sorted-set",
         .summary = "Add multiple sorted sets and store the resulting sorted set in a new key",
         .since = "2.0.0", .acl = "write sortedset slow", .key_specs = "OW update|RO access"});
  // clang-format on
}

}  // namespace slotkv::command
