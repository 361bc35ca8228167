// The stream family: XADD XRANGE XREVRANGE XLEN XDEL XTRIM XSETID, consumer groups, XREAD /
// XREADGROUP (blocking too) and XINFO. Expected replies are redis-server 7.0.15's; times come
// from the fixture's ManualClock (1700000000000 at the start).
#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

const std::string kNullArray = "*-1\r\n";
const std::string kNotAbove =
    Err("ERR The ID specified in XADD is equal or smaller than the target stream top item");
const std::string kBadId = Err("ERR Invalid stream ID specified as stream command argument");
const std::string kNoPending = "*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n";  // XPENDING's summary
const std::optional<int64_t> kUnknown;                               // entries-read or lag: nil

// Runs the test case twice (doctest subcases): streams as one value, then paged from 3 entries
// on with 2 entries per page. Returns whether streams are paged.
bool StreamForms(CommandFixture& f) {
  bool paged = false;
  SUBCASE("one value") {}
  SUBCASE("paged") {
    REQUIRE(f.Run({"CONFIG", "SET", "paged-collection-threshold", "2", "paged-page-members",
                   "2"}) == kOk);
    paged = true;
  }
  return paged;
}
// Whether some collection has pages.
bool HasPages(CommandFixture& f) {
  return f.Run({"INFO", "keyspace"}).find("slotkv_internal_keys:") != std::string::npos;
}

// An array of replies.
std::string Seq(const std::vector<std::string>& items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const std::string& s : items) out += s;
  return out;
}
// A map in RESP2 of n fields F(name, value) ...: a flat array.
std::string Map(int n, const std::string& fields) {
  return "*" + std::to_string(2 * n) + "\r\n" + fields;
}
std::string F(const std::string& name, const std::string& value) { return Bulk(name) + value; }
// An entry: [id, [field, value ...]].
std::string Entry(const std::string& id, const std::vector<std::string>& fields) {
  return Seq({Bulk(id), Arr(fields)});
}
// Entry n-0 {f: n}, as Fill adds it.
std::string E(int n) { return Entry(std::to_string(n) + "-0", {"f", std::to_string(n)}); }
// An XREAD / XREADGROUP stream: [key, [entry ...]].
std::string Stream(const std::string& key, const std::vector<std::string>& entries) {
  return Seq({Bulk(key), Seq(entries)});
}
// An XREAD / XREADGROUP reply of one stream.
std::string Read(const std::string& key, const std::vector<std::string>& entries) {
  return Seq({Stream(key, entries)});
}
// An extended XPENDING row (and a group's pending row in XINFO STREAM FULL, with the delivery
// time for the idle time).
std::string Pending(const std::string& id, const std::string& consumer, int64_t idle,
                    int64_t count) {
  return Seq({Bulk(id), Bulk(consumer), Int(idle), Int(count)});
}
std::string IntOrNull(std::optional<int64_t> v) { return v ? Int(*v) : kNull; }

// XINFO STREAM of a stream without groups (radix-tree figures: slotkv's stand-in from the
// length, which Redis's match for the streams here).
std::string InfoStream(int64_t length, const std::string& last, const std::string& max_deleted,
                       int64_t added, const std::string& first,
                       const std::string& first_entry = kNull,
                       const std::string& last_entry = kNull) {
  const int64_t keys = (length + 99) / 100;
  return Map(10, F("length", Int(length)) + F("radix-tree-keys", Int(keys)) +
                     F("radix-tree-nodes", Int(keys + 1)) + F("last-generated-id", Bulk(last)) +
                     F("max-deleted-entry-id", Bulk(max_deleted)) + F("entries-added", Int(added)) +
                     F("recorded-first-entry-id", Bulk(first)) + F("groups", Int(0)) +
                     F("first-entry", first_entry) + F("last-entry", last_entry));
}
// One group of XINFO GROUPS.
std::string Group(const std::string& name, int64_t consumers, int64_t pending,
                  const std::string& last, std::optional<int64_t> read,
                  std::optional<int64_t> lag) {
  return Map(6, F("name", Bulk(name)) + F("consumers", Int(consumers)) +
                    F("pending", Int(pending)) + F("last-delivered-id", Bulk(last)) +
                    F("entries-read", IntOrNull(read)) + F("lag", IntOrNull(lag)));
}

// Adds entries n-0 {f: n} for n in [from, to].
void Fill(CommandFixture& f, const std::string& key, int from, int to) {
  for (int n = from; n <= to; ++n) {
    const std::string id = std::to_string(n) + "-0";
    REQUIRE(f.Run({"XADD", key, id, "f", std::to_string(n)}) == Bulk(id));
  }
}

