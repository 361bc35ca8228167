// Hash family: HSET HGET HDEL ... HRANDFIELD HSCAN, as Redis 7.0's t_hash.c.
// A hash of up to paged-collection-threshold fields is one value of type kHash
// (core/types/hash_value.h); a larger one is a root plus pages of fields (collection_pages.h).
// Commands on a few fields (HSET HGET HDEL HMGET HLEN HEXISTS HSTRLEN HSETNX HINCRBY*) go
// through MemberAccess: one page per field on a paged hash. HRANDFIELD draws from a paged hash
// page by page (but a count of a third of it or more); HGETALL, HKEYS and HVALS read every
// field; HSCAN reads a few pages per call (cursor = page index).
//
// A key of another type gives WRONGTYPE. A write that leaves the hash empty deletes the key
// (Redis never keeps an empty hash). Writes keep the key's TTL (Put with the old expiry).
//
// Keyspace hits/misses count the lookups Redis counts (lookupKeyRead): HGET HMGET HLEN
// HSTRLEN HEXISTS HKEYS HVALS HGETALL HRANDFIELD HSCAN; not those of HSET HSETNX HMSET HDEL
// HINCRBY HINCRBYFLOAT (lookupKeyWrite).
//
// Order: fields reply in insertion order, which is what Redis does for listpack hashes (the
// encoding OBJECT ENCODING reports for every slotkv hash).
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/glob.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/member_access.h"
#include "core/command/typed_read.h"
#include "core/types/hash_value.h"

