#include <doctest/doctest.h>

#include <future>
#include <string>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

using namespace std::string_literals;

const std::string kBadOffset = "-ERR bit offset is not an integer or out of range\r\n";
const std::string kBadBit = "-ERR bit is not an integer or out of range\r\n";
const std::string kBadType =
    "-ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.\r\n";
const std::string kBitArg = "-ERR The bit argument must be 1 or 0.\r\n";



// Writes key with a non-string type (no command of this family makes one), on the owner of its
// slot, and commits. REQUIRES: no Run in progress.
void PutList(CommandFixture& f, const std::string& key) {
  ServerState& s = f.state();
  const uint32_t slot = s.keyspace->SlotOfKey(key);
  std::promise<Status> done;
  s.executor->Post(s.executor->OwnerOf(slot), [&] {
    Store store(s.keyspace, slot, 0, &(*s.dirty)[static_cast<size_t>(s.executor->current())]);
    Status st = store.Put(key, "list-bytes", ValueType::kList, 0);
    done.set_value(st.ok() ? s.CommitDirty() : st);
  });
  REQUIRE(done.get_future().get().ok());
}

// ---- SETBIT / GETBIT ------------------------------------------------------------------------

TEST_CASE("SETBIT returns the old bit and grows the string") {
  CommandFixture f;
  CHECK(f.Run({"SETBIT", "b", "7", "1"}) == ":0\r\n");
  CHECK(f.Run({"GET", "b"}) == Bulk("\x01"));
  CHECK(f.Run({"SETBIT", "b", "7", "1"}) == ":1\r\n");
  CHECK(f.Run({"SETBIT", "b", "7", "0"}) == ":1\r\n");
  CHECK(f.Run({"GET", "b"}) == Bulk("\x00"s));
  CHECK(f.Run({"SETBIT", "b", "0", "1"}) == ":0\r\n");
  CHECK(f.Run({"SETBIT", "b", "17", "1"}) == ":0\r\n");
  CHECK(f.Run({"GET", "b"}) == Bulk("\x80\x00\x40"s));
}

TEST_CASE("SETBIT clearing a bit of a missing key creates it") {
  CommandFixture f;
  CHECK(f.Run({"SETBIT", "b", "9", "0"}) == ":0\r\n");
  CHECK(f.Run({"GET", "b"}) == Bulk("\x00\x00"s));
}

TEST_CASE("SETBIT on an existing string changes one bit") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "`"}) == "+OK\r\n");
  CHECK(f.Run({"SETBIT", "s", "7", "1"}) == ":0\r\n");
  CHECK(f.Run({"GET", "s"}) == Bulk("a"));
  CHECK(f.Run({"SETBIT", "s", "2", "0"}) == ":1\r\n");
  CHECK(f.Run({"GET", "s"}) == Bulk("A"));
}

TEST_CASE("SETBIT keeps the key's TTL") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "a", "PX", "5000"}) == "+OK\r\n");
  CHECK(f.Run({"SETBIT", "s", "100", "1"}) == ":0\r\n");
  CHECK(f.Run({"PTTL", "s"}) == ":5000\r\n");
  f.clock().AdvanceMs(5000);
  CHECK(f.Run({"GETBIT", "s", "100"}) == ":0\r\n");
}

TEST_CASE("SETBIT offset and bit errors") {
  CommandFixture f;
  CHECK(f.Run({"SETBIT", "b", "-1", "1"}) == kBadOffset);
  CHECK(f.Run({"SETBIT", "b", "4294967296", "1"}) == kBadOffset);
  CHECK(f.Run({"SETBIT", "b", "x", "1"}) == kBadOffset);
  CHECK(f.Run({"SETBIT", "b", "1.5", "1"}) == kBadOffset);
  CHECK(f.Run({"SETBIT", "b", "x", "2"}) == kBadOffset);  // offset is checked first
  CHECK(f.Run({"SETBIT", "b", "0", "2"}) == kBadBit);
  CHECK(f.Run({"SETBIT", "b", "0", "-1"}) == kBadBit);
  CHECK(f.Run({"SETBIT", "b", "0", "x"}) == kBadBit);
  CHECK(f.Run({"SETBIT", "b", "0", "01"}) == kBadBit);
  CHECK(f.Run({"SETBIT", "b", "0"}) == Arity("setbit"));
  CHECK(f.Run({"EXISTS", "b"}) == ":0\r\n");
}

