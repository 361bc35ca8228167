// Keyspace family, the commands that walk the keyspace: KEYS, SCAN and RANDOMKEY (the rest of
// the family is in key_commands.cc). They visit every slot of the client's database on its
// owner; a key present for the whole walk is seen (see Slot::Scan).
#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/glob.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrInvalidCursor = "ERR invalid cursor";

// The random source of RANDOMKEY, one per worker thread.
std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

// Uniform in [0, n). REQUIRES: n > 0.
uint64_t RandomBelow(uint64_t n) {
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(Rng());
}

// ---- KEYS SCAN RANDOMKEY --------------------------------------------------------------------

// KEYS pattern: every live key of the database matching pattern, slot by slot.
Task Keys(AsyncContext& ctx) {
  const std::string& pattern = ctx.args[1];
  // As Redis: a lone "*" skips matching, so it also lists the empty key (GlobMatch would not).
  const bool all = pattern == "*";
  std::vector<std::string> keys;
  Status failure;
  co_await ForEachSlot(
      ctx,
      [&](Store& store) {
        uint64_t cursor = 0;
        do {
          Result<slot::ScanResult> r = store.Scan(cursor, 1024);
          if (!r.ok()) {
            failure = r.status();
            return false;
          }
          for (slot::ScanItem& item : r->items) {
            if (all || GlobMatch(pattern, item.key)) keys.push_back(std::move(item.key));
          }
          cursor = r->next_cursor;
        } while (cursor != 0);
        return true;
      },
      ctx.db);
  if (Failed(failure, ctx.reply)) co_return;
  ctx.reply.Array(keys.size());
  for (const std::string& k : keys) ctx.reply.Bulk(k);
}


// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
//
// Cursor encoding: cursor = bucket * slots + slot, where `slot` is the slot being scanned and
// `bucket` is that slot's own scan cursor (slot::Slot::Scan: the next bucket to visit; a slot's
// bucket count never changes). Slots are visited in index order, each from bucket 0 to its end,
// so 0 means "slot 0, bucket 0" (a new scan) and the scan ends when the last slot does. A
// continuing cursor into slot 0 has bucket >= 1, so only the finished scan replies 0. A key
// present for the whole scan lives in one bucket of one slot and is returned when that bucket
// is visited; keys written or deleted meanwhile may or may not be returned. Bucket counts are
// below 2^32 and slots at most 16384, so the product fits in 64 bits. A cursor the server never
// gave (a bucket past the slot's end) just moves on to the next slot.
//
// COUNT (default 10) bounds the keys looked at per call before MATCH and TYPE filter them, as
// in Redis; whole buckets are returned, so a call may return more.
Task Scan(AsyncContext& ctx) {
  const auto& a = ctx.args;
  std::optional<uint64_t> cursor = ParseScanCursor(a[1]);
  if (!cursor) {
    ctx.reply.Error(kErrInvalidCursor);
    co_return;
  }
  int64_t count = 10;
  std::optional<std::string_view> pattern;
  std::optional<std::string_view> type;
  for (size_t i = 2; i < a.size(); i += 2) {
    const bool has_value = i + 1 < a.size();
    if (Is(a[i], "COUNT") && has_value) {
      std::optional<int64_t> n = IntArg(a[i + 1], ctx.reply);
      if (!n) co_return;
      if (*n < 1) {
        ctx.reply.Error(kErrSyntax);
        co_return;
      }
      count = *n;
    } else if (Is(a[i], "MATCH") && has_value) {
      pattern = a[i + 1];
      if (*pattern == "*") pattern.reset();  // as Redis: a lone "*" matches every key
    } else if (Is(a[i], "TYPE") && has_value) {
      type = a[i + 1];
    } else {
      ctx.reply.Error(kErrSyntax);
      co_return;
    }
  }

  const uint64_t slots = ctx.server.keyspace->slots();
  uint64_t s = *cursor % slots;
  uint64_t bucket = *cursor / slots;
  const size_t want = static_cast<size_t>(count);
  size_t looked_at = 0;
  std::vector<std::string> keys;
  Status failure;
  while (s < slots) {
    co_await ctx.ToSlot(static_cast<uint32_t>(s));
    Store store = ctx.StoreOf(static_cast<uint32_t>(s));
    Result<slot::ScanResult> r = store.Scan(bucket, want - looked_at);
    if (!r.ok()) {
      failure = r.status();
      break;
    }
    looked_at += r->items.size();
    for (slot::ScanItem& item : r->items) {
      if (pattern && !GlobMatch(*pattern, item.key)) continue;
      if (type && !Is(*type, ValueTypeName(item.type))) continue;
      keys.push_back(std::move(item.key));
    }
    if (r->next_cursor != 0) {
      bucket = r->next_cursor;  // the slot stopped because COUNT was reached
      break;
    }
    ++s;
    bucket = 0;
    if (looked_at >= want) break;
  }
  co_await ctx.ToHome();
  if (Failed(failure, ctx.reply)) co_return;
  const uint64_t next = s < slots ? bucket * slots + s : 0;
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::to_string(next));
  ctx.reply.Array(keys.size());
  for (const std::string& k : keys) ctx.reply.Bulk(k);
}