// Waits until the fixture reports n blocked clients.
void WaitBlocked(CommandFixture& f, int n) {
  const std::string want = "blocked_clients:" + std::to_string(n) + "\r\n";
  for (int i = 0; i < 500; ++i) {
    if (f.Run({"INFO", "clients"}).find(want) != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  FAIL("clients never blocked: " << want);
}

TEST_CASE("XADD IDs: *, ms-*, explicit; 0-0, equal and smaller ones are refused") {
  CommandFixture f;
  StreamForms(f);
  CHECK(f.Run({"XADD", "s", "*", "a", "1"}) == Bulk("1700000000000-0"));
  CHECK(f.Run({"XADD", "s", "*", "b", "2"}) == Bulk("1700000000000-1"));
  f.clock().AdvanceMs(5);
  CHECK(f.Run({"XADD", "s", "*", "c", "3"}) == Bulk("1700000000005-0"));
  CHECK(f.Run({"XADD", "s", "1700000000005-*", "d", "4"}) == Bulk("1700000000005-1"));
  CHECK(f.Run({"XADD", "s", "1700000000009-*", "e", "5"}) == Bulk("1700000000009-0"));
  CHECK(f.Run({"XADD", "s", "1700000000009-7", "f", "6"}) == Bulk("1700000000009-7"));
  CHECK(f.Run({"XADD", "s", "1700000000009-7", "x", "y"}) == kNotAbove);
  CHECK(f.Run({"XADD", "s", "1700000000009", "x", "y"}) == kNotAbove);
  CHECK(f.Run({"XADD", "s", "1700000000008-*", "x", "y"}) == kNotAbove);
  const std::string zero = Err("ERR The ID specified in XADD must be greater than 0-0");
  CHECK(f.Run({"XADD", "s", "0-0", "x", "y"}) == zero);
  // The clock behind the last ID: * goes on from it.
  CHECK(f.Run({"XADD", "s", "*", "g", "7"}) == Bulk("1700000000009-8"));
  CHECK(f.Run({"XREVRANGE", "s", "+", "1700000000009-1", "COUNT", "5"}) ==
        Seq({Entry("1700000000009-8", {"g", "7"}), Entry("1700000000009-7", {"f", "6"})}));
  CHECK(f.Run({"XADD", "t", "0-0", "x", "y"}) == zero);
  CHECK(f.Run({"EXISTS", "t"}) == Int(0));
  CHECK(f.Run({"XADD", "t", "0-*", "x", "y"}) == Bulk("0-1"));
  const std::string top = "5-18446744073709551615";
  CHECK(f.Run({"XADD", "t", top, "x", "y"}) == Bulk(top));
  CHECK(f.Run({"XADD", "t", "5-*", "x", "y"}) == Err("ERR Elements are too large to be stored"));
  CHECK(f.Run({"XADD", "t", "6-*", "x", "y"}) == Bulk("6-0"));
  const std::string max = "18446744073709551615-18446744073709551615";
  CHECK(f.Run({"XADD", "t", max, "x", "y"}) == Bulk(max));
  const std::string exhausted =
      Err("ERR The stream has exhausted the last possible ID, unable to add more items");
  CHECK(f.Run({"XADD", "t", "*", "x", "y"}) == exhausted);
}

TEST_CASE("XADD NOMKSTREAM, fields that look like options, argument errors") {
  CommandFixture f;
  CHECK(f.Run({"XADD", "nope", "NOMKSTREAM", "*", "a", "1"}) == kNull);
  CHECK(f.Run({"EXISTS", "nope"}) == Int(0));
  CHECK(f.Run({"XADD", "s", "1-0", "a", "1"}) == Bulk("1-0"));
  CHECK(f.Run({"XADD", "s", "NOMKSTREAM", "5-0", "a", "1"}) == Bulk("5-0"));
  CHECK(f.Run({"XADD", "s", "12-0", "MAXLEN", "1", "a", "b"}) == Bulk("12-0"));
  CHECK(f.Run({"XRANGE", "s", "12", "12"}) == Seq({Entry("12-0", {"MAXLEN", "1", "a", "b"})}));
  CHECK(f.Run({"XADD", "s", "13-0", "a"}) == Arity("xadd"));
  CHECK(f.Run({"XADD", "s", "MAXLEN", "1", "MINID", "2", "*", "a", "1"}) ==
        Err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible"));
  CHECK(f.Run({"XADD", "s", "MAXLEN", "-1", "*", "a", "1"}) ==
        Err("ERR The MAXLEN argument must be >= 0."));
  CHECK(f.Run({"XADD", "s", "MAXLEN", "=", "1", "LIMIT", "5", "*", "a", "1"}) ==
        Err("ERR syntax error, LIMIT cannot be used without the special ~ option"));
  CHECK(f.Run({"XADD", "s", "LIMIT", "5", "*", "a", "1"}) ==
        Err("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"));
  CHECK(f.Run({"SET", "str", "v"}) == kOk);
  CHECK(f.Run({"XADD", "str", "*", "a", "1"}) == kWrongType);
  CHECK(f.Run({"XTRIM", "s", "MAXLEN", "~", "1", "LIMIT", "-1"}) ==
        Err("ERR The LIMIT argument must be >= 0."));
}

TEST_CASE("XADD / XTRIM MAXLEN and MINID: exact, and ~ by whole runs of 100 up to LIMIT") {
  CommandFixture f;
  const bool paged = StreamForms(f);
  Fill(f, "s", 1, 250);
  CHECK(HasPages(f) == paged);
  CHECK(f.Run({"XTRIM", "s", "MAXLEN", "~", "120"}) == Int(100));
  CHECK(f.Run({"XLEN", "s"}) == Int(150));
  CHECK(f.Run({"XTRIM", "s", "MAXLEN", "~", "10", "LIMIT", "99"}) == Int(0));
  CHECK(f.Run({"XTRIM", "s", "MAXLEN", "~", "10", "LIMIT", "150"}) == Int(100));
  CHECK(f.Run({"XLEN", "s"}) == Int(50));
  CHECK(f.Run({"XRANGE", "s", "-", "+", "COUNT", "1"}) == Seq({E(201)}));

  Fill(f, "m", 1, 250);
  CHECK(f.Run({"XTRIM", "m", "MINID", "~", "201"}) == Int(200));
  CHECK(f.Run({"XRANGE", "m", "-", "+", "COUNT", "1"}) == Seq({E(201)}));
  CHECK(f.Run({"XTRIM", "m", "MINID", "240"}) == Int(39));
  CHECK(f.Run({"XLEN", "m"}) == Int(11));
  CHECK(f.Run({"XTRIM", "m", "MAXLEN", "~", "0"}) == Int(11));
  CHECK(f.Run({"XINFO", "STREAM", "m"}) == InfoStream(0, "250-0", "0-0", 250, "0-0"));

  Fill(f, "a", 1, 250);
  CHECK(f.Run({"XADD", "a", "MAXLEN", "~", "50", "251-0", "f", "251"}) == Bulk("251-0"));
  CHECK(f.Run({"XLEN", "a"}) == Int(51));
  CHECK(f.Run({"XADD", "a", "MAXLEN", "~", "1", "LIMIT", "0", "252-0", "f", "252"}) ==
        Bulk("252-0"));
  CHECK(f.Run({"XLEN", "a"}) == Int(52));
  CHECK(f.Run({"XADD", "a", "MAXLEN", "=", "3", "253-0", "f", "253"}) == Bulk("253-0"));
  CHECK(f.Run({"XRANGE", "a", "-", "+"}) == Seq({E(251), E(252), E(253)}));
  CHECK(f.Run({"XTRIM", "a", "MINID", "=", "252"}) == Int(1));
  // The new entry itself may go.
  CHECK(f.Run({"XADD", "a", "MINID", "300", "254-0", "f", "254"}) == Bulk("254-0"));
  CHECK(f.Run({"XINFO", "STREAM", "a"}) == InfoStream(0, "254-0", "0-0", 254, "0-0"));
}

TEST_CASE("XRANGE / XREVRANGE: exclusive and incomplete bounds, COUNT") {
  CommandFixture f;
  const bool paged = StreamForms(f);
  const std::string e10 = Entry("1-0", {"a", "1"}), e11 = Entry("1-1", {"b", "2"});
  const std::string e25 = Entry("2-5", {"c", "3"}), e30 = Entry("3-0", {"d", "4"});
  CHECK(f.Run({"XADD", "s", "1-0", "a", "1"}) == Bulk("1-0"));
  CHECK(f.Run({"XADD", "s", "1-1", "b", "2"}) == Bulk("1-1"));
  CHECK(f.Run({"XADD", "s", "2-5", "c", "3"}) == Bulk("2-5"));
  CHECK(f.Run({"XADD", "s", "3-0", "d", "4"}) == Bulk("3-0"));
  CHECK(HasPages(f) == paged);
  CHECK(f.Run({"XRANGE", "s", "(1-0", "+"}) == Seq({e11, e25, e30}));
  CHECK(f.Run({"XRANGE", "s", "-", "(3-0"}) == Seq({e10, e11, e25}));
  CHECK(f.Run({"XRANGE", "s", "(1-0", "(2-5"}) == Seq({e11}));
  CHECK(f.Run({"XRANGE", "s", "1", "1"}) == Seq({e10, e11}));
  CHECK(f.Run({"XRANGE", "s", "-", "+", "COUNT", "2"}) == Seq({e10, e11}));
  CHECK(f.Run({"XRANGE", "s", "-", "+", "COUNT", "0"}) == kNullArray);
  CHECK(f.Run({"XRANGE", "s", "3", "1"}) == kEmptyArray);
  CHECK(f.Run({"XREVRANGE", "s", "+", "-", "COUNT", "2"}) == Seq({e30, e25}));
  CHECK(f.Run({"XREVRANGE", "s", "(3-0", "(1-0"}) == Seq({e25, e11}));
  CHECK(f.Run({"XREVRANGE", "s", "-", "+"}) == kEmptyArray);
  CHECK(f.Run({"XRANGE", "nope", "-", "+", "COUNT", "0"}) == kEmptyArray);
  for (const char* bad : {"(", "(-", "x", "1-x"}) {
    CHECK(f.Run({"XRANGE", "s", bad, "+"}) == kBadId);
  }
  CHECK(f.Run({"XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"}) ==
        Err("ERR invalid start ID for the interval"));
  CHECK(f.Run({"XRANGE", "s", "-", "(0-0"}) == Err("ERR invalid end ID for the interval"));
  CHECK(f.Run({"XRANGE", "s", "-", "+", "COUNT", "x"}) == kNotInt);
  CHECK(f.Run({"XRANGE", "s", "-", "+", "COUNT"}) == kSyntax);
}

TEST_CASE("XDEL moves max-deleted-entry-id and recorded-first-entry-id; the stream stays") {
  CommandFixture f;
  StreamForms(f);
  Fill(f, "s", 1, 4);
  CHECK(f.Run({"XDEL", "s", "2-0", "9-0", "2-0"}) == Int(1));
  CHECK(f.Run({"XINFO", "STREAM", "s"}) == InfoStream(3, "4-0", "2-0", 4, "1-0", E(1), E(4)));
  CHECK(f.Run({"XDEL", "s", "1-0"}) == Int(1));
  CHECK(f.Run({"XINFO", "STREAM", "s"}) == InfoStream(2, "4-0", "2-0", 4, "3-0", E(3), E(4)));
  CHECK(f.Run({"XDEL", "s", "4-0", "3-0"}) == Int(2));
  CHECK(f.Run({"XINFO", "STREAM", "s"}) == InfoStream(0, "4-0", "4-0", 4, "0-0"));
  CHECK(f.Run({"EXISTS", "s"}) == Int(1));
  CHECK(f.Run({"XDEL", "s", "x"}) == kBadId);
  CHECK(f.Run({"XDEL", "nope", "x"}) == Int(0));
  CHECK(f.Run({"XADD", "s", "4-0", "x", "y"}) == kNotAbove);
  Fill(f, "s", 5, 5);
  CHECK(f.Run({"XINFO", "STREAM", "s"}) == InfoStream(1, "5-0", "4-0", 5, "5-0", E(5), E(5)));
}

TEST_CASE("XSETID: errors, then last ID, entries added and max deleted ID") {
  CommandFixture f;
  Fill(f, "s", 5, 5);
  CHECK(f.Run({"XSETID", "s", "4-0"}) ==
        Err("ERR The ID specified in XSETID is smaller than the target stream top item"));
  CHECK(f.Run({"XSETID", "s", "5-0", "ENTRIESADDED", "0"}) ==
        Err("ERR The entries_added specified in XSETID is smaller than the target stream "
            "length"));
  CHECK(f.Run({"XSETID", "s", "6-0", "ENTRIESADDED", "-1"}) ==
        Err("ERR entries_added must be positive"));
  CHECK(f.Run({"XSETID", "s", "6-0", "MAXDELETEDID", "7-0"}) ==
        Err("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"));
  CHECK(f.Run({"XSETID", "nope", "1-0"}) == Err("ERR no such key"));
  CHECK(f.Run({"XSETID", "s", "10-0", "ENTRIESADDED", "10", "MAXDELETEDID", "8-0"}) == kOk);
  CHECK(f.Run({"XINFO", "STREAM", "s"}) == InfoStream(1, "10-0", "8-0", 10, "5-0", E(5), E(5)));
  CHECK(f.Run({"XADD", "s", "10-0", "x", "y"}) == kNotAbove);
  CHECK(f.Run({"XADD", "s", "10-*", "x", "y"}) == Bulk("10-1"));
}

TEST_CASE("XGROUP CREATE, SETID, DESTROY, CREATECONSUMER, DELCONSUMER and their errors") {
  CommandFixture f;
  const std::string need_key =
      Err("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want "
          "to use the MKSTREAM option to create an empty stream automatically.");
  const std::string no_group = Err("NOGROUP No such consumer group 'nog' for key name 's'");
  CHECK(f.Run({"XGROUP", "CREATE", "s", "g", "$"}) == need_key);
  CHECK(f.Run({"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}) == kOk);
  CHECK(f.Run({"XGROUP", "CREATE", "s", "g", "$"}) ==
        Err("BUSYGROUP Consumer Group name already exists"));
  CHECK(f.Run({"XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "-2"}) ==
        Err("ERR value for ENTRIESREAD must be positive or -1"));
  CHECK(f.Run({"XGROUP", "CREATE", "s"}) ==
        Err("ERR wrong number of arguments for 'xgroup|create' command"));
  Fill(f, "s", 1, 3);
  CHECK(f.Run({"XGROUP", "CREATECONSUMER", "s", "g", "alice"}) == Int(1));
  CHECK(f.Run({"XGROUP", "CREATECONSUMER", "s", "g", "alice"}) == Int(0));
  CHECK(f.Run({"XGROUP", "CREATECONSUMER", "s", "nog", "alice"}) == no_group);
  CHECK(f.Run({"XGROUP", "CREATE", "s", "g0", "0"}) == kOk);
  CHECK(f.Run({"XREADGROUP", "GROUP", "g0", "bob", "STREAMS", "s", ">"}) ==
        Read("s", {E(1), E(2), E(3)}));
  CHECK(f.Run({"XGROUP", "SETID", "s", "g0", "1-0"}) == kOk);
  CHECK(f.Run({"XINFO", "GROUPS", "s"}) ==
        Seq({Group("g", 1, 0, "0-0", kUnknown, 3), Group("g0", 1, 3, "1-0", kUnknown, 2)}));
  CHECK(f.Run({"XGROUP", "SETID", "s", "g0", "$", "ENTRIESREAD", "3"}) == kOk);
  CHECK(f.Run({"XGROUP", "SETID", "s", "nog", "0"}) == no_group);
  CHECK(f.Run({"XGROUP", "DELCONSUMER", "s", "g0", "bob"}) == Int(3));
  CHECK(f.Run({"XGROUP", "DELCONSUMER", "s", "g0", "bob"}) == Int(0));
  CHECK(f.Run({"XINFO", "GROUPS", "s"}) ==
        Seq({Group("g", 1, 0, "0-0", kUnknown, 3), Group("g0", 0, 0, "3-0", 3, 0)}));
  CHECK(f.Run({"XGROUP", "DESTROY", "s", "g0"}) == Int(1));
  CHECK(f.Run({"XGROUP", "DESTROY", "s", "g0"}) == Int(0));
}

TEST_CASE("XREADGROUP > and history, XACK, XPENDING summary and extended form") {
  CommandFixture f;
  StreamForms(f);
  Fill(f, "s", 1, 3);
  CHECK(f.Run({"XGROUP", "CREATE", "s", "g", "0"}) == kOk);
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "bob", "COUNT", "2", "STREAMS", "s", ">"}) ==
        Read("s", {E(1), E(2)}));
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"}) == Read("s", {E(3)}));
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"}) == kNullArray);
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", "0"}) ==
        Read("s", {E(1), E(2), E(3)}));
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", "1-0"}) ==
        Read("s", {E(2), E(3)}));
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "carol", "STREAMS", "s", "0"}) == Read("s", {}));
  CHECK(f.Run({"XPENDING", "s", "g"}) ==
        Seq({Int(3), Bulk("1-0"), Bulk("3-0"), Seq({Arr({"bob", "3"})})}));
  CHECK(f.Run({"XACK", "s", "g", "2-0", "9-0"}) == Int(1));
  CHECK(f.Run({"XACK", "nope", "g", "1-0"}) == Int(0));
  // A history read counts a delivery.
  const std::string all = Seq({Pending("1-0", "bob", 0, 2), Pending("3-0", "bob", 0, 3)});
  CHECK(f.Run({"XPENDING", "s", "g", "-", "+", "10"}) == all);
  CHECK(f.Run({"XPENDING", "s", "g", "-", "+", "10", "bob"}) == all);
  CHECK(f.Run({"XPENDING", "s", "g", "(1-0", "+", "10"}) == Seq({Pending("3-0", "bob", 0, 3)}));
  CHECK(f.Run({"XPENDING", "s", "g", "-", "+", "0"}) == kEmptyArray);
  CHECK(f.Run({"XPENDING", "s", "nog"}) == Err("NOGROUP No such key 's' or consumer group 'nog'"));
  CHECK(f.Run({"XPENDING", "s", "g", "IDLE", "x", "-", "+", "10"}) == kNotInt);
  // An entry deleted since its delivery: [id, nil] in the history, its count unchanged.
  CHECK(f.Run({"XDEL", "s", "1-0"}) == Int(1));
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", "0"}) ==
        Read("s", {Seq({Bulk("1-0"), kNullArray}), E(3)}));
  CHECK(f.Run({"XPENDING", "s", "g", "-", "+", "10"}) ==
        Seq({Pending("1-0", "bob", 0, 2), Pending("3-0", "bob", 0, 4)}));
  // NOACK delivers without making entries pending.
  CHECK(f.Run({"XGROUP", "CREATE", "s", "n", "$"}) == kOk);
  Fill(f, "s", 4, 4);
  CHECK(f.Run({"XREADGROUP", "GROUP", "n", "c", "NOACK", "STREAMS", "s", ">"}) ==
        Read("s", {E(4)}));
  CHECK(f.Run({"XPENDING", "s", "n"}) == kNoPending);
  CHECK(f.Run({"XGROUP", "DELCONSUMER", "s", "g", "bob"}) == Int(2));
  CHECK(f.Run({"XPENDING", "s", "g"}) == kNoPending);
}

