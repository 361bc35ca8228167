#include "core/types/geohash.h"

#include <cmath>

namespace slotkv::geo {
namespace {

constexpr double kEarthRadius = 6372797.560856;  // meters
constexpr double kMercatorMax = 20037726.37;
constexpr double kDegToRad = M_PI / 180.0;

double Rad(double deg) { return deg * kDegToRad; }
double Deg(double rad) { return rad / kDegToRad; }

// A coordinate range.
struct Range {
  double min;
  double max;
};
constexpr Range kLong{kLongMin, kLongMax};
constexpr Range kLat{kLatMin, kLatMax};

// Spreads the low 32 bits of v over the even bit positions.
uint64_t Spread(uint64_t v) {
  v = (v | (v << 16)) & 0x0000FFFF0000FFFFULL;
  v = (v | (v << 8)) & 0x00FF00FF00FF00FFULL;
  v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  v = (v | (v << 2)) & 0x3333333333333333ULL;
  v = (v | (v << 1)) & 0x5555555555555555ULL;
  return v;
}

// The even bit positions of v, packed into the low 32 bits.
uint64_t Squash(uint64_t v) {
  v &= 0x5555555555555555ULL;
  v = (v | (v >> 1)) & 0x3333333333333333ULL;
  v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  v = (v | (v >> 4)) & 0x00FF00FF00FF00FFULL;
  v = (v | (v >> 8)) & 0x0000FFFF0000FFFFULL;
  v = (v | (v >> 16)) & 0x00000000FFFFFFFFULL;
  return v;
}

// The geohash of p at step over the ranges (Redis's geohashEncode); zero when p is outside.
Hash Encode(Range lon, Range lat, Point p, int step) {
  if (p.lon > kLongMax || p.lon < kLongMin || p.lat > kLatMax || p.lat < kLatMin) return {};
  if (p.lat < lat.min || p.lat > lat.max || p.lon < lon.min || p.lon > lon.max) return {};
  double lat_offset = (p.lat - lat.min) / (lat.max - lat.min);
  double lon_offset = (p.lon - lon.min) / (lon.max - lon.min);
  lat_offset *= static_cast<double>(uint64_t{1} << step);
  lon_offset *= static_cast<double>(uint64_t{1} << step);
  const auto ilat = static_cast<uint32_t>(lat_offset);
  const auto ilon = static_cast<uint32_t>(lon_offset);
  return {Spread(ilat) | (Spread(ilon) << 1), step};
}

// The box a geohash names.
struct Area {
  Range lon;
  Range lat;
};

Area DecodeArea(Hash h) {
  const uint32_t ilat = static_cast<uint32_t>(Squash(h.bits));
  const uint32_t ilon = static_cast<uint32_t>(Squash(h.bits >> 1));
  const double cells = static_cast<double>(uint64_t{1} << h.step);
  const double lat_scale = kLat.max - kLat.min;
  const double lon_scale = kLong.max - kLong.min;
  Area a;
  a.lat.min = kLat.min + (ilat * 1.0 / cells) * lat_scale;
  a.lat.max = kLat.min + ((ilat + 1) * 1.0 / cells) * lat_scale;
  a.lon.min = kLong.min + (ilon * 1.0 / cells) * lon_scale;
  a.lon.max = kLong.min + ((ilon + 1) * 1.0 / cells) * lon_scale;
  return a;
}

// Moves a hash one box east (d > 0) or west (longitude: the odd bits).
void MoveX(Hash* h, int d) {
  uint64_t x = h->bits & 0xaaaaaaaaaaaaaaaaULL;
  const uint64_t y = h->bits & 0x5555555555555555ULL;
  const uint64_t zz = 0x5555555555555555ULL >> (64 - h->step * 2);
  if (d > 0) {
    x = x + (zz + 1);
  } else {
    x = x | zz;
    x = x - (zz + 1);
  }
  x &= (0xaaaaaaaaaaaaaaaaULL >> (64 - h->step * 2));
  h->bits = x | y;
}

// ... north (d > 0) or south (latitude: the even bits).
void MoveY(Hash* h, int d) {
  const uint64_t x = h->bits & 0xaaaaaaaaaaaaaaaaULL;
  uint64_t y = h->bits & 0x5555555555555555ULL;
  const uint64_t zz = 0xaaaaaaaaaaaaaaaaULL >> (64 - h->step * 2);
  if (d > 0) {
    y = y + (zz + 1);
  } else {
    y = y | zz;
    y = y - (zz + 1);
  }
  y &= (0x5555555555555555ULL >> (64 - h->step * 2));
  h->bits = x | y;
}

Hash Moved(Hash h, int dx, int dy) {
  if (dx != 0) MoveX(&h, dx);
  if (dy != 0) MoveY(&h, dy);
  return h;
}

double LatDistance(double lat1, double lat2) {
  return kEarthRadius * std::fabs(Rad(lat2) - Rad(lat1));
}

// The step of the nine boxes of a search of this radius around latitude lat.
int StepsFor(double meters, double lat) {
  if (meters == 0) return kStepMax;
  int step = 1;
  while (meters < kMercatorMax) {
    meters *= 2;
    ++step;
  }
  step -= 2;  // the radius falls inside the boxes in most cases
  if (lat > 66 || lat < -66) {
    --step;
    if (lat > 80 || lat < -80) --step;
  }
  if (step < 1) step = 1;
  if (step > kStepMax) step = kStepMax;
  return step;
}

// The shape's bounding box: lon min, lat min, lon max, lat max.
std::array<double, 4> Bounds(const Shape& s) {
  const double half_height = s.conversion * (s.box ? s.height / 2 : s.radius);
  const double half_width = s.conversion * (s.box ? s.width / 2 : s.radius);
  const double lat = s.center.lat;
  const double lat_delta = Deg(half_height / kEarthRadius);
  const double lon_delta_top = Deg(half_width / kEarthRadius / std::cos(Rad(lat + lat_delta)));
  const double lon_delta_bottom = Deg(half_width / kEarthRadius / std::cos(Rad(lat - lat_delta)));
  // The hemispheres widen toward opposite edges.
  const bool south = lat < 0;
  const double lon_delta = south ? lon_delta_bottom : lon_delta_top;
  return {s.center.lon - lon_delta, lat - lat_delta, s.center.lon + lon_delta, lat + lat_delta};
}

}  // namespace

bool ValidPoint(Point p) {
  return !(p.lon < kLongMin || p.lon > kLongMax || p.lat < kLatMin || p.lat > kLatMax);
}

uint64_t Score(Point p) {
  const Hash h = Encode(kLong, kLat, p, kStepMax);
  return h.bits << (52 - h.step * 2);
}

Point Decode(double score) {
  const Area a = DecodeArea({static_cast<uint64_t>(score), kStepMax});
  Point p;
  p.lon = (a.lon.min + a.lon.max) / 2;
  p.lat = (a.lat.min + a.lat.max) / 2;
  // Clamped to the valid range, as Redis since 6.0.
  if (p.lon > kLongMax) p.lon = kLongMax;
  if (p.lon < kLongMin) p.lon = kLongMin;
  if (p.lat > kLatMax) p.lat = kLatMax;
  if (p.lat < kLatMin) p.lat = kLatMin;
  return p;
}

std::string StandardHash(double score) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  const Point p = Decode(score);
  // Re-encoded over the standard ranges (latitude -90..90), 11 characters of 5 bits; the
  // eleventh has no bits left (52 < 55) and is '0', as Redis's.
  const Hash h = Encode({-180, 180}, {-90, 90}, p, kStepMax);
  std::string out(11, '0');
  for (int i = 0; i < 10; ++i) {
    out[static_cast<size_t>(i)] = kAlphabet[(h.bits >> (52 - (i + 1) * 5)) & 0x1f];
  }
  return out;
}