TEST_CASE("SETBIT and GETBIT offsets are limited by proto-max-bulk-len") {
  CommandFixture f;
  REQUIRE(f.config().Set("proto-max-bulk-len", "1mb").ok());
  f.state().RefreshLive();
  CHECK(f.Run({"SETBIT", "b", "8388608", "1"}) == kBadOffset);
  CHECK(f.Run({"GETBIT", "b", "8388608"}) == kBadOffset);
  CHECK(f.Run({"BITFIELD", "b", "GET", "u8", "8388608"}) == kBadOffset);
  CHECK(f.Run({"SETBIT", "b", "8388607", "1"}) == ":0\r\n");
  CHECK(f.Run({"STRLEN", "b"}) == ":1048576\r\n");
  CHECK(f.Run({"GETBIT", "b", "8388607"}) == ":1\r\n");
}

TEST_CASE("GETBIT reads bits, 0 past the end and for a missing key") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "\x80\x01"s}) == "+OK\r\n");
  CHECK(f.Run({"GETBIT", "s", "0"}) == ":1\r\n");
  CHECK(f.Run({"GETBIT", "s", "1"}) == ":0\r\n");
  CHECK(f.Run({"GETBIT", "s", "15"}) == ":1\r\n");
  CHECK(f.Run({"GETBIT", "s", "16"}) == ":0\r\n");
  CHECK(f.Run({"GETBIT", "s", "4294967295"}) == ":0\r\n");
  CHECK(f.Run({"GETBIT", "nokey", "100"}) == ":0\r\n");
  CHECK(f.Run({"EXISTS", "nokey"}) == ":0\r\n");
}

TEST_CASE("GETBIT errors") {
  CommandFixture f;
  CHECK(f.Run({"GETBIT", "b", "-1"}) == kBadOffset);
  CHECK(f.Run({"GETBIT", "b", "4294967296"}) == kBadOffset);
  CHECK(f.Run({"GETBIT", "b"}) == Arity("getbit"));
}

TEST_CASE("bit commands on a key of another type reply WRONGTYPE") {
  CommandFixture f;
  PutList(f, "l");
  CHECK(f.Run({"SETBIT", "l", "0", "1"}) == kWrongType);
  CHECK(f.Run({"SETBIT", "l", "x", "1"}) == kBadOffset);  // arguments first
  CHECK(f.Run({"SETBIT", "l", "0", "2"}) == kBadBit);
  CHECK(f.Run({"GETBIT", "l", "0"}) == kWrongType);
  CHECK(f.Run({"BITCOUNT", "l"}) == kWrongType);
  CHECK(f.Run({"BITCOUNT", "l", "a"}) == kWrongType);  // the key is read first
  CHECK(f.Run({"BITPOS", "l", "1"}) == kWrongType);
  CHECK(f.Run({"BITPOS", "l", "2"}) == kBitArg);  // the bit is checked before the key
  CHECK(f.Run({"BITPOS", "l", "1", "a"}) == kWrongType);
  CHECK(f.Run({"BITFIELD", "l"}) == kWrongType);
  CHECK(f.Run({"BITFIELD", "l", "GET", "u8", "0"}) == kWrongType);
  CHECK(f.Run({"BITFIELD", "l", "SET", "u8", "0", "1"}) == kWrongType);
  CHECK(f.Run({"BITFIELD_RO", "l", "GET", "u8", "0"}) == kWrongType);
  CHECK(f.Run({"BITFIELD_RO", "l", "SET", "u8", "0", "1"}) ==
        "-ERR BITFIELD_RO only supports the GET subcommand\r\n");
  CHECK(f.Run({"SET", "a", "x"}) == "+OK\r\n");
  CHECK(f.Run({"BITOP", "AND", "d", "a", "l"}) == kWrongType);
  CHECK(f.Run({"BITOP", "NOT", "d", "l"}) == kWrongType);
  CHECK(f.Run({"EXISTS", "d"}) == ":0\r\n");
}

