// Sorted-set range family: ZRANGE (BYSCORE BYLEX REV LIMIT WITHSCORES), ZRANGEBYSCORE,
// ZRANGEBYLEX, ZREVRANGE, ZREVRANGEBYSCORE, ZREVRANGEBYLEX, ZRANGESTORE, ZCOUNT, ZLEXCOUNT,
// ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX, as Redis 7.0's t_zset.c.
//
// Every ZRANGE-like command goes through one parser (Redis's zrangeGenericCommand), so the
// variants share its argument rules and error order: options first (a bad LIMIT number or an
// unknown word is reported at once), then the LIMIT / WITHSCORES conflicts, then the range
// bounds, then the key. REV (and the ZREV* commands) take the bounds of BYSCORE / BYLEX as
// "max min". Score and lex bounds and the walk over a range are in zset_range.h.
//
// LIMIT as Redis: a negative count means no limit, a negative offset gives an empty reply,
// and "LIMIT 0 -1" (the default) is accepted even without BYSCORE / BYLEX.
//
// Writes keep the key's TTL and delete a sorted set they empty. ZRANGESTORE replaces its
// destination whole (any type, no TTL) and deletes it when the result is empty. When source
// and destination share a slot it runs in one step on the owner (atomic); otherwise the source
// is read on its owner and the destination written on its own afterwards (not atomic).
//
// Keyspace hits/misses count the lookups Redis counts with lookupKeyRead: every command here
// but the ZREMRANGEBY* ones (lookupKeyWrite); ZRANGESTORE counts its source.
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/zset_access.h"
#include "core/command/zset_range.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrLimitWithRank =
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
constexpr std::string_view kErrWithScoresLex =
    "ERR syntax error, WITHSCORES not supported in combination with BYLEX";

using Entries = std::vector<ZSetValue::Entry>;

// ---- walking a range ----------------------------------------------------------------------

// Redis's rank sanitizing: negative ranks count from the end, the range is clipped to the set.
// False when it is empty; otherwise 0 <= *start <= *end < size.
bool ClampRanks(int64_t size, int64_t* start, int64_t* end) {
  if (*start < 0) *start += size;
  if (*end < 0) *end += size;
  if (*start < 0) *start = 0;
  if (*start > *end || *start >= size) return false;
  if (*end >= size) *end = size - 1;
  return true;
}

// The entries of ranks [start, end] (rank 0 = the highest score when reverse), in reply order.
Entries ByRank(const ZSetValue& zset, int64_t start, int64_t end, bool reverse) {
  Entries out;
  const auto size = static_cast<int64_t>(zset.size());
  if (!ClampRanks(size, &start, &end)) return out;
  out.reserve(static_cast<size_t>(end - start + 1));
  if (reverse) {
    auto it = std::make_reverse_iterator(zset.AtRank(static_cast<size_t>(size - start)));
    for (int64_t r = start; r <= end; ++r, ++it) out.push_back(*it);
  } else {
    auto it = zset.AtRank(static_cast<size_t>(start));
    for (int64_t r = start; r <= end; ++r, ++it) out.push_back(*it);
  }
  return out;
}

// The entries of range in reply order (descending when reverse), skipping offset of them and
// taking at most limit (< 0: all). Like Redis, the walk starts at the first (last) entry in
// range and goes on while entries stay below max (above min); an offset < 0 skips everything.
template <class Range>
Entries InRange(const ZSetValue& zset, const Range& range, bool reverse, int64_t offset,
                int64_t limit) {
  Entries out;
  if (offset < 0 || (offset > 0 && static_cast<uint64_t>(offset) >= zset.size())) return out;
  auto it = reverse ? LastInRange(zset, range) : FirstInRange(zset, range);
  auto step = [&] {
    if (!reverse) {
      ++it;
    } else {
      it = it == zset.begin() ? zset.end() : std::prev(it);
    }
  };
  for (; it != zset.end() && offset > 0; --offset) step();
  for (; it != zset.end() && limit != 0; step()) {
    if (reverse ? !range.AboveMin(*it) : !range.BelowMax(*it)) break;
    out.push_back(*it);
    if (limit > 0) --limit;
  }
  return out;
}

// How many entries a forward walk over range visits (ZCOUNT, ZLEXCOUNT).
template <class Range>
int64_t CountInRange(const ZSetValue& zset, const Range& range) {
  int64_t n = 0;
  for (auto it = FirstInRange(zset, range); it != zset.end() && range.BelowMax(*it); ++it) ++n;
  return n;
}

