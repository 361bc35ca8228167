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
// "paged inputs" below). ZMPOP tries its keys in order, each on its owner, as LMPOP.
//
// Keyspace hits/misses: every source lookup counts (Redis uses lookupKeyRead for all of them,
// *STORE included); ZMPOP's do not (lookupKeyWrite).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"
#include "core/command/member_access.h"
#include "core/command/zset_access.h"
#include "core/types/set_value.h"

namespace slotkv::command {
namespace {

// Error texts only this file replies with (errors.h belongs to the framework).
constexpr std::string_view kErrWeight = "ERR weight value is not a float";
constexpr std::string_view kErrLimit = "ERR LIMIT can't be negative";

// Member lookups in a paged input per turn of its owner.
constexpr size_t kLookupsPerStep = 4096;

// numkeys below 1 for command (its lower-case name).
std::string NeedKeys(std::string_view command) {
  return "ERR at least 1 input key is needed for '" + std::string(command) + "' command";
}

// ---- requests -----------------------------------------------------------------------------

enum class Op { kUnion, kInter, kDiff };
// What becomes of the result: replied (ZUNION ...), stored (ZUNIONSTORE ...) or counted
// (ZINTERCARD).
enum class Output { kReply, kStore, kCard };
enum class Aggregate { kSum, kMin, kMax };

// A parsed ZUNION / ZINTER / ZDIFF / *STORE / ZINTERCARD request.
struct Request {
  Op op = Op::kUnion;
  Output out = Output::kReply;
  std::string_view name;  // lower case, for "at least 1 input key" errors
  size_t first = 0;       // the sources are args[first, end)
  size_t end = 0;
  std::vector<double> weights;  // per source, 1 unless WEIGHTS
  Aggregate aggregate = Aggregate::kSum;
  bool with_scores = false;
  int64_t limit = 0;  // ZINTERCARD: 0 = no limit
  // The first bad option, replied after the sources are read (Redis looks them up first).
  std::string_view option_error;
};

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

// ---- sources ------------------------------------------------------------------------------

// One input: a sorted set, a plain set (every member scores 1), or neither (a missing key, an
// empty set). A paged one is only counted by the first pass (paged()), and read whole later
// when the operation needs all its members.
struct Source {
  std::optional<ZSetValue> zset;
  std::optional<SetValue> set;
  double weight = 1.0;
  ValueType paged_type = ValueType::kString;  // kZSet or kSet: a paged input
  uint64_t paged_size = 0;

