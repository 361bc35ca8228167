// Geohashes as Redis 7.0 computes them (geohash.c, geohash_helper.c): a point of a GEO sorted
// set is stored as the score 52-bit interleaved geohash of (longitude, latitude) over
// [-180, 180] x [-85.05112878, 85.05112878] (26 bits each, latitude bits in the even
// positions); searches scan the score ranges of nine geohash boxes (a center box of a step
// chosen from the radius, and its neighbours, some left out) and keep the points within the
// shape. Distances are haversine on a sphere of 6372797.560856 m. Same inputs, same doubles
// as Redis, so distances, coordinates and result order come out alike.
//
// Thread rule: none (pure functions).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace slotkv::geo {

inline constexpr double kLongMin = -180;
inline constexpr double kLongMax = 180;
inline constexpr double kLatMin = -85.05112878;
inline constexpr double kLatMax = 85.05112878;
inline constexpr int kStepMax = 26;

// A geohash of `step` bits per coordinate (bits: 2 * step of them, latitude bit first).
struct Hash {
  uint64_t bits = 0;
  int step = 0;
  bool zero() const { return bits == 0 && step == 0; }
};

struct Point {
  double lon = 0;
  double lat = 0;
};

// Whether Redis accepts the coordinates (GEOADD, FROMLONLAT, GEORADIUS's center).
bool ValidPoint(Point p);
// The 52-bit score of p. REQUIRES: ValidPoint(p).
uint64_t Score(Point p);
// The center of the geohash box a score names (GEOPOS).
Point Decode(double score);
// The 11-character standard geohash of the point a score names (GEOHASH).
std::string StandardHash(double score);
// Great-circle distance in meters.
double Distance(Point a, Point b);

// A search shape around center: a circle (radius) or a box (width x height), in a unit of
// `conversion` meters.
struct Shape {
  Point center;
  bool box = false;
  double radius = 0;
  double width = 0;
  double height = 0;
  double conversion = 1;
};

// Whether p is inside shape; *meters is its distance from the center.
bool Within(const Shape& shape, Point p, double* meters);

// The boxes whose score ranges a search of shape scans, in Redis's order (center, north,
// south, east, west, north-east, north-west, south-east, south-west), left-out ones zero and
// a box equal to the last one scanned dropped.
std::array<Hash, 9> SearchBoxes(const Shape& shape);
// The score range [*min, *max) of a box's points.
void ScoresOf(Hash box, uint64_t* min, uint64_t* max);

}  // namespace slotkv::geo
