#include "chunk/value_ptr.h"

#include <doctest/doctest.h>

#include <string>

#include "chunk/record.h"

namespace slotkv::chunk {
namespace {

std::string Encode(const ValuePtr& ptr) {
  std::string out;
  EncodeValuePtr(ptr, &out);
  return out;
}

const ValuePtr kSegmentPtr{
    .kind = ValuePtr::Kind::kSegments, .segment = 300, .offset = 17, .length = 42};
const ValuePtr kBigPtr{.kind = ValuePtr::Kind::kBigFile, .big_id = 5};

TEST_CASE("segment pointer round trips in the documented bytes") {
  const std::string bytes = Encode(kSegmentPtr);
  CHECK(bytes == std::string("\x00\xac\x02\x11\x2a", 5));
  ValuePtr back;
  REQUIRE(DecodeValuePtr(bytes, &back));
  CHECK(back == kSegmentPtr);
}

TEST_CASE("big file pointer round trips in the documented bytes") {
  const std::string bytes = Encode(kBigPtr);
  CHECK(bytes == std::string("\x01\x05", 2));
  ValuePtr back;
  REQUIRE(DecodeValuePtr(bytes, &back));
  CHECK(back == kBigPtr);
}

TEST_CASE("pointer with maximal fields round trips") {
  const ValuePtr seg{.kind = ValuePtr::Kind::kSegments,
                     .segment = UINT32_MAX,
                     .offset = UINT32_MAX,
                     .length = UINT32_MAX};
  const ValuePtr big{.kind = ValuePtr::Kind::kBigFile, .big_id = UINT64_MAX};
  for (const ValuePtr& p : {seg, big}) {
    ValuePtr back;
    REQUIRE(DecodeValuePtr(Encode(p), &back));
    CHECK(back == p);
  }
}

TEST_CASE("every truncation of an encoded pointer is rejected") {
  for (const ValuePtr& p : {kSegmentPtr, kBigPtr}) {
    const std::string bytes = Encode(p);
    for (size_t n = 0; n < bytes.size(); ++n) {
      ValuePtr back;
      CHECK_FALSE(DecodeValuePtr(std::string_view(bytes).substr(0, n), &back));
    }
  }
}

TEST_CASE("trailing byte after a pointer is rejected") {
  ValuePtr back;
  CHECK_FALSE(DecodeValuePtr(Encode(kSegmentPtr) + "x", &back));
  CHECK_FALSE(DecodeValuePtr(Encode(kBigPtr) + std::string(1, '\0'), &back));
}

TEST_CASE("unknown kind and overlong varint are rejected") {
  ValuePtr back;
  CHECK_FALSE(DecodeValuePtr(std::string("\x02\x05", 2), &back));
  CHECK_FALSE(DecodeValuePtr(std::string("\xff\x05", 2), &back));
  // segment = 2^32 does not fit in a varint32.
  CHECK_FALSE(DecodeValuePtr(std::string("\x00\x80\x80\x80\x80\x10\x00\x01", 8), &back));
  // An unterminated varint.
  CHECK_FALSE(DecodeValuePtr(std::string("\x01\x80\x80", 3), &back));
}

TEST_CASE("record round trips in the documented bytes") {
  std::string out;
  AppendRecord(0x1122334455667788, "xyz", &out);
  REQUIRE(out.size() == 16);
  CHECK(out.size() == RecordLength(3));
  CHECK(RecordLength(200) == 4 + 8 + 2 + 200);  // a two-byte length
  CHECK(out.substr(4) == std::string("\x88\x77\x66\x55\x44\x33\x22\x11"
                                     "\x03"
                                     "xyz",
                                     12));
  RecordView rec;
  size_t len = 0;
  const std::string with_tail = out + "trailing";
  REQUIRE(DecodeRecord(with_tail, &rec, &len).ok());
  CHECK(len == 16);
  CHECK(rec.key_hash == 0x1122334455667788);
  CHECK(rec.value == "xyz");
}

TEST_CASE("truncated record is Corruption") {
  std::string out;
  AppendRecord(0x1122334455667788, "xyz", &out);
  for (size_t n = 0; n < out.size(); ++n) {
    RecordView rec;
    size_t len = 0;
    Status s = DecodeRecord(std::string_view(out).substr(0, n), &rec, &len);
    CHECK(s.IsCorruption());
  }
}

TEST_CASE("zero padding never decodes as a record") {
  // The only all-zero record candidate must fail its checksum, or padding would read as data.
  const std::string zeros(64, '\0');
  RecordView rec;
  size_t len = 0;
  CHECK(DecodeRecord(zeros, &rec, &len).IsCorruption());
  CHECK(IsAllZero(zeros));
  CHECK(IsAllZero(""));
  CHECK_FALSE(IsAllZero(std::string(10, '\0') + "a"));
}

}  // namespace
}  // namespace slotkv::chunk