// Slots with at most this many keys are read whole by RANDOMKEY (exactly uniform, one read
// of every bucket); bigger ones are sampled by bucket (RandomKeyIn).
constexpr uint64_t kRandomKeyFullScan = 256;

// A uniformly random live key of store's slot, read whole; nullopt when it has none.
Result<std::optional<std::string>> RandomKeyByFullScan(Store& store) {
  std::optional<std::string> chosen;
  uint64_t seen = 0;
  uint64_t cursor = 0;
  do {
    Result<slot::ScanResult> r = store.Scan(cursor, 1024);
    if (!r.ok()) return r.status();
    for (slot::ScanItem& item : r->items) {
      if (RandomBelow(++seen) == 0) chosen = std::move(item.key);  // reservoir of one
    }
    cursor = r->next_cursor;
  } while (cursor != 0);
  return chosen;
}

// A random live key of store's slot, which holds about `count` keys; nullopt when it has none.
//
// The slot API offers bucket-cursor scans only. A small slot is read whole. In a bigger one:
// find `end`, one past the last bucket that holds a live key (gallop then bisect on
// Scan(c, 1), which finds the first nonempty bucket at or after c); then draw a bucket
// uniformly below `end` until the draw lands on a nonempty bucket (rejection, so a bucket after
// a run of empty ones is not favoured), and take a uniform key of it. Each key's chance is
// inversely proportional to the key count of its bucket: "uniform enough" for RANDOMKEY. With
// keys spread over B buckets the cost is about 2 log2(B) probes plus B / count draws, each
// reading about B / count buckets; below kRandomKeyFullScan keys one full read is cheaper.
Result<std::optional<std::string>> RandomKeyIn(Store& store, uint64_t count) {
  if (count <= kRandomKeyFullScan) return RandomKeyByFullScan(store);
  // probe(c): does a live key sit in a bucket >= c? On yes, *next is one past the first such
  // bucket (0 when it is the last bucket).
  auto probe = [&](uint64_t c, uint64_t* next, std::vector<slot::ScanItem>* items) -> Result<bool> {
    Result<slot::ScanResult> r = store.Scan(c, 1);
    if (!r.ok()) return r.status();
    *next = r->next_cursor;
    const bool found = !r->items.empty();
    if (items) *items = std::move(r->items);
    return found;
  };
  uint64_t next = 0;
  std::vector<slot::ScanItem> items;
  Result<bool> found = probe(0, &next, &items);
  if (!found.ok()) return found.status();
  if (!*found) return std::optional<std::string>();
  if (next == 0) {  // the only nonempty bucket is the last one
    return std::optional<std::string>(std::move(items[RandomBelow(items.size())].key));
  }
  // Invariant: probe(lo - 1) is true and probe(hi) is false, so lo <= end <= hi.
  uint64_t lo = next;
  uint64_t hi = 0;
  for (uint64_t c = lo;; c = std::max(c * 2, lo)) {
    found = probe(c, &next, nullptr);
    if (!found.ok()) return found.status();
    if (!*found) {
      hi = c;
      break;
    }
    lo = next != 0 ? next : c + 1;
    // Bucket numbers are 32-bit, so probe(2^32) is false; this only guards against a slot
    // that breaks Scan's contract.
    if (c > (uint64_t{1} << 40)) return Status::Corruption("slot scan never ends");
  }
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    found = probe(mid, &next, nullptr);
    if (!found.ok()) return found.status();
    if (*found) {
      lo = next != 0 ? std::max(next, mid + 1) : mid + 1;
    } else {
      hi = mid;
    }
  }
  const uint64_t end = lo;
  // Enough draws that giving up (and keeping a biased draw) is vanishingly rare for any slot
  // past kRandomKeyFullScan keys.
  constexpr int kMaxDraws = 1000;
  bool have = false;
  for (int i = 0; i < kMaxDraws; ++i) {
    const uint64_t r = RandomBelow(end);
    found = probe(r, &next, &items);
    if (!found.ok()) return found.status();
    if (!*found) break;  // keys expired meanwhile
    have = true;
    // The bucket found is next - 1, or the last bucket (end - 1) when next is 0.
    if ((next != 0 ? next - 1 : end - 1) == r) break;
  }
  if (!have) return RandomKeyByFullScan(store);
  return std::optional<std::string>(std::move(items[RandomBelow(items.size())].key));
}

