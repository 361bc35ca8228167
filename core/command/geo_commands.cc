// Geo family: GEOADD GEOPOS GEODIST GEOHASH GEORADIUS GEORADIUSBYMEMBER (and their _RO forms)
// GEOSEARCH GEOSEARCHSTORE over sorted sets whose scores are 52-bit geohashes
// (core/types/geohash.h), as Redis 7.0's geo.c.
//
// Semantics kept from Redis: GEOADD is ZADD with coordinates made scores (NX, XX, CH; its
// events are ZADD's); a search parses its options in Redis's order, reading the center
// member while it parses (so its errors come in Redis's order), scans the sorted set's score
// ranges of nine geohash boxes, keeps what is inside the circle or box, sorts by distance
// when asked (COUNT without ANY sorts ascending), and replies members, optionally with
// distance (4 decimals, in the unit asked), hash and coordinates, or stores them (scores:
// geohashes, or distances with STOREDIST) and replies their count; a STORE of nothing deletes
// the destination. A missing source replies an empty array (a STORE: deletes the destination
// and replies 0).
//
// GEORADIUS and GEORADIUSBYMEMBER may store, so they run as tasks that visit the source's
// owner, then the destination's; the _RO forms and GEOSEARCH run on the source's owner.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/base/number.h"
#include "core/command/args.h"
#include "core/command/command_table.h"
#include "core/command/zset_access.h"
#include "core/types/geohash.h"