// ---- the same walks on a paged set -------------------------------------------------------
// Seeks are rank descents (ZSetPages::CountBefore); a lex range descends comparing members
// only, as Redis's skiplist does, which is exact when every score is equal.

// Up to n entries from ascending rank `from` on (descending when reverse); skip are passed
// over first; the walk stops at the first entry for which in(e) is false.
template <class In>
Result<Entries> WalkPaged(ZSetPages& zset, uint64_t from, bool reverse, uint64_t skip,
                          int64_t n, In in) {
  Entries out;
  if (n == 0) return out;
  SLOTKV_RETURN_IF_ERROR(zset.Walk(from, reverse, [&](const ZSetValue::Entry& e) {
    if (skip > 0) {
      --skip;
      return true;
    }
    if (!in(e)) return false;
    out.push_back(e);
    return n < 0 || static_cast<int64_t>(out.size()) < n;
  }));
  return out;
}

Result<Entries> ByRank(ZSetPages& zset, int64_t start, int64_t end, bool reverse) {
  const auto size = static_cast<int64_t>(zset.size());
  if (!ClampRanks(size, &start, &end)) return Entries();
  const auto from = static_cast<uint64_t>(reverse ? size - 1 - start : start);
  return WalkPaged(zset, from, reverse, 0, end - start + 1,
                   [](const ZSetValue::Entry&) { return true; });
}

template <class Range>
Result<Entries> InRange(ZSetPages& zset, const Range& range, bool reverse, int64_t offset,
                        int64_t limit) {
  if (offset < 0 || (offset > 0 && static_cast<uint64_t>(offset) >= zset.size()) ||
      range.AlwaysEmpty()) {
    return Entries();
  }
  const auto skip = static_cast<uint64_t>(offset);
  if (!reverse) {
    SLOTKV_ASSIGN_OR_RETURN(uint64_t first, zset.CountBefore([&](const ZSetValue::Entry& e) {
                              return range.AboveMin(e);
                            }));
    return WalkPaged(zset, first, false, skip, limit,
                     [&](const ZSetValue::Entry& e) { return range.BelowMax(e); });
  }
  SLOTKV_ASSIGN_OR_RETURN(uint64_t past, zset.CountBefore([&](const ZSetValue::Entry& e) {
                            return !range.BelowMax(e);
                          }));
  if (past == 0) return Entries();
  return WalkPaged(zset, past - 1, true, skip, limit,
                   [&](const ZSetValue::Entry& e) { return range.AboveMin(e); });
}

template <class Range>
Result<int64_t> CountInRange(ZSetPages& zset, const Range& range) {
  if (range.AlwaysEmpty()) return int64_t{0};
  SLOTKV_ASSIGN_OR_RETURN(uint64_t first, zset.CountBefore([&](const ZSetValue::Entry& e) {
                            return range.AboveMin(e);
                          }));
  SLOTKV_ASSIGN_OR_RETURN(uint64_t past, zset.CountBefore([&](const ZSetValue::Entry& e) {
                            return !range.BelowMax(e);
                          }));
  return past > first ? static_cast<int64_t>(past - first) : 0;
}

// ---- the ZRANGE parser --------------------------------------------------------------------

