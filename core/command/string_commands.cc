// String family: GET SET APPEND INCR ... MGET MSET MSETNX, as Redis 7.0's t_string.c (LCS is in
// lcs_command.cc).
// Values are stored with type kString. A key of another type gives WRONGTYPE, except where
// Redis does otherwise: SET (without GET), MSET and SETNX's existence check take any type, MGET
// replies nil for it and LCS has its own error.
//
// TTLs: commands that modify a string in place keep its TTL (APPEND, SETRANGE, INCR*, GETEX
// without options), commands that replace it drop the TTL (SET without KEEPTTL, GETSET, MSET),
// as Redis's dbOverwrite vs setKey.
//
// Keyspace hits/misses count the lookups Redis counts: those of reading commands (GET, MGET,
// GETRANGE, STRLEN, GETDEL, GETEX, GETSET, SET ... GET, LCS), not those of INCR, APPEND,
// SETRANGE, SETNX (Redis's lookupKeyWrite).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>

#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/typed_read.h"
#include "core/command/fanout.h"

namespace slotkv::command {
namespace {

// Error texts only this family replies with (errors.h belongs to the framework).
constexpr std::string_view kErrDecrOverflow = "ERR decrement would overflow";

// ---- lookups ------------------------------------------------------------------------------

// Reads key as a string. False after replying an error (storage failure, or WRONGTYPE when the
// key holds another type); otherwise *value is nullopt when the key does not exist, and *meta
// (when given) is the key's metadata (default, so no TTL, when it does not exist).
// Counts a read's lookup of key and replies WRONGTYPE when the key is found holding another
// type (false then).
bool CheckStringLookup(Store& store, WorkerStats& stats, Lookup lookup, Reply& reply,
                       std::string_view key, bool found, ValueType type) {
  if (lookup == Lookup::kRead) CountLookup(store, stats, key, found);
  if (found && type != ValueType::kString) {
    reply.Error(kErrWrongType);
    return false;
  }
  return true;
}

bool ReadString(Store& store, WorkerStats& stats, Lookup lookup, Reply& reply, std::string_view key,
                std::optional<std::string>* value, slot::KeyMeta* meta = nullptr) {
  slot::KeyMeta m;
  Result<std::optional<std::string>> r = store.Get(key, &m);
  if (Failed(r.status(), reply)) return false;
  if (!CheckStringLookup(store, stats, lookup, reply, key, r->has_value(), m.type)) return false;
  *value = std::move(*r);
  if (meta) *meta = value->has_value() ? m : slot::KeyMeta();
  return true;
}

bool ReadString(CommandContext& ctx, Lookup lookup, std::string_view key,
                std::optional<std::string>* value, slot::KeyMeta* meta = nullptr) {
  return ReadString(ctx.store, ctx.stats, lookup, ctx.reply, key, value, meta);
}

// A bulk string, or nil when there is no value.
void BulkOrNull(Reply& reply, const std::optional<std::string>& value) {
  if (value) {
    reply.Bulk(*value);
  } else {
    reply.Null();
  }
}

// Whether a string of size + append bytes is within proto-max-bulk-len (Redis's
// checkStringLength); replies the error when not.
bool CheckStringLength(CommandContext& ctx, uint64_t size, uint64_t append) {
  const uint64_t total = size + append;
  const int64_t max = ctx.server.proto_max_bulk_len.load(std::memory_order_relaxed);
  if (total < size || total > static_cast<uint64_t>(max)) {
    ctx.reply.Error(kErrStringTooLong);
    return false;
  }
  return true;
}

// ---- expiry options -----------------------------------------------------------------------

enum class ExpireKind { kNone, kEx, kPx, kExAt, kPxAt };

// An expiry argument (SET / GETEX option, SETEX / PSETEX argument).
struct ExpireArg {
  ExpireKind kind = ExpireKind::kNone;
  std::string_view text;
};

// The absolute expiry time in ms of arg, as Redis's getExpireMillisecondsOrReply; nullopt
// after replying "not an integer" or "invalid expire time in '<command>' command" (not
// positive, or the time overflows).
std::optional<int64_t> ExpireAtMs(const ExpireArg& arg, int64_t now_ms, std::string_view command,
                                  Reply& reply) {
  std::optional<int64_t> n = IntArg(arg.text, reply);
  if (!n) return std::nullopt;
  const bool seconds = arg.kind == ExpireKind::kEx || arg.kind == ExpireKind::kExAt;
  const bool relative = arg.kind == ExpireKind::kEx || arg.kind == ExpireKind::kPx;
  if (*n <= 0 || (seconds && *n > INT64_MAX / 1000)) {
    reply.Error(InvalidExpire(command));
    return std::nullopt;
  }
  int64_t ms = seconds ? *n * 1000 : *n;
  if (relative) {
    if (ms > INT64_MAX - now_ms) {  // Redis's sum wraps negative and is refused
      reply.Error(InvalidExpire(command));
      return std::nullopt;
    }
    ms += now_ms;
  }
  return ms;
}

// The options of SET (from argument 3) or GETEX (from argument 2).
struct StringOptions {
  bool nx = false;
  bool xx = false;
  bool get = false;
  bool keepttl = false;
  bool persist = false;
  ExpireArg expire;
};

enum class OptionsOf { kSet, kGetEx };

// Parses the options as Redis's parseExtendedStringArgumentsOrReply: keywords in any case and
// order; repeating an option is allowed (a later EX value replaces an earlier one), but NX with
// XX, two different expiry kinds, KEEPTTL or PERSIST with an expiry, an option of the other
// command, or an expiry keyword without a value is a syntax error. The expiry value is not
// read here (a syntax error anywhere wins over a bad number). False after replying.
bool ParseStringOptions(const std::vector<std::string>& a, OptionsOf of, StringOptions* o,
                        Reply& reply) {
  const bool set = of == OptionsOf::kSet;
  for (size_t i = set ? 3 : 2; i < a.size(); ++i) {
    const std::string& opt = a[i];
    const bool has_next = i + 1 < a.size();
    const ExpireKind kind = Is(opt, "EX")     ? ExpireKind::kEx
                            : Is(opt, "PX")   ? ExpireKind::kPx
                            : Is(opt, "EXAT") ? ExpireKind::kExAt
                            : Is(opt, "PXAT") ? ExpireKind::kPxAt
                                              : ExpireKind::kNone;
    if (set && Is(opt, "NX") && !o->xx) {
      o->nx = true;
    } else if (set && Is(opt, "XX") && !o->nx) {
      o->xx = true;
    } else if (set && Is(opt, "GET")) {
      o->get = true;
    } else if (set && Is(opt, "KEEPTTL") && o->expire.kind == ExpireKind::kNone) {
      o->keepttl = true;
    } else if (!set && Is(opt, "PERSIST") && o->expire.kind == ExpireKind::kNone) {
      o->persist = true;
    } else if (kind != ExpireKind::kNone && !o->keepttl && !o->persist && has_next &&
               (o->expire.kind == ExpireKind::kNone || o->expire.kind == kind)) {
      o->expire = {kind, a[i + 1]};
      ++i;
    } else {
      reply.Error(kErrSyntax);
      return false;
    }
  }
  return true;
}

// ---- GET SET and their variants -----------------------------------------------------------

void Get(CommandContext& ctx) {
  slot::KeyMeta meta;
  // A cached value goes to the reply without a copy of its own (Slot::GetCached).
  if (const std::string* cached = ctx.store.GetCached(ctx.args[1], &meta)) {
    if (CheckStringLookup(ctx.store, ctx.stats, Lookup::kRead, ctx.reply, ctx.args[1], true,
                          meta.type)) {
      ctx.reply.Bulk(*cached);
    }
    return;
  }
  std::optional<std::string> value;
  if (!ReadString(ctx, Lookup::kRead, ctx.args[1], &value)) return;
  BulkOrNull(ctx.reply, value);
}

// SET key value [NX | XX] [GET] [EX s | PX ms | EXAT ts | PXAT ms-ts | KEEPTTL]
// Order as Redis: options, then the expiry value, then GET's read (WRONGTYPE), then NX / XX.
void Set(CommandContext& ctx) {
  StringOptions o;
  if (!ParseStringOptions(ctx.args, OptionsOf::kSet, &o, ctx.reply)) return;
  const int64_t now = ctx.store.NowMs();
  int64_t expire_at = 0;
  if (o.expire.kind != ExpireKind::kNone) {
    std::optional<int64_t> at = ExpireAtMs(o.expire, now, "set", ctx.reply);
    if (!at) return;
    expire_at = *at;
  }
  const std::string& key = ctx.args[1];
  std::optional<std::string> old;
  slot::KeyMeta meta;
  bool exists = false;
  if (o.get) {
    if (!ReadString(ctx, Lookup::kRead, key, &old, &meta)) return;
    exists = old.has_value();
  } else if (o.nx || o.xx || o.keepttl) {
    Result<std::optional<slot::KeyMeta>> m = ctx.store.GetMeta(key);
    if (Failed(m.status(), ctx.reply)) return;
    exists = m->has_value();
    if (exists) meta = **m;
  }
  if (!(o.nx && exists) && !(o.xx && !exists)) {
    if (o.keepttl && exists) expire_at = meta.expire_at_ms;
    // An EXAT / PXAT in the past leaves no key (Redis sets it already expired).
    Status st = o.expire.kind != ExpireKind::kNone && expire_at <= now
                    ? ctx.store.Delete(key).status()
                    : ctx.store.Put(key, ctx.args[2], ValueType::kString, expire_at);
    if (Failed(st, ctx.reply)) return;
    if (!o.get) {
      ctx.reply.Ok();
      return;
    }
  }
  BulkOrNull(ctx.reply, old);  // GET's old value, or nil: NX / XX refused without GET
}

// SETEX key seconds value / PSETEX key milliseconds value: SET with a relative expiry.
void SetWithExpiry(CommandContext& ctx, ExpireKind kind, std::string_view command) {
  std::optional<int64_t> at =
      ExpireAtMs({kind, ctx.args[2]}, ctx.store.NowMs(), command, ctx.reply);
  if (!at) return;
  if (Failed(ctx.store.Put(ctx.args[1], ctx.args[3], ValueType::kString, *at), ctx.reply)) return;
  ctx.reply.Ok();
}

void SetEx(CommandContext& ctx) { SetWithExpiry(ctx, ExpireKind::kEx, "setex"); }
void PSetEx(CommandContext& ctx) { SetWithExpiry(ctx, ExpireKind::kPx, "psetex"); }

// SETNX key value: 1 when set, 0 when the key exists (with any type).
void SetNx(CommandContext& ctx) {
  Result<std::optional<slot::KeyMeta>> m = ctx.store.GetMeta(ctx.args[1]);
  if (Failed(m.status(), ctx.reply)) return;
  if (m->has_value()) {
    ctx.reply.Integer(0);
    return;
  }
  if (Failed(ctx.store.Put(ctx.args[1], ctx.args[2], ValueType::kString, 0), ctx.reply)) return;
  ctx.reply.Integer(1);
}

// GETSET key value: the old value (or nil); the new one has no TTL.
void GetSet(CommandContext& ctx) {
  std::optional<std::string> old;
  if (!ReadString(ctx, Lookup::kRead, ctx.args[1], &old)) return;
  if (Failed(ctx.store.Put(ctx.args[1], ctx.args[2], ValueType::kString, 0), ctx.reply)) return;
  BulkOrNull(ctx.reply, old);
}

// GETDEL key: the value (or nil), and the key is gone.
void GetDel(CommandContext& ctx) {
  std::optional<std::string> value;
  if (!ReadString(ctx, Lookup::kRead, ctx.args[1], &value)) return;
  if (!value) {
    ctx.reply.Null();
    return;
  }
  if (Failed(ctx.store.Delete(ctx.args[1]).status(), ctx.reply)) return;
  ctx.reply.Bulk(*value);
}

// GETEX key [EX s | PX ms | EXAT ts | PXAT ms-ts | PERSIST]
// Order as Redis: options, the read (a missing key is nil even with a bad expiry), then the
// expiry value. An EXAT / PXAT in the past deletes the key after replying its value.
void GetEx(CommandContext& ctx) {
  StringOptions o;
  if (!ParseStringOptions(ctx.args, OptionsOf::kGetEx, &o, ctx.reply)) return;
  const std::string& key = ctx.args[1];
  std::optional<std::string> value;
  slot::KeyMeta meta;
  if (!ReadString(ctx, Lookup::kRead, key, &value, &meta)) return;
  if (!value) {
    ctx.reply.Null();
    return;
  }
  Status st;
  if (o.expire.kind != ExpireKind::kNone) {
    const int64_t now = ctx.store.NowMs();
    std::optional<int64_t> at = ExpireAtMs(o.expire, now, "getex", ctx.reply);
    if (!at) return;
    st = *at <= now ? ctx.store.Delete(key).status()
                    : ctx.store.Put(key, *value, ValueType::kString, *at);
  } else if (o.persist && meta.expire_at_ms != 0) {
    st = ctx.store.Put(key, *value, ValueType::kString, 0);
  }
  if (Failed(st, ctx.reply)) return;
  ctx.reply.Bulk(*value);
}

// ---- in-place edits -----------------------------------------------------------------------

// APPEND key value: the new length; creates the key when missing, keeps its TTL.
void Append(CommandContext& ctx) {
  const std::string& key = ctx.args[1];
  const std::string& tail = ctx.args[2];
  std::optional<std::string> value;
  slot::KeyMeta meta;
  if (!ReadString(ctx, Lookup::kWrite, key, &value, &meta)) return;
  if (!value) {
    if (Failed(ctx.store.Put(key, tail, ValueType::kString, 0), ctx.reply)) return;
    ctx.reply.Integer(static_cast<int64_t>(tail.size()));
    return;
  }
  if (!CheckStringLength(ctx, value->size(), tail.size())) return;
  value->append(tail);
  if (Failed(ctx.store.Put(key, *value, ValueType::kString, meta.expire_at_ms), ctx.reply)) {
    return;
  }
  ctx.reply.Integer(static_cast<int64_t>(value->size()));
}

// SETRANGE key offset value: the new length. Pads with zero bytes; an empty value changes
// nothing (and creates no key); keeps the TTL.
void SetRange(CommandContext& ctx) {
  const std::string& key = ctx.args[1];
  const std::string& patch = ctx.args[3];
  std::optional<int64_t> offset = IntArg(ctx.args[2], ctx.reply);
  if (!offset) return;
  if (*offset < 0) {
    ctx.reply.Error(kErrOffset);
    return;
  }
  std::optional<std::string> value;
  slot::KeyMeta meta;
  if (!ReadString(ctx, Lookup::kWrite, key, &value, &meta)) return;
  if (patch.empty()) {
    ctx.reply.Integer(value ? static_cast<int64_t>(value->size()) : 0);
    return;
  }
  if (!CheckStringLength(ctx, static_cast<uint64_t>(*offset), patch.size())) return;
  std::string s = value ? std::move(*value) : std::string();
  const size_t at = static_cast<size_t>(*offset);
  if (s.size() < at + patch.size()) s.resize(at + patch.size(), '\0');
  std::memcpy(s.data() + at, patch.data(), patch.size());
  if (Failed(ctx.store.Put(key, s, ValueType::kString, meta.expire_at_ms), ctx.reply)) return;
  ctx.reply.Integer(static_cast<int64_t>(s.size()));
}

// GETRANGE / SUBSTR key start end: bytes start..end inclusive, negative indexes from the end,
// clamped as Redis 7.0 does (an end below -len clamps to 0, so "0 -100" gives the first byte).
void GetRange(CommandContext& ctx) {
  std::optional<int64_t> start = IntArg(ctx.args[2], ctx.reply);
  if (!start) return;
  std::optional<int64_t> end = IntArg(ctx.args[3], ctx.reply);
  if (!end) return;
  std::optional<std::string> value;
  if (!ReadString(ctx, Lookup::kRead, ctx.args[1], &value)) return;
  if (!value) {
    ctx.reply.Bulk("");
    return;
  }
  const int64_t len = static_cast<int64_t>(value->size());
  int64_t from = *start;
  int64_t to = *end;
  if (from < 0 && to < 0 && from > to) {
    ctx.reply.Bulk("");
    return;
  }
  if (from < 0) from += len;
  if (to < 0) to += len;
  if (from < 0) from = 0;
  if (to < 0) to = 0;
  if (to >= len) to = len - 1;
  if (from > to || len == 0) {
    ctx.reply.Bulk("");
    return;
  }
  ctx.reply.Bulk(std::string_view(*value).substr(static_cast<size_t>(from),
                                                 static_cast<size_t>(to - from + 1)));
}

// STRLEN key: the value's length, 0 for a missing key.
void StrLen(CommandContext& ctx) {
  std::optional<std::string> value;
  if (!ReadString(ctx, Lookup::kRead, ctx.args[1], &value)) return;
  ctx.reply.Integer(value ? static_cast<int64_t>(value->size()) : 0);
}

// ---- counters -----------------------------------------------------------------------------

// Adds incr to the integer in key (0 when missing) and replies the result; keeps the TTL.
void IncrBy(CommandContext& ctx, int64_t incr) {
  const std::string& key = ctx.args[1];
  std::optional<std::string> value;
  slot::KeyMeta meta;
  if (!ReadString(ctx, Lookup::kWrite, key, &value, &meta)) return;
  int64_t old = 0;
  if (value) {
    std::optional<int64_t> v = IntArg(*value, ctx.reply);
    if (!v) return;
    old = *v;
  }
  if ((incr < 0 && old < 0 && incr < INT64_MIN - old) ||
      (incr > 0 && old > 0 && incr > INT64_MAX - old)) {
    ctx.reply.Error(kErrOverflow);
    return;
  }
  const int64_t result = old + incr;
  if (Failed(ctx.store.Put(key, FormatInt64(result), ValueType::kString, meta.expire_at_ms),
             ctx.reply)) {
    return;
  }
  ctx.reply.Integer(result);
}

void Incr(CommandContext& ctx) { IncrBy(ctx, 1); }
void Decr(CommandContext& ctx) { IncrBy(ctx, -1); }

void IncrByCmd(CommandContext& ctx) {
  std::optional<int64_t> incr = IntArg(ctx.args[2], ctx.reply);
  if (incr) IncrBy(ctx, *incr);
}

void DecrByCmd(CommandContext& ctx) {
  std::optional<int64_t> decr = IntArg(ctx.args[2], ctx.reply);
  if (!decr) return;
  if (*decr == INT64_MIN) {  // cannot be negated
    ctx.reply.Error(kErrDecrOverflow);
    return;
  }
  IncrBy(ctx, -*decr);
}

// INCRBYFLOAT key increment: long double arithmetic, stored and replied as Redis formats it
// ("10.5", "3", never an exponent); keeps the TTL.
void IncrByFloat(CommandContext& ctx) {
  const std::string& key = ctx.args[1];
  std::optional<std::string> value;
  slot::KeyMeta meta;
  if (!ReadString(ctx, Lookup::kWrite, key, &value, &meta)) return;
  long double sum = 0;
  if (value) {
    std::optional<long double> v = ParseLongDouble(*value);
    if (!v) {
      ctx.reply.Error(kErrNotFloat);
      return;
    }
    sum = *v;
  }
  std::optional<long double> incr = ParseLongDouble(ctx.args[2]);
  if (!incr) {
    ctx.reply.Error(kErrNotFloat);
    return;
  }
  sum += *incr;
  if (std::isnan(sum) || std::isinf(sum)) {
    ctx.reply.Error(kErrIncrFloatNaN);
    return;
  }
  const std::string text = FormatLongDouble(sum);
  if (Failed(ctx.store.Put(key, text, ValueType::kString, meta.expire_at_ms), ctx.reply)) return;
  ctx.reply.Bulk(text);
}

// ---- several keys -------------------------------------------------------------------------

// MGET key [key ...]: one batched read per slot, which does not hold up the worker while it
// waits for the disk; nil for missing keys and other types.
Task MGet(AsyncContext& ctx) {
  const size_t n = ctx.args.size() - 1;
  std::vector<size_t> positions(n);
  std::iota(positions.begin(), positions.end(), size_t{1});
  std::vector<std::optional<std::string>> values(n);
  Status failure;
  auto read = [&](Store& store, const std::vector<size_t>& ps) -> Status {
    std::vector<std::string_view> keys;
    keys.reserve(ps.size());
    for (size_t p : ps) keys.push_back(ctx.args[p]);
    std::vector<std::optional<std::string>> got;
    std::vector<slot::KeyMeta> metas;
    SLOTKV_RETURN_IF_ERROR(store.MultiGet(keys, &got, &metas));
    WorkerStats& stats = StatsHere(ctx.server);
    for (size_t i = 0; i < ps.size(); ++i) {
      CountLookup(store, stats, keys[i], got[i].has_value());
      if (got[i] && metas[i].type == ValueType::kString) values[ps[i] - 1] = std::move(got[i]);
    }
    return Status::OK();
  };
  co_await ForEachKeySlotReading(ctx, positions, read, &failure);
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Array(n);
  for (const std::optional<std::string>& v : values) BulkOrNull(ctx.reply, v);
}

// The key positions of MSET / MSETNX, after checking the argument count (Redis's arity error
// for an even count) and key lengths (so that no write of the batch fails on its key). Empty
// after replying an error.
std::vector<size_t> PairKeys(AsyncContext& ctx, std::string_view command) {
  if (ctx.args.size() % 2 == 0) {
    ctx.reply.Error(WrongArgs(command));
    return {};
  }
  std::vector<size_t> positions;
  for (size_t p = 1; p < ctx.args.size(); p += 2) {
    if (ctx.args[p].size() > Store::kMaxKeyBytes) {
      ctx.reply.Error(kErrKeyTooLong);
      return {};
    }
    positions.push_back(p);
  }
  return positions;
}

// Writes args[p] = args[p + 1] with no TTL for each p; the first failure is kept in *failure.
void PutPairs(AsyncContext& ctx, Store& store, const std::vector<size_t>& ps, Status* failure) {
  for (size_t p : ps) {
    if (!failure->ok()) return;
    *failure = store.Put(ctx.args[p], ctx.args[p + 1], ValueType::kString, 0);
  }
}

// MSET key value [key value ...]: later pairs win over earlier ones of the same key.
// Each slot's writes are committed when the task leaves its owner, so a failure in one slot
// (reported as the reply) can leave other slots written.
Task MSet(AsyncContext& ctx) {
  std::vector<size_t> positions = PairKeys(ctx, "mset");
  if (positions.empty()) co_return;
  Status failure;
  co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
    PutPairs(ctx, store, ps, &failure);
  });
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Ok();
}

