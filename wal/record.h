// WAL records: the unit a slot's write-ahead log holds. Encoding is pure (bytes in, bytes out).
//
// On disk, one record:
//   record   := crc32:fixed32 length:fixed32 body[length]
//   body     := more:1 kind:7 seq:fixed64 payload     more: the next record is of the same unit
//   payload  := (kind = kPut)    type:u8 expire_at_ms:fixed64 key:lenprefixed value:lenprefixed
//               (type bits 0x80 and 0x40: a compressed value, a value delta; slot/dictionaries.h)
//             | (kind = kDelete) key:lenprefixed
//             | (kind = kGroupFlushed) group:fixed32
//             | (kind = kGroupFlushing) group:fixed32 [upto_file:fixed32 upto_offset:fixed64]
//   crc32 = Checksum(length bytes ++ body), so a torn length is caught too.
// lenprefixed = varint32 length, then the bytes. Kinds are on-disk numbers: never reuse one.
// A unit (the records of one commit) is replayed whole or not at all: all its records but the
// last carry the more bit (record.cc has the details and an example).
// Example: Put seq=7 "k"->"v" string, no expiry is 8 + 1+8 + 1+8+2+2 = 30 bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace slotkv::wal {

enum class RecordKind : uint8_t {
  kPut = 1,
  kDelete = 2,
  // The flush of `group` that started at the group's last kGroupFlushing record is persisted
  // in buckets and chunks: replay drops the group's records logged before that record (the
  // log's order decides, never the seq: a replica applies its master's seqs, which may go
  // down).
  kGroupFlushed = 3,
  // A flush of `group` starts: its bucket pages may change before their counts do, so replay
  // recounts the group's buckets unless a kGroupFlushed with this seq or later follows. It
  // persists the group's records that end at or before (upto_file, upto_offset), the log's
  // durable end then; without that place (upto_file 0, older logs), those before this record.
  kGroupFlushing = 4,
  // The first record of a file that took writes before the rotation's syncs of the file
  // before it completed (on a worker): a power cut may tear that older file then, and replay
  // ends the log at its tear. Never visited by replay.
  kRotationPending = 5,
  // In such a file: the rotation's syncs of the file before it completed, so a tear of that
  // file is damage (replay stops with Corruption). Never visited by replay.
  kRotationSynced = 6,
};

struct Record {
  RecordKind kind = RecordKind::kPut;
  uint64_t seq = 0;
  uint8_t type_tag = 0;       // kPut
  int64_t expire_at_ms = 0;   // kPut; 0 = no expiry
  std::string key;            // kPut, kDelete
  std::string value;          // kPut
  uint32_t group = 0;         // kGroupFlushed, kGroupFlushing
  uint32_t upto_file = 0;     // kGroupFlushing; 0 = none stored
  uint64_t upto_offset = 0;   // kGroupFlushing
  bool more = false;          // not the last record of its unit

  bool operator==(const Record&) const = default;
};

constexpr size_t kRecordHeaderSize = 8;  // crc32 + length
// The bit of the kind byte that says the next record is of the same unit.
constexpr uint8_t kMoreBit = 0x80;
// Largest body accepted when decoding (a 512 MB value plus room for the rest).
constexpr uint32_t kMaxRecordBody = (512u << 20) + (1u << 20);

// Appends the encoded record to *out.
void EncodeRecord(const Record& record, std::string* out);

// Sets the more bit of the encoded record at `record` (its header first) and its checksum.
void SetMore(char* record);

enum class DecodeResult {
  kOk,          // *record filled, *consumed = bytes used
  kIncomplete,  // input ends inside the record (or holds only zero bytes): a possible torn tail
  kCorrupt,     // checksum mismatch or malformed body
};
// Decodes the record at the start of in.
DecodeResult DecodeRecord(std::string_view in, Record* record, size_t* consumed);

}  // namespace slotkv::wal