// ---- BITCOUNT -------------------------------------------------------------------------------

TEST_CASE("BITCOUNT whole string and byte ranges") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "foobar"}) == "+OK\r\n");
  CHECK(f.Run({"BITCOUNT", "s"}) == ":26\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "0", "0"}) == ":4\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "1", "1"}) == ":6\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "1", "1", "BYTE"}) == ":6\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "0", "-1"}) == ":26\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "-2", "-1"}) == ":7\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "3", "1"}) == ":0\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "100", "200"}) == ":0\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "-100", "-50"}) == ":4\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "0", "-100"}) == ":4\r\n");
}

TEST_CASE("BITCOUNT bit ranges") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "foobar"}) == "+OK\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "5", "30", "BIT"}) == ":17\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "-2", "-1", "BIT"}) == ":1\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "0", "-1", "bit"}) == ":26\r\n");
}

TEST_CASE("BITCOUNT of a missing key is 0 whatever the arguments") {
  CommandFixture f;
  CHECK(f.Run({"BITCOUNT", "nokey"}) == ":0\r\n");
  CHECK(f.Run({"BITCOUNT", "nokey", "0", "-1"}) == ":0\r\n");
  CHECK(f.Run({"BITCOUNT", "nokey", "a", "b"}) == ":0\r\n");
  CHECK(f.Run({"BITCOUNT", "nokey", "0"}) == ":0\r\n");
}

TEST_CASE("BITCOUNT errors") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "foobar"}) == "+OK\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "0"}) == kSyntax);
  CHECK(f.Run({"BITCOUNT", "s", "0", "1", "FOO"}) == kSyntax);
  CHECK(f.Run({"BITCOUNT", "s", "0", "1", "BYTE", "x"}) == kSyntax);
  CHECK(f.Run({"BITCOUNT", "s", "a", "b"}) == kNotInt);
  CHECK(f.Run({"BITCOUNT", "s", "0", "b"}) == kNotInt);
  CHECK(f.Run({"BITCOUNT", "s", "0", "+1"}) == kNotInt);
  CHECK(f.Run({"BITCOUNT"}) == Arity("bitcount"));
}

TEST_CASE("BITCOUNT: negative start after end answers 0 before checking the unit") {
  CommandFixture f;
  CHECK(f.Run({"SET", "s", "foobar"}) == "+OK\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "-1", "-2", "FOO"}) == ":0\r\n");
  CHECK(f.Run({"BITCOUNT", "s", "-1", "-2", "BIT"}) == ":0\r\n");
}

// ---- BITPOS ---------------------------------------------------------------------------------

TEST_CASE("BITPOS whole string") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "\xff\xf0\x00"s}) == "+OK\r\n");
  CHECK(f.Run({"BITPOS", "k", "0"}) == ":12\r\n");
  CHECK(f.Run({"BITPOS", "k", "1"}) == ":0\r\n");
  CHECK(f.Run({"SET", "z", "\x00\x00"s}) == "+OK\r\n");
  CHECK(f.Run({"BITPOS", "z", "1"}) == ":-1\r\n");
  CHECK(f.Run({"BITPOS", "z", "0"}) == ":0\r\n");
}

TEST_CASE("BITPOS byte and bit ranges") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "\x00\xff\xf0"s}) == "+OK\r\n");
  CHECK(f.Run({"BITPOS", "k", "1", "0"}) == ":8\r\n");
  CHECK(f.Run({"BITPOS", "k", "1", "2"}) == ":16\r\n");
  CHECK(f.Run({"BITPOS", "k", "1", "2", "-1", "BYTE"}) == ":16\r\n");
  CHECK(f.Run({"BITPOS", "k", "1", "7", "15", "BIT"}) == ":8\r\n");
  CHECK(f.Run({"BITPOS", "k", "1", "7", "-3", "bit"}) == ":8\r\n");
  CHECK(f.Run({"BITPOS", "k", "1", "20", "23", "BIT"}) == ":-1\r\n");
  CHECK(f.Run({"BITPOS", "k", "1", "5", "1"}) == ":-1\r\n");
}

