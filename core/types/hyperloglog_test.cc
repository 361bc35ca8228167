#include "core/types/hyperloglog.h"

#include <doctest/doctest.h>

#include <random>
#include <string>

namespace slotkv::hll {
namespace {

std::string Hex(std::string_view s) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string AddAll(std::initializer_list<std::string_view> elements,
                   size_t sparse_max = kDefaultSparseMaxBytes) {
  std::string v = Empty();
  for (std::string_view e : elements) REQUIRE(Add(&v, e, sparse_max).ok());
  return v;
}

// The cardinality of v (its copy's cache written).
uint64_t CountOf(std::string v) {
  bool cached;
  Result<uint64_t> n = Count(&v, &cached);
  REQUIRE(n.ok());
  return *n;
}

// Elements e:0 .. e:(n-1) added to v.
void AddRange(std::string* v, int from, int to, size_t sparse_max = kDefaultSparseMaxBytes) {
  for (int i = from; i < to; ++i) REQUIRE(Add(v, "e:" + std::to_string(i), sparse_max).ok());
}

// The bytes and counts below are redis-server 7.0.15's (GET / PFCOUNT after the same PFADDs).
TEST_CASE("hll: sparse values are Redis's, byte for byte") {
  const std::string empty = Empty();
  CHECK(Hex(empty) ==
        "48594c4c010000000000000000000000"
        "7fff");
  CHECK(LooksValid(empty));
  std::string created = empty;  // as PFADD leaves a key it created with no elements
  Invalidate(&created);
  CHECK(Hex(created) ==
        "48594c4c010000000000000000000080"
        "7fff");
  CHECK(CountOf(empty) == 0);

  std::string a = AddAll({"a"});
  CHECK(Hex(a) == "48594c4c01000000000000000000008071a6844e57");
  std::string abc = a;
  CHECK(*Add(&abc, "b", kDefaultSparseMaxBytes));
  CHECK(*Add(&abc, "c", kDefaultSparseMaxBytes));
  CHECK(Hex(abc) == "48594c4c01000000000000000000008060f38050b1844bfb80425a");
  bool cached = false;
  CHECK(*Count(&abc, &cached) == 3);
  CHECK(cached);  // Redis's bytes after PFCOUNT: the cache holds 3, valid
  CHECK(Hex(abc) == "48594c4c01000000030000000000000060f38050b1844bfb80425a");
  CHECK(*Count(&abc, &cached) == 3);
  CHECK_FALSE(cached);
  // An element already counted changes nothing.
  std::string again = abc;
  CHECK_FALSE(*Add(&again, "a", kDefaultSparseMaxBytes));
  CHECK(again == abc);
}

TEST_CASE("hll: counts equal Redis's, sparse and dense") {
  struct Case {
    int n;
    size_t bytes;
    uint64_t count;
  };
  for (Case c : {Case{100, 279, 100}, Case{1000, 1880, 995}, Case{10000, 12304, 10077},
                 Case{100000, 12304, 100342}}) {
    CAPTURE(c.n);
    std::string v = Empty();
    AddRange(&v, 0, c.n);
    CHECK(v.size() == c.bytes);
    CHECK(IsDense(v) == (c.bytes == kDenseBytes));
    CHECK(CountOf(v) == c.count);
  }
}

TEST_CASE("hll: a sparse value past sparse_max becomes dense") {
  std::string v = AddAll({"x", "y"}, /*sparse_max=*/0);
  CHECK(IsDense(v));
  CHECK(v.size() == kDenseBytes);
  CHECK(CountOf(v) == 2);
  // The same registers either way.
  std::string sparse = AddAll({"x", "y"});
  Registers from_dense{}, from_sparse{};
  REQUIRE(MergeInto(v, &from_dense).ok());
  REQUIRE(MergeInto(sparse, &from_sparse).ok());
  CHECK(from_dense == from_sparse);
}

TEST_CASE("hll: the cached cardinality is used while valid") {
  std::string v = AddAll({"a", "b"});
  CHECK((static_cast<uint8_t>(v[15]) & 0x80) != 0);  // stale after an add
  v[15] = 0;
  v[8] = 42;  // a valid cache of 42
  CHECK(CountOf(v) == 42);
}

TEST_CASE("hll: merge and raise, as PFCOUNT of many keys and PFMERGE") {
  std::string m1 = Empty(), m2 = Empty();
  AddRange(&m1, 0, 500);
  AddRange(&m2, 300, 900);
  Registers max{};
  REQUIRE(MergeInto(m1, &max).ok());
  REQUIRE(MergeInto(m2, &max).ok());
  CHECK(CountRegisters(max) == 899);  // Redis: PFCOUNT m1 m2

  std::string m3 = Empty();
  REQUIRE(RaiseTo(&m3, max, /*dense=*/false, kDefaultSparseMaxBytes).ok());
  CHECK(m3.size() == 1716);  // Redis: PFMERGE m3 m1 m2, then STRLEN m3
  CHECK(CountOf(m3) == 899);

  std::string dense = Empty();
  REQUIRE(RaiseTo(&dense, max, /*dense=*/true, kDefaultSparseMaxBytes).ok());
  CHECK(dense.size() == kDenseBytes);
  Registers back{};
  REQUIRE(MergeInto(dense, &back).ok());
  CHECK(back == max);
}

TEST_CASE("hll: random adds keep sparse and dense forms equal") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::string sparse = Empty();
    std::string dense = Empty();
    const int n = static_cast<int>(rng() % 3000);
    for (int i = 0; i < n; ++i) {
      const std::string e = std::to_string(rng());
      const bool a = *Add(&sparse, e, 1 << 20);
      const bool b = *Add(&dense, e, 0);
      CHECK(a == b);
    }
    Registers rs{}, rd{};
    REQUIRE(MergeInto(sparse, &rs).ok());
    REQUIRE(MergeInto(dense, &rd).ok());
    CHECK(rs == rd);
    CHECK(CountOf(sparse) == CountOf(dense));
  }
}

