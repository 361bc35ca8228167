// Listpacks: Redis 7.0's compact encoding of a run of strings and integers (listpack.c), as
// RDB payloads hold them (hashes, sorted sets, list nodes, stream nodes).
//
//   listpack := total:u32le count:u16le entry* 0xFF      (count 65535: "too many to count")
//   entry    := encoding data backlen                     (backlen: the entry's size, 7 bits
//                                                          per byte, read from its end)
//
// Thread rule: none (pure functions and a plain builder).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slotkv::rdb {

// The n-byte little-endian unsigned integer at p, and v (its n low bytes) sign-extended: the
// integers of listpacks, ziplists and intsets.
uint64_t LittleEndian(const char* p, size_t n);
int64_t Signed(uint64_t v, size_t n);

// The elements of a listpack, as text (integers in decimal); nullopt when it does not parse
// whole.
std::optional<std::vector<std::string>> ListpackElements(std::string_view lp);

// Builds a listpack: a string in its canonical decimal form (what Redis's lpStringToInt64
// takes) is stored as an integer, as Redis stores it, anything else as a string.
class ListpackWriter {
 public:
  void Add(std::string_view s);
  void AddInteger(int64_t v);
  size_t bytes() const { return body_.size() + 7; }
  size_t count() const { return count_; }
  // The listpack (header, entries, end byte).
  std::string Finish() const;

 private:
  void Entry(std::string_view encoded);
  std::string body_;
  size_t count_ = 0;
};

}  // namespace slotkv::rdb