enum class RangeKind { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

// A parsed ZRANGE-like request.
struct RangeRequest {
  RangeKind kind = RangeKind::kRank;
  bool reverse = false;
  bool with_scores = false;
  int64_t offset = 0;
  int64_t limit = -1;  // < 0: no limit
  int64_t start = 0;   // kRank
  int64_t end = 0;     // kRank
  ScoreRange score;    // kScore
  LexRange lex;        // kLex
};

// Parses args[key_pos + 1 ...] (min, max, options) as zrangeGenericCommand: kind and dir are
// fixed by the command or kAuto (ZRANGE, ZRANGESTORE: set by BYSCORE / BYLEX / REV). A store
// takes no WITHSCORES. Nullopt after replying the error.
std::optional<RangeRequest> ParseRange(const std::vector<std::string>& args, size_t key_pos,
                                       bool store, RangeKind kind, Direction dir, Reply& reply) {
  RangeRequest req;
  for (size_t j = key_pos + 3; j < args.size(); ++j) {
    const size_t left = args.size() - j - 1;
    if (!store && Is(args[j], "WITHSCORES")) {
      req.with_scores = true;
    } else if (Is(args[j], "LIMIT") && left >= 2) {
      std::optional<int64_t> offset = IntArg(args[j + 1], reply);
      if (!offset) return std::nullopt;
      std::optional<int64_t> limit = IntArg(args[j + 2], reply);
      if (!limit) return std::nullopt;
      req.offset = *offset;
      req.limit = *limit;
      j += 2;
    } else if (dir == Direction::kAuto && Is(args[j], "REV")) {
      dir = Direction::kReverse;
    } else if (kind == RangeKind::kAuto && Is(args[j], "BYLEX")) {
      kind = RangeKind::kLex;
    } else if (kind == RangeKind::kAuto && Is(args[j], "BYSCORE")) {
      kind = RangeKind::kScore;
    } else {
      reply.Error(kErrSyntax);
      return std::nullopt;
    }
  }
  req.kind = kind == RangeKind::kAuto ? RangeKind::kRank : kind;
  req.reverse = dir == Direction::kReverse;
  if (req.limit != -1 && req.kind == RangeKind::kRank) {
    reply.Error(kErrLimitWithRank);
    return std::nullopt;
  }
  if (req.with_scores && req.kind == RangeKind::kLex) {
    reply.Error(kErrWithScoresLex);
    return std::nullopt;
  }
  std::string_view min = args[key_pos + 1];
  std::string_view max = args[key_pos + 2];
  if (req.reverse && req.kind != RangeKind::kRank) std::swap(min, max);
  switch (req.kind) {
    case RangeKind::kAuto:
    case RangeKind::kRank: {
      std::optional<int64_t> start = IntArg(min, reply);
      if (!start) return std::nullopt;
      std::optional<int64_t> end = IntArg(max, reply);
      if (!end) return std::nullopt;
      req.start = *start;
      req.end = *end;
      break;
    }
    case RangeKind::kScore: {
      std::optional<ScoreRange> range = ParseScoreRange(min, max);
      if (!range) {
        reply.Error(kErrScoreRange);
        return std::nullopt;
      }
      req.score = *range;
      break;
    }
    case RangeKind::kLex: {
      std::optional<LexRange> range = ParseLexRange(min, max);
      if (!range) {
        reply.Error(kErrLexRange);
        return std::nullopt;
      }
      req.lex = std::move(*range);
      break;
    }
  }
  return req;
}

// The entries req selects from zset (a ZSetValue or a paged ZSetPages), in reply order.
template <class ZSet>
auto Select(ZSet& zset, const RangeRequest& req) {
  switch (req.kind) {
    case RangeKind::kScore:
      return InRange(zset, req.score, req.reverse, req.offset, req.limit);
    case RangeKind::kLex:
      return InRange(zset, req.lex, req.reverse, req.offset, req.limit);
    case RangeKind::kAuto:
    case RangeKind::kRank:
      break;
  }
  return ByRank(zset, req.start, req.end, req.reverse);
}

// The entries req selects from the opened key (none when it is missing).
Result<Entries> Select(ZSetAccess& zset, const RangeRequest& req) {
  if (zset.paged()) return Select(*zset.paged(), req);
  return zset.small() ? Select(std::as_const(*zset.small()), req) : Entries();
}

// ---- reading commands ---------------------------------------------------------------------

// The ZRANGE-like commands replying entries: parse, read the key, reply (an empty array for a
// missing key).
void RangeCommand(CommandContext& ctx, RangeKind kind, Direction dir) {
  std::optional<RangeRequest> req = ParseRange(ctx.args, 1, false, kind, dir, ctx.reply);
  if (!req) return;
  ZSetAccess zset(ctx.store);
  if (!zset.Open(ctx.args[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  Result<Entries> entries = Select(zset, *req);
  if (Failed(entries.status(), ctx.reply)) return;
  ReplyEntries(ctx.reply, *entries, req->with_scores);
}

// ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
void ZRange(CommandContext& ctx) { RangeCommand(ctx, RangeKind::kAuto, Direction::kAuto); }
// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
void ZRangeByScore(CommandContext& ctx) {
  RangeCommand(ctx, RangeKind::kScore, Direction::kForward);
}
// ZRANGEBYLEX key min max [LIMIT offset count]
void ZRangeByLex(CommandContext& ctx) { RangeCommand(ctx, RangeKind::kLex, Direction::kForward); }
// ZREVRANGE key start stop [WITHSCORES]
void ZRevRange(CommandContext& ctx) { RangeCommand(ctx, RangeKind::kRank, Direction::kReverse); }
// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
void ZRevRangeByScore(CommandContext& ctx) {
  RangeCommand(ctx, RangeKind::kScore, Direction::kReverse);
}
// ZREVRANGEBYLEX key max min [LIMIT offset count]
void ZRevRangeByLex(CommandContext& ctx) {
  RangeCommand(ctx, RangeKind::kLex, Direction::kReverse);
}

// Replies how many entries of the key's sorted set are in range (0 for a missing key).
template <class Range>
void ReplyCount(CommandContext& ctx, const Range& range) {
  ZSetAccess zset(ctx.store);
  if (!zset.Open(ctx.args[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  Result<int64_t> n = int64_t{0};
  if (zset.paged()) {
    n = CountInRange(*zset.paged(), range);
  } else if (zset.small()) {
    n = CountInRange(*zset.small(), range);
  }
  if (Failed(n.status(), ctx.reply)) return;
  ctx.reply.Integer(*n);
}

// ZCOUNT key min max
void ZCount(CommandContext& ctx) {
  std::optional<ScoreRange> range = ParseScoreRange(ctx.args[2], ctx.args[3]);
  if (!range) {
    ctx.reply.Error(kErrScoreRange);
    return;
  }
  ReplyCount(ctx, *range);
}

// ZLEXCOUNT key min max
void ZLexCount(CommandContext& ctx) {
  std::optional<LexRange> range = ParseLexRange(ctx.args[2], ctx.args[3]);
  if (!range) {
    ctx.reply.Error(kErrLexRange);
    return;
  }
  ReplyCount(ctx, *range);
}

// ---- writing commands ---------------------------------------------------------------------

// ZREMRANGEBY*: removes the entries req selects (a forward range without LIMIT) from the
// key's set, writes it back (keeping its TTL; deleting it when emptied) and replies the count;
// 0 for a missing key.
void RemoveCommand(CommandContext& ctx, const RangeRequest& req) {
  ZSetAccess zset(ctx.store);
  if (!zset.Open(ctx.args[1], ctx.stats, Lookup::kWrite, ctx.reply)) return;
  Result<Entries> entries = Select(zset, req);
  if (Failed(entries.status(), ctx.reply)) return;
  for (const ZSetValue::Entry& e : *entries) {
    if (Failed(zset.Remove(e.member).status(), ctx.reply)) return;
  }
  if (Failed(zset.Write(), ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(entries->size()));
}

// ZREMRANGEBYRANK key start stop
void ZRemRangeByRank(CommandContext& ctx) {
  RangeRequest req;
  std::optional<int64_t> start = IntArg(ctx.args[2], ctx.reply);
  if (!start) return;
  std::optional<int64_t> end = IntArg(ctx.args[3], ctx.reply);
  if (!end) return;
  req.start = *start;
  req.end = *end;
  RemoveCommand(ctx, req);
}

// ZREMRANGEBYSCORE key min max
void ZRemRangeByScore(CommandContext& ctx) {
  std::optional<ScoreRange> range = ParseScoreRange(ctx.args[2], ctx.args[3]);
  if (!range) {
    ctx.reply.Error(kErrScoreRange);
    return;
  }
  RangeRequest req;
  req.kind = RangeKind::kScore;
  req.score = *range;
  RemoveCommand(ctx, req);
}

// ZREMRANGEBYLEX key min max
void ZRemRangeByLex(CommandContext& ctx) {
  std::optional<LexRange> range = ParseLexRange(ctx.args[2], ctx.args[3]);
  if (!range) {
    ctx.reply.Error(kErrLexRange);
    return;
  }
  RangeRequest req;
  req.kind = RangeKind::kLex;
  req.lex = std::move(*range);
  RemoveCommand(ctx, req);
}

// Reads ZRANGESTORE's source (args[2]) in store and selects req's entries into *result.
// False after replying the error (WRONGTYPE, storage); a missing source selects nothing.
bool ReadStoreSource(AsyncContext& ctx, Store& store, const RangeRequest& req, ZSetValue* result) {
  ZSetAccess zset(store);
  if (!zset.Open(ctx.args[2], StatsHere(ctx.server), Lookup::kRead, ctx.reply)) return false;
  Result<Entries> entries = Select(zset, req);
  if (Failed(entries.status(), ctx.reply)) return false;
  for (const ZSetValue::Entry& e : *entries) result->Set(e.member, e.score);
  return true;
}

// Writes result as ZRANGESTORE's destination (args[1]; no TTL; deleted when result is empty)
// and replies its size.
void WriteStoreResult(AsyncContext& ctx, Store& store, const ZSetValue& result) {
  if (Failed(WriteZSet(store, ctx.args[1], result, 0), ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(result.size()));
}

// ZRANGESTORE's data steps; ends on any worker.
Task RangeStoreSteps(AsyncContext& ctx, const RangeRequest& req) {
  const uint32_t dst_slot = ctx.server.keyspace->SlotOfKey(ctx.args[1]);
  const uint32_t src_slot = ctx.server.keyspace->SlotOfKey(ctx.args[2]);
  ZSetValue result;
  co_await ctx.ToSlot(src_slot);
  {
    Store store = ctx.StoreOf(src_slot);
    if (!ReadStoreSource(ctx, store, req, &result)) co_return;
    if (src_slot == dst_slot) {  // one step on one owner: atomic
      WriteStoreResult(ctx, store, result);
      co_return;
    }
  }
  co_await ctx.ToSlot(dst_slot);
  Store store = ctx.StoreOf(dst_slot);
  WriteStoreResult(ctx, store, result);
}

// ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]: the size of the
// stored result.
Task ZRangeStore(AsyncContext& ctx) {
  std::optional<RangeRequest> req =
      ParseRange(ctx.args, 2, true, RangeKind::kAuto, Direction::kAuto, ctx.reply);
  if (!req) co_return;
  co_await RangeStoreSteps(ctx, *req);
  co_await ctx.ToHome();
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS.
void RegisterZSetRangeCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "zcount", .arity = 4, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZCount, .group = "sorted-set",
         .summary = "Count the members in a sorted set with scores within the given values",
         .since = "2.0.0", .acl = "read sortedset fast", .key_specs = "RO access"});
  t.Add({.name = "zlexcount", .arity = 4, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = ZLexCount, .group = "sorted-set",
         .summary = "Count the number of members in a sorted set between a given lexicographical "
                    "range",
         .since = "2.8.9", .acl = "read sortedset fast", .key_specs = "RO access"});
  t.Add({.name = "zrange", .arity = -4, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRange, .group = "sorted-set",
         .summary = "Return a range of members in a sorted set", .since = "1.2.0",
         .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zrangebylex", .arity = -4, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRangeByLex, .group = "sorted-set",
         .summary = "Return a range of members in a sorted set, by lexicographical range",
         .since = "2.8.9", .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zrangebyscore", .arity = -4, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRangeByScore, .group = "sorted-set",
         .summary = "Return a range of members in a sorted set, by score", .since = "1.0.5",
         .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zrangestore", .arity = -5, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 2, .step = 1, .run_async = ZRangeStore, .group = "sorted-set",
         .summary = "Store a range of members from sorted set into another key",
         .since = "6.2.0", .acl = "write sortedset slow", .key_specs = "OW update|RO access"});
  t.Add({.name = "zremrangebylex", .arity = 4, .flags = kWrite, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRemRangeByLex, .group = "sorted-set",
         .summary = "Remove all members in a sorted set between the given lexicographical range",
         .since = "2.8.9", .acl = "write sortedset slow", .key_specs = "RW delete"});
  t.Add({.name = "zremrangebyrank", .arity = 4, .flags = kWrite, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRemRangeByRank, .group = "sorted-set",
         .summary = "Remove all members in a sorted set within the given indexes",
         .since = "2.0.0", .acl = "write sortedset slow", .key_specs = "RW delete"});
  t.Add({.name = "zremrangebyscore", .arity = 4, .flags = kWrite, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRemRangeByScore, .group = "sorted-set",
         .summary = "Remove all members in a sorted set within the given scores",
         .since = "1.2.0", .acl = "write sortedset slow", .key_specs = "RW delete"});
  t.Add({.name = "zrevrange", .arity = -4, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRevRange, .group = "sorted-set",
         .summary = "Return a range of members in a sorted set, by index, with scores ordered "
                    "from high to low",
         .since = "1.2.0", .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zrevrangebylex", .arity = -4, .flags = kReadOnly, .first_key = 1,
         .last_key = 1, .step = 1, .run = ZRevRangeByLex, .group = "sorted-set",
         .summary = "Return a range of members in a sorted set, by lexicographical range, "
                    "ordered from higher to lower strings.",
         .since = "2.8.9", .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zrevrangebyscore", .arity = -4, .flags = kReadOnly, .first_key = 1,
         .last_key = 1, .step = 1, .run = ZRevRangeByScore, .group = "sorted-set",
         .summary = "Return a range of members in a sorted set, by score, with scores ordered "
                    "from high to low",
         .since = "2.2.0", .acl = "read sortedset slow", .key_specs = "RO access"});
  // clang-format on
}

}  // namespace slotkv::command