namespace slotkv::command {
namespace {

// Error texts only this family replies with (errors.h belongs to the framework).
constexpr std::string_view kErrHashNotInteger = "ERR hash value is not an integer";
constexpr std::string_view kErrHashNotFloat = "ERR hash value is not a float";
constexpr std::string_view kErrIncrNaN = "ERR value is NaN or Infinity";
constexpr std::string_view kErrInvalidCursor = "ERR invalid cursor";

// ---- lookups ------------------------------------------------------------------------------

// Reads key as a hash. False after replying an error (storage failure, a corrupt value, or
// WRONGTYPE when the key holds another type); otherwise *hash is nullopt when the key does not
// exist, and *expire_at_ms (when given) is the key's expiry (0 = none or missing).
bool ReadHash(CommandContext& ctx, Lookup lookup, std::string_view key,
              std::optional<HashValue>* hash, int64_t* expire_at_ms = nullptr) {
  TypedRead<HashValue> read =
      ReadWhole<HashValue>(ctx.store, ctx.stats, lookup, key, ValueType::kHash);
  if (ReadFailed(read, ctx.reply)) return false;
  if (expire_at_ms) *expire_at_ms = read.meta.expire_at_ms;
  *hash = std::move(read.value);
  return true;
}

// Opens key as a hash for point operations. False after replying an error.
bool OpenHash(CommandContext& ctx, Lookup lookup, MemberAccess<HashValue>* hash) {
  return OpenOrReply(*hash, ctx.args[1], ctx.stats, lookup, ctx.reply);
}

// ---- writes -------------------------------------------------------------------------------

// HSET key field value [field value ...]: the number of new fields.
// HMSET key field value [field value ...]: OK.
void SetFields(CommandContext& ctx, std::string_view command, bool reply_ok) {
  const std::vector<std::string>& a = ctx.args;
  if (a.size() % 2 != 0) {
    ctx.reply.Error(WrongArgs(command));
    return;
  }
  MemberAccess<HashValue> hash(ctx.store, ValueType::kHash);
  if (!OpenHash(ctx, Lookup::kWrite, &hash)) return;
  int64_t created = 0;
  for (size_t i = 2; i < a.size(); i += 2) {
    Result<bool> r = hash.Set(a[i], a[i + 1]);
    if (Failed(r.status(), ctx.reply)) return;
    created += *r ? 1 : 0;
  }
  if (Failed(hash.Write(), ctx.reply)) return;
  if (reply_ok) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Integer(created);
  }
}

void HSet(CommandContext& ctx) { SetFields(ctx, "hset", false); }
void HMSet(CommandContext& ctx) { SetFields(ctx, "hmset", true); }

// HSETNX key field value: 1 when set, 0 when the field exists.
void HSetNx(CommandContext& ctx) {
  MemberAccess<HashValue> hash(ctx.store, ValueType::kHash);
  if (!OpenHash(ctx, Lookup::kWrite, &hash)) return;
  Result<bool> has = hash.Contains(ctx.args[2]);
  if (Failed(has.status(), ctx.reply)) return;
  if (*has) {
    ctx.reply.Integer(0);
    return;
  }
  if (Failed(hash.Set(ctx.args[2], ctx.args[3]).status(), ctx.reply)) return;
  if (Failed(hash.Write(), ctx.reply)) return;
  ctx.reply.Integer(1);
}

// HDEL key field [field ...]: the number of fields removed; the key goes with the last field.
void HDel(CommandContext& ctx) {
  MemberAccess<HashValue> hash(ctx.store, ValueType::kHash);
  if (!OpenHash(ctx, Lookup::kWrite, &hash)) return;
  int64_t deleted = 0;
  for (size_t i = 2; i < ctx.args.size() && hash.exists(); ++i) {
    Result<bool> r = hash.Delete(ctx.args[i]);
    if (Failed(r.status(), ctx.reply)) return;
    deleted += *r ? 1 : 0;
  }
  if (Failed(hash.Write(), ctx.reply)) return;
  ctx.reply.Integer(deleted);
}

// The current value of the field HINCRBY / HINCRBYFLOAT add to. False after replying an error.
bool ReadField(CommandContext& ctx, MemberAccess<HashValue>* hash,
               std::optional<std::string>* value) {
  if (!OpenHash(ctx, Lookup::kWrite, hash)) return false;
  Result<std::optional<std::string>> v = hash->Get(ctx.args[2]);
  if (Failed(v.status(), ctx.reply)) return false;
  *value = std::move(*v);
  return true;
}

// Stores the field HINCRBY / HINCRBYFLOAT computed. False after replying an error.
bool WriteField(CommandContext& ctx, MemberAccess<HashValue>* hash, std::string_view value) {
  return !Failed(hash->Set(ctx.args[2], value).status(), ctx.reply) &&
         !Failed(hash->Write(), ctx.reply);
}

// HINCRBY key field increment: the new value. The increment is checked before the key.
void HIncrBy(CommandContext& ctx) {
  std::optional<int64_t> incr = IntArg(ctx.args[3], ctx.reply);
  if (!incr) return;
  MemberAccess<HashValue> hash(ctx.store, ValueType::kHash);
  std::optional<std::string> v;
  if (!ReadField(ctx, &hash, &v)) return;
  int64_t old = 0;
  if (v) {
    std::optional<int64_t> parsed = ParseInt64(*v);
    if (!parsed) {
      ctx.reply.Error(kErrHashNotInteger);
      return;
    }
    old = *parsed;
  }
  if ((*incr < 0 && old < 0 && *incr < INT64_MIN - old) ||
      (*incr > 0 && old > 0 && *incr > INT64_MAX - old)) {
    ctx.reply.Error(kErrOverflow);
    return;
  }
  const int64_t result = old + *incr;
  if (!WriteField(ctx, &hash, FormatInt64(result))) return;
  ctx.reply.Integer(result);
}

// HINCRBYFLOAT key field increment: long double arithmetic, stored and replied as Redis
// formats it (FormatLongDouble). An infinite increment is refused before the key is read.
void HIncrByFloat(CommandContext& ctx) {
  std::optional<long double> incr = ParseLongDouble(ctx.args[3]);
  if (!incr) {
    ctx.reply.Error(kErrNotFloat);
    return;
  }
  if (std::isnan(*incr) || std::isinf(*incr)) {
    ctx.reply.Error(kErrIncrNaN);
    return;
  }
  MemberAccess<HashValue> hash(ctx.store, ValueType::kHash);
  std::optional<std::string> v;
  if (!ReadField(ctx, &hash, &v)) return;
  long double sum = 0;
  if (v) {
    std::optional<long double> parsed = ParseLongDouble(*v);
    if (!parsed) {
      ctx.reply.Error(kErrHashNotFloat);
      return;
    }
    sum = *parsed;
  }
  sum += *incr;
  if (std::isnan(sum) || std::isinf(sum)) {
    ctx.reply.Error(kErrIncrFloatNaN);
    return;
  }
  const std::string text = FormatLongDouble(sum);
  if (!WriteField(ctx, &hash, text)) return;
  ctx.reply.Bulk(text);
}

// ---- reads --------------------------------------------------------------------------------

// The values of fields args[first..] of the hash (nullopt for a missing one). False after
// replying an error.
bool GetFields(CommandContext& ctx, size_t first, std::vector<std::optional<std::string>>* out) {
  MemberAccess<HashValue> hash(ctx.store, ValueType::kHash);
  if (!OpenHash(ctx, Lookup::kRead, &hash)) return false;
  out->clear();
  for (size_t i = first; i < ctx.args.size(); ++i) {
    Result<std::optional<std::string>> v = hash.Get(ctx.args[i]);
    if (Failed(v.status(), ctx.reply)) return false;
    out->push_back(std::move(*v));
  }
  return true;
}

// HGET key field: the value, or nil.
void HGet(CommandContext& ctx) {
  std::vector<std::optional<std::string>> v;
  if (!GetFields(ctx, 2, &v)) return;
  if (v[0]) {
    ctx.reply.Bulk(*v[0]);
  } else {
    ctx.reply.Null();
  }
}

// HMGET key field [field ...]: one value or nil per field (all nil for a missing key).
void HMGet(CommandContext& ctx) {
  std::vector<std::optional<std::string>> values;
  if (!GetFields(ctx, 2, &values)) return;
  ctx.reply.Array(values.size());
  for (const std::optional<std::string>& v : values) {
    if (v) {
      ctx.reply.Bulk(*v);
    } else {
      ctx.reply.Null();
    }
  }
}

// HLEN key: the number of fields, 0 for a missing key.
void HLen(CommandContext& ctx) { ReplyCollectionSize<HashValue>(ctx, ValueType::kHash); }

// HSTRLEN key field: the value's length, 0 when the key or field is missing.
void HStrLen(CommandContext& ctx) {
  std::vector<std::optional<std::string>> v;
  if (!GetFields(ctx, 2, &v)) return;
  ctx.reply.Integer(v[0] ? static_cast<int64_t>(v[0]->size()) : 0);
}

// HEXISTS key field: 1 or 0.
void HExists(CommandContext& ctx) {
  std::vector<std::optional<std::string>> v;
  if (!GetFields(ctx, 2, &v)) return;
  ctx.reply.Integer(v[0] ? 1 : 0);
}

enum class Parts { kKeys, kValues, kBoth };

// HKEYS / HVALS: an array; HGETALL: a map (a flat array in RESP2). A missing key is an empty
// array, or an empty map for HGETALL.
void GetAll(CommandContext& ctx, Parts parts) {
  std::optional<HashValue> hash;
  if (!ReadHash(ctx, Lookup::kRead, ctx.args[1], &hash)) return;
  const size_t n = hash ? hash->size() : 0;
  if (parts == Parts::kBoth) {
    ctx.reply.Map(n);
  } else {
    ctx.reply.Array(n);
  }
  if (!hash) return;
  hash->ForEach([&](std::string_view f, std::string_view v) {
    if (parts != Parts::kValues) ctx.reply.Bulk(f);
    if (parts != Parts::kKeys) ctx.reply.Bulk(v);
  });
}

void HKeys(CommandContext& ctx) { GetAll(ctx, Parts::kKeys); }
void HVals(CommandContext& ctx) { GetAll(ctx, Parts::kValues); }
void HGetAll(CommandContext& ctx) { GetAll(ctx, Parts::kBoth); }

// ---- HRANDFIELD ---------------------------------------------------------------------------

// The random source of HRANDFIELD, one per worker thread.
std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

// Uniform in [0, n). REQUIRES: n > 0.
uint64_t RandomBelow(uint64_t n) {
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(Rng());
}

// One pair of a HRANDFIELD reply: the field, then (WITHVALUES) the value; in RESP3 a pair
// is an array of two.
void ReplyPair(Reply& reply, std::pair<std::string_view, std::string_view> p, bool with_values) {
  if (with_values && reply.protocol() >= 3) reply.Array(2);
  reply.Bulk(p.first);
  if (with_values) reply.Bulk(p.second);
}

// Opens key for HRANDFIELD: true after replying (an error, or a paged hash's draws).
bool HRandFieldOpened(CommandContext& ctx, std::optional<int64_t> count, bool with_values) {
  MemberAccess<HashValue> access(ctx.store, ValueType::kHash);
  if (!OpenHash(ctx, Lookup::kRead, &access)) return true;
  if (!access.paged()) return false;
  const bool flat = with_values && ctx.reply.protocol() < 3;  // RESP2: field, value, ...
  return ReplyRandomPaged(ctx.reply, *access.paged(), Rng(), count, with_values,
                          [&](const auto& picks) {
                            ctx.reply.Array(flat ? picks.size() * 2 : picks.size());
                            for (const auto& [f, v] : picks) {
                              ReplyPair(ctx.reply, {f, v}, with_values);
                            }
                          });
}

// HRANDFIELD key [count [WITHVALUES]]
// A paged hash draws its fields (ReplyRandomPaged) unless count asks for a third of it or more.
// No count: one random field, or nil. A positive count: that many distinct fields (at most the
// hash's size), in hash order (Redis 7.0 gives them in an order of its dict; any order is
// valid). A negative count: -count fields
// drawn independently (repeats possible), in random order. Order of checks as Redis: count,
// WITHVALUES keyword, WITHVALUES range, then the key.
void HRandField(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  if (a.size() == 2) {
    if (HRandFieldOpened(ctx, std::nullopt, false)) return;
    std::optional<HashValue> hash;  // the lookup was counted by the open: this counts nothing
    if (!ReadHash(ctx, Lookup::kWrite, a[1], &hash)) return;
    if (!hash) {
      ctx.reply.Null();
      return;
    }
    ctx.reply.Bulk(hash->At(RandomBelow(hash->size())).first);
    return;
  }
  std::optional<RandomCount> parsed = ParseRandomCount(a, "WITHVALUES", ctx.reply);
  if (!parsed) return;
  const int64_t count = parsed->count;
  const bool with_values = parsed->with;
  if (HRandFieldOpened(ctx, count, with_values)) return;
  std::optional<HashValue> hash;  // the lookup was counted by the open: this counts nothing
  if (!ReadHash(ctx, Lookup::kWrite, a[1], &hash)) return;
  if (!hash || count == 0) {
    ctx.reply.Array(0);  // an empty array even in RESP3, as Redis
    return;
  }
  const uint64_t size = hash->size();
  const bool flat = with_values && ctx.reply.protocol() < 3;  // RESP2: field, value, ...
  if (count < 0 || count == 1) {
    const uint64_t n = static_cast<uint64_t>(count < 0 ? -count : count);
    // Estimate the reply from the average pair and refuse one past the cap.
    uint64_t bytes = 0;
    hash->ForEach([&](std::string_view f, std::string_view v) {
      bytes += f.size() + 16 + (with_values ? v.size() + 16 : 0);
    });
    const uint64_t per_pick = bytes / size + 1;
    if (n > kMaxRandomReplyBytes / per_pick) {
      ctx.reply.Error(kErrReplyTooBig);
      return;
    }
    ctx.reply.Array(flat ? n * 2 : n);
    for (uint64_t i = 0; i < n; ++i) ReplyPair(ctx.reply, hash->At(RandomBelow(size)), with_values);
    return;
  }
  const uint64_t n = std::min(static_cast<uint64_t>(count), size);
  ctx.reply.Array(flat ? n * 2 : n);
  if (n == size) {
    hash->ForEach([&](std::string_view f, std::string_view v) {
      ReplyPair(ctx.reply, {f, v}, with_values);
    });
    return;
  }
  // n distinct positions (Floyd's sampling), replied in hash order.
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
  for (uint64_t p : picks) ReplyPair(ctx.reply, hash->At(p), with_values);
}

// ---- HSCAN --------------------------------------------------------------------------------


// HSCAN key cursor [MATCH pattern] [COUNT count]
// A one-value hash replies every (matching) pair and cursor 0 in one call, whatever the cursor
// and COUNT: what Redis does for a listpack hash. A paged hash replies whole pages from the
// cursor (a page index) until COUNT fields were looked at (ScanPages). As Redis: the cursor is
// checked first, a missing key replies an empty scan before the options are read, COUNT must be
// an integer >= 1 (else "not an integer" / syntax error), and MATCH filters on the field.
void HScan(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  std::optional<uint64_t> cursor = ParseScanCursor(a[2]);
  if (!cursor) {
    ctx.reply.Error(kErrInvalidCursor);
    return;
  }
  MemberAccess<HashValue> hash(ctx.store, ValueType::kHash);
  if (!OpenHash(ctx, Lookup::kRead, &hash)) return;
  if (!hash.exists()) {
    ctx.reply.Array(2);
    ctx.reply.Bulk("0");
    ctx.reply.Array(0);
    return;
  }
  std::optional<std::string_view> pattern;
  int64_t count = 0;
  if (!ParseCollectionScanOptions(a, 3, ctx.reply, &pattern, &count)) return;
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](std::string_view f, std::string_view v) {
    if (!pattern || GlobMatch(*pattern, f)) out.emplace_back(f, v);
  };
  uint64_t next = 0;
  if (hash.small()) {
    hash.small()->ForEach(add);
  } else {
    Result<uint64_t> r = ScanPages(*hash.paged(), *cursor, static_cast<uint64_t>(count), add);
    if (Failed(r.status(), ctx.reply)) return;
    next = *r;
  }
  ctx.reply.Array(2);
  ctx.reply.Bulk(FormatInt64(static_cast<int64_t>(next)));
  ctx.reply.Array(out.size() * 2);
  for (const auto& [f, v] : out) {
    ctx.reply.Bulk(f);
    ctx.reply.Bulk(v);
  }
}

}  // namespace