TEST_CASE("XPENDING IDLE, XINFO CONSUMERS idle and XINFO STREAM FULL follow the clock") {
  CommandFixture f;
  const int64_t t0 = f.clock().NowMs();
  Fill(f, "s", 1, 3);
  CHECK(f.Run({"XGROUP", "CREATE", "s", "g", "0"}) == kOk);
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "s", ">"}) ==
        Read("s", {E(1), E(2)}));
  f.clock().AdvanceMs(1000);
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"}) == Read("s", {E(3)}));
  f.clock().AdvanceMs(500);
  CHECK(f.Run({"XPENDING", "s", "g", "IDLE", "1000", "-", "+", "10"}) ==
        Seq({Pending("1-0", "alice", 1500, 1), Pending("2-0", "alice", 1500, 1)}));
  CHECK(f.Run({"XPENDING", "s", "g", "IDLE", "600", "-", "+", "10", "bob"}) == kEmptyArray);
  CHECK(f.Run({"XPENDING", "s", "g", "IDLE", "500", "(1-0", "+", "10"}) ==
        Seq({Pending("2-0", "alice", 1500, 1), Pending("3-0", "bob", 500, 1)}));
  const auto consumer = [](const std::string& name, int64_t pending, int64_t idle) {
    return Map(3, F("name", Bulk(name)) + F("pending", Int(pending)) + F("idle", Int(idle)));
  };
  CHECK(f.Run({"XINFO", "CONSUMERS", "s", "g"}) ==
        Seq({consumer("alice", 2, 1500), consumer("bob", 1, 500)}));
  CHECK(f.Run({"XINFO", "CONSUMERS", "s", "nog"}) ==
        Err("NOGROUP No such consumer group 'nog' for key name 's'"));
  // FULL: delivery and seen times are the clock's; COUNT 1 cuts every list to one.
  const std::string t1 = Int(t0 + 1000);
  const std::string alice =
      Map(4, F("name", Bulk("alice")) + F("seen-time", Int(t0)) + F("pel-count", Int(2)) +
                 F("pending", Seq({Seq({Bulk("1-0"), Int(t0), Int(1)})})));
  const std::string bob =
      Map(4, F("name", Bulk("bob")) + F("seen-time", t1) + F("pel-count", Int(1)) +
                 F("pending", Seq({Seq({Bulk("3-0"), t1, Int(1)})})));
  const std::string group =
      Map(7, F("name", Bulk("g")) + F("last-delivered-id", Bulk("3-0")) +
                 F("entries-read", Int(3)) + F("lag", Int(0)) + F("pel-count", Int(3)) +
                 F("pending", Seq({Pending("1-0", "alice", t0, 1)})) +
                 F("consumers", Seq({alice, bob})));
  CHECK(f.Run({"XINFO", "STREAM", "s", "FULL", "COUNT", "1"}) ==
        Map(9, F("length", Int(3)) + F("radix-tree-keys", Int(1)) + F("radix-tree-nodes", Int(2)) +
                   F("last-generated-id", Bulk("3-0")) + F("max-deleted-entry-id", Bulk("0-0")) +
                   F("entries-added", Int(3)) + F("recorded-first-entry-id", Bulk("1-0")) +
                   F("entries", Seq({E(1)})) + F("groups", Seq({group}))));
  CHECK(f.Run({"XINFO", "STREAM", "s", "FULL", "COUNT"}) ==
        Err("ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP."));
  CHECK(f.Run({"XINFO", "GROUPS", "nope"}) == Err("ERR no such key"));
}