// MSETNX key value [key value ...]: 1 after setting every pair, 0 (and nothing set) when any
// key exists, with any type.
// Atomic only when every key is in one slot (keys sharing a hash tag are): then the check and
// the writes run in one step on the slot's owner. Keys in several slots are checked in one
// fan-out and written in a second; a key another client creates in between is overwritten.
Task MSetNx(AsyncContext& ctx) {
  std::vector<size_t> positions = PairKeys(ctx, "msetnx");
  if (positions.empty()) co_return;
  Status failure;
  bool exists = false;
  auto check = [&](Store& store, const std::vector<size_t>& ps) {
    for (size_t p : ps) {
      if (exists || !failure.ok()) return;
      Result<std::optional<slot::KeyMeta>> m = store.GetMeta(ctx.args[p]);
      if (!m.ok()) {
        failure = m.status();
        return;
      }
      exists = m->has_value();
    }
  };
  const uint32_t first_slot = ctx.server.keyspace->SlotOfKey(ctx.args[1]);
  bool one_slot = true;
  for (size_t p : positions) {
    one_slot = one_slot && ctx.server.keyspace->SlotOfKey(ctx.args[p]) == first_slot;
  }
  if (one_slot) {
    co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
      check(store, ps);
      if (!exists) PutPairs(ctx, store, ps, &failure);
    });
  } else {
    co_await ForEachKeySlot(ctx, positions, check);
    if (!exists && failure.ok()) {
      co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
        PutPairs(ctx, store, ps, &failure);
      });
    }
  }
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Integer(exists ? 0 : 1);
}

}  // namespace

