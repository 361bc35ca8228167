// Fuzz target: keybucket/page (VerifyPage, DecodePage, FindInPage), the 4 KiB bucket pages
// read back from a slot's bucket files.
//
// Input:  flags:u8 page   (cut or zero-padded to 4096 bytes)
//   flags bit 0: rewrite the page checksum first, so that mutations reach the layout and cell
//   parsers.
//
// Checks: VerifyPage and DecodePage agree; a failed decode leaves the output as it was; a
// decoded page decodes the same through the verified path, its cells fit a page and re-encode
// deterministically to a page that decodes to them; FindInPage finds every decoded cell (the
// first of its hash and key), finds nothing for an absent key and never fails on a page that
// decodes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/coding.h"
#include "keybucket/page.h"
#include "test/fuzz/fuzz_util.h"

namespace slotkv::keybucket {
namespace {

// The first cell of cells with this hash and key, or nullptr.
const Cell* FirstMatch(const std::vector<Cell>& cells, uint64_t hash, std::string_view key) {
  for (const Cell& c : cells) {
    if (c.hash == hash && c.key == key) return &c;
  }
  return nullptr;
}

void CheckDecoded(std::string_view page, const std::vector<Cell>& cells) {
  std::vector<Cell> verified;
  FUZZ_CHECK(DecodePage(page, &verified, /*verified=*/true).ok());
  FUZZ_CHECK(verified == cells);

  // The cells fit one page: a decoder that accepted more would let a split overflow a page.
  FUZZ_CHECK(CellsFit(cells));
  std::string encoded(kPageSize, '\0');
  FUZZ_CHECK(EncodePage(cells, encoded.data()).ok());
  std::string twice(kPageSize, '\x55');
  FUZZ_CHECK(EncodePage(cells, twice.data()).ok());
  FUZZ_CHECK(encoded == twice);
  std::vector<Cell> again;
  FUZZ_CHECK(DecodePage(encoded, &again).ok());
  FUZZ_CHECK(again == cells);

  for (const Cell& cell : cells) {
    for (bool verified_path : {false, true}) {
      Cell found;
      Result<bool> hit = FindInPage(page, cell.hash, cell.key, &found, verified_path);
      FUZZ_CHECK_MSG(hit.ok(), hit.status().ToString());
      FUZZ_CHECK(*hit);
      FUZZ_CHECK(found == *FirstMatch(cells, cell.hash, cell.key));
    }
  }
  // An absent key: same hash as a cell (so its body is compared), a key no cell has.
  const uint64_t hash = cells.empty() ? 0x1234567890abcdefull : cells[0].hash;
  std::string absent = "absent";
  while (FirstMatch(cells, hash, absent) != nullptr) absent += "!";
  Cell none;
  Result<bool> miss = FindInPage(page, hash, absent, &none);
  FUZZ_CHECK(miss.ok() && !*miss);
}

}  // namespace
}  // namespace slotkv::keybucket

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotkv;
  using namespace slotkv::keybucket;
  if (size < 1) return 0;
  std::string page(reinterpret_cast<const char*>(data) + 1, std::min(size - 1, kPageSize));
  page.resize(kPageSize, '\0');
  if (data[0] & 0x01) fuzz::RepairPageChecksum(&page);

  const Status verify = VerifyPage(page);
  // DecodePage appends, and leaves what was there when it fails.
  std::vector<Cell> cells(1);
  cells[0].key = "kept";
  const Status decode = DecodePage(page, &cells);
  FUZZ_CHECK(cells.size() >= 1 && cells[0].key == "kept");
  cells.erase(cells.begin());
  if (!decode.ok()) {
    FUZZ_CHECK_MSG(decode.IsCorruption(), decode.ToString());
    FUZZ_CHECK(cells.empty());
    // A page that fails to decode can still be looked up in: it must not crash or succeed
    // where its layout is bad. Look up the hashes the bodies the directory names start with.
    const uint16_t count = DecodeFixed16(page.data() + 5);
    for (size_t i = 0; i < std::min<size_t>(count, 4); ++i) {
      const uint16_t offset = DecodeFixed16(page.data() + 9 + 4 * i);
      if (9 + 4 * i + 4 > kPageSize || offset + 8 > kPageSize) break;
      Cell found;
      Result<bool> hit = FindInPage(page, DecodeFixed64(page.data() + offset), "k", &found);
      if (!verify.ok()) FUZZ_CHECK(!hit.ok());
    }
    return 0;
  }
  FUZZ_CHECK_MSG(verify.ok(), verify.ToString());
  CheckDecoded(page, cells);
  return 0;
}
