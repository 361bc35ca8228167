#include "core/types/hash_value.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace slotkv {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs PairsOf(const HashValue& h) {
  Pairs out;
  h.ForEach([&](std::string_view f, std::string_view v) { out.emplace_back(f, v); });
  return out;
}

HashValue RoundTrip(const HashValue& h) {
  Result<HashValue> r = HashValue::Decode(h.Encode());
  REQUIRE(r.ok());
  return std::move(r).value();
}

TEST_CASE("empty hash encodes to version and zero count and decodes back") {
  HashValue h;
  CHECK(h.Encode() == std::string("\x01\x00", 2));
  HashValue d = RoundTrip(h);
  CHECK(d.size() == 0);
  CHECK(d.empty());
}

TEST_CASE("DecodeSize reads the count from the header alone") {
  HashValue h;
  h.Set("a", "1");
  h.Set("b", "2");
  CHECK(*HashValue::DecodeSize(h.Encode()) == 2);
  CHECK(*HashValue::DecodeSize(HashValue().Encode()) == 0);
  CHECK(!HashValue::DecodeSize("").ok());
  CHECK(!HashValue::DecodeSize("\x02\x01").ok());
  CHECK(!HashValue::DecodeSize("\x01").ok());
}

TEST_CASE("worked example of the grammar") {
  HashValue h;
  CHECK(h.Set("a", "1"));
  CHECK(h.Set("bc", ""));
  CHECK(h.Encode() == std::string("\x01\x02\x01\x61\x01\x31\x02\x62\x63\x00", 10));
}

TEST_CASE("set reports new fields, overwrite keeps the position") {
  HashValue h;
  CHECK(h.Set("f1", "v1"));
  CHECK(h.Set("f2", "v2"));
  CHECK_FALSE(h.Set("f1", "v1b"));
  CHECK(h.size() == 2);
  CHECK(PairsOf(h) == Pairs{{"f1", "v1b"}, {"f2", "v2"}});
  CHECK(*h.Get("f1") == "v1b");
  CHECK_FALSE(h.Get("nope").has_value());
  CHECK(PairsOf(RoundTrip(h)) == PairsOf(h));
}

TEST_CASE("delete closes the gap and a re-added field goes last") {
  HashValue h;
  for (const char* f : {"a", "b", "c"}) CHECK(h.Set(f, f));
  CHECK(h.Delete("a"));
  CHECK_FALSE(h.Delete("a"));
  CHECK(h.size() == 2);
  CHECK(h.At(0).first == "b");
  CHECK(h.At(1).first == "c");
  CHECK(h.Set("a", "again"));
  CHECK(PairsOf(h) == Pairs{{"b", "b"}, {"c", "c"}, {"a", "again"}});
  CHECK(PairsOf(RoundTrip(h)) == PairsOf(h));
}

TEST_CASE("binary fields and values, empty strings") {
  HashValue h;
  std::string every(256, '\0');
  for (int i = 0; i < 256; ++i) every[static_cast<size_t>(i)] = static_cast<char>(i);
  CHECK(h.Set(every, every));
  CHECK(h.Set("", ""));
  HashValue d = RoundTrip(h);
  CHECK(*d.Get(every) == every);
  CHECK(*d.Get("") == "");
  CHECK(d.size() == 2);
}

TEST_CASE("views from Get survive later writes and a move") {
  HashValue h;
  h.Set("k", "short");
  std::string_view v = *h.Get("k");
  for (int i = 0; i < 100; ++i) h.Set("f" + std::to_string(i), std::string(50, 'x'));
  h.Set("k", "replaced");
  HashValue moved = std::move(h);
  CHECK(v == "short");
  CHECK(*moved.Get("k") == "replaced");
}

TEST_CASE("decoded short buffer keeps its views after the HashValue moves") {
  HashValue h;
  h.Set("a", "b");
  Result<HashValue> r = HashValue::Decode(h.Encode());  // 6 bytes: lives in SSO
  REQUIRE(r.ok());
  HashValue a = std::move(r).value();
  HashValue b = std::move(a);
  CHECK(*b.Get("a") == "b");
}