// Arity, flags, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO and
// COMMAND DOCS.
void RegisterHashCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "hset", .arity = -4, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = HSet, .group = "hash",
         .summary = "Set the string value of a hash field", .since = "2.0.0",
         .acl = "write hash fast", .key_specs = "RW update"});
  t.Add({.name = "hmset", .arity = -4, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = HMSet, .group = "hash",
         .summary = "Set multiple hash fields to multiple values", .since = "2.0.0",
         .acl = "write hash fast", .key_specs = "RW update"});
  t.Add({.name = "hsetnx", .arity = 4, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = HSetNx, .group = "hash",
         .summary = "Set the value of a hash field, only if the field does not exist",
         .since = "2.0.0", .acl = "write hash fast", .key_specs = "RW insert"});
  t.Add({.name = "hdel", .arity = -3, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = HDel, .group = "hash", .summary = "Delete one or more hash fields",
         .since = "2.0.0", .acl = "write hash fast", .key_specs = "RW delete"});
  t.Add({.name = "hincrby", .arity = 4, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = HIncrBy, .group = "hash",
         .summary = "Increment the integer value of a hash field by the given number",
         .since = "2.0.0", .acl = "write hash fast", .key_specs = "RW access update"});
  t.Add({.name = "hincrbyfloat", .arity = 4, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = HIncrByFloat, .group = "hash",
         .summary = "Increment the float value of a hash field by the given amount",
         .since = "2.6.0", .acl = "write hash fast", .key_specs = "RW access update"});
  t.Add({.name = "hget", .arity = 3, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = HGet, .group = "hash", .summary = "Get the value of a hash field",
         .since = "2.0.0", .acl = "read hash fast", .key_specs = "RO access"});
  t.Add({.name = "hmget", .arity = -3, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = HMGet, .group = "hash",
         .summary = "Get the values of all the given hash fields", .since = "2.0.0",
         .acl = "read hash fast", .key_specs = "RO access"});
  t.Add({.name = "hlen", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = HLen, .group = "hash", .summary = "Get the number of fields in a hash",
         .since = "2.0.0", .acl = "read hash fast", .key_specs = "RO"});
  t.Add({.name = "hstrlen", .arity = 3, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = HStrLen, .group = "hash",
         .summary = "Get the length of the value of a hash field", .since = "3.2.0",
         .acl = "read hash fast", .key_specs = "RO"});
  t.Add({.name = "hexists", .arity = 3, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = HExists, .group = "hash", .summary = "Determine if a hash field exists",
         .since = "2.0.0", .acl = "read hash fast", .key_specs = "RO"});
  t.Add({.name = "hkeys", .arity = 2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = HKeys, .group = "hash", .summary = "Get all the fields in a hash",
         .since = "2.0.0", .acl = "read hash slow", .key_specs = "RO access"});
  t.Add({.name = "hvals", .arity = 2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = HVals, .group = "hash", .summary = "Get all the values in a hash",
         .since = "2.0.0", .acl = "read hash slow", .key_specs = "RO access"});
  t.Add({.name = "hgetall", .arity = 2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = HGetAll, .group = "hash",
         .summary = "Get all the fields and values in a hash", .since = "2.0.0",
         .acl = "read hash slow", .key_specs = "RO access"});
  t.Add({.name = "hrandfield", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = HRandField, .group = "hash",
         .summary = "Get one or multiple random fields from a hash", .since = "6.2.0",
         .acl = "read hash slow", .key_specs = "RO access"});
  t.Add({.name = "hscan", .arity = -3, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = HScan, .group = "hash",
         .summary = "Incrementally iterate hash fields and associated values", .since = "2.8.0",
         .acl = "read hash slow", .key_specs = "RO access"});
  // clang-format on
}

}  // namespace slotkv::command