TEST_CASE("BITPOS clear bit in all ones: past the end without an end, -1 with one") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "\xff\xff\xff"}) == "+OK\r\n");
  CHECK(f.Run({"BITPOS", "k", "0"}) == ":24\r\n");
  CHECK(f.Run({"BITPOS", "k", "0", "1"}) == ":24\r\n");
  CHECK(f.Run({"BITPOS", "k", "0", "0", "-1"}) == ":-1\r\n");
  CHECK(f.Run({"BITPOS", "k", "0", "0", "23", "BIT"}) == ":-1\r\n");
  CHECK(f.Run({"BITPOS", "k", "0", "3"}) == ":-1\r\n");
}

TEST_CASE("BITPOS of an empty string is -1, of a missing key 0 or -1") {
  CommandFixture f;
  CHECK(f.Run({"SET", "e", ""}) == "+OK\r\n");
  CHECK(f.Run({"BITPOS", "e", "0"}) == ":-1\r\n");
  CHECK(f.Run({"BITPOS", "e", "1"}) == ":-1\r\n");
  CHECK(f.Run({"BITPOS", "nokey", "0"}) == ":0\r\n");
  CHECK(f.Run({"BITPOS", "nokey", "1"}) == ":-1\r\n");
  CHECK(f.Run({"BITPOS", "nokey", "0", "5"}) == ":0\r\n");
  CHECK(f.Run({"BITPOS", "nokey", "1", "a"}) == ":-1\r\n");  // range ignored
}

TEST_CASE("BITPOS errors, in Redis's order") {
  CommandFixture f;
  CHECK(f.Run({"SET", "k", "foobar"}) == "+OK\r\n");
  CHECK(f.Run({"BITPOS", "k", "2"}) == kBitArg);
  CHECK(f.Run({"BITPOS", "k", "-1"}) == kBitArg);
  CHECK(f.Run({"BITPOS", "nokey", "2"}) == kBitArg);
  CHECK(f.Run({"BITPOS", "k", "x"}) == kNotInt);
  CHECK(f.Run({"BITPOS", "k", "01"}) == kNotInt);
  CHECK(f.Run({"BITPOS", "k", "1", "a"}) == kNotInt);
  CHECK(f.Run({"BITPOS", "k", "1", "0", "a"}) == kNotInt);
  CHECK(f.Run({"BITPOS", "k", "1", "a", "0", "FOO"}) == kNotInt);  // start before unit
  CHECK(f.Run({"BITPOS", "k", "1", "0", "a", "FOO"}) == kSyntax);  // unit before end
  CHECK(f.Run({"BITPOS", "k", "1", "0", "1", "FOO"}) == kSyntax);
  CHECK(f.Run({"BITPOS", "k", "1", "0", "1", "BIT", "x"}) == kSyntax);
  CHECK(f.Run({"BITPOS", "k"}) == Arity("bitpos"));
}

// ---- BITOP ----------------------------------------------------------------------------------

TEST_CASE("BITOP AND OR XOR pad shorter sources with zeros") {
  CommandFixture f;
  CHECK(f.Run({"SET", "a", "\xff\x0f"}) == "+OK\r\n");
  CHECK(f.Run({"SET", "b", "\x0f"}) == "+OK\r\n");
  CHECK(f.Run({"BITOP", "AND", "d", "a", "b"}) == ":2\r\n");
  CHECK(f.Run({"GET", "d"}) == Bulk("\x0f\x00"s));
  CHECK(f.Run({"BITOP", "or", "d", "a", "b"}) == ":2\r\n");
  CHECK(f.Run({"GET", "d"}) == Bulk("\xff\x0f"));
  CHECK(f.Run({"BITOP", "Xor", "d", "a", "b"}) == ":2\r\n");
  CHECK(f.Run({"GET", "d"}) == Bulk("\xf0\x0f"));
}