  bool paged() const { return paged_type != ValueType::kString && !zset && !set; }
  size_t size() const {
    return paged() ? paged_size : zset ? zset->size() : set ? set->size() : 0;
  }
  // The member's score, or nullopt when absent.
  std::optional<double> Score(std::string_view member) const {
    if (zset) return zset->Score(member);
    if (set && set->Contains(member)) return 1.0;
    return std::nullopt;
  }
  // Calls fn(member, score) for each member until fn returns false.
  template <class F>
  void ForEach(F&& fn) const {
    if (zset) {
      for (const ZSetValue::Entry& e : *zset) {
        if (!fn(std::string_view(e.member), e.score)) return;
      }
    } else if (set) {
      for (const std::string& m : set->members()) {
        if (!fn(std::string_view(m), 1.0)) return;
      }
    }
  }
};

// The sources of a request: args[first + i] -> inputs[i].
struct Sources {
  size_t first = 0;
  std::vector<Source> inputs;
  Status failure;
  bool wrong_type = false;
};

// First pass: reads the sources at positions ps (all in store's slot) into src, stopping at
// the first error; a paged one only counted. Each lookup counts as a keyspace hit or miss.
void ReadSources(AsyncContext& ctx, Store& store, const std::vector<size_t>& ps, Sources* src) {
  WorkerStats& stats = StatsHere(ctx.server);
  for (size_t p : ps) {
    if (!src->failure.ok() || src->wrong_type) return;
    slot::KeyMeta meta;
    Result<std::optional<std::string>> r = store.Get(ctx.args[p], &meta);
    if (!r.ok()) {
      src->failure = r.status();
      return;
    }
    CountLookup(store, stats, ctx.args[p], r->has_value());
    if (!r->has_value()) continue;
    Source& in = src->inputs[p - src->first];
    if ((meta.type == ValueType::kZSet || meta.type == ValueType::kSet) && IsPagedRoot(**r)) {
      Result<uint64_t> n = PagedRootCount(**r);
      if (!n.ok()) {
        src->failure = n.status();
        return;
      }
      in.paged_type = meta.type;
      in.paged_size = *n;
    } else if (meta.type == ValueType::kZSet) {
      Result<ZSetValue> zset = LoadWhole<ZSetValue>(store, meta.type, std::move(**r));
      if (!zset.ok()) {
        src->failure = zset.status();
        return;
      }
      in.zset = std::move(zset).value();
    } else if (meta.type == ValueType::kSet) {
      Result<SetValue> set = LoadWhole<SetValue>(store, meta.type, std::move(**r));
      if (!set.ok()) {
        src->failure = set.status();
        return;
      }
      in.set = std::move(set).value();
    } else {
      src->wrong_type = true;
    }
  }
}

// Replies the first error of a request: a failed or WRONGTYPE source, then a bad option. True
// when there was one.
bool RequestFailed(const Request& req, const Sources& src, Reply& reply) {
  if (Failed(src.failure, reply)) return true;
  if (src.wrong_type) {
    reply.Error(kErrWrongType);
    return true;
  }
  if (!req.option_error.empty()) {
    reply.Error(req.option_error);
    return true;
  }
  return false;
}

// ---- combining ----------------------------------------------------------------------------

// score * weight, with NaN (inf * 0) counted as 0.
double Weighted(double score, double weight) {
  const double v = score * weight;
  return std::isnan(v) ? 0.0 : v;
}

// Redis's zunionInterAggregate: folds v into *target. A NaN sum (inf + -inf) becomes 0; a NaN
// v leaves MIN and MAX unchanged.
void Fold(double* target, double v, Aggregate agg) {
  switch (agg) {
    case Aggregate::kSum:
      *target += v;
      if (std::isnan(*target)) *target = 0.0;
      break;
    case Aggregate::kMin:
      *target = v < *target ? v : *target;
      break;
    case Aggregate::kMax:
      *target = v > *target ? v : *target;
      break;
  }
}

// The inputs smallest first, ties in argument order (Redis's qsort by cardinality, which is
// glibc's stable merge sort).
std::vector<const Source*> BySize(const Sources& src) {
  std::vector<const Source*> in;
  in.reserve(src.inputs.size());
  for (const Source& s : src.inputs) in.push_back(&s);
  std::stable_sort(in.begin(), in.end(),
                   [](const Source* a, const Source* b) { return a->size() < b->size(); });
  return in;
}

// Calls fn(member, score) for each member of every input, with its aggregated score, until fn
// returns false. REQUIRES: in is BySize's order.
template <class F>
void ForEachInInter(const std::vector<const Source*>& in, Aggregate agg, F&& fn) {
  in[0]->ForEach([&](std::string_view m, double score) {
    double acc = Weighted(score, in[0]->weight);
    for (size_t j = 1; j < in.size(); ++j) {
      std::optional<double> v = in[j]->Score(m);
      if (!v) return true;
      Fold(&acc, *v * in[j]->weight, agg);
    }
    return fn(m, acc);
  });
}

ZSetValue Union(const std::vector<const Source*>& in, Aggregate agg) {
  // Views into the inputs, which outlive the map.
  std::unordered_map<std::string_view, double> acc;
  if (!in.empty()) acc.reserve(in.back()->size());
  for (const Source* s : in) {
    s->ForEach([&](std::string_view m, double score) {
      const double v = Weighted(score, s->weight);
      auto [it, added] = acc.try_emplace(m, v);
      if (!added) Fold(&it->second, v, agg);
      return true;
    });
  }
  ZSetValue out;
  for (const auto& [m, score] : acc) out.Set(m, score);
  return out;
}

// The members of the first input in none of the others, with their scores (no weights).
ZSetValue Diff(const Sources& src) {
  ZSetValue out;
  src.inputs[0].ForEach([&](std::string_view m, double score) {
    for (size_t i = 1; i < src.inputs.size(); ++i) {
      if (src.inputs[i].Score(m)) return true;
    }
    out.Set(m, score);
    return true;
  });
  return out;
}

// The result of a kReply or kStore request.
ZSetValue Compute(const Request& req, const Sources& src) {
  switch (req.op) {
    case Op::kUnion:
      return Union(BySize(src), req.aggregate);
    case Op::kInter: {
      ZSetValue out;
      ForEachInInter(BySize(src), req.aggregate, [&](std::string_view m, double score) {
        out.Set(m, score);
        return true;
      });
      return out;
    }
    case Op::kDiff:
      return Diff(src);
  }
  return ZSetValue();
}

// ZINTERCARD's count: the intersection's size, at most limit (0 = no limit).
int64_t InterCard(const Sources& src, int64_t limit) {
  int64_t n = 0;
  ForEachInInter(BySize(src), Aggregate::kSum,
                 [&](std::string_view, double) { return ++n != limit; });
  return n;
}

// Replies the outcome of a kReply or kCard request.
void ReplyResult(const Request& req, const Sources& src, Reply& reply) {
  if (req.out == Output::kCard) {
    reply.Integer(InterCard(src, req.limit));
    return;
  }
  ZSetValue result = Compute(req, src);
  ReplyEntries(reply, std::vector<ZSetValue::Entry>(result.begin(), result.end()), req.with_scores);
}

// Redis 7.0 turns a small stored result into a listpack (zsetConvertToListpackIfNeeded: at
// most 128 entries, members of at most 64 bytes, its default limits), and a listpack keeps no
// -0 score: such a result holds 0 instead, as zset_commands.cc's ZADD stores it.
void ClearNegativeZeros(ZSetValue* zset) {
  if (zset->size() > 128) return;
  std::vector<std::string> negative_zero;
  for (const ZSetValue::Entry& e : *zset) {
    if (e.member.size() > 64) return;
    if (e.score == 0 && std::signbit(e.score)) negative_zero.push_back(e.member);
  }
  for (const std::string& m : negative_zero) {
    zset->Remove(m);  // Set alone keeps -0: it finds 0 == -0 unchanged
    zset->Set(m, 0.0);
  }
}

// Writes result under dst (replacing any value, no TTL; deleting dst when empty) and replies
// the result's size.
void StoreResult(Store& store, std::string_view dst, ZSetValue result, Reply& reply) {
  ClearNegativeZeros(&result);
  if (Failed(WriteZSet(store, dst, result, 0), reply)) return;
  reply.Integer(static_cast<int64_t>(result.size()));
}

// ---- paged inputs -------------------------------------------------------------------------
//
// ZINTER and ZINTERCARD take the members of their smallest input, ZDIFF those of their first,
// and look them up in the other inputs; so a paged input is read whole only when it is that
// one (or for ZUNION), never for lookups (ZINTERSTORE of a 100-member set with a 10M-member
// leaderboard looks up 100 members).

// Reads input i whole on its owner when the first pass left it paged. False after replying a
// failure.
Task ReadWholeInput(AsyncContext& ctx, Sources& src, size_t i, bool* ok) {
  *ok = true;
  Source& in = src.inputs[i];
  if (!in.paged()) co_return;
  const std::string& key = ctx.args[src.first + i];
  const uint32_t slot = ctx.server.keyspace->SlotOfKey(key);
  co_await ctx.ToSlot(slot);
  Store store = ctx.StoreOf(slot);
  Result<std::optional<std::string>> r = store.Get(key);
  Status st = r.status();
  if (st.ok() && r->has_value() && in.paged_type == ValueType::kZSet) {
    Result<ZSetValue> zset = LoadWhole<ZSetValue>(store, in.paged_type, std::move(**r));
    st = zset.status();
    if (st.ok()) in.zset = std::move(zset).value();
  } else if (st.ok() && r->has_value()) {
    Result<SetValue> set = LoadWhole<SetValue>(store, in.paged_type, std::move(**r));
    st = set.status();
    if (st.ok()) in.set = std::move(set).value();
  } else if (st.ok()) {
    in.set.emplace();  // taken by active expiry since the first pass: empty
  }
  *ok = !Failed(st, ctx.reply);
}

// Members of an intersection or a difference being computed, with their scores so far.
using Candidates = std::vector<std::pair<std::string, double>>;

// Keeps the candidates that input i holds (ZINTER, folding in its weighted score) or lacks
// (ZDIFF): in memory for a one-value input, by lookups on its owner for a paged one. False
// after replying a failure.
Task FilterByInput(AsyncContext& ctx, const Request& req, const Sources& src, size_t i,
                   Candidates* c, bool* ok) {
  *ok = true;
  const Source& in = src.inputs[i];
  auto keep = [&](std::pair<std::string, double>& m, std::optional<double> score) {
    if (req.op == Op::kDiff) return !score;
    if (!score) return false;
    Fold(&m.second, *score * in.weight, req.aggregate);
    return true;
  };
  Candidates kept;
  if (!in.paged()) {
    for (auto& m : *c) {
      if (keep(m, in.Score(m.first))) kept.push_back(std::move(m));
    }
    *c = std::move(kept);
    co_return;
  }
  const std::string& key = ctx.args[src.first + i];
  const uint32_t slot = ctx.server.keyspace->SlotOfKey(key);
  for (size_t at = 0; at < c->size();) {
    if (at > 0) co_await ctx.Requeue();
    co_await ctx.ToSlot(slot);
    Store store = ctx.StoreOf(slot);
    // Lookup::kWrite: counted by the first pass already. Active expiry may have taken the
    // key since (the command holds it against other clients only): then it holds nothing.
    ZSetAccess zset(store);
    MemberAccess<SetValue> set(store, ValueType::kSet);
    bool wrong_type = false;
    WorkerStats& stats = StatsHere(ctx.server);
    Status st = in.paged_type == ValueType::kZSet
                    ? zset.Open(key, stats, Lookup::kWrite, &wrong_type)
                    : set.Open(key, stats, Lookup::kWrite, &wrong_type);
    for (const size_t end = std::min(c->size(), at + kLookupsPerStep); st.ok() && at < end;
         ++at) {
      std::pair<std::string, double>& m = (*c)[at];
      std::optional<double> score;
      if (zset.exists()) {
        Result<std::optional<double>> found = zset.Score(m.first);
        st = found.status();
        if (st.ok()) score = *found;
      } else if (set.exists()) {
        Result<bool> has = set.Contains(m.first);
        st = has.status();
        if (st.ok() && *has) score = 1.0;
      }
      if (st.ok() && keep(m, score)) kept.push_back(std::move(m));
    }
    if (Failed(st, ctx.reply)) {
      *ok = false;
      co_return;
    }
  }
  *c = std::move(kept);
}

// The result of a request with paged inputs, or ZINTERCARD's count in *card. False after
// replying a failure.
Task ComputePaged(AsyncContext& ctx, const Request& req, Sources& src, ZSetValue* out,
                  int64_t* card, bool* ok) {
  *ok = true;
  const size_t n = src.inputs.size();
  if (req.op == Op::kUnion) {
    for (size_t i = 0; i < n && *ok; ++i) co_await ReadWholeInput(ctx, src, i, ok);
    if (*ok) *out = Compute(req, src);
    co_return;
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (req.op == Op::kInter) {  // smallest first, ties in argument order, as BySize
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return src.inputs[a].size() < src.inputs[b].size();
    });
  }
  co_await ReadWholeInput(ctx, src, order[0], ok);
  if (!*ok) co_return;
  Candidates c;
  const Source& first = src.inputs[order[0]];
  first.ForEach([&](std::string_view m, double score) {
    c.emplace_back(m, req.op == Op::kInter ? Weighted(score, first.weight) : score);
    return true;
  });
  for (size_t k = 1; k < n && !c.empty(); ++k) {
    co_await FilterByInput(ctx, req, src, order[k], &c, ok);
    if (!*ok) co_return;
  }
  *card = static_cast<int64_t>(c.size());
  if (req.limit > 0) *card = std::min(*card, req.limit);
  if (req.out == Output::kCard) co_return;
  for (const auto& [m, score] : c) out->Set(m, score);
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

