// WAL record encoding. Format version 2 (version 1 had no `more` bit; its records read as
// units of one record each).
//
//   record   := crc32:fixed32 length:fixed32 body[length]
//   body     := kindbyte:u8 seq:fixed64 payload
//   kindbyte := more:1 kind:7       more (0x80) = the next record belongs to the same unit
//   payload  := (kind = 1 kPut)          type:u8 expire_at_ms:fixed64 key:lenprefixed
//                                        value:lenprefixed
//             | (kind = 2 kDelete)       key:lenprefixed
//             | (kind = 3 kGroupFlushed) group:fixed32
//             | (kind = 4 kGroupFlushing) group:fixed32 [upto_file:fixed32 upto_offset:fixed64]
//               (the place is stored when upto_file != 0; logs written before it have none)
//             | (kind = 5 kRotationPending) (nothing; seq 0)
//             | (kind = 6 kRotationSynced)  (nothing; seq 0)
//   lenprefixed := varint32 n, then n bytes
//   crc32 = Checksum(length bytes ++ body)  (the 4 length bytes and the body are contiguous, so
//           the checksum covers bytes [4, 8 + length) of the record)
//
// All fixed-width integers are little-endian. Fields a kind does not list are not stored and
// decode as their defaults.
//
// Worked example: Put seq=7, type 0, no expiry, "k" -> "v" (30 bytes):
//   cc cc cc cc             crc32 of the next 26 bytes
//   16 00 00 00             length = 22
//   01                      kind = kPut
//   07 00 00 00 00 00 00 00 seq = 7
//   00                      type = 0
//   00 00 00 00 00 00 00 00 expire_at_ms = 0
//   01 6b                   key = "k"
//   01 76                   value = "v"
// and Delete seq=8 "k" is 8 + 1+8 + 2 = 19 bytes: crc, 0b 00 00 00, 02, 08 00..00, 01 6b.
//
// A unit is a run of records that replay applies whole or not at all: every record of it but
// the last has the more bit. A single-record unit (the common case) costs nothing. Example: a
// unit of Put "a" and Put "b" is the 30-byte Put of "a" with kindbyte 0x81 (and the checksum
// that covers it), then the Put of "b" with kindbyte 0x01.
//
// Decoding order matters for what a torn tail looks like: a short input or a length running
// past the input is kIncomplete before anything else is checked, so a record cut anywhere reads
// as incomplete, never as corrupt. It matters for cost too: the body's layout is checked before
// its checksum, because replay's search past a damaged record (log_replay.cc, NextWholeRecord)
// tries a record at every offset of a torn tail. With the checksum first, every offset whose
// length fit the rest of the file cost a hash of that length: cubic in the tail's size, 6.8 s
// to cut a 16 MB value torn in half (minutes at 64 MB, days at 512 MB). With the layout first,
// all but a rare offset cost a few reads (a value crafted to hold records' layouts at many
// offsets still costs their hashes).
#include "wal/record.h"

#include <algorithm>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::wal {
namespace {

// kind + seq: the smallest body.
constexpr size_t kMinBody = 1 + 8;

// Checks the layout of body and fills *record but for its key and value, which it leaves as
// views into body. Reads a few bytes, never all of a key or value.
bool ParseBody(std::string_view body, Record* record, std::string_view* key,
               std::string_view* value) {
  if (body.size() < kMinBody) return false;
  const uint8_t kind = static_cast<uint8_t>(body[0]) & ~kMoreBit;
  Record& r = *record;
  r.more = (static_cast<uint8_t>(body[0]) & kMoreBit) != 0;
  body.remove_prefix(1);
  if (!GetFixed64(&body, &r.seq)) return false;
  switch (kind) {
    case static_cast<uint8_t>(RecordKind::kPut): {
      r.kind = RecordKind::kPut;
      if (body.empty()) return false;
      r.type_tag = static_cast<uint8_t>(body[0]);
      body.remove_prefix(1);
      uint64_t expire = 0;
      if (!GetFixed64(&body, &expire) || !GetLengthPrefixed(&body, key) ||
          !GetLengthPrefixed(&body, value)) {
        return false;
      }
      r.expire_at_ms = static_cast<int64_t>(expire);
      break;
    }
    case static_cast<uint8_t>(RecordKind::kDelete):
      r.kind = RecordKind::kDelete;
      if (!GetLengthPrefixed(&body, key)) return false;
      break;
    case static_cast<uint8_t>(RecordKind::kGroupFlushed):
    case static_cast<uint8_t>(RecordKind::kGroupFlushing):
      r.kind = static_cast<RecordKind>(kind);
      if (!GetFixed32(&body, &r.group)) return false;
      if (r.kind == RecordKind::kGroupFlushing && !body.empty()) {
        if (!GetFixed32(&body, &r.upto_file) || !GetFixed64(&body, &r.upto_offset) ||
            r.upto_file == 0) {
          return false;
        }
      }
      break;
    case static_cast<uint8_t>(RecordKind::kRotationPending):
    case static_cast<uint8_t>(RecordKind::kRotationSynced):
      r.kind = static_cast<RecordKind>(kind);
      break;
    default:
      return false;
  }
  return body.empty();  // no trailing bytes inside the body
}

}  // namespace