TEST_CASE("BITOP NOT, also in place") {
  CommandFixture f;
  CHECK(f.Run({"SET", "a", "\xff\x0f\x00"s}) == "+OK\r\n");
  CHECK(f.Run({"BITOP", "NOT", "d", "a"}) == ":3\r\n");
  CHECK(f.Run({"GET", "d"}) == Bulk("\x00\xf0\xff"s));
  CHECK(f.Run({"BITOP", "NOT", "a", "a"}) == ":3\r\n");
  CHECK(f.Run({"GET", "a"}) == Bulk("\x00\xf0\xff"s));
}

TEST_CASE("BITOP over keys of many slots, missing ones empty") {
  CommandFixture f;
  CHECK(f.Run({"SET", "a", "\x01"}) == "+OK\r\n");
  CHECK(f.Run({"SET", "b", "\x02"}) == "+OK\r\n");
  CHECK(f.Run({"SET", "c", "\x04\x80"}) == "+OK\r\n");
  CHECK(f.Run({"BITOP", "OR", "d", "a", "b", "c", "nokey"}) == ":2\r\n");
  CHECK(f.Run({"GET", "d"}) == Bulk("\x07\x80"));
  CHECK(f.Run({"BITOP", "AND", "d", "a", "nokey"}) == ":1\r\n");
  CHECK(f.Run({"GET", "d"}) == Bulk("\x00"s));
  CHECK(f.Run({"BITOP", "XOR", "d", "c", "c", "a"}) == ":2\r\n");
  CHECK(f.Run({"GET", "d"}) == Bulk("\x01\x00"s));
}

TEST_CASE("BITOP with an empty result deletes the destination") {
  CommandFixture f;
  CHECK(f.Run({"SET", "d", "x"}) == "+OK\r\n");
  CHECK(f.Run({"BITOP", "AND", "d", "nokey", "nokey2"}) == ":0\r\n");
  CHECK(f.Run({"EXISTS", "d"}) == ":0\r\n");
  CHECK(f.Run({"SET", "d", "x"}) == "+OK\r\n");
  CHECK(f.Run({"BITOP", "NOT", "d", "nokey"}) == ":0\r\n");
  CHECK(f.Run({"EXISTS", "d"}) == ":0\r\n");
  CHECK(f.Run({"SET", "e", ""}) == "+OK\r\n");
  CHECK(f.Run({"SET", "d", "x"}) == "+OK\r\n");
  CHECK(f.Run({"BITOP", "OR", "d", "e"}) == ":0\r\n");
  CHECK(f.Run({"EXISTS", "d"}) == ":0\r\n");
}

TEST_CASE("BITOP overwrites the destination and drops its TTL") {
  CommandFixture f;
  CHECK(f.Run({"SET", "d", "old", "EX", "100"}) == "+OK\r\n");
  CHECK(f.Run({"SET", "a", "x"}) == "+OK\r\n");
  CHECK(f.Run({"BITOP", "OR", "d", "a"}) == ":1\r\n");
  CHECK(f.Run({"GET", "d"}) == Bulk("x"));
  CHECK(f.Run({"TTL", "d"}) == ":-1\r\n");
}

TEST_CASE("BITOP errors") {
  CommandFixture f;
  CHECK(f.Run({"SET", "a", "x"}) == "+OK\r\n");
  CHECK(f.Run({"BITOP", "NOT", "d", "a", "a"}) ==
        "-ERR BITOP NOT must be called with a single source key.\r\n");
  CHECK(f.Run({"BITOP", "FOO", "d", "a"}) == kSyntax);
  CHECK(f.Run({"BITOP", "FOO", "d", "a", "b"}) == kSyntax);
  CHECK(f.Run({"BITOP", "AND", "d"}) == Arity("bitop"));
  CHECK(f.Run({"BITOP", "NOT", "d"}) == Arity("bitop"));
  CHECK(f.Run({"EXISTS", "d"}) == ":0\r\n");
}

