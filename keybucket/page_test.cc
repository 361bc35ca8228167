#include "keybucket/page.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/base/coding.h"
#include "core/base/hash.h"

namespace slotkv::keybucket {
namespace {

Cell MakeCell(std::string key, std::string payload, uint64_t seq = 1) {
  Cell cell;
  cell.hash = KeyHash(key);
  cell.seq = seq;
  cell.key = std::move(key);
  cell.payload = std::move(payload);
  return cell;
}

std::string Encode(const std::vector<Cell>& cells) {
  std::string page(kPageSize, 'x');
  REQUIRE(EncodePage(cells, page.data()).ok());
  return page;
}

std::vector<Cell> Decode(const std::string& page) {
  std::vector<Cell> cells;
  Status st = DecodePage(page, &cells);
  REQUIRE_MESSAGE(st.ok(), st.ToString());
  return cells;
}

// Cells "k0", "k1", ... with 10-byte values until the next one would not fit.
std::vector<Cell> FullPageCells() {
  std::vector<Cell> cells;
  for (int i = 0;; ++i) {
    cells.push_back(MakeCell("k" + std::to_string(i), "0123456789"));
    if (!CellsFit(cells)) {
      cells.pop_back();
      return cells;
    }
  }
}

// Rewrites the checksum so a deliberate edit reaches the structural checks.
void Reseal(std::string* page) {
  EncodeFixed32(page->data(), Checksum(std::string_view(*page).substr(4)));
}

// The longest key that fits alone in a page with an empty payload.
size_t MaxKeyLength() {
  Cell cell = MakeCell("", "");
  while (CellFootprint(cell) <= PageCapacity()) cell.key.push_back('k');
  return cell.key.size() - 1;
}

TEST_CASE("empty cell list encodes as an all-zero page that decodes empty") {
  std::string page = Encode({});
  CHECK(page == std::string(kPageSize, '\0'));
  CHECK(Decode(page).empty());
}

TEST_CASE("never-written all-zero page is valid and empty") {
  std::string page(kPageSize, '\0');
  CHECK(Decode(page).empty());
  Cell cell;
  Result<bool> found = FindInPage(page, KeyHash("k"), "k", &cell);
  REQUIRE(found.ok());
  CHECK_FALSE(*found);
}

TEST_CASE("one cell round trips with every field") {
  Cell cell = MakeCell("key", "value", 123456789);
  cell.expire_at_ms = 1700000000123;
  cell.type_tag = 4;
  std::vector<Cell> out = Decode(Encode({cell}));
  REQUIRE(out.size() == 1);
  CHECK(out[0] == cell);
}

TEST_CASE("inline and pointer payloads, negative expiry and max seq round trip") {
  Cell inline_cell = MakeCell("a", "inline value");
  Cell pointer_cell = MakeCell("b", std::string("\x01\x02\x00\x7f", 4));
  pointer_cell.is_pointer = true;
  pointer_cell.seq = UINT64_MAX;
  pointer_cell.expire_at_ms = -5;
  Cell empty_payload = MakeCell("c", "");
  std::vector<Cell> cells = {inline_cell, pointer_cell, empty_payload};
  CHECK(Decode(Encode(cells)) == cells);
}

TEST_CASE("full page round trips in the given order") {
  std::vector<Cell> cells = FullPageCells();
  REQUIRE(cells.size() > 50);
  CHECK(Decode(Encode(cells)) == cells);
}

TEST_CASE("encoding is deterministic and order-sensitive") {
  std::vector<Cell> cells = {MakeCell("x", "1"), MakeCell("y", "2")};
  CHECK(Encode(cells) == Encode(cells));
  std::vector<Cell> reversed = {cells[1], cells[0]};
  CHECK(Encode(reversed) != Encode(cells));
  CHECK(Decode(Encode(reversed)) == reversed);
}

TEST_CASE("max-size key fills a page alone; one byte more does not fit") {
  Cell cell = MakeCell(std::string(MaxKeyLength(), 'k'), "");
  CHECK(CellFootprint(cell) == PageCapacity());
  CHECK(Decode(Encode({cell})) == std::vector<Cell>{cell});
  cell.key.push_back('k');
  std::string page(kPageSize, '\0');
  CHECK(EncodePage({cell}, page.data()).IsInvalidArgument());
}

TEST_CASE("cells exactly filling a page fit; one byte over does not") {
  Cell first = MakeCell("first", "");
  Cell second = MakeCell("second", "");
  // Grow the second payload until the two fill the page exactly.
  while (CellFootprint(first) + CellFootprint(second) < PageCapacity()) {
    second.payload.push_back('p');
  }
  REQUIRE(CellFootprint(first) + CellFootprint(second) == PageCapacity());
  CHECK(CellsFit({first, second}));
  CHECK(Decode(Encode({first, second})) == std::vector<Cell>{first, second});
  first.payload.push_back('p');
  CHECK_FALSE(CellsFit({first, second}));
  std::string page(kPageSize, '\0');
  CHECK(EncodePage({first, second}, page.data()).IsInvalidArgument());
}

TEST_CASE("flipped byte anywhere in a used page is corruption") {
  const std::string page = Encode({MakeCell("a", "1"), MakeCell("b", "2")});
  for (size_t i = 0; i < kPageSize; ++i) {
    std::string bad = page;
    bad[i] ^= 0x20;
    std::vector<Cell> cells;
    Status st = DecodePage(bad, &cells);
    INFO("offset " << i);
    CHECK(st.IsCorruption());
    CHECK(cells.empty());
    Cell cell;
    CHECK(FindInPage(bad, KeyHash("a"), "a", &cell).status().IsCorruption());
  }
}

TEST_CASE("flipped byte in an all-zero page is corruption") {
  std::string page(kPageSize, '\0');
  page[100] = 1;
  std::vector<Cell> cells;
  CHECK(DecodePage(page, &cells).IsCorruption());
}

TEST_CASE("unknown format version with a valid checksum is corruption") {
  std::string page = Encode({MakeCell("a", "1")});
  page[4] = 2;
  Reseal(&page);
  std::vector<Cell> cells;
  Status st = DecodePage(page, &cells);
  CHECK(st.IsCorruption());
  CHECK(st.message() == "unknown page format version 2");
}

TEST_CASE("cell count past the used bytes is corruption") {
  std::string page = Encode({MakeCell("a", "1")});
  EncodeFixed16(page.data() + 5, 1000);
  Reseal(&page);
  std::vector<Cell> cells;
  CHECK(DecodePage(page, &cells).message() == "page cell count or size out of range");
}

TEST_CASE("used bytes past the page end is corruption") {
  std::string page = Encode({MakeCell("a", "1")});
  EncodeFixed16(page.data() + 7, 5000);
  Reseal(&page);
  std::vector<Cell> cells;
  CHECK(DecodePage(page, &cells).message() == "page cell count or size out of range");
}

TEST_CASE("cell offset out of order is corruption") {
  std::string page = Encode({MakeCell("a", "1"), MakeCell("b", "2")});
  EncodeFixed16(page.data() + 9 + 4, 14);  // second body inside the first
  Reseal(&page);
  std::vector<Cell> cells;
  CHECK(DecodePage(page, &cells).message() == "cell offset out of range");
}

TEST_CASE("cell with a key length past its body is corruption") {
  std::string page = Encode({MakeCell("a", "1")});
  // Body at 13: hash(8) seq(1) expire(1) type(1) flags(1), then the key length at 25.
  page[25] = 100;
  Reseal(&page);
  std::vector<Cell> cells;
  CHECK(DecodePage(page, &cells).message() == "truncated cell");
}

TEST_CASE("cell with unknown flag bits is corruption") {
  std::string page = Encode({MakeCell("a", "1")});
  page[24] = 0x02;
  Reseal(&page);
  std::vector<Cell> cells;
  CHECK(DecodePage(page, &cells).message() == "unknown cell flags");
}

TEST_CASE("directory fingerprint disagreeing with the cell hash is corruption") {
  std::string page = Encode({MakeCell("a", "1")});
  page[11] ^= 1;
  Reseal(&page);
  std::vector<Cell> cells;
  CHECK(DecodePage(page, &cells).message() == "fingerprint mismatch");
}

TEST_CASE("FindInPage finds present keys and misses absent ones") {
  std::vector<Cell> cells = FullPageCells();
  std::string page = Encode(cells);
  for (const Cell& want : cells) {
    Cell got;
    Result<bool> found = FindInPage(page, want.hash, want.key, &got);
    REQUIRE(found.ok());
    CHECK(*found);
    CHECK(got == want);
  }
  Cell got;
  Result<bool> found = FindInPage(page, KeyHash("absent"), "absent", &got);
  REQUIRE(found.ok());
  CHECK_FALSE(*found);
}

TEST_CASE("FindInPage rejects a fingerprint collision with a different key") {
  Cell stored = MakeCell("stored", "v");
  stored.hash = 0xabcd000000000001;
  Cell same_hash = MakeCell("other", "w");
  same_hash.hash = 0xabcd000000000002;
  std::string page = Encode({stored, same_hash});
  Cell got;
  // Same fingerprint, different full hash.
  Result<bool> found = FindInPage(page, 0xabcd000000000003, "stored", &got);
  REQUIRE(found.ok());
  CHECK_FALSE(*found);
  // Same full hash, different key.
  found = FindInPage(page, 0xabcd000000000001, "stranger", &got);
  REQUIRE(found.ok());
  CHECK_FALSE(*found);
  found = FindInPage(page, 0xabcd000000000002, "other", &got);
  REQUIRE(found.ok());
  CHECK(*found);
  CHECK(got == same_hash);
}

TEST_CASE("decode appends after existing cells") {
  std::vector<Cell> cells = {MakeCell("before", "")};
  REQUIRE(DecodePage(Encode({MakeCell("a", "1")}), &cells).ok());
  REQUIRE(cells.size() == 2);
  CHECK(cells[1].key == "a");
}

}  // namespace
}  // namespace slotkv::keybucket
