// Bit operations on byte strings, as Redis 7.0's SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD
// see them. Pure functions: no storage, no replies; the bitmap command family
// (bitmap_commands.cc) parses arguments, reads and writes keys, and calls these.
//
// Bit numbering: bit 0 is the most significant bit of byte 0, bit 8 the most significant bit of
// byte 1, and so on; a bitfield is read most significant bit first from its offset (big endian
// when aligned to bytes). Bits past the end of a string read as 0; writes grow the string with
// zero bytes.
//
// Thread rule: every function is thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slotkv::command {

// Largest byte index a bit offset may reach: a bitmap is at most 512 MB (2^32 bits), Redis's
// default proto-max-bulk-len, which is also the largest value slotkv stores.
inline constexpr uint64_t kMaxBitmapBytes = uint64_t{512} << 20;

// ---- Single bits --------------------------------------------------------------------------

// Bit `offset` of s; 0 past the end.
bool GetBit(std::string_view s, uint64_t offset);

// Sets bit `offset` of *s to `on`, first growing *s with zero bytes to offset / 8 + 1 bytes if
// shorter. Returns the bit's previous value. REQUIRES: offset / 8 fits in memory.
bool SetBit(std::string* s, uint64_t offset, bool on);

// Parses a bit offset argument as Redis's getBitOffsetFromArgument: a strict decimal integer
// (ParseInt64 rules); with hash_bits > 0 a leading '#' means "field number", multiplied by
// hash_bits (with 64-bit wrap-around, as Redis). Fails (nullopt) on a bad number, a negative
// result, or a result whose byte (offset / 8) is >= max_bytes.
std::optional<uint64_t> ParseBitOffset(std::string_view arg, uint64_t max_bytes,
                                       int hash_bits = 0);

// ---- Counting and searching ---------------------------------------------------------------

// Whether BITCOUNT / BITPOS ranges count bytes (the default) or bits (7.0's BIT option).
enum class BitUnit { kByte, kBit };

// Set bits in s (popcount over 8-byte words).
uint64_t CountBits(std::string_view s);

// Set bits in s between start and end inclusive, in `unit`s, with Redis's index rules: a
// negative index counts from the end (-1 = last), then both are clamped to the string; an empty
// range (start > end after that) counts 0.
uint64_t CountBits(std::string_view s, int64_t start, int64_t end, BitUnit unit);

// BITPOS over a whole existing string: the position of the first bit equal to `bit`. When
// looking for 0 in a string of all ones the answer is the bit just past the end (the string
// counts as zero-padded); looking for 1 and finding none gives -1. An empty string gives -1.
int64_t FindBit(std::string_view s, bool bit);

// BITPOS with a range: start, and end when given, in `unit`s with CountBits's index rules; with
// no end the range runs to the string's end (unit must then be kByte, as Redis's grammar
// requires). Returns the absolute position of the first matching bit in the range, else -1 -
// except that when looking for 0 without an explicit end the answer is the bit past the range
// (the string counts as zero-padded). An empty range gives -1.
int64_t FindBit(std::string_view s, bool bit, int64_t start, std::optional<int64_t> end,
                BitUnit unit);

// ---- BITOP --------------------------------------------------------------------------------

enum class BitOpKind { kAnd, kOr, kXor, kNot };

// Folds one more source into *acc, the result of the sources so far: the result is as long
// as the longest source and shorter operands count as zero-padded (so AND with a shorter or
// missing source clears the tail). Start with acc = the first source. AND, OR and XOR are
// commutative, so sources may be folded in any order. REQUIRES: op != kNot.
void BitOpFold(BitOpKind op, std::string* acc, std::string_view src);

// Inverts every bit of *s in place (BITOP NOT).
void BitNot(std::string* s);

// The result of op over sources (a missing key is an empty source). REQUIRES: sources not
// empty; exactly one source for kNot.
std::string BitOp(BitOpKind op, const std::vector<std::string_view>& sources);

// ---- BITFIELD -----------------------------------------------------------------------------

// An integer field type: i1..i64 or u1..u63.
struct BitfieldType {
  bool is_signed = false;
  int bits = 0;
};

// Parses "i<bits>" / "u<bits>" as Redis: lower-case i or u, then a strict decimal 1..64 for
// signed, 1..63 for unsigned (u64 cannot be replied as a RESP integer). Like Redis, the text
// ends at the first NUL byte. nullopt when invalid.
std::optional<BitfieldType> ParseBitfieldType(std::string_view arg);

// What SET and INCRBY do when the result does not fit the field.
enum class BitfieldOverflow {
  kWrap,  // modulo 2^bits (signed: two's complement)
  kSat,   // clamp to the type's minimum or maximum
  kFail,  // do nothing and reply nil
};

// The field of `bits` bits at offset, unsigned / sign-extended; bits past the end read 0.
// REQUIRES: 1 <= bits <= 64.
uint64_t GetUnsignedField(std::string_view s, uint64_t offset, int bits);
int64_t GetSignedField(std::string_view s, uint64_t offset, int bits);

// Writes the low `bits` bits of value at offset. REQUIRES: *s covers the field (at least
// (offset + bits - 1) / 8 + 1 bytes); 1 <= bits <= 64.
void SetField(std::string* s, uint64_t offset, int bits, uint64_t value);

// value + incr stored in a field of `bits` bits: the result (wrapped or saturated per ow), or
// nullopt when it overflows and ow is kFail. For SET pass the new value and incr 0 (an
// unsigned SET passes the argument's 64-bit two's complement as value, as Redis).
// REQUIRES: value fits the field (except for SET, where it is the argument).
std::optional<int64_t> SignedFieldAdd(int64_t value, int64_t incr, int bits,
                                      BitfieldOverflow ow);
std::optional<uint64_t> UnsignedFieldAdd(uint64_t value, int64_t incr, int bits,
                                         BitfieldOverflow ow);

// One BITFIELD subcommand, parsed.
struct BitfieldOp {
  enum class Kind { kGet, kSet, kIncrBy };
  Kind kind = Kind::kGet;
  BitfieldType type;
  uint64_t offset = 0;
  int64_t value = 0;  // SET's value or INCRBY's increment
  BitfieldOverflow overflow = BitfieldOverflow::kWrap;
};

// Whether any op writes (SET or INCRBY).
bool BitfieldWrites(const std::vector<BitfieldOp>& ops);

// Runs ops in order on *s and returns one reply per op: the field's value (GET), its old value
// (SET), its new value (INCRBY), or nullopt when a SET / INCRBY overflowed under kFail (the
// field is then left unchanged). As Redis, *s is first grown with zero bytes to cover every
// SET / INCRBY field, even ones that fail; GET never grows it.
std::vector<std::optional<int64_t>> ApplyBitfield(std::string* s,
                                                  const std::vector<BitfieldOp>& ops);

}  // namespace slotkv::command