namespace slotkv::command {
namespace {

constexpr std::string_view kErrUnit = "ERR unsupported unit provided. please use M, KM, FT, MI";
constexpr std::string_view kErrNoMember = "ERR could not decode requested zset member";

// Meters per unit m, km, ft, mi (any case); nullopt after replying the error.
std::optional<double> UnitOrReply(std::string_view unit, Reply& reply) {
  if (Is(unit, "m")) return 1.0;
  if (Is(unit, "km")) return 1000.0;
  if (Is(unit, "ft")) return 0.3048;
  if (Is(unit, "mi")) return 1609.34;
  reply.Error(kErrUnit);
  return std::nullopt;
}

// A double argument, or nullopt after replying "ERR <what>" (or "value is not a valid float").
std::optional<double> DoubleOrReply(std::string_view arg, std::string_view what, Reply& reply) {
  std::optional<double> v = ParseDouble(arg);
  if (!v) reply.Error(what.empty() ? kErrNotFloat : "ERR " + std::string(what));
  return v;
}

// args[i], args[i + 1] as longitude, latitude; false after replying an error.
bool LongLatOrReply(const std::vector<std::string>& args, size_t i, geo::Point* p, Reply& reply) {
  std::optional<double> lon = DoubleOrReply(args[i], {}, reply);
  if (!lon) return false;
  std::optional<double> lat = DoubleOrReply(args[i + 1], {}, reply);
  if (!lat) return false;
  *p = {*lon, *lat};
  if (!geo::ValidPoint(*p)) {
    char buf[128];
    std::snprintf(buf, sizeof(buf), "ERR invalid longitude,latitude pair %f,%f", *lon, *lat);
    reply.Error(buf);
    return false;
  }
  return true;
}

// args[i] args[i + 1] as radius unit into shape; false after replying an error.
bool RadiusOrReply(const std::vector<std::string>& args, size_t i, geo::Shape* shape,
                   Reply& reply) {
  std::optional<double> r = DoubleOrReply(args[i], "need numeric radius", reply);
  if (!r) return false;
  if (*r < 0) {
    reply.Error("ERR radius cannot be negative");
    return false;
  }
  std::optional<double> unit = UnitOrReply(args[i + 1], reply);
  if (!unit) return false;
  shape->box = false;
  shape->radius = *r;
  shape->conversion = *unit;
  return true;
}

// args[i..i+2] as width height unit into shape; false after replying an error.
bool BoxOrReply(const std::vector<std::string>& args, size_t i, geo::Shape* shape, Reply& reply) {
  std::optional<double> w = DoubleOrReply(args[i], "need numeric width", reply);
  if (!w) return false;
  std::optional<double> h = DoubleOrReply(args[i + 1], "need numeric height", reply);
  if (!h) return false;
  if (*h < 0 || *w < 0) {
    reply.Error("ERR height or width cannot be negative");
    return false;
  }
  std::optional<double> unit = UnitOrReply(args[i + 2], reply);
  if (!unit) return false;
  shape->box = true;
  shape->width = *w;
  shape->height = *h;
  shape->conversion = *unit;
  return true;
}

// The distance as Redis replies it: "%.4f" of the value in the unit, a bulk string.
void ReplyDistance(Reply& reply, double d) {
  char buf[128];
  const int n = std::snprintf(buf, sizeof(buf), "%.4f", d);
  reply.Bulk(std::string_view(buf, static_cast<size_t>(n)));
}

void ReplyCoordinates(Reply& reply, geo::Point p) {
  reply.Array(2);
  reply.FormattedDouble(FormatLongDouble(p.lon));
  reply.FormattedDouble(FormatLongDouble(p.lat));
}

// GEOADD key [NX|XX] [CH] longitude latitude member [...]: ZADD of the points' geohashes.
void GeoAdd(CommandContext& ctx) {
  const std::vector<std::string>& a = ctx.args;
  size_t first = 2;
  bool nx = false, xx = false;
  for (; first < a.size(); ++first) {
    if (Is(a[first], "NX")) {
      nx = true;
    } else if (Is(a[first], "XX")) {
      xx = true;
    } else if (!Is(a[first], "CH")) {
      break;
    }
  }
  if ((a.size() - first) % 3 != 0 || (xx && nx)) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  std::vector<std::string> zadd(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(first));
  zadd[0] = "zadd";
  for (size_t i = first; i < a.size(); i += 3) {
    geo::Point p;
    if (!LongLatOrReply(a, i, &p, ctx.reply)) return;
    zadd.push_back(std::to_string(geo::Score(p)));
    zadd.push_back(a[i + 2]);
  }
  CommandContext sub{zadd, ctx.reply, ctx.store, ctx.server, ctx.stats};
  ZAdd(sub);
}

// Opens key as a sorted set for reading; false after replying WRONGTYPE or a failure.
bool OpenZSet(CommandContext& ctx, ZSetAccess& zset) {
  return zset.Open(ctx.args[1], ctx.stats, Lookup::kRead, ctx.reply);
}

// The position of member, or nullopt when the set or the member is missing.
Result<std::optional<geo::Point>> PositionOf(ZSetAccess& zset, std::string_view member) {
  if (!zset.exists()) return std::optional<geo::Point>();
  SLOTKV_ASSIGN_OR_RETURN(std::optional<double> score, zset.Score(member));
  if (!score) return std::optional<geo::Point>();
  return std::optional<geo::Point>(geo::Decode(*score));
}

// GEOPOS key [member ...]: [longitude, latitude] per member, a null array for a missing one.
void GeoPos(CommandContext& ctx) {
  ZSetAccess zset(ctx.store);
  if (!OpenZSet(ctx, zset)) return;
  std::vector<std::optional<geo::Point>> points;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    Result<std::optional<geo::Point>> p = PositionOf(zset, ctx.args[i]);
    if (Failed(p.status(), ctx.reply)) return;
    points.push_back(*p);
  }
  ctx.reply.Array(points.size());
  for (const std::optional<geo::Point>& p : points) {
    if (p) {
      ReplyCoordinates(ctx.reply, *p);
    } else {
      ctx.reply.NullArray();
    }
  }
}

// GEOHASH key [member ...]: the 11-character geohash per member, null for a missing one.
void GeoHash(CommandContext& ctx) {
  ZSetAccess zset(ctx.store);
  if (!OpenZSet(ctx, zset)) return;
  std::vector<std::optional<std::string>> hashes;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    std::optional<double> score;
    if (zset.exists()) {
      Result<std::optional<double>> s = zset.Score(ctx.args[i]);
      if (Failed(s.status(), ctx.reply)) return;
      score = *s;
    }
    hashes.push_back(score ? std::optional<std::string>(geo::StandardHash(*score)) : std::nullopt);
  }
  ctx.reply.Array(hashes.size());
  for (const std::optional<std::string>& h : hashes) {
    if (h) {
      ctx.reply.Bulk(*h);
    } else {
      ctx.reply.Null();
    }
  }
}

