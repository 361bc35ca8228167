// Hashes: the key hash that places a key in a bucket, checksums for records and pages, the
// Redis Cluster hash slot; random ids and hex text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace slotkv {

// 64-bit XXH3 of the key: picks the bucket and the page within it.
uint64_t KeyHash(std::string_view key);

// 32-bit checksum (low half of XXH3-64) of data, for records and pages.
uint32_t Checksum(std::string_view data);

// CRC16-CCITT (XMODEM), the function Redis Cluster uses.
uint16_t Crc16(std::string_view data);

// 40 random lowercase hex characters: a run id or a replication id, as Redis makes them.
std::string RandomHexId();
// n random lowercase hex characters from the kernel's generator (getrandom): ACL GENPASS.
std::string RandomHex(size_t n);
// bytes as lowercase hex, two characters each (digests).
std::string HexLower(std::string_view bytes);

// The Redis Cluster slot of key, 0..16383: CRC16 of the key, or of its hash tag: the bytes
// between the first '{' and the next '}' when that span is non-empty.
uint16_t HashSlot(std::string_view key);

constexpr uint32_t kHashSlots = 16384;

// The slotkv slot of key, for `slots` slots (a power of two up to 16384): contiguous ranges of
// hash slots, hash_slot * slots / 16384.
inline uint32_t SlotOf(std::string_view key, uint32_t slots) {
  return static_cast<uint32_t>(HashSlot(key)) * slots / kHashSlots;
}

}  // namespace slotkv
