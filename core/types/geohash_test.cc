#include "core/types/geohash.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "core/base/number.h"

namespace slotkv::geo {
namespace {

// The text Redis replies for a coordinate (its addReplyHumanLongDouble).
std::string Human(double v) { return FormatLongDouble(v); }

// Expected values are redis-server 7.0.15's (ZSCORE, GEOPOS, GEODIST, GEOHASH).
TEST_CASE("geo: scores, positions, hashes and distances are Redis's") {
  const Point palermo{13.361389, 38.115556};
  const Point catania{15.087269, 37.502669};
  CHECK(Score(palermo) == 3479099956230698ULL);
  CHECK(Score(catania) == 3479447370796909ULL);
  const Point p = Decode(3479099956230698.0);
  CHECK(Human(p.lon) == "13.36138933897018433");
  CHECK(Human(p.lat) == "38.11555639549629859");
  const Point c = Decode(3479447370796909.0);
  CHECK(Human(c.lon) == "15.08726745843887329");
  CHECK(Human(c.lat) == "37.50266842333162032");
  char dist[32];
  std::snprintf(dist, sizeof(dist), "%.4f", Distance(p, c));
  CHECK(std::string(dist) == "166274.1516");
  CHECK(StandardHash(3479099956230698.0) == "sqc8b49rny0");
  CHECK(StandardHash(3479447370796909.0) == "sqdtr74hyu0");
}

TEST_CASE("geo: the edges of the valid range") {
  CHECK(ValidPoint({180, kLatMax}));
  CHECK_FALSE(ValidPoint({180.0001, 0}));
  CHECK_FALSE(ValidPoint({0, 85.06}));
  const uint64_t pole = Score({0, kLatMax});
  CHECK(pole == 6755399441055744ULL);
  const Point np = Decode(static_cast<double>(pole));  // clamped to the range, as Redis
  CHECK(Human(np.lon) == "0.00000268220901489");
  CHECK(Human(np.lat) == "85.0511287799999991");
  CHECK(StandardHash(static_cast<double>(pole)) == "up05b5048p0");
  const Point west = Decode(static_cast<double>(Score({-179.9, 0})));
  CHECK(Human(west.lon) == "-179.89999920129776001");
}

// Every point of a grid inside a circle or box is in one of the boxes a search scans.
TEST_CASE("geo: the search boxes cover the shape") {
  for (double radius : {100.0, 5000.0, 200000.0, 3000000.0}) {
    for (Point center :
         {Point{13.36, 38.11}, Point{179.99, 0}, Point{-0.001, 84.9}, Point{120, -70}}) {
      CAPTURE(radius);
      CAPTURE(center.lon);
      CAPTURE(center.lat);
      for (bool box : {false, true}) {
        Shape shape;
        shape.center = center;
        shape.box = box;
        shape.radius = radius;
        shape.width = 2 * radius;
        shape.height = radius;
        const auto boxes = SearchBoxes(shape);
        int inside = 0;
        for (double dx = -40; dx <= 40; dx += 0.37) {
          for (double dy = -20; dy <= 20; dy += 0.29) {
            const Point q{center.lon + dx * radius / 111000 / 4,
                          center.lat + dy * radius / 111000 / 4};
            if (!ValidPoint(q)) continue;
            const uint64_t score = Score(q);
            double meters;
            if (!Within(shape, Decode(static_cast<double>(score)), &meters)) continue;
            ++inside;
            bool covered = false;
            for (const Hash& h : boxes) {
              if (h.zero()) continue;
              uint64_t min, max;
              ScoresOf(h, &min, &max);
              covered = covered || (score >= min && score < max);
            }
            CHECK(covered);
          }
        }
        CHECK(inside > 0);
      }
    }
  }
}

}  // namespace
}  // namespace slotkv::geo
