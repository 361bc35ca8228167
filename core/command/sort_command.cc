// SORT and SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA]
// [STORE destination] (SORT only), as Redis 7.0's sort.c.
//
// The elements of a list, set or sorted set are sorted as numbers (strtod; one that does not
// convert fails the command; equal numbers by their bytes) or with ALPHA as strings, by
// themselves or by the value a BY pattern names for each: the pattern with its first '*'
// replaced by the element names a string key, or with `->field` after the '*' a hash field;
// a missing key, field or another type counts as 0 (numbers) or sorts first (ALPHA). A BY
// without '*' sorts nothing: a list and a sorted set keep their order (DESC reverses it), a set
// its own (sorted ALPHA when stored, or inside a script, as Redis does for replication). LIMIT
// is clamped to the elements. Each GET pattern adds one reply per element: `#` the element
// itself, else the value the pattern names or nil. STORE writes the result as a list (nil as
// "", an empty result deletes the destination) and replies its length.
//
// Where slotkv differs: ALPHA compares bytes up to the first NUL as strcmp does (Redis uses
// strcoll, the same in the C and C.UTF-8 locales); ties among equal ALPHA BY values keep the
// source's order (glibc's qsort, which Redis uses, does too, except under LIMIT).
//
// Threading: a call whose BY or GET patterns name keys takes every slot (reaches_all: the keys
// are not known before the source is read), so it sees one state of the whole database as in
// Redis; the source is read on its owner, the patterns' keys grouped by owner, the result
// stored on the destination's owner.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/command/acl_check.h"
#include "core/command/args.h"
#include "core/command/collection_pages.h"
#include "core/command/command_table.h"
#include "core/command/fanout.h"
#include "core/command/member_access.h"
#include "core/command/typed_read.h"