  auto paged = [&] {
    return std::any_of(src.inputs.begin(), src.inputs.end(),
                       [](const Source& in) { return in.paged(); });
  };
  if (one_slot) {  // one step on one owner, unless an input is paged
    co_await ctx.ToSlot(slot);
    Store store = ctx.StoreOf(slot);
    ReadSources(ctx, store, positions, &src);
    if (RequestFailed(req, src, ctx.reply)) co_return;
    if (!paged()) {
      if (req.out == Output::kStore) {
        StoreResult(store, dst, Compute(req, src), ctx.reply);
      } else {
        ReplyResult(req, src, ctx.reply);
      }
      co_return;
    }
  } else {
    co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
      ReadSources(ctx, store, ps, &src);
    });
    if (RequestFailed(req, src, ctx.reply)) co_return;
  }
  ZSetValue result;
  if (paged()) {
    int64_t card = 0;
    bool ok = true;
    co_await ComputePaged(ctx, req, src, &result, &card, &ok);
    if (!ok) co_return;
    if (req.out == Output::kCard) {
      ctx.reply.Integer(card);
      co_return;
    }
  } else if (req.out != Output::kStore) {
    ReplyResult(req, src, ctx.reply);
    co_return;
  } else {
    result = Compute(req, src);
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
         .acl = "read sortedset slow"});
  t.Add({.name = "zdiffstore", .arity = -4, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run_async = ZDiffStore, .keys = DestinationAndNumKeys,
         .group = "sorted-set",
         .summary = "Subtract multiple sorted sets and store the resulting sorted set in a new key",
         .since = "6.2.0", .acl = "write sortedset slow"});
  t.Add({.name = "zinter", .arity = -3, .flags = kReadOnly, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = ZInter, .keys = KeysAfterNumKeys, .group = "sorted-set",
         .summary = "Intersect multiple sorted sets", .since = "6.2.0",
         .acl = "read sortedset slow"});
  t.Add({.name = "zintercard", .arity = -3, .flags = kReadOnly, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = ZInterCard, .keys = KeysAfterNumKeys, .group = "sorted-set",
         .summary = "Intersect multiple sorted sets and return the cardinality of the result",
         .since = "7.0.0", .acl = "read sortedset slow"});
  t.Add({.name = "zinterstore", .arity = -4, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run_async = ZInterStore, .keys = DestinationAndNumKeys,
         .group = "sorted-set", .summary =
             "Intersect multiple sorted sets and store the resulting sorted set in a new key",
         .since = "2.0.0", .acl = "write sortedset slow"});
  t.Add({.name = "zmpop", .arity = -4, .flags = kWrite, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = ZMPop, .keys = KeysAfterNumKeys, .group = "sorted-set",
         .summary = "Remove and return members with scores in a sorted set", .since = "7.0.0",
         .acl = "write sortedset slow"});
  t.Add({.name = "zunion", .arity = -3, .flags = kReadOnly, .first_key = 0, .last_key = 0,
         .step = 0, .run_async = ZUnion, .keys = KeysAfterNumKeys, .group = "sorted-set",
         .summary = "Add multiple sorted sets", .since = "6.2.0", .acl = "read sortedset slow"});
  t.Add({.name = "zunionstore", .arity = -4, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run_async = ZUnionStore, .keys = DestinationAndNumKeys,
         .group = "sorted-set",
         .summary = "Add multiple sorted sets and store the resulting sorted set in a new key",
         .since = "2.0.0", .acl = "write sortedset slow"});
  // clang-format on
}

}  // namespace slotkv::command
