// DUMP, RESTORE and MIGRATE: a key's value as a Redis 7.0 payload (the RDB object, then the RDB
// version and a CRC-64: core/types/rdb_value.h, core/base/rdb.h), so values move between
// slotkv and redis-server both ways (redis-cli --pipe of RESTOREs, a client copying keys,
// MIGRATE to either).
//
// Semantics kept from Redis: DUMP of a missing key is nil. RESTORE checks its options, then
// that the key is free (BUSYKEY, unless REPLACE), then the TTL (milliseconds, 0 = none; ABSTTL:
// a Unix time in ms), then the payload's trailer, then the value; a TTL already past stores
// nothing (REPLACE still deletes the key). A paged collection is dumped whole (O(n), as Redis)
// and a large restored one is paged. IDLETIME and FREQ are checked and then ignored: slotkv
// keeps no per-key LRU or LFU data.
//
// MIGRATE reads and dumps its keys on their owners, then, back on the client's worker, sends
// [AUTH] SELECT and one RESTORE per key (remaining TTL, REPLACE) to the target over a blocking
// connection (SyncClient: each step waits at most the timeout, as Redis's does, and holds that
// worker meanwhile), reads one reply line each, and deletes the keys the target took (unless
// COPY). Redis caches the connection for 10 s; slotkv connects each time.
#include <algorithm>
#include <optional>
#include <string>

#include "core/base/number.h"
#include "core/base/rdb.h"
#include "core/base/resp_request.h"
#include "core/base/sync_client.h"
#include "core/command/args.h"
#include "core/command/collection_pages.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"
#include "core/command/typed_read.h"
#include "core/types/rdb_value.h"

