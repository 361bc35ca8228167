// Sorted-set family, the one-key commands: ZADD ZINCRBY ZCARD ZSCORE ZMSCORE ZRANK ZREVRANK
// ZREM ZPOPMIN ZPOPMAX ZRANDMEMBER ZSCAN, as Redis 7.0's t_zset.c. The range commands are in
// zset_range_commands.cc, the set operations in zset_setops_commands.cc.
//
// A sorted set is one value of type kZSet (core/types/zset_value.h) up to
// paged-collection-threshold entries and a paged set above (core/types/zset_pages.h). Point
// commands and pops go through ZSetAccess (O(log n) pages per entry on a paged set; a one-value
// set is decoded and written whole); ZRANDMEMBER draws ranks from a paged set (one descent
// each) but for a distinct count of a third of it or more, which reads it whole. A key of
// another type gives WRONGTYPE; a set emptied by ZREM or a pop is deleted; writes keep the
// key's TTL.
//
// Keyspace hits/misses count the lookups Redis counts (lookupKeyRead): ZCARD ZSCORE ZMSCORE
// ZRANK ZREVRANK ZRANDMEMBER ZSCAN; not those of ZADD ZINCRBY ZREM ZPOPMIN ZPOPMAX.
//
// Redis keeps a small sorted set in a listpack (at most 128 entries, members of at most 64
// bytes; see ListpackShaped) and a larger one in a skiplist, and two replies show which: a
// score of -0 is stored as 0 in a listpack (kept as -0 in a skiplist), and ZSCAN prints
// integral scores of a listpack as integers ("100000000000000000", not "1e+17"). slotkv
// decides by the set's shape at the time of the command; Redis never turns a skiplist back
// into a listpack, so a set that shrank after growing past the limits may differ there.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/base/glob.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/member_access.h"
#include "core/command/zset_access.h"