namespace slotkv::command {
namespace {

struct SortArgs {
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;  // BY a pattern without '*'
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  std::optional<std::string> by;  // a pattern with '*'
  std::vector<std::string> gets;
  std::optional<std::string> store;
};

// Parses the options after the key; replies the error and returns false on bad input.
bool ParseSort(const std::vector<std::string>& a, bool read_only, bool full_key_read,
               SortArgs* out, Reply& reply) {
  for (size_t j = 2; j < a.size(); ++j) {
    const size_t left = a.size() - j - 1;
    if (Is(a[j], "ASC")) {
      out->desc = false;
    } else if (Is(a[j], "DESC")) {
      out->desc = true;
    } else if (Is(a[j], "ALPHA")) {
      out->alpha = true;
    } else if (Is(a[j], "LIMIT") && left >= 2) {
      std::optional<int64_t> start = ParseInt64(a[j + 1]);
      std::optional<int64_t> count = start ? ParseInt64(a[j + 2]) : std::nullopt;
      if (!count) {
        reply.Error(kErrNotInteger);
        return false;
      }
      out->limit_start = *start;
      out->limit_count = *count;
      j += 2;
    } else if (!read_only && Is(a[j], "STORE") && left >= 1) {
      out->store = a[++j];
    } else if (Is(a[j], "BY") && left >= 1) {
      // A constant BY sorts nothing, whatever other BYs say (Redis never clears dontsort).
      out->by = a[++j];
      if (out->by->find('*') == std::string::npos) {
        out->dontsort = true;
      } else if (!full_key_read) {
        reply.Error("ERR BY option of SORT denied due to insufficient ACL permissions.");
        return false;
      }
    } else if (Is(a[j], "GET") && left >= 1) {
      if (!full_key_read) {
        reply.Error("ERR GET option of SORT denied due to insufficient ACL permissions.");
        return false;
      }
      out->gets.push_back(a[++j]);
    } else {
      reply.Error(kErrSyntax);
      return false;
    }
  }
  if (out->dontsort) out->by.reset();
  return true;
}

// A pattern's '*' as a C string finds it (Redis's strchr, stopping at a NUL).
size_t StarOf(std::string_view pattern) { return pattern.substr(0, pattern.find('\0')).find('*'); }

// Whether a pattern names keys: it has a '*' and is not `#`.
bool NamesKeys(std::string_view pattern) {
  return pattern != "#" && StarOf(pattern) != std::string_view::npos;
}

// SORT's calls that read keys no argument names: a BY or GET pattern with a '*'.
bool SortReachesAll(const std::vector<std::string>& a) {
  for (size_t j = 2; j + 1 < a.size(); ++j) {
    if ((Is(a[j], "BY") || Is(a[j], "GET")) && NamesKeys(a[j + 1])) return true;
  }
  return false;
}

// What a pattern names for one element: a key, and a hash field when the pattern has
// `->field` after its '*' (Redis's lookupKeyByPattern). REQUIRES: NamesKeys(pattern).
struct PatternKey {
  std::string key;
  std::optional<std::string> field;
};

PatternKey KeyOf(std::string_view pattern, std::string_view element) {
  const std::string_view c = pattern.substr(0, pattern.find('\0'));
  const size_t star = c.find('*');
  PatternKey out;
  size_t field_len = 0;
  if (size_t arrow = c.find("->", star + 1);
      arrow != std::string_view::npos && arrow + 2 < c.size()) {
    out.field = std::string(pattern.substr(arrow + 2));
    field_len = out.field->size() + 2;
  }
  out.key.reserve(pattern.size() + element.size());
  out.key.append(pattern.substr(0, star)).append(element);
  out.key.append(pattern.substr(star + 1, pattern.size() - star - 1 - field_len));
  return out;
}

// The string that k names: a string key's value, or a hash field's; nullopt when missing or of
// another type. A reader's lookup (a keyspace hit or miss).
Result<std::optional<std::string>> LookupPattern(Store& store, WorkerStats& stats,
                                                 const PatternKey& k) {
  if (k.field) {
    MemberAccess<HashValue> hash(store, ValueType::kHash);
    bool wrong_type = false;
    SLOTKV_RETURN_IF_ERROR(hash.Open(k.key, stats, Lookup::kRead, &wrong_type));
    if (wrong_type || !hash.exists()) return std::optional<std::string>();
    return hash.Get(*k.field);
  }
  slot::KeyMeta meta;
  SLOTKV_ASSIGN_OR_RETURN(std::optional<std::string> v, store.Get(k.key, &meta));
  CountLookup(store, stats, k.key, v.has_value());
  if (v && meta.type != ValueType::kString) v.reset();
  return v;
}

// Looks up pattern for each element on the keys' owners: (*out)[i] for elements[i].
Task LookupAll(AsyncContext& ctx, std::string_view pattern,
               const std::vector<std::string_view>& elements,
               std::vector<std::optional<std::string>>* out, Status* failure) {
  // One lookup per distinct element (a list may repeat them).
  std::unordered_map<std::string_view, size_t> index;
  std::vector<PatternKey> keys;
  std::vector<size_t> of(elements.size());
  for (size_t i = 0; i < elements.size(); ++i) {
    auto [it, added] = index.try_emplace(elements[i], keys.size());
    if (added) keys.push_back(KeyOf(pattern, elements[i]));
    of[i] = it->second;
  }
  std::vector<std::string> names;
  names.reserve(keys.size());
  for (const PatternKey& k : keys) names.push_back(k.key);
  std::vector<std::optional<std::string>> found(keys.size());
  auto read = [&](Store& store, const std::vector<size_t>& group) -> Status {
    WorkerStats& stats = StatsHere(ctx.server);
    for (size_t k : group) {
      SLOTKV_ASSIGN_OR_RETURN(found[k], LookupPattern(store, stats, keys[k]));
    }
    return Status::OK();
  };
  co_await ForEachKeyReading(ctx, names, read, failure);
  out->clear();
  out->reserve(elements.size());
  for (size_t i = 0; i < elements.size(); ++i) out->push_back(found[of[i]]);
}

// The source's elements in its own order (a sorted set's by score); false after replying
// WRONGTYPE or a failure. A missing key has none.
bool ReadSource(Store& store, WorkerStats& stats, const std::string& key, ValueType* type,
                std::vector<std::string>* out, Reply& reply) {
  slot::KeyMeta meta;
  Result<std::optional<std::string>> raw = store.Get(key, &meta);
  if (Failed(raw.status(), reply)) return false;
  CountLookup(store, stats, key, raw->has_value());
  *type = raw->has_value() ? meta.type : ValueType::kList;
  if (!*raw) return true;
  switch (meta.type) {
    case ValueType::kList: {
      Result<ListValue> v = LoadWhole<ListValue>(store, meta.type, std::move(**raw));
      if (Failed(v.status(), reply)) return false;
      for (size_t i = 0; i < v->size(); ++i) out->push_back(v->at(i));
      return true;
    }
    case ValueType::kSet: {
      Result<SetValue> v = LoadWhole<SetValue>(store, meta.type, std::move(**raw));
      if (Failed(v.status(), reply)) return false;
      *out = v->members();
      return true;
    }
    case ValueType::kZSet: {
      Result<ZSetValue> v = LoadWhole<ZSetValue>(store, meta.type, std::move(**raw));
      if (Failed(v.status(), reply)) return false;
      for (const ZSetValue::Entry& e : *v) out->push_back(e.member);
      return true;
    }
    default:
      reply.Error(kErrWrongType);
      return false;
  }
}

// One element to sort: its number, or the string it sorts by with ALPHA (nullopt: none).
struct Item {
  std::string_view element;
  double score = 0;
  std::optional<std::string> by;
};

// strtod as SORT takes a number: all of s, no overflow, not NaN.
bool ToScore(const std::string& s, double* out) {
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(s.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(*out);
}

// Redis's compareStringObjects (bytes, then length) or, for a reply, strcoll as strcmp.
int CompareBytes(std::string_view a, std::string_view b, bool as_c_strings) {
  if (as_c_strings) {
    a = a.substr(0, a.find('\0'));
    b = b.substr(0, b.find('\0'));
  }
  const int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

// Sorts items as sortCompare does.
void SortItems(std::vector<Item>& items, const SortArgs& a) {
  const bool by = a.by.has_value();
  const bool c_strings = !a.store;
  auto cmp = [&](const Item& x, const Item& y) {
    if (!a.alpha) {
      if (x.score != y.score) return x.score > y.score ? 1 : -1;
      return CompareBytes(x.element, y.element, false);
    }
    if (!by) return CompareBytes(x.element, y.element, c_strings);
    if (!x.by || !y.by) return x.by.has_value() == y.by.has_value() ? 0 : x.by ? 1 : -1;
    return CompareBytes(*x.by, *y.by, c_strings);
  };
  std::stable_sort(items.begin(), items.end(), [&](const Item& x, const Item& y) {
    const int c = cmp(x, y);
    return a.desc ? c > 0 : c < 0;
  });
}

// The [start, end] range of LIMIT over n elements, as Redis clamps it (end < start: none).
std::pair<int64_t, int64_t> LimitRange(const SortArgs& a, int64_t n) {
  int64_t start = std::min(std::max<int64_t>(a.limit_start, 0), n);
  const int64_t count = std::min(std::max<int64_t>(a.limit_count, -1), n);
  int64_t end = count < 0 ? n - 1 : start + count - 1;
  if (start >= n) {
    start = n - 1;
    end = n - 2;
  }
  if (end >= n) end = n - 1;
  return {start, end};
}

// Orders the elements, numbers resolved through BY, and keeps LIMIT's range in *picked; false
// after replying an error.
Task Order(AsyncContext& ctx, const SortArgs& a, ValueType type,
           const std::vector<std::string>& elements, std::vector<std::string_view>* picked,
           bool* ok) {
  *ok = false;
  std::vector<Item> items;
  items.reserve(elements.size());
  for (const std::string& e : elements) items.push_back(Item{e, 0, std::nullopt});
  if (a.dontsort && type != ValueType::kSet && a.desc) std::reverse(items.begin(), items.end());
  if (!a.dontsort) {
    std::vector<std::optional<std::string>> by(items.size());
    if (a.by) {
      std::vector<std::string_view> names(elements.begin(), elements.end());
      Status failure;
      co_await LookupAll(ctx, *a.by, names, &by, &failure);
      if (Failed(failure, ctx.reply)) co_return;
    }
    bool converted = true;
    for (size_t i = 0; i < items.size(); ++i) {
      if (a.alpha) {
        items[i].by = std::move(by[i]);
      } else if (!a.by || by[i]) {
        const std::string value = a.by ? *by[i] : std::string(items[i].element);
        converted = ToScore(value, &items[i].score) && converted;
      }
    }
    if (!converted) {
      ctx.reply.Error(kErrSortNotDouble);
      co_return;
    }
    SortItems(items, a);
  }
  const auto [start, end] = LimitRange(a, static_cast<int64_t>(items.size()));
  for (int64_t j = start; j <= end; ++j) picked->push_back(items[static_cast<size_t>(j)].element);
  *ok = true;
}

// What each GET pattern gives for the picked elements: (*values)[g][i] for gets[g], picked[i].
Task Gets(AsyncContext& ctx, const SortArgs& a, const std::vector<std::string_view>& picked,
          std::vector<std::vector<std::optional<std::string>>>* values, bool* ok) {
  *ok = false;
  values->resize(a.gets.size());
  for (size_t g = 0; g < a.gets.size(); ++g) {
    const std::string& pattern = a.gets[g];
    std::vector<std::optional<std::string>>& out = (*values)[g];
    if (pattern == "#") {
      for (std::string_view e : picked) out.emplace_back(e);
    } else if (!NamesKeys(pattern)) {
      out.resize(picked.size());
    } else {
      Status failure;
      co_await LookupAll(ctx, pattern, picked, &out, &failure);
      if (Failed(failure, ctx.reply)) co_return;
    }
  }
  *ok = true;
}

Task SortCommand(AsyncContext& ctx, bool read_only) {
  SortArgs a;
  // BY and GET patterns may name any key: they need a user who may read every key.
  const bool full_key_read = FullKeyRead(
      ctx.server, ctx.client, *ctx.server.table->Find(read_only ? "sort_ro" : "sort"), ctx.args);
  if (!ParseSort(ctx.args, read_only, full_key_read, &a, ctx.reply)) co_return;
  const bool in_script = ctx.client != nullptr && ctx.client->script;
  const uint32_t src_slot = ctx.server.keyspace->SlotOfKey(ctx.args[1]);
  co_await ctx.ToSlot(src_slot);
  ValueType type = ValueType::kList;
  std::vector<std::string> elements;
  bool ok = false;
  {
    Store store = ctx.StoreOf(src_slot);
    ok = ReadSource(store, StatsHere(ctx.server), ctx.args[1], &type, &elements, ctx.reply);
  }
  if (ok && a.dontsort && type == ValueType::kSet && (a.store || in_script)) {
    a.dontsort = false;  // a set's own order differs between servers: sorted instead
    a.alpha = true;
  }
  std::vector<std::string_view> picked;
  if (ok) co_await Order(ctx, a, type, elements, &picked, &ok);
  std::vector<std::vector<std::optional<std::string>>> values;
  if (ok) co_await Gets(ctx, a, picked, &values, &ok);
  if (ok && !a.store) {
    ctx.reply.Array(a.gets.empty() ? picked.size() : picked.size() * a.gets.size());
    for (size_t i = 0; i < picked.size(); ++i) {
      if (a.gets.empty()) ctx.reply.Bulk(picked[i]);
      for (const auto& got : values) {
        if (got[i]) {
          ctx.reply.Bulk(*got[i]);
        } else {
          ctx.reply.Null();
        }
      }
    }
  } else if (ok) {
    ListValue list;
    for (size_t i = 0; i < picked.size(); ++i) {
      if (a.gets.empty()) list.PushBack(picked[i]);
      for (const auto& got : values) list.PushBack(got[i] ? *got[i] : std::string_view());
    }
    const uint32_t dst_slot = ctx.server.keyspace->SlotOfKey(*a.store);
    co_await ctx.ToSlot(dst_slot);
    Store store = ctx.StoreOf(dst_slot);
    if (!Failed(StoreCollection(store, *a.store, list, ValueType::kList, 0), ctx.reply)) {
      ctx.reply.Integer(static_cast<int64_t>(list.size()));
    }
  }
  co_await ctx.ToHome();
}

Task Sort(AsyncContext& ctx) { co_await SortCommand(ctx, false); }
Task SortRo(AsyncContext& ctx) { co_await SortCommand(ctx, true); }

// SORT's keys: the source and the last STORE destination, the arguments of LIMIT, GET and
// BY skipped (Redis's sortGetKeys).
std::vector<size_t> SortKeys(const std::vector<std::string>& args) {
  std::vector<size_t> keys = {1};
  size_t stored = 0;
  for (size_t j = 2; j < args.size(); ++j) {
    if (Is(args[j], "LIMIT")) {
      j += 2;
    } else if (Is(args[j], "GET") || Is(args[j], "BY")) {
      j += 1;
    } else if (Is(args[j], "STORE") && j + 1 < args.size()) {
      stored = j + 1;
    }
  }
  if (stored != 0) keys.push_back(stored);
  return keys;
}

// SORT_RO's key: the source (a KeysFn as Redis's sortROGetKeys, so movablekeys as there).
std::vector<size_t> SortRoKeys(const std::vector<std::string>&) { return {1}; }

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS.
void RegisterSortCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "sort", .arity = -2, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1,
         .step = 1, .run_async = Sort, .keys = SortKeys, .reaches_all = SortReachesAll,
         .group = "generic",
         .summary = "Sort the elements in a list, set or sorted set",
         .since = "1.0.0", .acl = "write set sortedset list slow dangerous", .key_specs = "RO access|OW update"});
  t.Add({.name = "sort_ro", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run_async = SortRo, .keys = SortRoKeys, .reaches_all = SortReachesAll,
         .group = "generic",
         .summary = "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
         .since = "7.0.0", .acl = "read set sortedset list slow dangerous", .key_specs = "RO access"});
  // clang-format on
}

}  // namespace slotkv::command