// The steps of RANDOMKEY; may end on any worker. A first pass counts the keys of every slot;
// then a slot is picked with probability proportional to its count, and a random key in it
// (RandomKeyIn). Counts include expired keys not yet reclaimed: a slot found to hold no live
// key is dropped and another one picked.
Task RandomKeySteps(AsyncContext& ctx) {
  std::vector<uint64_t> counts;
  Status failure;
  co_await CountKeys(ctx, ctx.db, &counts, &failure);
  if (Failed(failure, ctx.reply)) co_return;
  uint64_t total = std::accumulate(counts.begin(), counts.end(), uint64_t{0});
  while (total > 0) {
    uint64_t pick = RandomBelow(total);
    uint32_t s = 0;
    while (pick >= counts[s]) pick -= counts[s++];
    co_await ctx.ToSlot(s);
    Store store = ctx.StoreOf(s);
    Result<std::optional<std::string>> key = RandomKeyIn(store, counts[s]);
    if (Failed(key.status(), ctx.reply)) co_return;
    if (key->has_value()) {
      ctx.reply.Bulk(**key);
      co_return;
    }
    total -= counts[s];
    counts[s] = 0;
  }
  ctx.reply.Null();
}

// RANDOMKEY: a random key of the database, or null when it is empty.
Task RandomKey(AsyncContext& ctx) {
  co_await RandomKeySteps(ctx);
  co_await ctx.ToHome();
}
}  // namespace

void RegisterScanCommands(CommandTable& t) {
  t.Add({.name = "keys", .arity = 2, .flags = kAllSlots | kReadOnly, .run_async = Keys,
         .group = "generic",
         .summary = "Find all keys matching the given pattern", .since = "1.0.0",
         .acl = "keyspace read slow dangerous"});
  t.Add({.name = "scan", .arity = -2, .flags = kAllSlots | kReadOnly, .run_async = Scan,
         .group = "generic", .summary = "Incrementally iterate the keys space", .since = "2.8.0",
         .acl = "keyspace read slow"});
  t.Add({.name = "randomkey", .arity = 1, .flags = kAllSlots | kReadOnly, .run_async = RandomKey,
         .group = "generic", .summary = "Return a random key from the keyspace", .since = "1.0.0",
         .acl = "keyspace read slow"});
}

}  // namespace slotkv::command
