// HyperLogLog values: Redis 7.0's HLL strings (hyperloglog.c), byte for byte, so a value GET
// from Redis (or DUMPed there) counts the same here, and the reverse.
//
// Format. A 16-byte header: "HYLL", the encoding (0 dense, 1 sparse), three zero bytes, the
// cached cardinality (64 bits little endian; its top bit set = stale). Then the registers,
// 16384 of them (P = 14), each the longest run of zeroes seen (plus one) in the bits above
// the register index of a 64-bit MurmurHash64A (seed 0xadc83b19) of an element:
// - dense: 6 bits per register, packed from each byte's least significant bit up (12288
//   bytes; the value is exactly 12304 bytes long);
// - sparse: run-length opcodes, in register order: ZERO 00xxxxxx (1-64 zero registers),
//   XZERO 01xxxxxx yyyyyyyy (1-16384 zero registers), VAL 1vvvvvxx (1-4 registers of value
//   1-32). A new value starts sparse (XZERO:16384) and becomes dense when a register needs a
//   value above 32, or when a change would take it past sparse_max bytes (hll-sparse-max-bytes,
//   header included). Changes keep Redis's exact opcode sequences: the split of the opcode
//   holding the register into at most three, then the merge of equal adjacent VALs among the
//   five opcodes from the one before it.
// Counting uses Ertl's estimator over the histogram of register values ("New cardinality
// estimation algorithms for HyperLogLog sketches", arXiv:1702.01284), as Redis since 5.0.
//
// Thread rule: none (functions over the caller's bytes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace slotkv::hll {

inline constexpr size_t kRegisters = 16384;
inline constexpr size_t kHeaderBytes = 16;
inline constexpr size_t kDenseBytes = kHeaderBytes + kRegisters * 6 / 8;
inline constexpr size_t kDefaultSparseMaxBytes = 3000;

// One byte per register, the form several values are merged into (PFCOUNT of many keys,
// PFMERGE).
using Registers = std::array<uint8_t, kRegisters>;

// Redis's MurmurHash64A (64-bit MurmurHash2, little-endian reads).
uint64_t MurmurHash64A(std::string_view data, uint64_t seed);

// An empty value (sparse, every register 0, cached cardinality 0).
std::string Empty();
// Whether value passes Redis's checks of an HLL string (isHLLObjectOrReply): at least a
// header, the magic, a known encoding, and exactly kDenseBytes when dense. The registers of a
// sparse value are checked only where they are read (Corruption below).
bool LooksValid(std::string_view value);
bool IsDense(std::string_view value);
// Marks the cached cardinality stale (keeping its bytes, as Redis), after any change.
void Invalidate(std::string* value);

// Adds element to *value (LooksValid). true when a register grew (the cached cardinality is
// then marked stale); Corruption when the sparse opcodes do not cover the registers.
Result<bool> Add(std::string* value, std::string_view element, size_t sparse_max);

// The cardinality: the cached one when valid, else counted and written into *value's cache
// (*cached set: the value changed). Corruption as Add.
Result<uint64_t> Count(std::string* value, bool* cached);

// Raises each of *max to the value's register (LooksValid). Corruption as Add.
Status MergeInto(std::string_view value, Registers* max);
// The cardinality of merged registers.
uint64_t CountRegisters(const Registers& max);
// Raises *value's registers to max (PFMERGE's write): made dense first when dense, else kept
// sparse as long as it fits sparse_max; the cached cardinality marked stale. Corruption as Add.
Status RaiseTo(std::string* value, const Registers& max, bool dense, size_t sparse_max);

// Makes a sparse value dense (registers kept, the header's cache bytes too); nothing for a
// dense one. Corruption as Add.
Status ToDense(std::string* value);

// ---- Redis's debugging commands (PFDEBUG, PFSELFTEST) --------------------------------------
// A sparse value's opcodes as PFDEBUG DECODE prints them: "z:<len>" (ZERO), "Z:<len>" (XZERO),
// "v:<value>,<len>" (VAL), space separated; a truncated last XZERO is left out.
std::string DescribeSparse(std::string_view value);
// Redis's PFSELFTEST: the dense registers keep every value set without touching their
// neighbours; sparse and dense values fed the same elements (1 to 10^7, checked at each power
// of ten) count the same, stay sparse while small, and count within 6 standard errors. An
// empty string, or the failure as Redis words it ("TESTFAILED ...").
std::string SelfTest();

}  // namespace slotkv::hll