// GEODIST key member1 member2 [M|KM|FT|MI]: the distance, null when a member is missing.
void GeoDist(CommandContext& ctx) {
  double to_meters = 1;
  if (ctx.args.size() == 5) {
    std::optional<double> unit = UnitOrReply(ctx.args[4], ctx.reply);
    if (!unit) return;
    to_meters = *unit;
  } else if (ctx.args.size() > 5) {
    ctx.reply.Error(kErrSyntax);
    return;
  }
  ZSetAccess zset(ctx.store);
  if (!OpenZSet(ctx, zset)) return;
  Result<std::optional<geo::Point>> a = PositionOf(zset, ctx.args[2]);
  if (Failed(a.status(), ctx.reply)) return;
  Result<std::optional<geo::Point>> b = PositionOf(zset, ctx.args[3]);
  if (Failed(b.status(), ctx.reply)) return;
  if (!*a || !*b) {
    ctx.reply.Null();
    return;
  }
  ReplyDistance(ctx.reply, geo::Distance(**a, **b) / to_meters);
}

// ---- searches -----------------------------------------------------------------------------

enum SearchFlags : unsigned {
  kByCoords = 1,     // GEORADIUS[_RO]: longitude latitude radius unit
  kByMember = 2,     // GEORADIUSBYMEMBER[_RO]: member radius unit
  kSearch = 4,       // GEOSEARCH / GEOSEARCHSTORE: FROM... BY...
  kSearchStore = 8,  // GEOSEARCHSTORE destination source ...
  kNoStore = 16,     // the _RO forms: no STORE / STOREDIST
};

struct Found {
  std::string member;
  double dist = 0;  // meters, then in the unit asked
  double score = 0;
  geo::Point at;
};

// A parsed and run search.
struct Search {
  bool done = false;  // replied already (an error, or the reply of a missing source)
  bool with_dist = false, with_hash = false, with_coords = false;
  std::optional<std::string> store;  // destination key
  bool store_dist = false;
  int64_t count = 0;  // results wanted, 0 for all
  geo::Shape shape;
  std::vector<Found> found;  // sorted and cut to count when asked
};

enum class Sort { kNone, kAsc, kDesc };

// Scans the boxes of shape in zset, appending what is inside; with limit > 0, stops once
// limit points were found (ANY).
Status Scan(ZSetAccess& zset, const geo::Shape& shape, int64_t limit, std::vector<Found>* out) {
  const auto full = [&] { return limit > 0 && static_cast<int64_t>(out->size()) >= limit; };
  for (const geo::Hash& box : geo::SearchBoxes(shape)) {
    if (box.zero()) continue;
    if (!out->empty() && full()) break;
    uint64_t min, max;
    geo::ScoresOf(box, &min, &max);
    SLOTKV_RETURN_IF_ERROR(zset.ForEachScoreIn(static_cast<double>(min), static_cast<double>(max),
                                               [&](const ZSetValue::Entry& e) {
                                                 if (!out->empty() && full()) return false;
                                                 const geo::Point p = geo::Decode(e.score);
                                                 double meters;
                                                 if (geo::Within(shape, p, &meters))
                                                   out->push_back({e.member, meters, e.score, p});
                                                 return true;
                                               }));
  }
  return Status::OK();
}