TEST_CASE("XCLAIM: min idle, IDLE, TIME, RETRYCOUNT, FORCE, JUSTID, LASTID, deleted entries") {
  CommandFixture f;
  StreamForms(f);
  const int64_t t0 = f.clock().NowMs();
  Fill(f, "s", 1, 4);
  CHECK(f.Run({"XGROUP", "CREATE", "s", "g", "0"}) == kOk);
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">"}) ==
        Read("s", {E(1), E(2), E(3), E(4)}));
  f.clock().AdvanceMs(1000);
  CHECK(f.Run({"XCLAIM", "s", "g", "bob", "2000", "1-0"}) == kEmptyArray);
  CHECK(f.Run({"XCLAIM", "s", "g", "bob", "500", "1-0"}) == Seq({E(1)}));
  CHECK(f.Run({"XCLAIM", "s", "g", "bob", "0", "2-0", "JUSTID"}) == Seq({Bulk("2-0")}));
  CHECK(f.Run({"XCLAIM", "s", "g", "bob", "0", "3-0", "RETRYCOUNT", "7", "IDLE", "5000"}) ==
        Seq({E(3)}));
  CHECK(f.Run({"XCLAIM", "s", "g", "bob", "0", "4-0", "TIME", std::to_string(t0 + 700),
               "JUSTID"}) == Seq({Bulk("4-0")}));
  CHECK(f.Run({"XPENDING", "s", "g", "-", "+", "10"}) ==
        Seq({Pending("1-0", "bob", 0, 2), Pending("2-0", "bob", 0, 1),
             Pending("3-0", "bob", 5000, 7), Pending("4-0", "bob", 300, 1)}));
  CHECK(f.Run({"XCLAIM", "s", "g", "bob", "0", "9-0", "FORCE"}) == kEmptyArray);
  // A deleted entry is not claimed and leaves the PEL.
  CHECK(f.Run({"XDEL", "s", "4-0"}) == Int(1));
  CHECK(f.Run({"XCLAIM", "s", "g", "bob", "0", "4-0"}) == kEmptyArray);
  CHECK(f.Run({"XPENDING", "s", "g"}) ==
        Seq({Int(3), Bulk("1-0"), Bulk("3-0"), Seq({Arr({"bob", "3"})})}));
  Fill(f, "s", 5, 5);
  CHECK(f.Run({"XCLAIM", "s", "g", "carol", "0", "5-0", "FORCE"}) == Seq({E(5)}));
  CHECK(f.Run({"XPENDING", "s", "g", "5", "5", "1"}) == Seq({Pending("5-0", "carol", 0, 2)}));
  CHECK(f.Run({"XCLAIM", "s", "g", "carol", "0", "5-0", "FORCE", "JUSTID", "LASTID", "9-0"}) ==
        Seq({Bulk("5-0")}));
  CHECK(f.Run({"XINFO", "GROUPS", "s"}) == Seq({Group("g", 3, 4, "9-0", 4, 1)}));
  CHECK(f.Run({"XCLAIM", "s", "g", "carol", "x", "1-0"}) ==
        Err("ERR Invalid min-idle-time argument for XCLAIM"));
  for (const char* opt : {"IDLE", "TIME", "RETRYCOUNT"}) {
    CHECK(f.Run({"XCLAIM", "s", "g", "carol", "0", "1-0", opt, "x"}) ==
          Err("ERR Invalid " + std::string(opt) + " option argument for XCLAIM"));
  }
  CHECK(f.Run({"XCLAIM", "s", "g", "carol", "0", "x"}) ==
        Err("ERR Unrecognized XCLAIM option 'x'"));
}

