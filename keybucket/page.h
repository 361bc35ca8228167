// Bucket page codec: a fixed 4 KiB page holding the cells of one bucket (or of one split of it).
// Pure: bytes in, cells out. The exact layout is the grammar at the top of page.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "keybucket/cell.h"

namespace slotkv::keybucket {

constexpr size_t kPageSize = 4096;

// Bytes one cell takes in a page (its directory entry included).
size_t CellFootprint(const Cell& cell);
// Bytes available for cells in a page.
size_t PageCapacity();
// Whether cells fit in one page together.
bool CellsFit(const std::vector<Cell>& cells);

// Encodes cells into exactly kPageSize bytes at page.
// InvalidArgument when they do not fit.
Status EncodePage(const std::vector<Cell>& cells, char* page);
// The same for cells held elsewhere (no copies).
Status EncodePage(const std::vector<const Cell*>& cells, char* page);

// Checks a page read from disk: checksum and layout. Corruption when damaged.
Status VerifyPage(std::string_view page);

// Decodes a page; appends its cells to *cells. An all-zero page (never written) is valid and
// empty. Corruption on a checksum mismatch or malformed content. With verified, the page passed
// VerifyPage since it was read (a cached page) and its checksum is not computed again.
// REQUIRES: page.size() == kPageSize.
Status DecodePage(std::string_view page, std::vector<Cell>* cells, bool verified = false);

// Looks one key up without decoding the other cells: compares fingerprints first.
// Returns true and fills *cell when found; false when absent; Corruption as DecodePage.
Result<bool> FindInPage(std::string_view page, uint64_t hash, std::string_view key, Cell* cell,
                        bool verified = false);

}  // namespace slotkv::keybucket