TEST_CASE("hll: bad values") {
  CHECK_FALSE(LooksValid("foo"));
  CHECK_FALSE(LooksValid(std::string("HYLL\x02", 5) + std::string(11, '\0')));
  std::string dense_short = std::string("HYLL", 4) + std::string(12, '\0') + "xx";
  CHECK_FALSE(LooksValid(dense_short));
  // Sparse opcodes that cover too few registers (XZERO:1, then nothing).
  std::string bad = Empty();
  bad[kHeaderBytes] = 0x40;
  bad[kHeaderBytes + 1] = 0x00;
  CHECK(LooksValid(bad));
  bool cached;
  CHECK(Count(&bad, &cached).ok());  // a valid cache is believed, as in Redis
  Invalidate(&bad);
  CHECK(Count(&bad, &cached).status().IsCorruption());
  CHECK(Add(&bad, "a", kDefaultSparseMaxBytes).status().IsCorruption());
  Registers max{};
  CHECK(MergeInto(bad, &max).IsCorruption());
  // ... or too many (a VAL after XZERO:16384).
  std::string over = Empty() + "\x80";
  Invalidate(&over);
  CHECK(Count(&over, &cached).status().IsCorruption());
}

TEST_CASE("hll: PFDEBUG's views: DescribeSparse and ToDense") {
  CHECK(DescribeSparse(Empty()) == "Z:16384");
  std::string v = AddAll({"a", "b", "c"});
  // redis-server 7.0.15's PFDEBUG DECODE after PFADD h a b c.
  CHECK(DescribeSparse(v) == "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603");
  const uint64_t n = CountOf(v);
  std::string dense = v;
  REQUIRE(ToDense(&dense).ok());
  CHECK(IsDense(dense));
  CHECK(dense.size() == kDenseBytes);
  CHECK(dense.substr(0, 4) == v.substr(0, 4));
  CHECK(dense.substr(5, 11) == v.substr(5, 11));  // the cache bytes stay
  CHECK(CountOf(dense) == n);
  Registers a{}, b{};
  REQUIRE(MergeInto(v, &a).ok());
  REQUIRE(MergeInto(dense, &b).ok());
  CHECK(a == b);
  std::string again = dense;
  REQUIRE(ToDense(&again).ok());
  CHECK(again == dense);
  // A truncated XZERO at the end is left out; a ZERO opcode shows as z.
  std::string cut = Empty();
  cut.resize(kHeaderBytes + 1);
  CHECK(DescribeSparse(cut).empty());
  cut.back() = 0x05;
  CHECK(DescribeSparse(cut) == "z:6");
  std::string bad = Empty() + "\x05";  // covers more than the registers
  CHECK(ToDense(&bad).IsCorruption());
}

TEST_CASE("hll: PFSELFTEST passes") { CHECK(SelfTest().empty()); }

}  // namespace
}  // namespace slotkv::hll