double Distance(Point a, Point b) {
  const double lon1 = Rad(a.lon);
  const double lon2 = Rad(b.lon);
  const double v = std::sin((lon2 - lon1) / 2);
  // Same longitude: the latitude distance alone, as Redis computes it then.
  if (v == 0.0) return LatDistance(a.lat, b.lat);
  const double lat1 = Rad(a.lat);
  const double lat2 = Rad(b.lat);
  const double u = std::sin((lat2 - lat1) / 2);
  const double h = u * u + std::cos(lat1) * std::cos(lat2) * v * v;
  return 2.0 * kEarthRadius * std::asin(std::sqrt(h));
}

bool Within(const Shape& shape, Point p, double* meters) {
  if (!shape.box) {
    *meters = Distance(shape.center, p);
    return *meters <= shape.radius * shape.conversion;
  }
  // Latitude first: cheaper than the longitude distance.
  if (LatDistance(p.lat, shape.center.lat) > shape.height * shape.conversion / 2) return false;
  if (Distance({p.lon, p.lat}, {shape.center.lon, p.lat}) > shape.width * shape.conversion / 2) {
    return false;
  }
  *meters = Distance(shape.center, p);
  return true;
}

std::array<Hash, 9> SearchBoxes(const Shape& shape) {
  const std::array<double, 4> bounds = Bounds(shape);
  const double min_lon = bounds[0], min_lat = bounds[1], max_lon = bounds[2], max_lat = bounds[3];
  const Point c = shape.center;
  // The circle's radius, or the distance from the box's center to a corner.
  double meters = shape.box ? std::sqrt((shape.width / 2) * (shape.width / 2) +
                                        (shape.height / 2) * (shape.height / 2))
                            : shape.radius;
  meters *= shape.conversion;
  int steps = StepsFor(meters, c.lat);
  Hash hash = Encode(kLong, kLat, c, steps);
  // A step whose neighbours do not reach past the bounds is one too fine.
  const Area north = DecodeArea(Moved(hash, 0, 1));
  const Area south = DecodeArea(Moved(hash, 0, -1));
  const Area east = DecodeArea(Moved(hash, 1, 0));
  const Area west = DecodeArea(Moved(hash, -1, 0));
  const bool coarser = north.lat.max < max_lat || south.lat.min > min_lat ||
                       east.lon.max < max_lon || west.lon.min > min_lon;
  if (steps > 1 && coarser) {
    --steps;
    hash = Encode(kLong, kLat, c, steps);
  }
  const Area area = DecodeArea(hash);
  std::array<Hash, 9> boxes = {hash,
                               Moved(hash, 0, 1),     // north
                               Moved(hash, 0, -1),    // south
                               Moved(hash, 1, 0),     // east
                               Moved(hash, -1, 0),    // west
                               Moved(hash, 1, 1),     // north-east
                               Moved(hash, -1, 1),    // north-west
                               Moved(hash, 1, -1),    // south-east
                               Moved(hash, -1, -1)};  // south-west
  // Boxes the bounds do not reach are left out.
  if (steps >= 2) {
    auto drop = [&](std::initializer_list<int> which) {
      for (int i : which) boxes[static_cast<size_t>(i)] = Hash{};
    };
    if (area.lat.min < min_lat) drop({2, 8, 7});
    if (area.lat.max > max_lat) drop({1, 5, 6});
    if (area.lon.min < min_lon) drop({4, 8, 6});
    if (area.lon.max > max_lon) drop({3, 7, 5});
  }
  // With a huge radius neighbours can be the same box: one equal to the last one scanned
  // (other than the center, as Redis compares) goes.
  size_t last = 0;
  for (size_t i = 0; i < boxes.size(); ++i) {
    if (boxes[i].zero()) continue;
    if (last != 0 && boxes[i].bits == boxes[last].bits && boxes[i].step == boxes[last].step) {
      boxes[i] = Hash{};
      continue;
    }
    last = i;
  }
  return boxes;
}

void ScoresOf(Hash box, uint64_t* min, uint64_t* max) {
  *min = box.bits << (52 - box.step * 2);
  *max = (box.bits + 1) << (52 - box.step * 2);
}

}  // namespace slotkv::geo
