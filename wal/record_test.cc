#include "wal/record.h"

#include <doctest/doctest.h>
#include <sys/mman.h>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::wal {
namespace {

Record PutRecord() {
  Record r;
  r.kind = RecordKind::kPut;
  r.seq = 0x0102030405060708;
  r.type_tag = 3;
  r.expire_at_ms = 1'700'000'123'456;
  r.key = "user:{42}:name";
  r.value = std::string(300, 'v');  // a two-byte varint length
  return r;
}

Record DeleteRecord() {
  Record r;
  r.kind = RecordKind::kDelete;
  r.seq = 99;
  r.key = "gone";
  return r;
}

Record GroupFlushedRecord() {
  Record r;
  r.kind = RecordKind::kGroupFlushed;
  r.seq = 1234;
  r.group = 0xdeadbeef;
  return r;
}

Record GroupFlushingRecord() {
  Record r = GroupFlushedRecord();
  r.kind = RecordKind::kGroupFlushing;
  return r;
}

std::string Encode(const Record& r) {
  std::string out;
  EncodeRecord(r, &out);
  return out;
}

// A record with the given body and a correct header, to reach the body checks.
std::string Seal(std::string_view body) {
  std::string out(kRecordHeaderSize, '\0');
  out.append(body);
  EncodeFixed32(out.data() + 4, static_cast<uint32_t>(body.size()));
  EncodeFixed32(out.data(), Checksum(std::string_view(out).substr(4)));
  return out;
}

DecodeResult Decode(std::string_view in, Record* r = nullptr, size_t* consumed = nullptr) {
  Record scratch;
  size_t n = 0;
  return DecodeRecord(in, r != nullptr ? r : &scratch, consumed != nullptr ? consumed : &n);
}

void CheckRoundTrip(const Record& r) {
  std::string bytes = Encode(r);
  Record out;
  size_t consumed = 0;
  REQUIRE(Decode(bytes, &out, &consumed) == DecodeResult::kOk);
  CHECK(consumed == bytes.size());
  CHECK(out == r);
}

TEST_CASE("put record round trips with type, expiry, key and value") {
  CheckRoundTrip(PutRecord());
}

TEST_CASE("put record with negative expiry and empty key and value round trips") {
  Record r;
  r.expire_at_ms = -5;
  CheckRoundTrip(r);
}

TEST_CASE("delete record round trips") { CheckRoundTrip(DeleteRecord()); }

TEST_CASE("group flushed record round trips") { CheckRoundTrip(GroupFlushedRecord()); }
TEST_CASE("group flushing record round trips") { CheckRoundTrip(GroupFlushingRecord()); }

TEST_CASE("rotation pending and synced records round trip as kind and seq only") {
  Record r;
  r.kind = RecordKind::kRotationSynced;
  CheckRoundTrip(r);
  r.kind = RecordKind::kRotationPending;
  CheckRoundTrip(r);
  CHECK(Encode(r).size() == kRecordHeaderSize + 1 + 8);
  CHECK(Decode(Seal(std::string("\x05", 1) + std::string(8, '\0') + "x")) ==
        DecodeResult::kCorrupt);  // no payload
}

TEST_CASE("group flushing record round trips with the place it persists up to") {
  Record r = GroupFlushingRecord();
  r.upto_file = 7;
  r.upto_offset = 0x123456789;
  CheckRoundTrip(r);
  CHECK(Encode(r).size() == Encode(GroupFlushingRecord()).size() + 12);
}

TEST_CASE("a group flushing place of file 0, or cut short, is corrupt") {
  std::string body(1, static_cast<char>(RecordKind::kGroupFlushing));
  PutFixed64(&body, 5);   // seq
  PutFixed32(&body, 2);   // group
  std::string zero = body;
  PutFixed32(&zero, 0);
  PutFixed64(&zero, 10);
  CHECK(Decode(Seal(zero)) == DecodeResult::kCorrupt);
  std::string short_place = body;
  PutFixed32(&short_place, 3);
  CHECK(Decode(Seal(short_place)) == DecodeResult::kCorrupt);
  PutFixed32(&body, 3);
  PutFixed64(&body, 10);
  Record r;
  REQUIRE(Decode(Seal(body), &r) == DecodeResult::kOk);
  CHECK((r.upto_file == 3 && r.upto_offset == 10 && r.group == 2));
}

TEST_CASE("fields a kind does not use are not stored") {
  Record r = DeleteRecord();
  r.value = "ignored";
  r.group = 7;
  Record out;
  size_t consumed = 0;
  REQUIRE(Decode(Encode(r), &out, &consumed) == DecodeResult::kOk);
  CHECK(out == DeleteRecord());
}

TEST_CASE("header example: put seq 7 k -> v is 30 bytes") {
  Record r;
  r.seq = 7;
  r.key = "k";
  r.value = "v";
  std::string bytes = Encode(r);
  CHECK(bytes.size() == 30);
  CHECK(DecodeFixed32(bytes.data() + 4) == 22);
  CHECK(Encode(DeleteRecord()).size() == 8 + 1 + 8 + 1 + 4);
}

TEST_CASE("decode reads only the first of several records") {
  std::string bytes = Encode(PutRecord()) + Encode(DeleteRecord());
  Record out;
  size_t consumed = 0;
  REQUIRE(Decode(bytes, &out, &consumed) == DecodeResult::kOk);
  CHECK(consumed == Encode(PutRecord()).size());
  CHECK(out == PutRecord());
  REQUIRE(Decode(std::string_view(bytes).substr(consumed), &out, &consumed) == DecodeResult::kOk);
  CHECK(out == DeleteRecord());
}

TEST_CASE("every byte flip in a record is detected") {
  for (const Record& r : {PutRecord(), DeleteRecord(), GroupFlushedRecord(), GroupFlushingRecord()}) {
    const std::string good = Encode(r);
    for (size_t i = 0; i < good.size(); ++i) {
      for (int mask : {0x01, 0x10, 0x80, 0xff}) {
        std::string bad = good;
        bad[i] = static_cast<char>(bad[i] ^ mask);
        DecodeResult result = Decode(bad);
        CAPTURE(i);
        CAPTURE(mask);
        CHECK(result != DecodeResult::kOk);
      }
    }
  }
}

TEST_CASE("truncation at every length is incomplete") {
  for (const Record& r : {PutRecord(), DeleteRecord(), GroupFlushedRecord(), GroupFlushingRecord()}) {
    const std::string good = Encode(r);
    for (size_t n = 0; n < good.size(); ++n) {
      CAPTURE(n);
      CHECK(Decode(std::string_view(good).substr(0, n)) == DecodeResult::kIncomplete);
    }
  }
}

TEST_CASE("zero-filled input is incomplete") {
  CHECK(Decode(std::string(8, '\0')) == DecodeResult::kIncomplete);
  CHECK(Decode(std::string(4096, '\0')) == DecodeResult::kIncomplete);
}

TEST_CASE("length above the limit is corrupt when the input holds that many bytes") {
  // The size is checked before the checksum, so untouched anonymous pages (never backed by
  // memory) can stand in for the 513 MB body.
  const size_t size = kRecordHeaderSize + kMaxRecordBody + 1;
  void* mem = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(mem != MAP_FAILED);
  char* bytes = static_cast<char*>(mem);
  EncodeFixed32(bytes, 1);
  EncodeFixed32(bytes + 4, kMaxRecordBody + 1);
  CHECK(Decode(std::string_view(bytes, size)) == DecodeResult::kCorrupt);
  munmap(mem, size);
}

TEST_CASE("length above the limit running past the input is incomplete") {
  std::string bytes = Encode(PutRecord());
  EncodeFixed32(bytes.data() + 4, 0xffffffff);
  CHECK(Decode(bytes) == DecodeResult::kIncomplete);
}

TEST_CASE("checksum mismatch is corrupt") {
  std::string bytes = Encode(PutRecord());
  bytes[0] = static_cast<char>(bytes[0] ^ 1);
  CHECK(Decode(bytes) == DecodeResult::kCorrupt);
}

TEST_CASE("unknown kind with a valid checksum is corrupt") {
  std::string body = Encode(DeleteRecord()).substr(kRecordHeaderSize);
  body[0] = 4;
  CHECK(Decode(Seal(body)) == DecodeResult::kCorrupt);
  body[0] = 0;
  CHECK(Decode(Seal(body)) == DecodeResult::kCorrupt);
}

TEST_CASE("trailing bytes inside the body are corrupt") {
  std::string body = Encode(GroupFlushedRecord()).substr(kRecordHeaderSize);
  CHECK(Decode(Seal(body)) == DecodeResult::kOk);
  CHECK(Decode(Seal(body + "x")) == DecodeResult::kCorrupt);
}

TEST_CASE("body shorter than kind and seq is corrupt") {
  CHECK(Decode(Seal("")) == DecodeResult::kCorrupt);
  CHECK(Decode(Seal(std::string("\x02\x01\x00\x00", 4))) == DecodeResult::kCorrupt);
}

TEST_CASE("bad varint in a key length is corrupt") {
  std::string body(1, '\x02');  // kDelete
  PutFixed64(&body, 5);
  body.append("\xff\xff\xff\xff\xff\xff", 6);  // never-ending varint
  CHECK(Decode(Seal(body)) == DecodeResult::kCorrupt);
}

TEST_CASE("key length past the body is corrupt") {
  std::string body(1, '\x02');
  PutFixed64(&body, 5);
  PutVarint32(&body, 10);
  body.append("abc");
  CHECK(Decode(Seal(body)) == DecodeResult::kCorrupt);
}

}  // namespace
}  // namespace slotkv::wal