namespace slotkv::command {
namespace {

// Error texts only this family replies with (errors.h belongs to the framework).
constexpr std::string_view kErrXxAndNx =
    "ERR XX and NX options at the same time are not compatible";
constexpr std::string_view kErrGtLtNx =
    "ERR GT, LT, and/or NX options at the same time are not compatible";
constexpr std::string_view kErrIncrPairs =
    "ERR INCR option supports a single increment-element pair";
constexpr std::string_view kErrScoreNaN = "ERR resulting score is not a number (NaN)";
constexpr std::string_view kErrMustBePositive = "ERR value is out of range, must be positive";
constexpr std::string_view kErrInvalidCursor = "ERR invalid cursor";

// Redis 7.0's zset-max-listpack-entries and zset-max-listpack-value defaults.
constexpr size_t kListpackMaxEntries = 128;
constexpr size_t kListpackMaxMember = 64;

// Reads args[1] as a sorted set. False after replying an error; otherwise read->value is
// nullopt when the key does not exist.
bool ReadKey(CommandContext& ctx, Lookup lookup, ZSetRead* read) {
  *read = ReadZSet(ctx.store, ctx.stats, lookup, ctx.args[1]);
  return !ReadFailed(*read, ctx.reply);
}

// Whether Redis would hold zset in a listpack (see the file comment).
bool ListpackShaped(const ZSetValue& zset) {
  if (zset.size() > kListpackMaxEntries) return false;
  return std::all_of(zset.begin(), zset.end(), [](const ZSetValue::Entry& e) {
    return e.member.size() <= kListpackMaxMember;
  });
}

// A score as a listpack holds it, the text ZSCAN replies (Redis 7.0 d2string): integral values
// within +-2^62 as integers, others as "%.17g".
std::string ListpackScoreText(double score) {
  constexpr double kLimit = 4611686018427387904.0;  // 2^62, (double)(LLONG_MAX / 2)
  if (score >= -kLimit && score <= kLimit && score == std::trunc(score)) {
    return FormatInt64(static_cast<int64_t>(score));
  }
  return FormatDouble(score);
}

// ---- ZADD / ZINCRBY -----------------------------------------------------------------------

struct ZAddOptions {
  bool nx = false;
  bool xx = false;
  bool gt = false;
  bool lt = false;
  bool ch = false;
  bool incr = false;
};

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
// ZINCRBY key increment member (ZADD ... INCR; Redis reads option words there too, so
// "ZINCRBY k nx m" is a syntax error).
// Checks in Redis's order: options, pair count, option conflicts, INCR with one pair, every
// score, then the key. Replies the number added (CH: added or changed), or with INCR the new
// score, or nil when NX/XX/GT/LT prevented the change.
void ZAddGeneric(CommandContext& ctx, bool incr) {
  const std::vector<std::string>& a = ctx.args;
  ZAddOptions o;
  o.incr = incr;
  size_t first = 2;
  for (; first < a.size(); ++first) {
    const std::string& w = a[first];
    if (Is(w, "NX")) {
      o.nx = true;
    } else if (Is(w, "XX")) {
      o.xx = true;
    } else if (Is(w, "GT")) {
      o.gt = true;
    } else if (Is(w, "LT")) {
      o.lt = true;
    } else if (Is(w, "CH")) {
      o.ch = true;
    } else if (Is(w, "INCR")) {
      o.incr = true;
    } else {
      break;
    }
  }
  const size_t rest = a.size() - first;
  if (rest == 0 || rest % 2 != 0) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  if (o.nx && o.xx) {
    ctx.reply.Error(kErrXxAndNx);
    return;
  }
  if ((o.nx && (o.gt || o.lt)) || (o.gt && o.lt)) {
    ctx.reply.Error(kErrGtLtNx);
    return;
  }
  const size_t pairs = rest / 2;
  if (o.incr && pairs > 1) {
    ctx.reply.Error(kErrIncrPairs);
    return;
  }
  std::vector<double> scores(pairs);
  for (size_t j = 0; j < pairs; ++j) {
    std::optional<double> s = ParseDouble(a[first + 2 * j]);
    if (!s) {
      ctx.reply.Error(kErrNotFloat);
      return;
    }
    scores[j] = *s;
  }
  ZSetAccess zset(ctx.store);
  if (!zset.Open(a[1], ctx.stats, Lookup::kWrite, ctx.reply)) return;
  int64_t added = 0;
  int64_t updated = 0;
  std::optional<double> result;  // the last score set (INCR's reply)
  if (zset.exists() || !o.xx) {
    // Redis turns a listpack into a skiplist before an insert that breaks its limits, and a
    // listpack stores -0 as 0 (see the file comment). A paged set is past those limits.
    bool skiplist = zset.paged() != nullptr ||
                    (zset.small() && !zset.small()->empty() && !ListpackShaped(*zset.small()));
    for (size_t j = 0; j < pairs; ++j) {
      const std::string& member = a[first + 2 * j + 1];
      double score = scores[j];
      Result<std::optional<double>> current = zset.Score(member);
      if (Failed(current.status(), ctx.reply)) return;
      if (*current) {
        if (o.nx) continue;
        if (o.incr) {
          score += **current;
          if (std::isnan(score)) {  // inf + -inf; INCR has one pair, so nothing changed
            ctx.reply.Error(kErrScoreNaN);
            return;
          }
        }
        if ((o.lt && score >= **current) || (o.gt && score <= **current)) continue;
        result = score;
        if (score == **current) continue;
        ++updated;
      } else {
        if (o.xx) continue;
        if (zset.size() + 1 > kListpackMaxEntries || member.size() > kListpackMaxMember) {
          skiplist = true;
        }
        result = score;
        ++added;
      }
      if (Failed(zset.Set(member, skiplist || score != 0 ? score : 0.0).status(), ctx.reply)) {
        return;
      }
    }
    if (Failed(zset.Write(), ctx.reply)) return;
  }
  if (!o.incr) {
    ctx.reply.Integer(o.ch ? added + updated : added);
  } else if (result) {
    ctx.reply.Double(*result);
  } else {
    ctx.reply.Null();
  }
}

void ZIncrBy(CommandContext& ctx) { ZAddGeneric(ctx, true); }

// ZREM key member [member ...]: the number removed; the key goes with its last member.
void ZRem(CommandContext& ctx) {
  ZSetAccess zset(ctx.store);
  if (!zset.Open(ctx.args[1], ctx.stats, Lookup::kWrite, ctx.reply)) return;
  int64_t removed = 0;
  for (size_t i = 2; i < ctx.args.size() && zset.exists(); ++i) {
    Result<bool> r = zset.Remove(ctx.args[i]);
    if (Failed(r.status(), ctx.reply)) return;
    removed += *r ? 1 : 0;
  }
  if (Failed(zset.Write(), ctx.reply)) return;
  ctx.reply.Integer(removed);
}

// ZPOPMIN / ZPOPMAX key [count]
// Without count: [member, score] of the lowest (highest) entry, flat in both protocols. With
// count: up to count entries, flat member, score ... in RESP2 and [member, score] pairs in
// RESP3. A missing key or count 0 is an empty array; a count that is not an integer >= 0 is
// refused before the key is read; WRONGTYPE comes before count 0.
void ZPop(CommandContext& ctx, ZEnd end) {
  const std::vector<std::string>& a = ctx.args;
  if (a.size() > 3) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  std::optional<int64_t> count;
  if (a.size() == 3) {
    count = ParseInt64(a[2]);
    if (!count || *count < 0) {
      ctx.reply.Error(kErrMustBePositive);
      return;
    }
  }
  ZSetAccess zset(ctx.store);
  if (!zset.Open(a[1], ctx.stats, Lookup::kWrite, ctx.reply)) return;
  if (!zset.exists() || (count && *count == 0)) {
    ctx.reply.Array(0);
    return;
  }
  Result<std::vector<ZSetValue::Entry>> popped =
      zset.Pop(end, count ? static_cast<size_t>(*count) : 1);
  if (Failed(popped.status(), ctx.reply) || Failed(zset.Write(), ctx.reply)) return;
  if (count) {
    ReplyEntries(ctx.reply, *popped, true);
    return;
  }
  ctx.reply.Array(2);
  ctx.reply.Bulk((*popped)[0].member);
  ctx.reply.Double((*popped)[0].score);
}

void ZPopMin(CommandContext& ctx) { ZPop(ctx, ZEnd::kMin); }
void ZPopMax(CommandContext& ctx) { ZPop(ctx, ZEnd::kMax); }

// ---- reads --------------------------------------------------------------------------------

// ZCARD key: the entry count (0 for a missing key), read from the header alone.
void ZCard(CommandContext& ctx) { ReplyCollectionSize<ZSetValue>(ctx, ValueType::kZSet); }

// Replies the score of member or nil.
bool ReplyScore(CommandContext& ctx, ZSetAccess& zset, std::string_view member) {
  Result<std::optional<double>> score = zset.Score(member);
  if (Failed(score.status(), ctx.reply)) return false;
  if (*score) {
    ctx.reply.Double(**score);
  } else {
    ctx.reply.Null();
  }
  return true;
}

// ZSCORE key member: the score (a double in RESP3), or nil.
void ZScore(CommandContext& ctx) {
  ZSetAccess zset(ctx.store);
  if (!zset.Open(ctx.args[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  ReplyScore(ctx, zset, ctx.args[2]);
}

// ZMSCORE key member [member ...]: one score or nil per member (all nil for a missing key).
// A storage failure part-way ends the reply with the error in place of the remaining scores.
void ZMScore(CommandContext& ctx) {
  ZSetAccess zset(ctx.store);
  if (!zset.Open(ctx.args[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  ctx.reply.Array(ctx.args.size() - 2);
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    if (!ReplyScore(ctx, zset, ctx.args[i])) return;
  }
}

// ZRANK / ZREVRANK key member: the 0-based rank by ascending (descending) score, or nil.
void RankGeneric(CommandContext& ctx, bool reverse) {
  ZSetAccess zset(ctx.store);
  if (!zset.Open(ctx.args[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  Result<std::optional<uint64_t>> rank = zset.Rank(ctx.args[2]);
  if (Failed(rank.status(), ctx.reply)) return;
  if (!*rank) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Integer(static_cast<int64_t>(reverse ? zset.size() - 1 - **rank : **rank));
}

void ZRank(CommandContext& ctx) { RankGeneric(ctx, false); }
void ZRevRank(CommandContext& ctx) { RankGeneric(ctx, true); }

// ---- ZRANDMEMBER --------------------------------------------------------------------------

// The random source of ZRANDMEMBER, one per worker thread.
std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

// Uniform in [0, n). REQUIRES: n > 0.
uint64_t RandomBelow(uint64_t n) {
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(Rng());
}

// One pick of a ZRANDMEMBER reply: the member, then (WITHSCORES) its score; in RESP3 a pick
// with its score is an array of two.
void ReplyPick(Reply& reply, const ZSetValue::Entry& e, bool with_scores) {
  if (with_scores && reply.protocol() >= 3) reply.Array(2);
  reply.Bulk(e.member);
  if (with_scores) reply.Double(e.score);
}

// ZRANDMEMBER of a paged set: each pick a uniform rank, one descent of the tree. True after
// replying (an error too); false when the whole set is the better read (a distinct count of a
// third of it or more, as Redis switches from drawing to copying there).
bool ZRandMemberPaged(CommandContext& ctx, ZSetPages& zset, std::optional<int64_t> count,
                      bool with_scores) {
  const uint64_t size = zset.size();
  auto at = [&](uint64_t rank, ZSetValue::Entry* out) {
    bool found = false;
    Status st = zset.Walk(rank, false, [&](const ZSetValue::Entry& e) {
      *out = e;
      found = true;
      return false;
    });
    if (st.ok() && !found) st = Status::Corruption("paged sorted set: a rank past its end");
    return st;
  };
  ZSetValue::Entry e;
  if (!count) {
    if (!Failed(at(RandomBelow(size), &e), ctx.reply)) ctx.reply.Bulk(e.member);
    return true;
  }
  const bool distinct = *count >= 0;
  const uint64_t n = distinct ? static_cast<uint64_t>(*count) : 0 - static_cast<uint64_t>(*count);
  if (distinct && n * 3 > size) return false;
  std::vector<uint64_t> ranks;
  ranks.reserve(n);
  if (distinct) {  // Floyd's sampling, replied in ascending order
    std::unordered_set<uint64_t> taken;
    for (uint64_t j = size - n; j < size; ++j) {
      uint64_t t = RandomBelow(j + 1);
      if (taken.count(t) != 0) t = j;
      taken.insert(t);
      ranks.push_back(t);
    }
    std::sort(ranks.begin(), ranks.end());
  } else {
    for (uint64_t i = 0; i < n; ++i) ranks.push_back(RandomBelow(size));
  }
  std::vector<ZSetValue::Entry> picks;
  uint64_t bytes = 0;
  for (uint64_t r : ranks) {
    if (Failed(at(r, &e), ctx.reply)) return true;
    bytes += e.member.size() + 16 + (with_scores ? 32 : 0);
    picks.push_back(std::move(e));
    // The reply's size, estimated from the first picks, refused past the cap.
    const uint64_t k = picks.size();
    if (!distinct && k == std::min<uint64_t>(n, 32) && n > kMaxRandomReplyBytes / (bytes / k + 1)) {
      ctx.reply.Error(kErrReplyTooBig);
      return true;
    }
  }
  const bool flat = with_scores && ctx.reply.protocol() < 3;  // RESP2: member, score, ...
  ctx.reply.Array(flat ? n * 2 : n);
  for (const ZSetValue::Entry& p : picks) ReplyPick(ctx.reply, p, with_scores);
  return true;
}

// Opens key for ZRANDMEMBER: true after replying (an error, or a paged set's draws).
bool ZRandMemberOpened(CommandContext& ctx, std::optional<int64_t> count, bool with_scores) {
  ZSetAccess zset(ctx.store);
  if (!zset.Open(ctx.args[1], ctx.stats, Lookup::kRead, ctx.reply)) return true;
  return zset.paged() && ZRandMemberPaged(ctx, *zset.paged(), count, with_scores);
}

// ZRANDMEMBER key [count [WITHSCORES]]
// A paged set draws ranks (ZRandMemberPaged) unless count asks for a third of it or more.
// No count: one random member, or nil. A count >= the size: the whole set, highest score
// first (as Redis 7.0). A smaller positive count: that many distinct members, in ascending
// order (Redis's order depends on its encoding; any order is valid). A negative count: -count
// members drawn independently (repeats possible), in random order. Order of checks as Redis:
// count, WITHSCORES keyword, WITHSCORES range, then the key.
void ZRandMember(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  if (a.size() == 2) {
    if (ZRandMemberOpened(ctx, std::nullopt, false)) return;
    ZSetRead read;  // the lookup was counted by the open: this read counts nothing
    if (!ReadKey(ctx, Lookup::kWrite, &read)) return;
    if (!read.value) {
      ctx.reply.Null();
      return;
    }
    ctx.reply.Bulk(read.value->AtRank(RandomBelow(read.value->size()))->member);
    return;
  }
  std::optional<RandomCount> parsed = ParseRandomCount(a, "WITHSCORES", ctx.reply);
  if (!parsed) return;
  const int64_t count = parsed->count;
  const bool with_scores = parsed->with;
  if (ZRandMemberOpened(ctx, count, with_scores)) return;
  ZSetRead read;  // the lookup was counted by the open: this read counts nothing
  if (!ReadKey(ctx, Lookup::kWrite, &read)) return;
  if (!read.value || count == 0) {
    ctx.reply.Array(0);  // an empty array even in RESP3, as Redis
    return;
  }
  const ZSetValue& zset = *read.value;
  const uint64_t size = zset.size();
  const bool flat = with_scores && ctx.reply.protocol() < 3;  // RESP2: member, score, ...
  if (count > 0 && static_cast<uint64_t>(count) >= size) {
    ctx.reply.Array(flat ? size * 2 : size);
    for (auto it = zset.rbegin(); it != zset.rend(); ++it) ReplyPick(ctx.reply, *it, with_scores);
    return;
  }
  std::vector<const ZSetValue::Entry*> entries;
  entries.reserve(size);
  for (const ZSetValue::Entry& e : zset) entries.push_back(&e);
  if (count < 0 || count == 1) {
    const uint64_t n = static_cast<uint64_t>(count < 0 ? -count : count);
    // Estimate the reply from the average pick and refuse one past the cap.
    uint64_t bytes = 0;
    for (const ZSetValue::Entry* e : entries) bytes += e->member.size() + 16;
    const uint64_t per_pick = bytes / size + 1 + (with_scores ? 32 : 0);
    if (n > kMaxRandomReplyBytes / per_pick) {
      ctx.reply.Error(kErrReplyTooBig);
      return;
    }
    ctx.reply.Array(flat ? n * 2 : n);
    for (uint64_t i = 0; i < n; ++i) ReplyPick(ctx.reply, *entries[RandomBelow(size)], with_scores);
    return;
  }
  // n distinct positions (Floyd's sampling), replied in ascending order.
  const uint64_t n = static_cast<uint64_t>(count);
  std::vector<uint64_t> picks;
  picks.reserve(n);
  {
    std::vector<bool> taken(size, false);
    for (uint64_t j = size - n; j < size; ++j) {
      uint64_t t = RandomBelow(j + 1);
      if (taken[t]) t = j;
      taken[t] = true;
      picks.push_back(t);
    }
  }
  std::sort(picks.begin(), picks.end());
  ctx.reply.Array(flat ? n * 2 : n);
  for (uint64_t p : picks) ReplyPick(ctx.reply, *entries[p], with_scores);
}

// ---- ZSCAN --------------------------------------------------------------------------------

// ZSCAN key cursor [MATCH pattern] [COUNT count]
// A one-value set replies every (matching) member and its score with cursor 0 in one call,
// whatever the cursor and COUNT: what Redis does for a listpack. A paged set replies whole
// pages of its member index from the cursor (a page index) until COUNT members were looked at
// (ScanPages). Scores are bulk strings in both protocols, as Redis prints them for the set's
// encoding. As Redis: the cursor is checked first, a missing key replies an empty scan before
// the options are read, and MATCH filters on the member.
void ZScan(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  std::optional<uint64_t> cursor = ParseScanCursor(a[2]);
  if (!cursor) {
    ctx.reply.Error(kErrInvalidCursor);
    return;
  }
  ZSetAccess zset(ctx.store);
  if (!zset.Open(a[1], ctx.stats, Lookup::kRead, ctx.reply)) return;
  if (!zset.exists()) {
    ctx.reply.Array(2);
    ctx.reply.Bulk("0");
    ctx.reply.Array(0);
    return;
  }
  std::optional<std::string_view> pattern;
  int64_t count = 0;
  if (!ParseCollectionScanOptions(a, 3, ctx.reply, &pattern, &count)) return;
  std::vector<ZSetValue::Entry> out;
  uint64_t next = 0;
  bool listpack = false;
  if (zset.small()) {
    listpack = ListpackShaped(*zset.small());
    for (const ZSetValue::Entry& e : *zset.small()) {
      if (!pattern || GlobMatch(*pattern, e.member)) out.push_back(e);
    }
  } else {
    Status bad;
    auto add = [&](std::string_view member, std::string_view score) {
      if (pattern && !GlobMatch(*pattern, member)) return;
      Result<double> s = ZSetPages::DecodeScore(score);
      if (!s.ok()) {
        bad = s.status();
        return;
      }
      out.push_back({*s, std::string(member)});
    };
    Result<uint64_t> r = ScanPages(*zset.paged(), *cursor, static_cast<uint64_t>(count), add);
    if (Failed(r.status(), ctx.reply) || Failed(bad, ctx.reply)) return;
    next = *r;
  }
  ctx.reply.Array(2);
  ctx.reply.Bulk(FormatInt64(static_cast<int64_t>(next)));
  ctx.reply.Array(out.size() * 2);
  for (const ZSetValue::Entry& e : out) {
    ctx.reply.Bulk(e.member);
    ctx.reply.Bulk(listpack ? ListpackScoreText(e.score) : FormatDouble(e.score));
  }
}

}  // namespace

void ZAdd(CommandContext& ctx) { ZAddGeneric(ctx, false); }

// Arity, flags, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO and
// COMMAND DOCS.
void RegisterZSetCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "zadd", .arity = -4, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = ZAdd, .group = "sorted-set",
         .summary = "Add one or more members to a sorted set, or update its score if it already "
         "exists", .since = "1.2.0", .acl = "write sortedset fast", .key_specs = "RW update"});
  t.Add({.name = "zincrby", .arity = 4, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = ZIncrBy, .group = "sorted-set",
         .summary = "Increment the score of a member in a sorted set", .since = "1.2.0",
         .acl = "write sortedset fast", .key_specs = "RW access update"});
  t.Add({.name = "zrem", .arity = -3, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRem, .group = "sorted-set",
         .summary = "Remove one or more members from a sorted set", .since = "1.2.0",
         .acl = "write sortedset fast", .key_specs = "RW delete"});
  t.Add({.name = "zpopmin", .arity = -2, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZPopMin, .group = "sorted-set",
         .summary = "Remove and return members with the lowest scores in a sorted set",
         .since = "5.0.0", .acl = "write sortedset fast", .key_specs = "RW access delete"});
  t.Add({.name = "zpopmax", .arity = -2, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZPopMax, .group = "sorted-set",
         .summary = "Remove and return members with the highest scores in a sorted set",
         .since = "5.0.0", .acl = "write sortedset fast", .key_specs = "RW access delete"});
  t.Add({.name = "zcard", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZCard, .group = "sorted-set",
         .summary = "Get the number of members in a sorted set", .since = "1.2.0",
         .acl = "read sortedset fast", .key_specs = "RO"});
  t.Add({.name = "zscore", .arity = 3, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZScore, .group = "sorted-set",
         .summary = "Get the score associated with the given member in a sorted set",
         .since = "1.2.0", .acl = "read sortedset fast", .key_specs = "RO access"});
  t.Add({.name = "zmscore", .arity = -3, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = ZMScore, .group = "sorted-set",
         .summary = "Get the score associated with the given members in a sorted set",
         .since = "6.2.0", .acl = "read sortedset fast", .key_specs = "RO access"});
  t.Add({.name = "zrank", .arity = 3, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRank, .group = "sorted-set",
         .summary = "Determine the index of a member in a sorted set", .since = "2.0.0",
         .acl = "read sortedset fast", .key_specs = "RO access"});
  t.Add({.name = "zrevrank", .arity = 3, .flags = kReadOnly | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = ZRevRank, .group = "sorted-set",
         .summary = "Determine the index of a member in a sorted set, with scores ordered from "
         "high to low", .since = "2.0.0", .acl = "read sortedset fast", .key_specs = "RO access"});
  t.Add({.name = "zrandmember", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZRandMember, .group = "sorted-set",
         .summary = "Get one or multiple random elements from a sorted set", .since = "6.2.0",
         .acl = "read sortedset slow", .key_specs = "RO access"});
  t.Add({.name = "zscan", .arity = -3, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = ZScan, .group = "sorted-set",
         .summary = "Incrementally iterate sorted sets elements and associated scores",
         .since = "2.8.0", .acl = "read sortedset slow", .key_specs = "RO access"});
  // clang-format on
}

}  // namespace slotkv::command