TEST_CASE("XAUTOCLAIM: cursor, COUNT, JUSTID, min idle, deleted entries leave the PEL") {
  CommandFixture f;
  StreamForms(f);
  Fill(f, "s", 1, 5);
  CHECK(f.Run({"XGROUP", "CREATE", "s", "g", "0"}) == kOk);
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">"}) ==
        Read("s", {E(1), E(2), E(3), E(4), E(5)}));
  // Nothing idle enough: nothing claimed, and no consumer made.
  CHECK(f.Run({"XAUTOCLAIM", "s", "g", "bob", "1", "0"}) ==
        Seq({Bulk("0-0"), kEmptyArray, kEmptyArray}));
  CHECK(f.Run({"XINFO", "GROUPS", "s"}) == Seq({Group("g", 1, 5, "5-0", 5, 0)}));
  CHECK(f.Run({"XDEL", "s", "2-0", "4-0"}) == Int(2));
  f.clock().AdvanceMs(10);
  CHECK(f.Run({"XAUTOCLAIM", "s", "g", "bob", "5", "0", "COUNT", "2"}) ==
        Seq({Bulk("3-0"), Seq({E(1)}), Seq({Bulk("2-0")})}));
  CHECK(f.Run({"XAUTOCLAIM", "s", "g", "bob", "5", "3-0", "COUNT", "2"}) ==
        Seq({Bulk("5-0"), Seq({E(3)}), Seq({Bulk("4-0")})}));
  CHECK(f.Run({"XAUTOCLAIM", "s", "g", "bob", "5", "-", "JUSTID"}) ==
        Seq({Bulk("0-0"), Seq({Bulk("5-0")}), kEmptyArray}));
  CHECK(f.Run({"XAUTOCLAIM", "s", "g", "carol", "0", "(1-0", "COUNT", "1", "JUSTID"}) ==
        Seq({Bulk("5-0"), Seq({Bulk("3-0")}), kEmptyArray}));
  // JUSTID does not count a delivery.
  CHECK(f.Run({"XPENDING", "s", "g", "-", "+", "10"}) ==
        Seq({Pending("1-0", "bob", 0, 2), Pending("3-0", "carol", 0, 2),
             Pending("5-0", "bob", 0, 1)}));
  CHECK(f.Run({"XAUTOCLAIM", "s", "g", "bob", "0", "0", "COUNT", "0"}) ==
        Err("ERR COUNT must be > 0"));
  CHECK(f.Run({"XAUTOCLAIM", "s", "nog", "bob", "0", "0"}) ==
        Err("NOGROUP No such key 's' or consumer group 'nog'"));
}

