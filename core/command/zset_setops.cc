#include "core/command/zset_setops.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "core/command/args.h"
#include "core/command/collection_pages.h"
#include "core/command/fanout.h"
#include "core/command/member_access.h"
#include "core/command/zset_access.h"

namespace slotkv::command::zset_ops {
namespace {

// Member lookups in a paged input per turn of its owner.
constexpr size_t kLookupsPerStep = 4096;

// Decodes stored (a value of type kZSet or kSet, a paged one read from all its pages) into in.
Status LoadInput(Store& store, ValueType type, std::string stored, Source* in) {
  if (type == ValueType::kZSet) {
    SLOTKV_ASSIGN_OR_RETURN(in->zset, LoadWhole<ZSetValue>(store, type, std::move(stored)));
  } else {
    SLOTKV_ASSIGN_OR_RETURN(in->set, LoadWhole<SetValue>(store, type, std::move(stored)));
  }
  return Status::OK();
}

}  // namespace

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
    } else if (meta.type == ValueType::kZSet || meta.type == ValueType::kSet) {
      src->failure = LoadInput(store, meta.type, std::move(**r), &in);
      if (!src->failure.ok()) return;
    } else {
      src->wrong_type = true;
    }
  }
}

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

namespace {

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

// The indexes of the inputs, smallest first, ties in argument order (Redis's qsort by
// cardinality, which is glibc's stable merge sort).
std::vector<size_t> BySize(const Sources& src) {
  std::vector<size_t> order(src.inputs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return src.inputs[a].size() < src.inputs[b].size();
  });
  return order;
}

// The union of the inputs (all read whole), folded in BySize's order.
ZSetValue Union(const Sources& src, Aggregate agg) {
  const std::vector<size_t> order = BySize(src);
  // Views into the inputs, which outlive the map.
  std::unordered_map<std::string_view, double> acc;
  if (!order.empty()) acc.reserve(src.inputs[order.back()].size());
  for (size_t i : order) {
    const Source& s = src.inputs[i];
    s.ForEach([&](std::string_view m, double score) {
      const double v = Weighted(score, s.weight);
      auto [it, added] = acc.try_emplace(m, v);
      if (!added) Fold(&it->second, v, agg);
      return true;
    });
  }
  ZSetValue out;
  for (const auto& [m, score] : acc) out.Set(m, score);
  return out;
}

}  // namespace

namespace {

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

}  // namespace

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

namespace {

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
  if (st.ok() && r->has_value()) {
    st = LoadInput(store, in.paged_type, std::move(**r), &in);
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
  auto run = [&](Store& store, size_t begin, size_t end) -> Status {
    // Lookup::kWrite: counted by the first pass already. Active expiry may have taken the
    // key since (the command holds it against other clients only): then it holds nothing.
    ZSetAccess zset(store);
    MemberAccess<SetValue> set(store, ValueType::kSet);
    bool wrong_type = false;
    WorkerStats& stats = StatsHere(ctx.server);
    SLOTKV_RETURN_IF_ERROR(in.paged_type == ValueType::kZSet
                               ? zset.Open(key, stats, Lookup::kWrite, &wrong_type)
                               : set.Open(key, stats, Lookup::kWrite, &wrong_type));
    for (size_t at = begin; at < end; ++at) {
      std::pair<std::string, double>& m = (*c)[at];
      std::optional<double> score;
      if (zset.exists()) {
        SLOTKV_ASSIGN_OR_RETURN(score, zset.Score(m.first));
      } else if (set.exists()) {
        SLOTKV_ASSIGN_OR_RETURN(bool has, set.Contains(m.first));
        if (has) score = 1.0;
      }
      if (keep(m, score)) kept.push_back(std::move(m));
    }
    return Status::OK();
  };
  Status failure;
  co_await ForEachRunOnSlot(ctx, ctx.server.keyspace->SlotOfKey(key), c->size(),
                            kLookupsPerStep, run, &failure);
  *ok = !Failed(failure, ctx.reply);
  if (*ok) *c = std::move(kept);
}

}  // namespace

Task Compute(AsyncContext& ctx, const Request& req, Sources& src, ZSetValue* out,
             int64_t* card, bool* ok) {
  *ok = true;
  const size_t n = src.inputs.size();
  if (req.op == Op::kUnion) {
    for (size_t i = 0; i < n && *ok; ++i) co_await ReadWholeInput(ctx, src, i, ok);
    if (*ok) *out = Union(src, req.aggregate);
    co_return;
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (req.op == Op::kInter) order = BySize(src);
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

}  // namespace slotkv::command::zset_ops