// ---- BITFIELD -------------------------------------------------------------------------------

TEST_CASE("BITFIELD SET and GET signed and unsigned fields, #N offsets") {
  CommandFixture f;
  CHECK(f.Run({"BITFIELD", "bf", "SET", "i8", "0", "-100"}) == "*1\r\n:0\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "GET", "i8", "0", "GET", "u8", "0"}) ==
        "*2\r\n:-100\r\n:156\r\n");
  CHECK(f.Run({"GET", "bf"}) == Bulk("\x9c"));
  CHECK(f.Run({"BITFIELD", "bf", "SET", "u8", "#1", "255", "GET", "u8", "#1", "GET", "u4", "8",
               "GET", "i4", "8"}) == "*4\r\n:0\r\n:255\r\n:15\r\n:-1\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "SET", "u4", "#3", "5"}) == "*1\r\n:15\r\n");
  CHECK(f.Run({"GET", "bf"}) == Bulk("\x9c\xf5"));
}

TEST_CASE("BITFIELD unaligned and 64-bit fields") {
  CommandFixture f;
  CHECK(f.Run({"BITFIELD", "bf", "SET", "u5", "3", "31"}) == "*1\r\n:0\r\n");
  CHECK(f.Run({"GET", "bf"}) == Bulk("\x1f"));
  CHECK(f.Run({"BITFIELD", "bf", "SET", "i64", "0", "-1"}) ==
        "*1\r\n:2233785415175766016\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "GET", "i64", "0", "GET", "u63", "0", "GET", "u1", "63"}) ==
        "*3\r\n:-1\r\n:9223372036854775807\r\n:1\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "GET", "u8", "4294967288"}) == "*1\r\n:0\r\n");
}

TEST_CASE("BITFIELD INCRBY with OVERFLOW WRAP, SAT and FAIL") {
  CommandFixture f;
  CHECK(f.Run({"BITFIELD", "bf", "SET", "i8", "0", "-100"}) == "*1\r\n:0\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "INCRBY", "i8", "0", "-100"}) == "*1\r\n:56\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-100"}) ==
        "*1\r\n:-44\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "overflow", "sat", "incrby", "i8", "0", "-100"}) ==
        "*1\r\n:-128\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "-1"}) ==
        "*1\r\n$-1\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "GET", "i8", "0"}) == "*1\r\n:-128\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "OVERFLOW", "WRAP", "INCRBY", "u8", "0", "300"}) ==
        "*1\r\n:172\r\n");
}

TEST_CASE("BITFIELD OVERFLOW applies to the ops after it") {
  CommandFixture f;
  CHECK(f.Run({"BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "u2", "100", "1", "INCRBY", "u2",
               "100", "1", "INCRBY", "u2", "100", "1", "INCRBY", "u2", "100", "1", "OVERFLOW",
               "FAIL", "INCRBY", "u2", "102", "1", "INCRBY", "u2", "102", "1", "INCRBY", "u2",
               "102", "1", "INCRBY", "u2", "102", "1", "OVERFLOW", "WRAP", "INCRBY", "u2", "104",
               "1", "INCRBY", "u2", "104", "1", "INCRBY", "u2", "104", "1", "INCRBY", "u2", "104",
               "1"}) ==
        "*12\r\n:1\r\n:2\r\n:3\r\n:3\r\n:1\r\n:2\r\n:3\r\n$-1\r\n:1\r\n:2\r\n:3\r\n:0\r\n");
}

TEST_CASE("BITFIELD SET overflow and unsigned values taken as 64-bit") {
  CommandFixture f;
  CHECK(f.Run({"BITFIELD", "bf", "SET", "i8", "0", "200", "GET", "i8", "0"}) ==
        "*2\r\n:0\r\n:-56\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "OVERFLOW", "SAT", "SET", "i8", "0", "200", "GET", "i8",
               "0"}) == "*2\r\n:-56\r\n:127\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "OVERFLOW", "FAIL", "SET", "i8", "0", "-200", "GET", "i8",
               "0"}) == "*2\r\n$-1\r\n:127\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "OVERFLOW", "SAT", "SET", "u8", "0", "-1", "GET", "u8",
               "0"}) == "*2\r\n:127\r\n:255\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "SET", "u8", "0", "256", "GET", "u8", "0"}) ==
        "*2\r\n:255\r\n:0\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "OVERFLOW", "SAT", "SET", "i8", "0", "-9223372036854775808",
               "GET", "i8", "0"}) == "*2\r\n:0\r\n:127\r\n");  // Redis's quirk
}

