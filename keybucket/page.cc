// Bucket page format, version 1. A page is exactly 4096 bytes; integers are little-endian.
//
//   page      := header directory body* zero*                  (4096 bytes in all)
//   header    := checksum:fixed32      Checksum() of bytes [4, 4096)
//                version:u8            = 1
//                count:fixed16         number of cells
//                used:fixed16          bytes in use: 9 + 4 * count + sum of body sizes
//   directory := entry{count}
//   entry     := offset:fixed16        where the cell's body starts
//                fingerprint:fixed16   top 16 bits of the cell's key hash
//   body      := hash:fixed64 seq:varint64 expire:varint64 type:u8 flags:u8
//                key:lenprefixed payload:lenprefixed
//   expire    := ZigZag(expire_at_ms); 0 = no expiry
//   flags     := bit 0 is_pointer (payload is an encoded chunk pointer); bits 1-7 are zero
//   lenprefixed := length:varint32 bytes{length}
//
// Bodies follow the directory back to back, in directory order, and the bytes from `used` to
// the end are zero. The encoder is deterministic (the same cells in the same order give the same
// page), so a writer can skip pages whose bytes did not change. An all-zero page is the one
// encoding of "no cells": it is what a never-written page reads as, so writing an empty bucket
// over a never-written page costs nothing. A lookup compares the 16-bit fingerprints in the
// directory and parses only the bodies whose fingerprint matches.
//
// Worked example: one cell {hash 0xab12000000000007, seq 5, expire 0, type 0, inline, key "k1",
// payload "v"}:
//
//   offset  bytes                          meaning
//   0       cc cc cc cc                    checksum of bytes [4, 4096)
//   4       01                             version 1
//   5       01 00                          count 1
//   7       1e 00                          used 30 = 9 header + 4 directory + 17 body
//   9       0d 00 12 ab                    body at 13, fingerprint 0xab12
//   13      07 00 00 00 00 00 12 ab        hash
//   21      05 00 00 00                    seq 5, expire 0, type 0, flags 0
//   25      02 6b 31 01 76                 key "k1", payload "v"
//   30      00 ... 00                      zero to 4096
//
// The cell's footprint (CellFootprint) is 4 + 17 = 21 bytes of the 4087 available.
#include "keybucket/page.h"