TEST_CASE("XINFO GROUPS: entries-read and lag across XDEL") {
  CommandFixture f;
  StreamForms(f);
  Fill(f, "s", 1, 5);
  for (const char* g : {"g", "h"}) CHECK(f.Run({"XGROUP", "CREATE", "s", g, "0"}) == kOk);
  CHECK(f.Run({"XGROUP", "CREATE", "s", "k", "$"}) == kOk);
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", "s", ">"}) ==
        Read("s", {E(1), E(2)}));
  const std::string k = Group("k", 0, 0, "5-0", kUnknown, 0);
  CHECK(f.Run({"XINFO", "GROUPS", "s"}) ==
        Seq({Group("g", 1, 2, "2-0", 2, 3), Group("h", 0, 0, "0-0", kUnknown, 5), k}));
  CHECK(f.Run({"XDEL", "s", "1-0"}) == Int(1));  // before every group: lags stay known
  CHECK(f.Run({"XINFO", "GROUPS", "s"}) ==
        Seq({Group("g", 1, 2, "2-0", 2, 3), Group("h", 0, 0, "0-0", kUnknown, 4), k}));
  CHECK(f.Run({"XDEL", "s", "4-0"}) == Int(1));  // ahead of g and h: their lags are unknown
  CHECK(f.Run({"XINFO", "GROUPS", "s"}) == Seq({Group("g", 1, 2, "2-0", 2, kUnknown),
                                                Group("h", 0, 0, "0-0", kUnknown, kUnknown), k}));
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"}) == Read("s", {E(3), E(5)}));
  CHECK(f.Run({"XREADGROUP", "GROUP", "h", "c", "COUNT", "1", "STREAMS", "s", ">"}) ==
        Read("s", {E(2)}));
  Fill(f, "s", 6, 6);
  CHECK(f.Run({"XINFO", "GROUPS", "s"}) ==
        Seq({Group("g", 1, 4, "5-0", 5, 1), Group("h", 1, 1, "2-0", kUnknown, kUnknown),
             Group("k", 0, 0, "5-0", kUnknown, kUnknown)}));
  // An empty stream: the lags are known again.
  CHECK(f.Run({"XDEL", "s", "2-0", "3-0", "5-0", "6-0"}) == Int(4));
  CHECK(f.Run({"XINFO", "GROUPS", "s"}) ==
        Seq({Group("g", 1, 4, "5-0", 5, 1), Group("h", 1, 1, "2-0", kUnknown, 0),
             Group("k", 0, 0, "5-0", kUnknown, 0)}));
}