// Parses and runs a search over the source key (args[src]) in store, as Redis's
// georadiusGeneric up to its reply; errors (and a missing source's reply) are replied here.
Search RunSearch(Store& store, WorkerStats& stats, const std::vector<std::string>& a, size_t src,
                 unsigned flags, Reply& reply) {
  Search s;
  s.done = true;
  ZSetAccess zset(store);
  if (!zset.Open(a[src], stats, Lookup::kRead, reply)) return s;
  size_t base;
  if (flags & kByCoords) {
    base = 6;
    if (!LongLatOrReply(a, 2, &s.shape.center, reply) || !RadiusOrReply(a, 4, &s.shape, reply)) {
      return s;
    }
  } else if (flags & kByMember) {
    base = 5;
    if (zset.exists()) {
      Result<std::optional<geo::Point>> p = PositionOf(zset, a[2]);
      if (Failed(p.status(), reply)) return s;
      if (!*p) {
        reply.Error(kErrNoMember);
        return s;
      }
      s.shape.center = **p;
      if (!RadiusOrReply(a, 3, &s.shape, reply)) return s;
    }
  } else {
    base = 2;
    if (flags & kSearchStore) {
      base = 3;
      s.store = a[1];
    }
  }
  bool from_member = false, from_lonlat = false, by_radius = false, by_box = false, any = false;
  Sort sort = Sort::kNone;
  const size_t remaining = a.size() - base;
  for (size_t i = 0; i < remaining; ++i) {
    const std::string& arg = a[base + i];
    const bool more1 = i + 1 < remaining, more2 = i + 2 < remaining, more3 = i + 3 < remaining;
    const bool search = flags & kSearch;
    const bool may_store = !(flags & kNoStore) && !search;
    if (Is(arg, "WITHDIST")) {
      s.with_dist = true;
    } else if (Is(arg, "WITHHASH")) {
      s.with_hash = true;
    } else if (Is(arg, "WITHCOORD")) {
      s.with_coords = true;
    } else if (Is(arg, "ANY")) {
      any = true;
    } else if (Is(arg, "ASC")) {
      sort = Sort::kAsc;
    } else if (Is(arg, "DESC")) {
      sort = Sort::kDesc;
    } else if (Is(arg, "COUNT") && more1) {
      std::optional<int64_t> n = ParseInt64(a[base + i + 1]);
      if (!n) {
        reply.Error(kErrNotInteger);
        return s;
      }
      if (*n <= 0) {
        reply.Error("ERR COUNT must be > 0");
        return s;
      }
      s.count = *n;
      ++i;
    } else if ((Is(arg, "STORE") || Is(arg, "STOREDIST")) && more1 && may_store) {
      s.store = a[base + i + 1];
      s.store_dist = Is(arg, "STOREDIST");
      ++i;
    } else if (Is(arg, "STOREDIST") && search && (flags & kSearchStore)) {
      s.store_dist = true;
    } else if (Is(arg, "FROMMEMBER") && more1 && search && !from_lonlat) {
      from_member = true;
      if (zset.exists()) {
        Result<std::optional<geo::Point>> p = PositionOf(zset, a[base + i + 1]);
        if (Failed(p.status(), reply)) return s;
        if (!*p) {
          reply.Error(kErrNoMember);
          return s;
        }
        s.shape.center = **p;
      }
      ++i;
    } else if (Is(arg, "FROMLONLAT") && more2 && search && !from_member) {
      if (!LongLatOrReply(a, base + i + 1, &s.shape.center, reply)) return s;
      from_lonlat = true;
      i += 2;
    } else if (Is(arg, "BYRADIUS") && more2 && search && !by_box) {
      if (!RadiusOrReply(a, base + i + 1, &s.shape, reply)) return s;
      by_radius = true;
      i += 2;
    } else if (Is(arg, "BYBOX") && more3 && search && !by_radius) {
      if (!BoxOrReply(a, base + i + 1, &s.shape, reply)) return s;
      by_box = true;
      i += 3;
    } else {
      reply.Error(kErrSyntax);
      return s;
    }
  }
  if (s.store && (s.with_dist || s.with_hash || s.with_coords)) {
    reply.Error(std::string("ERR ") +
                ((flags & kSearchStore) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS") +
                " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
    return s;
  }
  if ((flags & kSearch) && !(from_member || from_lonlat)) {
    reply.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + a[0]);
    return s;
  }
  if ((flags & kSearch) && !(by_radius || by_box)) {
    reply.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + a[0]);
    return s;
  }
  if (any && s.count == 0) {
    reply.Error("ERR the ANY argument requires COUNT argument");
    return s;
  }
  s.done = false;
  if (!zset.exists()) {
    s.count = 0;
    return s;  // nothing found: the caller replies [] or empties the destination
  }
  if (s.count != 0 && sort == Sort::kNone && !any) sort = Sort::kAsc;
  Status st = Scan(zset, s.shape, any ? s.count : 0, &s.found);
  if (Failed(st, reply)) {
    s.done = true;
    return s;
  }
  if (sort != Sort::kNone) {
    const auto asc = [](const Found& x, const Found& y) { return x.dist < y.dist; };
    const auto desc = [](const Found& x, const Found& y) { return x.dist > y.dist; };
    if (sort == Sort::kAsc) {
      std::stable_sort(s.found.begin(), s.found.end(), asc);
    } else {
      std::stable_sort(s.found.begin(), s.found.end(), desc);
    }
  }
  if (s.count > 0 && static_cast<int64_t>(s.found.size()) > s.count) {
    s.found.resize(static_cast<size_t>(s.count));
  }
  for (Found& f : s.found) f.dist /= s.shape.conversion;
  return s;
}