TEST_CASE("BITFIELD i64 INCRBY wraps") {
  CommandFixture f;
  CHECK(f.Run({"BITFIELD", "bf", "INCRBY", "i64", "0", "9223372036854775807", "INCRBY", "i64",
               "0", "9223372036854775807"}) == "*2\r\n:9223372036854775807\r\n:-2\r\n");
}

TEST_CASE("BITFIELD GET on a missing key does not create it") {
  CommandFixture f;
  CHECK(f.Run({"BITFIELD", "nokey", "GET", "u8", "0"}) == "*1\r\n:0\r\n");
  CHECK(f.Run({"BITFIELD", "nokey"}) == "*0\r\n");
  CHECK(f.Run({"EXISTS", "nokey"}) == ":0\r\n");
}

TEST_CASE("BITFIELD write that fails still creates the key, as Redis") {
  CommandFixture f;
  CHECK(f.Run({"BITFIELD", "nokey", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "5"}) ==
        "*1\r\n$-1\r\n");
  CHECK(f.Run({"GET", "nokey"}) == Bulk("\x00"s));
}

TEST_CASE("BITFIELD keeps the key's TTL") {
  CommandFixture f;
  CHECK(f.Run({"SET", "bf", "a", "PX", "5000"}) == "+OK\r\n");
  CHECK(f.Run({"BITFIELD", "bf", "SET", "u8", "8", "1"}) == "*1\r\n:0\r\n");
  CHECK(f.Run({"PTTL", "bf"}) == ":5000\r\n");
}