TEST_CASE("XREAD reads keys of every worker; $, COUNT and the errors") {
  CommandFixture f;
  StreamForms(f);
  std::vector<std::string> read = {"XREAD", "COUNT", "2", "STREAMS"}, ids, expected;
  for (char c = 'a'; c <= 'h'; ++c) {
    const std::string key = std::string("{") + c + "}s";
    Fill(f, key, 1, 3);
    read.push_back(key);
    ids.push_back(c % 2 == 0 ? "0" : "2");
    expected.push_back(c % 2 == 0 ? Stream(key, {E(1), E(2)}) : Stream(key, {E(3)}));
  }
  read.push_back("nope");
  read.insert(read.end(), ids.begin(), ids.end());
  read.push_back("0");
  CHECK(f.Run(read) == Seq(expected));
  CHECK(f.Run({"XREAD", "STREAMS", "{a}s", "{b}s", "$", "$"}) == kNullArray);
  CHECK(f.Run({"XREAD", "STREAMS", "{a}s", "{b}s", "3-0", "2-9"}) == Read("{b}s", {E(3)}));
  CHECK(f.Run({"XREAD", "BLOCK", "10", "STREAMS", "{a}s", "$"}) == kNullArray);
  CHECK(f.Run({"XREAD", "COUNT", "0", "STREAMS", "{a}s", "1"}) == Read("{a}s", {E(2), E(3)}));
  CHECK(f.Run({"SET", "{c}str", "v"}) == kOk);
  CHECK(f.Run({"XREAD", "STREAMS", "{a}s", "{c}str", "0", "0"}) == kWrongType);
  CHECK(f.Run({"XREAD", "STREAMS", "{a}s", "{b}s", "0"}) ==
        Err("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified."));
  CHECK(f.Run({"XREAD", "STREAMS", "{a}s", "x"}) == kBadId);
  CHECK(f.Run({"XREAD", "STREAMS", "{a}s", ">"}) ==
        Err("ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
            "<group> <consumer> option."));
  CHECK(f.Run({"XREADGROUP", "GROUP", "g", "c", "STREAMS", "{a}s", ">"}) ==
        Err("NOGROUP No such key '{a}s' or consumer group 'g' in XREADGROUP with GROUP option"));
  CHECK(f.Run({"XGROUP", "CREATE", "{a}s", "g", "$"}) == kOk);
  CHECK(f.Run({"XREADGROUP", "BLOCK", "10", "GROUP", "g", "c", "STREAMS", "{a}s", ">"}) ==
        kNullArray);
}