#include <algorithm>
#include <cstring>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::keybucket {
namespace {

constexpr size_t kHeaderSize = 9;
constexpr size_t kEntrySize = 4;
constexpr uint8_t kFormatVersion = 1;
constexpr uint8_t kFlagPointer = 0x01;

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

uint16_t Fingerprint(uint64_t hash) { return static_cast<uint16_t>(hash >> 48); }

size_t LengthPrefixedSize(size_t n) { return static_cast<size_t>(VarintLength(n)) + n; }

size_t BodySize(const Cell& cell) {
  return 8 + VarintLength(cell.seq) + VarintLength(ZigZag(cell.expire_at_ms)) + 2 +
         LengthPrefixedSize(cell.key.size()) + LengthPrefixedSize(cell.payload.size());
}

char* EncodeVarint(char* dst, uint64_t v) {
  while (v >= 0x80) {
    *dst++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *dst++ = static_cast<char>(v);
  return dst;
}

char* EncodeBody(const Cell& cell, char* dst) {
  EncodeFixed64(dst, cell.hash);
  dst += 8;
  dst = EncodeVarint(dst, cell.seq);
  dst = EncodeVarint(dst, ZigZag(cell.expire_at_ms));
  *dst++ = static_cast<char>(cell.type_tag);
  *dst++ = static_cast<char>(cell.is_pointer ? kFlagPointer : 0);
  dst = EncodeVarint(dst, cell.key.size());
  std::memcpy(dst, cell.key.data(), cell.key.size());
  dst += cell.key.size();
  dst = EncodeVarint(dst, cell.payload.size());
  std::memcpy(dst, cell.payload.data(), cell.payload.size());
  return dst + cell.payload.size();
}

// Parses one body, which must fill `body` exactly.
Status DecodeBody(std::string_view body, uint16_t fingerprint, Cell* cell) {
  uint64_t expire;
  std::string_view key, payload;
  if (!GetFixed64(&body, &cell->hash) || !GetVarint64(&body, &cell->seq) ||
      !GetVarint64(&body, &expire) || body.size() < 2) {
    return Status::Corruption("truncated cell");
  }
  cell->expire_at_ms = UnZigZag(expire);
  cell->type_tag = static_cast<uint8_t>(body[0]);
  uint8_t flags = static_cast<uint8_t>(body[1]);
  body.remove_prefix(2);
  if ((flags & ~kFlagPointer) != 0) return Status::Corruption("unknown cell flags");
  cell->is_pointer = (flags & kFlagPointer) != 0;
  if (!GetLengthPrefixed(&body, &key) || !GetLengthPrefixed(&body, &payload)) {
    return Status::Corruption("truncated cell");
  }
  if (!body.empty()) return Status::Corruption("cell longer than its contents");
  if (Fingerprint(cell->hash) != fingerprint) return Status::Corruption("fingerprint mismatch");
  cell->key.assign(key);
  cell->payload.assign(payload);
  return Status::OK();
}

// A checked page: the directory is in range and the bodies tile [directory end, used).
struct Layout {
  uint16_t count = 0;
  uint16_t used = 0;
  const char* directory = nullptr;

  uint16_t Offset(size_t i) const { return DecodeFixed16(directory + i * kEntrySize); }
  uint16_t FingerprintAt(size_t i) const { return DecodeFixed16(directory + i * kEntrySize + 2); }
  std::string_view Body(std::string_view page, size_t i) const {
    size_t end = i + 1 < count ? Offset(i + 1) : used;
    return page.substr(Offset(i), end - Offset(i));
  }
};

bool AllZero(std::string_view page) {
  return std::all_of(page.begin(), page.end(), [](char c) { return c == 0; });
}

// Checks the header and directory (and the checksum unless the page was verified since it was
// read). An all-zero page yields count 0.
Status ParseLayout(std::string_view page, bool verified, Layout* layout) {
  if (page.size() != kPageSize) return Status::Corruption("page is not 4096 bytes");
  *layout = Layout();
  if (verified) {
    // A verified page is all zero exactly when its header is: a written page has a version.
    if (page[4] == 0) return Status::OK();
  } else {
    if (AllZero(page)) return Status::OK();
    if (DecodeFixed32(page.data()) != Checksum(page.substr(4))) {
      return Status::Corruption("page checksum mismatch");
    }
  }
  uint8_t version = static_cast<uint8_t>(page[4]);
  if (version != kFormatVersion) {
    return Status::Corruption("unknown page format version " + std::to_string(version));
  }
  layout->count = DecodeFixed16(page.data() + 5);
  layout->used = DecodeFixed16(page.data() + 7);
  layout->directory = page.data() + kHeaderSize;
  size_t directory_end = kHeaderSize + kEntrySize * layout->count;
  if (directory_end > layout->used || layout->used > kPageSize) {
    return Status::Corruption("page cell count or size out of range");
  }
  // Offsets strictly increase from the directory's end, each body non-empty, last below used.
  size_t expected_min = directory_end;
  for (size_t i = 0; i < layout->count; ++i) {
    size_t offset = layout->Offset(i);
    if ((i == 0 && offset != directory_end) || offset < expected_min || offset >= layout->used) {
      return Status::Corruption("cell offset out of range");
    }
    expected_min = offset + 1;
  }
  return Status::OK();
}

}  // namespace

size_t CellFootprint(const Cell& cell) { return kEntrySize + BodySize(cell); }

size_t PageCapacity() { return kPageSize - kHeaderSize; }

bool CellsFit(const std::vector<Cell>& cells) {
  size_t total = 0;
  for (const Cell& cell : cells) {
    total += CellFootprint(cell);
    if (total > PageCapacity()) return false;
  }
  return true;
}

Status EncodePage(const std::vector<const Cell*>& cells, char* page) {
  size_t total = 0;
  for (const Cell* cell : cells) total += CellFootprint(*cell);
  if (total > PageCapacity()) return Status::InvalidArgument("cells do not fit in one page");
  std::memset(page, 0, kPageSize);
  if (cells.empty()) return Status::OK();
  char* directory = page + kHeaderSize;
  char* body = directory + kEntrySize * cells.size();
  for (size_t i = 0; i < cells.size(); ++i) {
    EncodeFixed16(directory + i * kEntrySize, static_cast<uint16_t>(body - page));
    EncodeFixed16(directory + i * kEntrySize + 2, Fingerprint(cells[i]->hash));
    body = EncodeBody(*cells[i], body);
  }
  page[4] = static_cast<char>(kFormatVersion);
  EncodeFixed16(page + 5, static_cast<uint16_t>(cells.size()));
  EncodeFixed16(page + 7, static_cast<uint16_t>(body - page));
  EncodeFixed32(page, Checksum(std::string_view(page + 4, kPageSize - 4)));
  return Status::OK();
}

Status EncodePage(const std::vector<Cell>& cells, char* page) {
  std::vector<const Cell*> pointers;
  pointers.reserve(cells.size());
  for (const Cell& cell : cells) pointers.push_back(&cell);
  return EncodePage(pointers, page);
}

Status VerifyPage(std::string_view page) {
  Layout layout;
  return ParseLayout(page, /*verified=*/false, &layout);
}

Status DecodePage(std::string_view page, std::vector<Cell>* cells, bool verified) {
  Layout layout;
  SLOTKV_RETURN_IF_ERROR(ParseLayout(page, verified, &layout));
  size_t first = cells->size();
  cells->resize(first + layout.count);
  for (size_t i = 0; i < layout.count; ++i) {
    Status st = DecodeBody(layout.Body(page, i), layout.FingerprintAt(i), &(*cells)[first + i]);
    if (!st.ok()) {
      cells->resize(first);
      return st;
    }
  }
  return Status::OK();
}

Result<bool> FindInPage(std::string_view page, uint64_t hash, std::string_view key, Cell* cell,
                        bool verified) {
  Layout layout;
  SLOTKV_RETURN_IF_ERROR(ParseLayout(page, verified, &layout));
  uint16_t fingerprint = Fingerprint(hash);
  for (size_t i = 0; i < layout.count; ++i) {
    if (layout.FingerprintAt(i) != fingerprint) continue;
    std::string_view body = layout.Body(page, i);
    // Compare the full hash before parsing the rest: most fingerprint matches stop here.
    if (body.size() < 8 || DecodeFixed64(body.data()) != hash) {
      if (body.size() < 8) return Status::Corruption("truncated cell");
      continue;
    }
    Cell candidate;
    SLOTKV_RETURN_IF_ERROR(DecodeBody(body, fingerprint, &candidate));
    if (candidate.key == key) {
      *cell = std::move(candidate);
      return true;
    }
  }
  return false;
}

}  // namespace slotkv::keybucket