void EncodeRecord(const Record& record, std::string* out) {
  const size_t start = out->size();
  out->append(kRecordHeaderSize, '\0');
  out->push_back(static_cast<char>(static_cast<uint8_t>(record.kind) |
                                   (record.more ? kMoreBit : 0)));
  PutFixed64(out, record.seq);
  switch (record.kind) {
    case RecordKind::kPut:
      out->push_back(static_cast<char>(record.type_tag));
      PutFixed64(out, static_cast<uint64_t>(record.expire_at_ms));
      PutLengthPrefixed(out, record.key);
      PutLengthPrefixed(out, record.value);
      break;
    case RecordKind::kDelete:
      PutLengthPrefixed(out, record.key);
      break;
    case RecordKind::kGroupFlushed:
    case RecordKind::kGroupFlushing:
      PutFixed32(out, record.group);
      if (record.kind == RecordKind::kGroupFlushing && record.upto_file != 0) {
        PutFixed32(out, record.upto_file);
        PutFixed64(out, record.upto_offset);
      }
      break;
    case RecordKind::kRotationPending:
    case RecordKind::kRotationSynced:
      break;
  }
  char* header = out->data() + start;
  const size_t body_size = out->size() - start - kRecordHeaderSize;
  EncodeFixed32(header + 4, static_cast<uint32_t>(body_size));
  EncodeFixed32(header, Checksum(std::string_view(header + 4, 4 + body_size)));
}

void SetMore(char* record) {
  record[kRecordHeaderSize] = static_cast<char>(record[kRecordHeaderSize] | kMoreBit);
  const uint32_t length = DecodeFixed32(record + 4);
  EncodeFixed32(record, Checksum(std::string_view(record + 4, 4 + static_cast<size_t>(length))));
}

DecodeResult DecodeRecord(std::string_view in, Record* record, size_t* consumed) {
  if (in.size() < kRecordHeaderSize) return DecodeResult::kIncomplete;
  // A zero header is never written (a body is at least kMinBody bytes): it is zero fill, e.g.
  // space the file system extended but never wrote.
  if (std::all_of(in.begin(), in.begin() + kRecordHeaderSize, [](char c) { return c == 0; })) {
    return DecodeResult::kIncomplete;
  }
  const uint32_t length = DecodeFixed32(in.data() + 4);
  if (length > in.size() - kRecordHeaderSize) return DecodeResult::kIncomplete;
  if (length > kMaxRecordBody) return DecodeResult::kCorrupt;
  // The layout first: it costs a few reads where the checksum reads every byte.
  Record r;
  std::string_view key, value;
  if (!ParseBody(in.substr(kRecordHeaderSize, length), &r, &key, &value)) {
    return DecodeResult::kCorrupt;
  }
  const uint32_t crc = DecodeFixed32(in.data());
  if (crc != Checksum(in.substr(4, 4 + static_cast<size_t>(length)))) {
    return DecodeResult::kCorrupt;
  }
  r.key.assign(key);
  r.value.assign(value);
  *record = std::move(r);
  *consumed = kRecordHeaderSize + length;
  return DecodeResult::kOk;
}

}  // namespace slotkv::wal