TEST_CASE("BITFIELD replies nil as RESP3 null") {
  CommandFixture f;
  CHECK(f.Run({"HELLO", "3"}).rfind("%", 0) == 0);
  CHECK(f.Run({"BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "5"}) ==
        "*1\r\n_\r\n");
}

TEST_CASE("BITFIELD errors leave the key untouched") {
  CommandFixture f;
  CHECK(f.Run({"SET", "bf", "\x00"s}) == "+OK\r\n");
  auto run = [&](std::vector<std::string> rest) {
    std::vector<std::string> args = {"BITFIELD", "bf"};
    args.insert(args.end(), rest.begin(), rest.end());
    return f.Run(args);
  };
  CHECK(run({"SET", "u64", "0", "1"}) == kBadType);
  CHECK(run({"GET", "i65", "0"}) == kBadType);
  CHECK(run({"GET", "x8", "0"}) == kBadType);
  CHECK(run({"GET", "I8", "0"}) == kBadType);
  CHECK(run({"GET", "i0", "0"}) == kBadType);
  CHECK(run({"GET", "u", "0"}) == kBadType);
  CHECK(run({"GET", "u8", "-1"}) == kBadOffset);
  CHECK(run({"GET", "u8", "#-1"}) == kBadOffset);
  CHECK(run({"GET", "u8", "a"}) == kBadOffset);
  CHECK(run({"GET", "u8", "4294967296"}) == kBadOffset);
  CHECK(run({"GET", "u8", "#536870912"}) == kBadOffset);
  CHECK(run({"SET", "u8", "0", "a"}) == kNotInt);
  CHECK(run({"SET", "i64", "0", "9223372036854775808"}) == kNotInt);
  CHECK(run({"INCRBY", "u8", "0", "a"}) == kNotInt);
  CHECK(run({"OVERFLOW", "FOO", "GET", "u8", "0"}) ==
        "-ERR Invalid OVERFLOW type specified\r\n");
  CHECK(run({"GET", "u8", "0", "OVERFLOW", "FOO"}) ==
        "-ERR Invalid OVERFLOW type specified\r\n");
  CHECK(run({"OVERFLOW"}) == kSyntax);
  CHECK(run({"FOO"}) == kSyntax);
  CHECK(run({"GET", "u8"}) == kSyntax);
  CHECK(run({"SET", "u8", "0"}) == kSyntax);
  CHECK(run({"SET", "u8", "0", "1", "GET", "x8", "0"}) == kBadType);
  CHECK(run({"SET", "u8", "0", "1", "GET", "i8"}) == kSyntax);
  CHECK(f.Run({"GET", "bf"}) == Bulk("\x00"s));
  CHECK(f.Run({"BITFIELD"}) == Arity("bitfield"));
}

// ---- BITFIELD_RO ----------------------------------------------------------------------------

TEST_CASE("BITFIELD_RO runs GETs") {
  CommandFixture f;
  CHECK(f.Run({"SET", "bf", "\xff\x01"}) == "+OK\r\n");
  CHECK(f.Run({"BITFIELD_RO", "bf", "GET", "u8", "0", "GET", "i8", "8"}) ==
        "*2\r\n:255\r\n:1\r\n");
  CHECK(f.Run({"BITFIELD_RO", "bf"}) == "*0\r\n");
  CHECK(f.Run({"BITFIELD_RO", "nokey", "GET", "u4", "0"}) == "*1\r\n:0\r\n");
  CHECK(f.Run({"BITFIELD_RO", "bf", "OVERFLOW", "SAT", "GET", "u4", "0"}) == "*1\r\n:15\r\n");
}

TEST_CASE("BITFIELD_RO refuses SET and INCRBY after parsing them") {
  CommandFixture f;
  CHECK(f.Run({"SET", "bf", "\xff\x01"}) == "+OK\r\n");
  const std::string ro = "-ERR BITFIELD_RO only supports the GET subcommand\r\n";
  CHECK(f.Run({"BITFIELD_RO", "bf", "SET", "u8", "0", "1"}) == ro);
  CHECK(f.Run({"BITFIELD_RO", "bf", "INCRBY", "u8", "0", "1"}) == ro);
  CHECK(f.Run({"BITFIELD_RO", "bf", "SET", "u8", "0", "a"}) == kNotInt);
  CHECK(f.Run({"BITFIELD_RO", "bf", "GET", "u8"}) == kSyntax);
  CHECK(f.Run({"BITFIELD_RO", "bf", "GET", "u64", "0"}) == kBadType);
  CHECK(f.Run({"BITFIELD_RO"}) == Arity("bitfield_ro"));
  CHECK(f.Run({"GET", "bf"}) == Bulk("\xff\x01"));
}

// ---- Table ----------------------------------------------------------------------------------

TEST_CASE("bitmap commands in the table: arity, flags, keys") {
  CommandFixture f;
  const CommandTable& t = *f.state().table;
  struct Row {
    const char* name;
    int arity;
    uint32_t flags;
    int first, last;
  };
  for (const Row& r : {Row{"setbit", 4, kWrite | kDenyOom, 1, 1},
                       Row{"getbit", 3, kReadOnly | kFast, 1, 1},
                       Row{"bitcount", -2, kReadOnly, 1, 1}, Row{"bitpos", -3, kReadOnly, 1, 1},
                       Row{"bitop", -4, kWrite | kDenyOom, 2, -1},
                       Row{"bitfield", -2, kWrite | kDenyOom, 1, 1},
                       Row{"bitfield_ro", -2, kReadOnly | kFast, 1, 1}}) {
    const CommandSpec* spec = t.Find(r.name);
    REQUIRE(spec != nullptr);
    CHECK(spec->arity == r.arity);
    CHECK(spec->flags == r.flags);
    CHECK(spec->first_key == r.first);
    CHECK(spec->last_key == r.last);
    CHECK(spec->step == 1);
    CHECK(spec->group == "bitmap");
  }
}

}  // namespace
}  // namespace slotkv::command