TEST_CASE("XREAD / XREADGROUP BLOCK 0 woken by XADD; a waiter's group or key going away") {
  CommandFixture f;
  StreamForms(f);
  Fill(f, "{a}s", 1, 3);
  CommandFixture::PendingReply reader =
      f.Start({"XREAD", "BLOCK", "0", "STREAMS", "{a}s", "{b}s", "$", "$"});
  WaitBlocked(f, 1);
  CHECK(f.Run({"XGROUP", "CREATE", "{b}s", "g", "$", "MKSTREAM"}) == kOk);
  const std::vector<std::string> group_read = {"XREADGROUP", "BLOCK",   "0",    "GROUP", "g",
                                               "c",          "STREAMS", "{b}s", ">"};
  CommandFixture::PendingReply group_reader = f.Start(group_read);
  WaitBlocked(f, 2);
  Fill(f, "{b}s", 7, 7);
  CHECK(reader.Get() == Read("{b}s", {E(7)}));
  CHECK(group_reader.Get() == Read("{b}s", {E(7)}));
  WaitBlocked(f, 0);
  CHECK(f.Run({"XPENDING", "{b}s", "g"}) ==
        Seq({Int(1), Bulk("7-0"), Bulk("7-0"), Seq({Arr({"c", "1"})})}));

  CommandFixture::PendingReply destroyed = f.Start(group_read);
  WaitBlocked(f, 1);
  CHECK(f.Run({"XGROUP", "DESTROY", "{b}s", "g"}) == Int(1));
  CHECK(destroyed.Get() ==
        Err("NOGROUP the consumer group this client was blocked on no longer exists"));
  CHECK(f.Run({"XGROUP", "CREATE", "{b}s", "g", "$"}) == kOk);
  CommandFixture::PendingReply deleted = f.Start(group_read);
  WaitBlocked(f, 1);
  CHECK(f.Run({"DEL", "{b}s"}) == Int(1));
  CHECK(deleted.Get() == Err("UNBLOCKED the stream key no longer exists"));
  WaitBlocked(f, 0);
}

}  // namespace
}  // namespace slotkv::command