// Replies the points of a search that stores nothing.
void ReplyFound(const Search& s, Reply& reply) {
  const size_t options = (s.with_dist ? 1 : 0) + (s.with_hash ? 1 : 0) + (s.with_coords ? 1 : 0);
  reply.Array(s.found.size());
  for (const Found& f : s.found) {
    if (options > 0) reply.Array(options + 1);
    reply.Bulk(f.member);
    if (s.with_dist) ReplyDistance(reply, f.dist);
    if (s.with_hash) reply.Integer(static_cast<int64_t>(f.score));
    if (s.with_coords) ReplyCoordinates(reply, f.at);
  }
}

// Writes a search's points under its destination (replacing it; deleting it when there are
// none) and replies their count.
void StoreFound(Store& store, const Search& s, Reply& reply) {
  ZSetValue out;
  for (const Found& f : s.found) out.Set(f.member, s.store_dist ? f.dist : f.score);
  if (Failed(WriteZSet(store, *s.store, out, 0), reply)) return;
  reply.Integer(static_cast<int64_t>(out.size()));
}

// GEORADIUS_RO, GEORADIUSBYMEMBER_RO, GEOSEARCH: on the source's owner, storing nothing.
void SearchReadOnly(CommandContext& ctx, unsigned flags) {
  Search s = RunSearch(ctx.store, ctx.stats, ctx.args, 1, flags, ctx.reply);
  if (!s.done) ReplyFound(s, ctx.reply);
}

// GEORADIUS, GEORADIUSBYMEMBER, GEOSEARCHSTORE: the search on the source's owner, then the
// store on the destination's.
Task SearchAndStore(AsyncContext& ctx, unsigned flags) {
  const size_t src = (flags & kSearchStore) ? 2 : 1;
  const uint32_t src_slot = ctx.server.keyspace->SlotOfKey(ctx.args[src]);
  co_await ctx.ToSlot(src_slot);
  Search s;
  {
    Store store = ctx.StoreOf(src_slot);
    s = RunSearch(store, StatsHere(ctx.server), ctx.args, src, flags, ctx.reply);
  }
  if (!s.done && !s.store) ReplyFound(s, ctx.reply);
  if (!s.done && s.store) {
    const uint32_t dst_slot = ctx.server.keyspace->SlotOfKey(*s.store);
    co_await ctx.ToSlot(dst_slot);
    Store store = ctx.StoreOf(dst_slot);
    StoreFound(store, s, ctx.reply);
  }
  co_await ctx.ToHome();
}

void GeoRadiusRo(CommandContext& ctx) { SearchReadOnly(ctx, kByCoords | kNoStore); }
void GeoRadiusByMemberRo(CommandContext& ctx) { SearchReadOnly(ctx, kByMember | kNoStore); }
void GeoSearch(CommandContext& ctx) { SearchReadOnly(ctx, kSearch); }
Task GeoRadius(AsyncContext& ctx) { co_await SearchAndStore(ctx, kByCoords); }
Task GeoRadiusByMember(AsyncContext& ctx) { co_await SearchAndStore(ctx, kByMember); }
Task GeoSearchStore(AsyncContext& ctx) { co_await SearchAndStore(ctx, kSearch | kSearchStore); }