namespace slotkv::command {
namespace {

// The RDB object of stored, the value of a key of type `type`.
Result<std::string> ObjectOf(Store& store, ValueType type, std::string stored) {
  switch (type) {
    case ValueType::kString:
      return rdb::DumpString(stored);
    case ValueType::kList: {
      SLOTKV_ASSIGN_OR_RETURN(ListValue v, LoadWhole<ListValue>(store, type, std::move(stored)));
      return rdb::DumpList(v);
    }
    case ValueType::kSet: {
      SLOTKV_ASSIGN_OR_RETURN(SetValue v, LoadWhole<SetValue>(store, type, std::move(stored)));
      return rdb::DumpSet(v);
    }
    case ValueType::kHash: {
      SLOTKV_ASSIGN_OR_RETURN(HashValue v, LoadWhole<HashValue>(store, type, std::move(stored)));
      return rdb::DumpHash(v);
    }
    case ValueType::kZSet: {
      SLOTKV_ASSIGN_OR_RETURN(ZSetValue v, LoadWhole<ZSetValue>(store, type, std::move(stored)));
      return rdb::DumpZSet(v);
    }
    case ValueType::kStream: {
      SLOTKV_ASSIGN_OR_RETURN(StreamValue v,
                              LoadWhole<StreamValue>(store, type, std::move(stored)));
      return rdb::DumpStream(v);
    }
  }
  return Status::Corruption("unknown value type");
}

// DUMP key: the payload of key's value, or nil.
void Dump(CommandContext& ctx) {
  slot::KeyMeta meta;
  Result<std::optional<std::string>> raw = ctx.store.Get(ctx.args[1], &meta);
  if (Failed(raw.status(), ctx.reply)) return;
  CountLookup(ctx.store, ctx.stats, ctx.args[1], raw->has_value());
  if (!*raw) {
    ctx.reply.Null();
    return;
  }
  Result<std::string> payload = ObjectOf(ctx.store, meta.type, std::move(**raw));
  if (Failed(payload.status(), ctx.reply)) return;
  PutRdbTrailer(&*payload);
  ctx.reply.Bulk(*payload);
}

// Stores a restored object under key (expire_at_ms 0: no TTL).
Status StoreObject(Store& store, std::string_view key, const rdb::Object& o, int64_t expire_at_ms) {
  switch (o.type) {
    case ValueType::kString:
      return store.Put(key, o.str, ValueType::kString, expire_at_ms);
    case ValueType::kList:
      return StoreCollection(store, key, o.list, o.type, expire_at_ms);
    case ValueType::kSet:
      return StoreCollection(store, key, o.set, o.type, expire_at_ms);
    case ValueType::kHash:
      return StoreCollection(store, key, o.hash, o.type, expire_at_ms);
    case ValueType::kZSet:
      return StoreCollection(store, key, o.zset, o.type, expire_at_ms);
    case ValueType::kStream:
      return StoreCollection(store, key, o.stream, o.type, expire_at_ms);
  }
  return Status::Corruption("unknown value type");
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
void Restore(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  bool replace = false, absttl = false, idletime = false, freq = false;
  for (size_t j = 4; j < a.size(); ++j) {
    const bool more = j + 1 < a.size();
    if (Is(a[j], "REPLACE")) {
      replace = true;
    } else if (Is(a[j], "ABSTTL")) {
      absttl = true;
    } else if (Is(a[j], "IDLETIME") && more && !freq) {
      std::optional<int64_t> v = ParseInt64(a[++j]);
      if (!v) return ctx.reply.Error(kErrNotInteger);
      if (*v < 0) return ctx.reply.Error("ERR Invalid IDLETIME value, must be >= 0");
      idletime = true;
    } else if (Is(a[j], "FREQ") && more && !idletime) {
      std::optional<int64_t> v = ParseInt64(a[++j]);
      if (!v) return ctx.reply.Error(kErrNotInteger);
      if (*v < 0 || *v > 255) {
        return ctx.reply.Error("ERR Invalid FREQ value, must be >= 0 and <= 255");
      }
      freq = true;
    } else {
      return ctx.reply.Error(kErrSyntax);
    }
  }
  const std::string& key = a[1];
  if (!replace) {
    Result<std::optional<slot::KeyMeta>> m = ctx.store.GetMeta(key);
    if (Failed(m.status(), ctx.reply)) return;
    if (*m) return ctx.reply.Error(kErrBusyKey);
  }
  std::optional<int64_t> ttl = ParseInt64(a[2]);
  if (!ttl) return ctx.reply.Error(kErrNotInteger);
  if (*ttl < 0) return ctx.reply.Error("ERR Invalid TTL value, must be >= 0");
  std::optional<std::string_view> body = RdbPayloadBody(a[3]);
  if (!body) return ctx.reply.Error(kErrBadPayload);
  Result<rdb::Object> o = rdb::Load(*body);
  if (!o.ok()) return ctx.reply.Error(kErrBadDataFormat);
  int64_t expire_at = *ttl;
  const int64_t now = ctx.store.NowMs();
  // A relative TTL past INT64_MAX wraps to a past time in Redis: the key is not stored.
  if (expire_at != 0 && !absttl && __builtin_add_overflow(expire_at, now, &expire_at)) {
    expire_at = now;
  }
  if (expire_at != 0 && expire_at <= now) {
    if (replace && Failed(ctx.store.Delete(key).status(), ctx.reply)) return;
    return ctx.reply.Ok();
  }
  if (Failed(StoreObject(ctx.store, key, *o, expire_at), ctx.reply)) return;
  ctx.reply.Ok();
}

// A key on its way: its argument position, remaining TTL (ms, 0 = none) and payload.
struct Moving {
  size_t pos;
  int64_t ttl;
  std::string payload;
};

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
//         [AUTH2 username password] [KEYS key [key ...]]
Task Migrate(AsyncContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  bool copy = false, replace = false;
  std::optional<std::string> user, pass;
  size_t first_key = 3, num_keys = 1;
  for (size_t j = 6; j < a.size(); ++j) {
    const size_t more = a.size() - 1 - j;
    if (Is(a[j], "COPY")) {
      copy = true;
    } else if (Is(a[j], "REPLACE")) {
      replace = true;
    } else if (Is(a[j], "AUTH") && more >= 1) {
      pass = a[++j];
    } else if (Is(a[j], "AUTH2") && more >= 2) {
      user = a[++j];
      pass = a[++j];
    } else if (Is(a[j], "KEYS")) {
      if (!a[3].empty()) {
        ctx.reply.Error(
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string");
        co_return;
      }
      first_key = j + 1;
      num_keys = a.size() - j - 1;
      break;
    } else {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
  }
  std::optional<int64_t> timeout = ParseInt64(a[5]);
  std::optional<int64_t> db = timeout ? ParseInt64(a[4]) : std::nullopt;
  if (!timeout || !db) {
    ctx.reply.Error(kErrNotInteger);
    co_return;
  }
  if (*timeout <= 0) *timeout = 1000;

  std::vector<size_t> positions(num_keys);
  for (size_t i = 0; i < num_keys; ++i) positions[i] = first_key + i;
  std::vector<Moving> moving;
  Status failure;
  co_await ForEachKeySlot(ctx, positions, [&](Store& store, const std::vector<size_t>& ps) {
    for (size_t p : ps) {
      if (!failure.ok()) return;
      slot::KeyMeta meta;
      Result<std::optional<std::string>> raw = store.Get(a[p], &meta);
      if (!raw.ok()) {
        failure = raw.status();
        return;
      }
      CountLookup(store, StatsHere(ctx.server), a[p], raw->has_value());
      if (!*raw) continue;
      int64_t ttl = 0;
      if (meta.expire_at_ms != 0) {
        ttl = meta.expire_at_ms - store.NowMs();
        if (ttl < 0) continue;
        ttl = std::max<int64_t>(ttl, 1);
      }
      Result<std::string> payload = ObjectOf(store, meta.type, std::move(**raw));
      if (!payload.ok()) {
        failure = payload.status();
        return;
      }
      PutRdbTrailer(&*payload);
      moving.push_back({p, ttl, std::move(*payload)});
    }
  });
  if (Failed(failure, ctx.reply)) co_return;
  if (moving.empty()) {
    ctx.reply.SimpleString("NOKEY");
    co_return;
  }
  std::sort(moving.begin(), moving.end(),
            [](const Moving& x, const Moving& y) { return x.pos < y.pos; });

  std::string request;
  if (pass && user) AppendRequest(&request, {"AUTH", *user, *pass});
  if (pass && !user) AppendRequest(&request, {"AUTH", *pass});
  AppendRequest(&request, {"SELECT", std::to_string(*db)});
  for (const Moving& m : moving) {
    const std::string ttl = std::to_string(m.ttl);
    if (replace) {
      AppendRequest(&request, {"RESTORE", a[m.pos], ttl, m.payload, "REPLACE"});
    } else {
      AppendRequest(&request, {"RESTORE", a[m.pos], ttl, m.payload});
    }
  }
  SyncClient target;
  if (!target.Connect(a[1], a[2], *timeout).ok()) {
    ctx.reply.Error("IOERR error or timeout connecting to the client");
    co_return;
  }
  if (!target.Write(request, *timeout).ok()) {
    ctx.reply.Error("IOERR error or timeout writing to target instance");
    co_return;
  }
  std::string auth_line, select_line, line;
  bool read_error = (pass && !target.ReadLine(&auth_line, *timeout).ok()) ||
                    !target.ReadLine(&select_line, *timeout).ok();
  std::string target_error;
  std::vector<size_t> taken;
  for (size_t i = 0; i < moving.size() && !read_error; ++i) {
    if (!target.ReadLine(&line, *timeout).ok()) {
      read_error = true;
      break;
    }
    const std::string* err = (pass && auth_line.starts_with('-')) ? &auth_line
                             : select_line.starts_with('-')       ? &select_line
                             : line.starts_with('-')              ? &line
                                                                  : nullptr;
    if (err != nullptr) {
      if (target_error.empty()) {
        target_error = "ERR Target instance replied with error: " + err->substr(1);
      }
    } else if (!copy) {
      taken.push_back(moving[i].pos);
    }
  }
  if (!taken.empty()) {
    co_await ForEachKeySlot(ctx, taken, [&](Store& store, const std::vector<size_t>& ps) {
      for (size_t p : ps) {
        Status st = store.Delete(a[p]).status();
        if (failure.ok()) failure = st;
      }
    });
  }
  if (!target_error.empty()) {
    ctx.reply.Error(target_error);
  } else if (read_error) {
    ctx.reply.Error("IOERR error or timeout reading to target instance");
  } else if (!Failed(failure, ctx.reply)) {
    ctx.reply.Ok();
  }
}

// MIGRATE's keys: the key argument, or those after KEYS when it is empty.
std::vector<size_t> MigrateKeys(const std::vector<std::string>& args) {
  for (size_t i = 6; i < args.size(); ++i) {
    if (!Is(args[i], "KEYS")) continue;
    if (!args[3].empty()) return {};
    std::vector<size_t> keys;
    for (size_t k = i + 1; k < args.size(); ++k) keys.push_back(k);
    return keys;
  }
  return {3};
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS.
void RegisterDumpCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "dump", .arity = 2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = Dump, .group = "generic",
         .summary = "Return a serialized version of the value stored at the specified key.",
         .since = "2.6.0", .acl = "keyspace read slow", .key_specs = "RO access"});
  t.Add({.name = "restore", .arity = -4, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run = Restore, .group = "generic",
         .summary = "Create a key using the provided serialized value, previously obtained "
                    "using DUMP.",
         .since = "2.6.0", .acl = "keyspace write slow dangerous", .key_specs = "OW update"});
  // A cluster's RESTORE for a slot being migrated in; standalone, RESTORE itself.
  t.Add({.name = "restore-asking", .arity = -4, .flags = kWrite | kDenyOom | kAsking,
         .first_key = 1, .last_key = 1, .step = 1, .run = Restore, .group = "server",
         .summary = "An internal command for migrating keys in a cluster",
         .since = "3.0.0", .acl = "keyspace write slow dangerous", .key_specs = "OW update"});
  t.Add({.name = "migrate", .arity = -6, .flags = kWrite, .first_key = 3, .last_key = 3,
         .step = 1, .run_async = Migrate, .keys = MigrateKeys, .group = "generic",
         .summary = "Atomically transfer a key from a Redis instance to another one.",
         .since = "2.6.0", .acl = "keyspace write slow dangerous", .key_specs = "RW access delete|RW access delete incomplete"});
  // clang-format on
}

}  // namespace slotkv::command