TEST_CASE("100k fields: indexed lookups, deletes, random access, round trip") {
  HashValue h;
  const size_t n = 100000;
  for (size_t i = 0; i < n; ++i) CHECK(h.Set("field:" + std::to_string(i), std::to_string(i)));
  CHECK(h.size() == n);
  CHECK_FALSE(h.Set("field:5", "five"));
  HashValue d = RoundTrip(h);
  CHECK(d.size() == n);
  CHECK(*d.Get("field:5") == "five");
  CHECK(*d.Get("field:99999") == "99999");
  for (size_t i = 0; i < n; i += 2) CHECK(d.Delete("field:" + std::to_string(i)));
  CHECK(d.size() == n / 2);
  CHECK(d.At(0).first == "field:1");
  CHECK(d.At(n / 2 - 1).first == "field:99999");
  CHECK_FALSE(d.Get("field:0").has_value());
  CHECK(d.Set("field:0", "back"));
  CHECK(d.At(n / 2).first == "field:0");
  CHECK(RoundTrip(d).size() == n / 2 + 1);
}

TEST_CASE("every truncation of a valid value is Corruption") {
  HashValue h;
  h.Set("field", "value");
  h.Set("", "x");
  h.Set(std::string(200, 'f'), std::string(300, 'v'));  // two-byte varints
  const std::string full = h.Encode();
  for (size_t len = 0; len < full.size(); ++len) {
    Result<HashValue> r = HashValue::Decode(std::string_view(full).substr(0, len));
    INFO("len " << len);
    CHECK(r.status().IsCorruption());
  }
  CHECK(HashValue::Decode(full).ok());
}

TEST_CASE("unknown version, trailing bytes, duplicates and huge counts are Corruption") {
  HashValue h;
  h.Set("a", "1");
  std::string bytes = h.Encode();
  std::string v0 = bytes;
  v0[0] = '\x00';
  CHECK(HashValue::Decode(v0).status().IsCorruption());
  std::string v2 = bytes;
  v2[0] = '\x02';
  CHECK(HashValue::Decode(v2).status().IsCorruption());
  CHECK(HashValue::Decode(bytes + "x").status().IsCorruption());
  CHECK(HashValue::Decode(std::string("\x01\x02\x01\x61\x00\x01\x61\x00", 8))
            .status()
            .IsCorruption());
  // A count of 2^63 with no pairs must not reserve memory for them.
  CHECK(HashValue::Decode(std::string("\x01\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11))
            .status()
            .IsCorruption());
  // A field length past the end.
  CHECK(HashValue::Decode(std::string("\x01\x01\xff\xff\xff\xff\x0f\x61\x62", 9))
            .status()
            .IsCorruption());
  // Overlong varint (11 bytes of continuation).
  CHECK(HashValue::Decode(std::string("\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 12))
            .status()
            .IsCorruption());
}

TEST_CASE("duplicate field among many (probed and indexed checks) is Corruption") {
  // 40 and 200 fields: the table on the stack; 600: the index.
  for (int n : {40, 200, 600}) {
    CAPTURE(n);
    HashValue h;
    for (int i = 0; i < n; ++i) h.Set("f" + std::to_string(1000 + i), "v");
    const std::string good = h.Encode();
    Result<HashValue> back = HashValue::Decode(good);
    REQUIRE(back.ok());
    CHECK(back->size() == static_cast<size_t>(n));
    // Rename the last field to the first, or one in the middle to its neighbour.
    for (int from : {n - 1, n / 2}) {
      std::string bytes = good;
      const size_t at = bytes.find("f" + std::to_string(1000 + from));
      REQUIRE(at != std::string::npos);
      const std::string to = std::to_string(1000 + (from == n - 1 ? 0 : from + 1));
      bytes.replace(at + 1, to.size(), to);
      CHECK(HashValue::Decode(bytes).status().IsCorruption());
    }
  }
}

TEST_CASE("random garbage never crashes; what decodes round-trips") {
  const unsigned seed = std::random_device{}();
  std::printf("hash_value garbage seed %u\n", seed);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  HashValue base;
  for (int i = 0; i < 20; ++i) base.Set("f" + std::to_string(i), std::string(i, 'v'));
  const std::string valid = base.Encode();
  for (int round = 0; round < 20000; ++round) {
    std::string bytes;
    if (round % 2 == 0) {
      bytes = valid;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        bytes[rng() % bytes.size()] = static_cast<char>(rng());
      }
    } else {
      bytes.resize(rng() % 64);
      for (char& c : bytes) c = static_cast<char>(rng());
      if (!bytes.empty() && rng() % 2) bytes[0] = '\x01';
    }
    Result<HashValue> r = HashValue::Decode(bytes);
    if (r.ok()) {
      // Non-minimal varints may decode, so compare contents, not bytes.
      CHECK(PairsOf(RoundTrip(*r)) == PairsOf(*r));
    } else {
      CHECK(r.status().IsCorruption());
    }
  }
}

}  // namespace
}  // namespace slotkv