// GEORADIUS[BYMEMBER]'s keys: the source, and the last STORE / STOREDIST destination.
std::vector<size_t> GeoRadiusKeys(const std::vector<std::string>& args) {
  std::vector<size_t> keys = {1};
  size_t stored = 0;
  for (size_t i = 5; i < args.size(); ++i) {
    if ((Is(args[i], "STORE") || Is(args[i], "STOREDIST")) && i + 1 < args.size()) {
      stored = i + 1;
      ++i;
    }
  }
  if (stored != 0) keys.push_back(stored);
  return keys;
}

}  // namespace

// Arity, flags, keys, ACL categories, summaries and since as redis-server 7.0.15's COMMAND INFO
// and COMMAND DOCS.
void RegisterGeoCommands(CommandTable& t) {
  // clang-format off
  t.Add({.name = "geoadd", .arity = -5, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run = GeoAdd, .group = "geo",
         .summary = "Add one or more geospatial items in the geospatial index represented "
                    "using a sorted set", .since = "3.2.0", .acl = "write geo slow", .key_specs = "RW update"});
  t.Add({.name = "geodist", .arity = -4, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = GeoDist, .group = "geo",
         .summary = "Returns the distance between two members of a geospatial index",
         .since = "3.2.0", .acl = "read geo slow", .key_specs = "RO access"});
  t.Add({.name = "geohash", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = GeoHash, .group = "geo",
         .summary = "Returns members of a geospatial index as standard geohash strings",
         .since = "3.2.0", .acl = "read geo slow", .key_specs = "RO access"});
  t.Add({.name = "geopos", .arity = -2, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = GeoPos, .group = "geo",
         .summary = "Returns longitude and latitude of members of a geospatial index",
         .since = "3.2.0", .acl = "read geo slow", .key_specs = "RO access"});
  t.Add({.name = "georadius", .arity = -6, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run_async = GeoRadius, .keys = GeoRadiusKeys,
         .group = "geo",
         .summary = "Query a sorted set representing a geospatial index to fetch members "
                    "matching a given maximum distance from a point",
         .since = "3.2.0", .acl = "write geo slow", .key_specs = "RO access|OW update|OW update"});
  t.Add({.name = "georadius_ro", .arity = -6, .flags = kReadOnly, .first_key = 1,
         .last_key = 1, .step = 1, .run = GeoRadiusRo, .group = "geo",
         .summary = "A read-only variant for GEORADIUS", .since = "3.2.10",
         .acl = "read geo slow", .key_specs = "RO access"});
  t.Add({.name = "georadiusbymember", .arity = -5, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 1, .step = 1, .run_async = GeoRadiusByMember, .keys = GeoRadiusKeys,
         .group = "geo",
         .summary = "Query a sorted set representing a geospatial index to fetch members "
                    "matching a given maximum distance from a member",
         .since = "3.2.0", .acl = "write geo slow", .key_specs = "RO access|OW update|OW update"});
  t.Add({.name = "georadiusbymember_ro", .arity = -5, .flags = kReadOnly, .first_key = 1,
         .last_key = 1, .step = 1, .run = GeoRadiusByMemberRo, .group = "geo",
         .summary = "A read-only variant for GEORADIUSBYMEMBER", .since = "3.2.10",
         .acl = "read geo slow", .key_specs = "RO access"});
  t.Add({.name = "geosearch", .arity = -7, .flags = kReadOnly, .first_key = 1, .last_key = 1,
         .step = 1, .run = GeoSearch, .group = "geo",
         .summary = "Query a sorted set representing a geospatial index to fetch members "
                    "inside an area of a box or a circle.",
         .since = "6.2.0", .acl = "read geo slow", .key_specs = "RO access"});
  t.Add({.name = "geosearchstore", .arity = -8, .flags = kWrite | kDenyOom, .first_key = 1,
         .last_key = 2, .step = 1, .run_async = GeoSearchStore, .group = "geo",
         .summary = "Query a sorted set representing a geospatial index to fetch members "
                    "inside an area of a box or a circle, and store the result in another key.",
         .since = "6.2.0", .acl = "write geo slow", .key_specs = "OW update|RO access"});
  // clang-format on
}

}  // namespace slotkv::command