// Summaries and since as redis-server 7.0.15's COMMAND DOCS.
void RegisterStringCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "get", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = Get, .group = "string", .summary = "Get the value of a key",
         .since = "1.0.0", .acl = "read string fast", .key_specs = "RO access"});
  t.Add({.name = "set", .arity = -3, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1,
         .step = 1, .run = Set, .group = "string", .summary = "Set the string value of a key",
         .since = "1.0.0", .acl = "write string slow", .key_specs = "RW access update variable_flags"});
  t.Add({.name = "setnx", .arity = 3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = SetNx, .group = "string",
         .summary = "Set the value of a key, only if the key does not exist", .since = "1.0.0",
         .acl = "write string fast", .key_specs = "OW insert"});
  t.Add({.name = "setex", .arity = 4, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1,
         .step = 1, .run = SetEx, .group = "string",
         .summary = "Set the value and expiration of a key", .since = "2.0.0",
         .acl = "write string slow", .key_specs = "OW update"});
  t.Add({.name = "psetex", .arity = 4, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1,
         .step = 1, .run = PSetEx, .group = "string",
         .summary = "Set the value and expiration in milliseconds of a key", .since = "2.6.0",
         .acl = "write string slow", .key_specs = "OW update"});
  t.Add({.name = "getset", .arity = 3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = GetSet, .group = "string",
         .summary = "Set the string value of a key and return its old value", .since = "1.0.0",
         .acl = "write string fast", .key_specs = "RW access update"});
  t.Add({.name = "getdel", .arity = 2, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = GetDel, .group = "string",
         .summary = "Get the value of a key and delete the key", .since = "6.2.0",
         .acl = "write string fast", .key_specs = "RW access delete"});
  t.Add({.name = "getex", .arity = -2, .flags = kWrite | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = GetEx, .group = "string",
         .summary = "Get the value of a key and optionally set its expiration", .since = "6.2.0",
         .acl = "write string fast", .key_specs = "RW access update"});
  t.Add({.name = "append", .arity = 3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = Append, .group = "string",
         .summary = "Append a value to a key", .since = "2.0.0", .acl = "write string fast", .key_specs = "RW insert"});
  t.Add({.name = "setrange", .arity = 4, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1,
         .step = 1, .run = SetRange, .group = "string",
         .summary = "Overwrite part of a string at key starting at the specified offset",
         .since = "2.2.0", .acl = "write string slow", .key_specs = "RW update"});
  t.Add({.name = "getrange", .arity = 4, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = GetRange, .group = "string",
         .summary = "Get a substring of the string stored at a key", .since = "2.4.0",
         .acl = "read string slow", .key_specs = "RO access"});
  t.Add({.name = "substr", .arity = 4, .flags = kReadOnly, .first_key = 1, .last_key = 1, .step = 1,
         .run = GetRange, .group = "string",
         .summary = "Get a substring of the string stored at a key", .since = "1.0.0",
         .acl = "read string slow", .key_specs = "RO access"});
  t.Add({.name = "strlen", .arity = 2, .flags = kReadOnly | kFast, .first_key = 1, .last_key = 1,
         .step = 1, .run = StrLen, .group = "string",
         .summary = "Get the length of the value stored in a key", .since = "2.2.0",
         .acl = "read string fast", .key_specs = "RO"});
  t.Add({.name = "incr", .arity = 2, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = Incr, .group = "string",
         .summary = "Increment the integer value of a key by one", .since = "1.0.0",
         .acl = "write string fast", .key_specs = "RW access update"});
  t.Add({.name = "decr", .arity = 2, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = Decr, .group = "string",
         .summary = "Decrement the integer value of a key by one", .since = "1.0.0",
         .acl = "write string fast", .key_specs = "RW access update"});
  t.Add({.name = "incrby", .arity = 3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = IncrByCmd, .group = "string",
         .summary = "Increment the integer value of a key by the given amount", .since = "1.0.0",
         .acl = "write string fast", .key_specs = "RW access update"});
  t.Add({.name = "decrby", .arity = 3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = DecrByCmd, .group = "string",
         .summary = "Decrement the integer value of a key by the given number", .since = "1.0.0",
         .acl = "write string fast", .key_specs = "RW access update"});
  t.Add({.name = "incrbyfloat", .arity = 3, .flags = kWrite | kDenyOom | kFast, .first_key = 1,
         .last_key = 1, .step = 1, .run = IncrByFloat, .group = "string",
         .summary = "Increment the float value of a key by the given amount", .since = "2.6.0",
         .acl = "write string fast", .key_specs = "RW access update"});
  t.Add({.name = "mget", .arity = -2, .flags = kOrderedVisits | kReadOnly | kFast, .first_key = 1,
         .last_key = -1, .step = 1, .run_async = MGet, .group = "string",
         .summary = "Get the values of all the given keys", .since = "1.0.0",
         .acl = "read string fast", .key_specs = "RO access"});
  t.Add({.name = "mset", .arity = -3, .flags = kOrderedVisits | kWrite | kDenyOom, .first_key = 1,
         .last_key = -1, .step = 2, .run_async = MSet, .group = "string",
         .summary = "Set multiple keys to multiple values", .since = "1.0.1",
         .acl = "write string slow", .key_specs = "OW update"});
  t.Add({.name = "msetnx", .arity = -3, .flags = kOrderedVisits | kWrite | kDenyOom,
         .first_key = 1, .last_key = -1,
         .step = 2, .run_async = MSetNx, .group = "string",
         .summary = "Set multiple keys to multiple values, only if none of the keys exist",
         .since = "1.0.1", .acl = "write string slow", .key_specs = "OW insert"});
  // clang-format on
}

}  // namespace slotkv::command
