"""Stream consumer groups as Redis 7.0.15 gives them: XGROUP (CREATE, CREATECONSUMER,
DELCONSUMER, DESTROY, SETID), XREADGROUP (new entries, history, NOACK, several streams, BLOCK),
XACK, XPENDING (summary and extended forms), XCLAIM, XAUTOCLAIM, XINFO GROUPS / CONSUMERS /
STREAM FULL, the entries-read and lag figures, WRONGTYPE, error texts, RESP3 reply types.

Every reply is Redis 7.0.15's own output, pinned as a literal, with explicit entry IDs (1-1,
2-1, ...) so that replies are deterministic. Idle times, delivery times and seen-times depend
on the clock: they are checked as ranges, delivery counts exactly. The plain entry commands
(XADD options, XRANGE, XTRIM, XREAD, XSETID) belong to test_streams.py; here they only build
streams.

Redis 7.0.15 behaviours pinned here that are easy to get wrong:
- a consumer is created by XREADGROUP only when the read serves something, or reads history
  (ID other than ">"); a ">" read that finds nothing, or blocks, creates none. XCLAIM and
  XAUTOCLAIM create the consumer only when they claim an entry. XGROUP DELCONSUMER of an
  unknown consumer answers 0.
- XCLAIM and XAUTOCLAIM drop pending entries whose stream entry was deleted: XCLAIM leaves them
  out of its reply, XAUTOCLAIM lists their IDs in the third element of its reply; both remove
  them from the PEL. Deleted entries count against XAUTOCLAIM's COUNT.
- a history read shows a deleted pending entry as [id, nil] and does not bump its delivery count.
- lag is nil whenever Redis cannot compute it (a tombstone after the group's position, a
  position between the first and last entries without a valid entries-read, or past the end);
  ENTRIESREAD is trusted as given, so lag can go negative.
- a blocked XREADGROUP whose group is destroyed gets "-NOGROUP the consumer group this client
  was blocked on no longer exists"; when the key is deleted or overwritten, "-UNBLOCKED the
  stream key no longer exists". XGROUP SETID, XDEL and XTRIM do not wake it.
- XINFO CONSUMERS has name, pending and idle only (no "inactive", added in 7.2); XINFO STREAM
  FULL consumers have name, seen-time, pel-count, pending (no "active-time").

Stream keys in the many-keys cases use many distinct names, so slotkv spreads them over its
workers; blocked clients are raw sockets that the test waits for in CLIENT LIST (flags=b).
"""

import os
import random
import threading
import time

import pytest

from conftest import (NOT_INT, SYNTAX, WRONGTYPE, OwnRedis, arity, bulk, err, quiet, wait_blocked,
                      wait_until)

BUSYGROUP = "BUSYGROUP Consumer Group name already exists"
NEED_KEY = ("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
            "want to use the MKSTREAM option to create an empty stream automatically.")
BAD_ID = "ERR Invalid stream ID specified as stream command argument"
ENTRIESREAD_NEG = "ERR value for ENTRIESREAD must be positive or -1"
DOLLAR = ("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
          "history of this consumer by specifying a proper ID, or use the > ID to get new "
          "messages. The $ ID would just return an empty result set.")
UNBALANCED = ("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
              "specified.")
GROUP_IN_XREAD = "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
NO_SUCH_KEY = "ERR no such key"
GROUP_GONE = b"-NOGROUP the consumer group this client was blocked on no longer exists\r\n"
KEY_GONE = b"-UNBLOCKED the stream key no longer exists\r\n"
NULL2 = b"*-1\r\n"
NULL3 = b"_\r\n"


def nogroup_read(key, group):
    return ("NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option"
            % (key, group))


def nogroup(key, group):
    """XPENDING, XCLAIM, XAUTOCLAIM."""
    return "NOGROUP No such key '%s' or consumer group '%s'" % (key, group)


def nogroup_xgroup(key, group):
    """XGROUP CREATECONSUMER / DELCONSUMER / SETID and XINFO CONSUMERS."""
    return "NOGROUP No such consumer group '%s' for key name '%s'" % (group, key)


def bad_subcommand_args(cmd, sub):
    return ("ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP."
            % (sub, cmd))


def cmd(r, *args):
    return r.execute_command(*args)


def rng(name):
    seed = int(os.environ.get("SLOTKV_TEST_SEED", "0")) or random.randrange(1, 2 ** 31)
    print("%s: seed %d (rerun with SLOTKV_TEST_SEED=%d)" % (name, seed, seed))
    return random.Random(seed)


def e(eid, *fv):
    """An entry as a reply shows it: [id, [field, value, ...]]."""
    return [eid.encode(), [x.encode() for x in fv]]


def ids(*names):
    return [n.encode() for n in names]


def fill(r, key, n, first=1):
    """Entries first-1 .. (first+n-1)-1, each with field f and value v<ms>."""
    for i in range(first, first + n):
        cmd(r, "XADD", key, "%d-1" % i, "f", "v%d" % i)


def as_dict(flat):
    return {k.decode(): v for k, v in zip(flat[::2], flat[1::2])}


def groups(r, key):
    return [as_dict(g) for g in cmd(r, "XINFO", "GROUPS", key)]


def group(r, key, name):
    for g in groups(r, key):
        if g["name"] == name.encode():
            return g
    raise AssertionError("no group %s on %s" % (name, key))


def position(r, key, name):
    """(last-delivered-id, entries-read, lag) of a group."""
    g = group(r, key, name)
    return g["last-delivered-id"], g["entries-read"], g["lag"]


def consumers(r, key, name):
    return [as_dict(c) for c in cmd(r, "XINFO", "CONSUMERS", key, name)]


def pel(r, key, name, *args):
    """XPENDING's extended form over everything: [(id, consumer, delivery count)], idle left
    out (it is time-dependent)."""
    rows = cmd(r, "XPENDING", key, name, "-", "+", 1000, *args)
    return [(row[0].decode(), row[1].decode(), row[3]) for row in rows]


def idles(r, key, name, *args):
    return [row[2] for row in cmd(r, "XPENDING", key, name, "-", "+", 1000, *args)]


def now_ms():
    return int(time.time() * 1000)


# ---- replies as bytes ----------------------------------------------------------------------------

def arr(*items):
    return b"*%d\r\n" % len(items) + b"".join(items)


def entry_bytes(eid, *fv):
    return arr(bulk(eid), arr(*[bulk(x) for x in fv]))


# ---- XGROUP CREATE -------------------------------------------------------------------------------

def test_create_at_dollar_zero_and_explicit_ids(r):
    fill(r, "k", 3)
    assert cmd(r, "XGROUP", "CREATE", "k", "new", "$") == b"OK"
    assert cmd(r, "XGROUP", "CREATE", "k", "all", "0") == b"OK"
    assert cmd(r, "XGROUP", "CREATE", "k", "mid", "2-1") == b"OK"
    assert cmd(r, "XGROUP", "CREATE", "k", "ms", "2") == b"OK"  # a bare ms is ms-0
    assert cmd(r, "XGROUP", "CREATE", "k", "future", "5-0") == b"OK"
    # XINFO GROUPS lists the groups by name (bytes order)
    assert cmd(r, "XINFO", "GROUPS", "k") == [
        [b"name", b"all", b"consumers", 0, b"pending", 0, b"last-delivered-id", b"0-0",
         b"entries-read", None, b"lag", 3],
        [b"name", b"future", b"consumers", 0, b"pending", 0, b"last-delivered-id", b"5-0",
         b"entries-read", None, b"lag", None],
        [b"name", b"mid", b"consumers", 0, b"pending", 0, b"last-delivered-id", b"2-1",
         b"entries-read", None, b"lag", None],
        [b"name", b"ms", b"consumers", 0, b"pending", 0, b"last-delivered-id", b"2-0",
         b"entries-read", None, b"lag", None],
        [b"name", b"new", b"consumers", 0, b"pending", 0, b"last-delivered-id", b"3-1",
         b"entries-read", None, b"lag", 0],
    ]
    assert cmd(r, "XREADGROUP", "GROUP", "all", "c", "STREAMS", "k", ">") == [
        [b"k", [e("1-1", "f", "v1"), e("2-1", "f", "v2"), e("3-1", "f", "v3")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "mid", "c", "STREAMS", "k", ">") == [
        [b"k", [e("3-1", "f", "v3")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "ms", "c", "STREAMS", "k", ">") == [
        [b"k", [e("2-1", "f", "v2"), e("3-1", "f", "v3")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "new", "c", "STREAMS", "k", ">") is None
    assert cmd(r, "XREADGROUP", "GROUP", "future", "c", "STREAMS", "k", ">") is None
    cmd(r, "XADD", "k", "4-1", "f", "v4")
    assert cmd(r, "XREADGROUP", "GROUP", "new", "c", "STREAMS", "k", ">") == [
        [b"k", [e("4-1", "f", "v4")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "future", "c", "STREAMS", "k", ">") is None


def test_create_mkstream_and_missing_key(r):
    assert err(r, "XGROUP", "CREATE", "k", "g", "$") == NEED_KEY
    assert cmd(r, "EXISTS", "k") == 0
    assert cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM") == b"OK"
    assert cmd(r, "TYPE", "k") == b"stream"
    assert cmd(r, "XLEN", "k") == 0
    assert groups(r, "k") == [{"name": b"g", "consumers": 0, "pending": 0,
                               "last-delivered-id": b"0-0", "entries-read": None, "lag": 0}]
    # MKSTREAM on an existing stream is harmless; an explicit ID on a new one is kept
    assert cmd(r, "XGROUP", "CREATE", "k", "g2", "0", "MKSTREAM", "MKSTREAM") == b"OK"
    assert cmd(r, "XGROUP", "create", "k2", "g", "7-3", "mkstream") == b"OK"
    assert position(r, "k2", "g") == (b"7-3", None, 0)
    # a bad ID or ENTRIESREAD is refused before the key is made
    assert err(r, "XGROUP", "CREATE", "k3", "g", "zz", "MKSTREAM") == BAD_ID
    assert err(r, "XGROUP", "CREATE", "k3", "g", "0", "ENTRIESREAD", "-5",
               "MKSTREAM") == ENTRIESREAD_NEG
    assert cmd(r, "EXISTS", "k3") == 0


def test_busygroup(r):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    assert err(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM") == BUSYGROUP
    assert err(r, "XGROUP", "CREATE", "k", "g", "0") == BUSYGROUP
    assert err(r, "XGROUP", "CREATE", "k", "g", "5-5", "ENTRIESREAD", 3) == BUSYGROUP
    assert cmd(r, "XGROUP", "CREATE", "k", "G", "0") == b"OK"  # names are case-sensitive
    assert [g["name"] for g in groups(r, "k")] == [b"G", b"g"]
    assert position(r, "k", "g") == (b"0-0", None, 0)  # untouched


def test_create_entriesread(r):
    fill(r, "k", 3)
    assert cmd(r, "XGROUP", "CREATE", "k", "g1", "1-1", "ENTRIESREAD", 1) == b"OK"
    assert cmd(r, "XGROUP", "CREATE", "k", "g2", "1-1", "ENTRIESREAD", 5) == b"OK"
    assert cmd(r, "XGROUP", "CREATE", "k", "g3", "1-1", "ENTRIESREAD", -1) == b"OK"
    assert cmd(r, "XGROUP", "CREATE", "k", "g4", "0", "ENTRIESREAD", 0) == b"OK"
    assert cmd(r, "XGROUP", "CREATE", "k", "g5", "2-1", "entriesread",
               9223372036854775807) == b"OK"
    assert position(r, "k", "g1") == (b"1-1", 1, 2)
    assert position(r, "k", "g2") == (b"1-1", 5, -2)  # trusted as given: a negative lag
    assert position(r, "k", "g3") == (b"1-1", None, 2)  # -1: unknown, estimated from 1-1
    assert position(r, "k", "g4") == (b"0-0", 0, 3)
    assert position(r, "k", "g5") == (b"2-1", 9223372036854775807, -9223372036854775804)
    assert err(r, "XGROUP", "CREATE", "k", "g6", "0", "ENTRIESREAD", -2) == ENTRIESREAD_NEG
    assert err(r, "XGROUP", "CREATE", "k", "g6", "0", "ENTRIESREAD", "x") == NOT_INT
    assert err(r, "XGROUP", "CREATE", "k", "g6", "0", "ENTRIESREAD", "1.5") == NOT_INT
    # on a stream no entry was ever added to, the lag is 0 whatever ENTRIESREAD says
    cmd(r, "XGROUP", "CREATE", "e", "g", "$", "ENTRIESREAD", 3, "MKSTREAM")
    assert position(r, "e", "g") == (b"0-0", 3, 0)


def test_create_errors(r):
    fill(r, "k", 1)
    for bad in ("zz", "-", "+", "1-x", "-1", ">"):
        assert err(r, "XGROUP", "CREATE", "k", "g", bad) == BAD_ID, bad
    assert err(r, "XGROUP", "CREATE", "nokey", "g", "zz") == NEED_KEY  # the key comes first
    assert err(r, "XGROUP", "CREATE", "k", "g", "0", "FOO") == bad_subcommand_args(
        "XGROUP", "CREATE")
    assert err(r, "XGROUP", "CREATE", "k", "g", "0", "MKSTREAM", "ENTRIESREAD") == (
        bad_subcommand_args("XGROUP", "CREATE"))
    assert err(r, "XGROUP", "CREATE", "k") == arity("xgroup|create")
    assert err(r, "XGROUP", "CREATE", "k", "g") == arity("xgroup|create")
    assert err(r, "XGROUP") == arity("xgroup")
    assert err(r, "XGROUP", "FOO", "k") == "ERR unknown subcommand 'FOO'. Try XGROUP HELP."
    assert groups(r, "k") == []


def test_xgroup_help(r):
    assert cmd(r, "XGROUP", "HELP") == ids(
        "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
        "HELP",
        "    Prints this help.")


# ---- XGROUP CREATECONSUMER / DELCONSUMER / DESTROY / SETID ---------------------------------------

def test_createconsumer(r):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    assert cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "zed") == 1
    assert cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "zed") == 0
    assert cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "Alice") == 1
    assert cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "") == 1  # an empty name is a name
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"", b"Alice", b"zed"]
    assert group(r, "k", "g")["consumers"] == 3
    assert err(r, "XGROUP", "CREATECONSUMER", "k", "nog", "c") == nogroup_xgroup("k", "nog")
    assert err(r, "XGROUP", "CREATECONSUMER", "nokey", "g", "c") == NEED_KEY
    assert err(r, "XGROUP", "CREATECONSUMER", "k", "g") == arity("xgroup|createconsumer")


def test_delconsumer_returns_and_drops_its_pending_entries(r):
    fill(r, "k", 5)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 2, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g", "b", "COUNT", 2, "STREAMS", "k", ">")
    cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "idle")
    assert cmd(r, "XGROUP", "DELCONSUMER", "k", "g", "a") == 2
    # the entries are gone from the group's PEL, not handed to anyone
    assert cmd(r, "XPENDING", "k", "g") == [2, b"3-1", b"4-1", [[b"b", b"2"]]]
    assert pel(r, "k", "g") == [("3-1", "b", 1), ("4-1", "b", 1)]
    assert cmd(r, "XACK", "k", "g", "1-1", "2-1") == 0
    assert cmd(r, "XGROUP", "DELCONSUMER", "k", "g", "idle") == 0
    assert cmd(r, "XGROUP", "DELCONSUMER", "k", "g", "never-there") == 0
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"b"]
    assert group(r, "k", "g")["consumers"] == 1
    assert group(r, "k", "g")["pending"] == 2
    # the deleted consumer's entries are not re-delivered with ">"
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", ">") == [
        [b"k", [e("5-1", "f", "v5")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", "0") == [
        [b"k", [e("5-1", "f", "v5")]]]
    assert err(r, "XGROUP", "DELCONSUMER", "k", "nog", "c") == nogroup_xgroup("k", "nog")
    assert err(r, "XGROUP", "DELCONSUMER", "nokey", "g", "c") == NEED_KEY
    assert err(r, "XGROUP", "DELCONSUMER", "k", "g") == arity("xgroup|delconsumer")


def test_destroy(r):
    fill(r, "k", 2)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XGROUP", "CREATE", "k", "h", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">")
    assert cmd(r, "XGROUP", "DESTROY", "k", "g") == 1
    assert cmd(r, "XGROUP", "DESTROY", "k", "g") == 0
    assert cmd(r, "XGROUP", "DESTROY", "k", "never") == 0
    assert [g["name"] for g in groups(r, "k")] == [b"h"]
    assert err(r, "XPENDING", "k", "g") == nogroup("k", "g")
    assert cmd(r, "XLEN", "k") == 2  # the entries stay
    # a new group of the same name starts afresh
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    assert cmd(r, "XPENDING", "k", "g") == [0, None, None, None]
    assert consumers(r, "k", "g") == []
    assert err(r, "XGROUP", "DESTROY", "nokey", "g") == NEED_KEY
    assert err(r, "XGROUP", "DESTROY", "k") == arity("xgroup|destroy")
    assert err(r, "XGROUP", "DESTROY", "k", "g", "x") == arity("xgroup|destroy")


def test_setid(r):
    fill(r, "k", 3)
    cmd(r, "XGROUP", "CREATE", "k", "g", "$")
    cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "c")
    assert cmd(r, "XGROUP", "SETID", "k", "g", "1-1") == b"OK"
    assert position(r, "k", "g") == (b"1-1", None, 2)  # the first entry: estimated
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">") == [
        [b"k", [e("2-1", "f", "v2"), e("3-1", "f", "v3")]]]
    assert cmd(r, "XGROUP", "SETID", "k", "g", "0", "ENTRIESREAD", 0) == b"OK"
    assert position(r, "k", "g") == (b"0-0", 0, 3)
    assert cmd(r, "XGROUP", "SETID", "k", "g", "$", "ENTRIESREAD", 3) == b"OK"
    assert position(r, "k", "g") == (b"3-1", 3, 0)
    assert cmd(r, "XGROUP", "SETID", "k", "g", "2-1", "entriesread", 7) == b"OK"
    assert position(r, "k", "g") == (b"2-1", 7, -4)
    assert cmd(r, "XGROUP", "SETID", "k", "g", "9-9", "ENTRIESREAD", -1) == b"OK"
    assert position(r, "k", "g") == (b"9-9", None, None)
    # the PEL and the consumers are left alone
    assert cmd(r, "XPENDING", "k", "g") == [2, b"2-1", b"3-1", [[b"c", b"2"]]]
    assert err(r, "XGROUP", "SETID", "k", "g", "zz") == BAD_ID
    assert err(r, "XGROUP", "SETID", "k", "g", "$", "ENTRIESREAD", -3) == ENTRIESREAD_NEG
    assert err(r, "XGROUP", "SETID", "k", "g", "$", "ENTRIESREAD", "x") == NOT_INT
    assert err(r, "XGROUP", "SETID", "k", "g", "$", "MKSTREAM") == bad_subcommand_args(
        "XGROUP", "SETID")
    assert err(r, "XGROUP", "SETID", "k", "g", "$", "ENTRIESREAD") == bad_subcommand_args(
        "XGROUP", "SETID")
    assert err(r, "XGROUP", "SETID", "k", "nog", "$") == nogroup_xgroup("k", "nog")
    assert err(r, "XGROUP", "SETID", "k", "nog", "zz") == nogroup_xgroup("k", "nog")
    assert err(r, "XGROUP", "SETID", "nokey", "g", "$") == NEED_KEY
    assert err(r, "XGROUP", "SETID", "k", "g") == arity("xgroup|setid")


# ---- XREADGROUP ----------------------------------------------------------------------------------

def test_xreadgroup_new_entries_and_count(r):
    fill(r, "k", 3)
    cmd(r, "XADD", "k", "4-1", "f", "v4", "g", "w")
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c1", "COUNT", 2, "STREAMS", "k", ">") == [
        [b"k", [e("1-1", "f", "v1"), e("2-1", "f", "v2")]]]
    assert position(r, "k", "g") == (b"2-1", 2, 2)
    # another consumer gets the next entries; COUNT 0 means no limit
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c2", "COUNT", 0, "STREAMS", "k", ">") == [
        [b"k", [e("3-1", "f", "v3"), e("4-1", "f", "v4", "g", "w")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c2", "STREAMS", "k", ">") is None
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c1", "STREAMS", "k", ">") is None
    assert position(r, "k", "g") == (b"4-1", 4, 0)
    assert cmd(r, "XPENDING", "k", "g") == [4, b"1-1", b"4-1", [[b"c1", b"2"], [b"c2", b"2"]]]
    # the last COUNT wins; options in any order before STREAMS
    cmd(r, "XADD", "k", "5-1", "f", "v5")
    cmd(r, "XADD", "k", "6-1", "f", "v6")
    assert cmd(r, "XREADGROUP", "COUNT", 5, "GROUP", "g", "c3", "COUNT", 1,
               "STREAMS", "k", ">") == [[b"k", [e("5-1", "f", "v5")]]]
    assert cmd(r, "xreadgroup", "group", "g", "c3", "count", 9, "streams", "k", ">") == [
        [b"k", [e("6-1", "f", "v6")]]]


def test_xreadgroup_history(r):
    fill(r, "k", 4)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 3, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g", "b", "STREAMS", "k", ">")
    a_all = [e("1-1", "f", "v1"), e("2-1", "f", "v2"), e("3-1", "f", "v3")]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", "0") == [[b"k", a_all]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", "0-0") == [[b"k", a_all]]
    # history starts after the given ID
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", "1-1") == [
        [b"k", a_all[1:]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", "2") == [[b"k", a_all[1:]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 1, "STREAMS", "k", "0") == [
        [b"k", a_all[:1]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", "3-1") == [[b"k", []]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "b", "STREAMS", "k", "0") == [
        [b"k", [e("4-1", "f", "v4")]]]
    # each history read counts as a delivery
    assert pel(r, "k", "g") == [("1-1", "a", 4), ("2-1", "a", 5), ("3-1", "a", 5),
                                ("4-1", "b", 2)]
    # a consumer without history gets an empty list for the key (and is created)
    assert cmd(r, "XREADGROUP", "GROUP", "g", "new", "STREAMS", "k", "0") == [[b"k", []]]
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"a", b"b", b"new"]
    # acked entries leave the history
    assert cmd(r, "XACK", "k", "g", "2-1") == 1
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", "0") == [
        [b"k", [a_all[0], a_all[2]]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 0, "STREAMS", "k", "0") == [
        [b"k", [a_all[0], a_all[2]]]]


def test_xreadgroup_history_shows_deleted_entries_as_nil(r):
    fill(r, "k", 3)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">")
    assert cmd(r, "XDEL", "k", "1-1", "3-1") == 2
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", "0") == [
        [b"k", [[b"1-1", None], e("2-1", "f", "v2"), [b"3-1", None]]]]
    # still pending; a deleted entry's delivery count is not bumped by the history read
    assert pel(r, "k", "g") == [("1-1", "c", 1), ("2-1", "c", 2), ("3-1", "c", 1)]
    assert cmd(r, "XPENDING", "k", "g") == [3, b"1-1", b"3-1", [[b"c", b"3"]]]
    assert cmd(r, "XACK", "k", "g", "1-1") == 1
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", "0") == [
        [b"k", [e("2-1", "f", "v2"), [b"3-1", None]]]]


def test_xreadgroup_noack(r):
    fill(r, "k", 3)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    assert cmd(r, "XREADGROUP", "GROUP", "g", "n", "NOACK", "COUNT", 2, "STREAMS", "k",
               ">") == [[b"k", [e("1-1", "f", "v1"), e("2-1", "f", "v2")]]]
    assert cmd(r, "XPENDING", "k", "g") == [0, None, None, None]
    assert position(r, "k", "g") == (b"2-1", 2, 1)
    assert consumers(r, "k", "g")[0]["name"] == b"n"  # created, with nothing pending
    assert consumers(r, "k", "g")[0]["pending"] == 0
    assert cmd(r, "XREADGROUP", "GROUP", "g", "n", "STREAMS", "k", "0") == [[b"k", []]]
    # NOACK and ID 0: a plain history read
    assert cmd(r, "XREADGROUP", "GROUP", "g", "p", "STREAMS", "k", ">") == [
        [b"k", [e("3-1", "f", "v3")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "p", "NOACK", "STREAMS", "k", "0") == [
        [b"k", [e("3-1", "f", "v3")]]]
    assert pel(r, "k", "g") == [("3-1", "p", 2)]


def test_xreadgroup_several_streams(r):
    cmd(r, "XADD", "s1", "1-1", "a", "1")
    cmd(r, "XADD", "s2", "1-2", "b", "2")
    cmd(r, "XGROUP", "CREATE", "s1", "g", "0")
    cmd(r, "XGROUP", "CREATE", "s2", "g", "0")
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", "s2", ">", ">") == [
        [b"s1", [e("1-1", "a", "1")]], [b"s2", [e("1-2", "b", "2")]]]
    cmd(r, "XADD", "s2", "2-2", "b", "3")
    # only the streams with something new are in the reply
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", "s2", ">", ">") == [
        [b"s2", [e("2-2", "b", "3")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", "s2", ">", ">") is None
    # history and new entries mixed; history streams always answer
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", "s2", "0", ">") == [
        [b"s1", [e("1-1", "a", "1")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "COUNT", 1, "STREAMS", "s1", "s2",
               "0", "0") == [[b"s1", [e("1-1", "a", "1")]], [b"s2", [e("1-2", "b", "2")]]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s2", "s1", "1-2", "1-1") == [
        [b"s2", [e("2-2", "b", "3")]], [b"s1", []]]
    assert cmd(r, "XREADGROUP", "GROUP", "g", "d", "STREAMS", "s1", "s2", "0", "0") == [
        [b"s1", []], [b"s2", []]]
    # one stream without the group: an error, and nothing is read from the others
    cmd(r, "XADD", "s1", "2-1", "a", "4")
    cmd(r, "XADD", "s3", "1-1", "x", "y")
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", "s3", ">",
               ">") == nogroup_read("s3", "g")
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", "nokey", ">",
               ">") == nogroup_read("nokey", "g")
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", ">") == [
        [b"s1", [e("2-1", "a", "4")]]]


def test_xreadgroup_creates_a_consumer_only_when_served(r):
    fill(r, "k", 1)
    cmd(r, "XGROUP", "CREATE", "k", "g", "$")
    assert cmd(r, "XREADGROUP", "GROUP", "g", "x1", "STREAMS", "k", ">") is None
    assert cmd(r, "XREADGROUP", "GROUP", "g", "x2", "BLOCK", 10, "STREAMS", "k", ">") is None
    assert consumers(r, "k", "g") == []
    assert group(r, "k", "g")["consumers"] == 0
    assert cmd(r, "XREADGROUP", "GROUP", "g", "x3", "STREAMS", "k", "0") == [[b"k", []]]
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"x3"]
    cmd(r, "XADD", "k", "2-1", "f", "v2")
    assert cmd(r, "XREADGROUP", "GROUP", "g", "x1", "STREAMS", "k", ">") == [
        [b"k", [e("2-1", "f", "v2")]]]
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"x1", b"x3"]


def test_setid_back_redelivers_and_reassigns_pending_entries(r):
    fill(r, "k", 4)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 3, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", "0")  # delivery counts 2
    cmd(r, "XGROUP", "SETID", "k", "g", "0")
    assert position(r, "k", "g") == (b"0-0", None, 4)
    assert cmd(r, "XREADGROUP", "GROUP", "g", "b", "COUNT", 2, "STREAMS", "k", ">") == [
        [b"k", [e("1-1", "f", "v1"), e("2-1", "f", "v2")]]]
    # the entries move to b with a delivery count of 1
    assert pel(r, "k", "g") == [("1-1", "b", 1), ("2-1", "b", 1), ("3-1", "a", 2)]
    assert cmd(r, "XPENDING", "k", "g") == [3, b"1-1", b"3-1", [[b"a", b"1"], [b"b", b"2"]]]
    assert position(r, "k", "g") == (b"2-1", 2, 2)


def test_xreadgroup_errors(r):
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">") == nogroup_read("k", "g")
    fill(r, "k", 2)
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">") == nogroup_read("k", "g")
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    assert err(r, "XREADGROUP", "GROUP", "nog", "c", "STREAMS", "k", ">") == nogroup_read(
        "k", "nog")
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "GROUP", "h", "d", "STREAMS", "k",
               ">") == nogroup_read("k", "h")  # the last GROUP counts
    # NOGROUP of a missing key comes before its ID is looked at
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "nokey", "zz") == nogroup_read(
        "nokey", "g")
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", "$") == DOLLAR
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", "zz") == BAD_ID
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", "k2", ">") == UNBALANCED
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", "STREAMS", ">") == UNBALANCED
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "COUNT", "x", "STREAMS", "k", ">") == NOT_INT
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "BLOCK", -1, "STREAMS", "k",
               ">") == "ERR timeout is negative"
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "x", "STREAMS", "k",
               ">") == "ERR timeout is not an integer or out of range"
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "FOO", "STREAMS", "k", ">") == SYNTAX
    for args in (("GROUP", "g", "c", "STREAMS", "k"), ("STREAMS", "k", ">"),
                 ("GROUP", "g", "STREAMS", "k", ">"), ("GROUP", "g", "c")):
        assert err(r, "XREADGROUP", *args) == arity("xreadgroup"), args
    assert err(r, "XREAD", "GROUP", "g", "c", "STREAMS", "k", ">") == GROUP_IN_XREAD
    assert cmd(r, "XPENDING", "k", "g") == [0, None, None, None]  # nothing was read


def test_xreadgroup_block_inside_multi_does_not_block(r):
    fill(r, "k", 1)
    cmd(r, "XGROUP", "CREATE", "k", "g", "$")
    pipe = r.pipeline(transaction=True)
    pipe.execute_command("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">")
    pipe.execute_command("XADD", "k", "2-1", "f", "v2")
    pipe.execute_command("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">")
    start = time.monotonic()
    assert pipe.execute() == [None, b"2-1", [[b"k", [e("2-1", "f", "v2")]]]]
    assert time.monotonic() - start < 2


# ---- XREADGROUP BLOCK ----------------------------------------------------------------------------

@pytest.mark.parametrize("resp", [2, 3])
def test_block_woken_by_xadd(conns, r, resp):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">",
                    resp3=resp == 3)
    assert consumers(r, "k", "g") == []  # not created while blocked
    assert cmd(r, "XADD", "k", "1-1", "f", "v") == b"1-1"
    body = bulk(b"k") + arr(entry_bytes(b"1-1", b"f", b"v"))
    c.expect((b"%1\r\n" + body) if resp == 3 else b"*1\r\n*2\r\n" + body)
    assert cmd(r, "XPENDING", "k", "g") == [1, b"1-1", b"1-1", [[b"c", b"1"]]]
    assert position(r, "k", "g") == (b"1-1", 1, 0)
    assert [x["name"] for x in consumers(r, "k", "g")] == [b"c"]
    assert c.command("PING") == b"PONG"


def test_block_woken_in_a_thread(server, r):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    other = server.client(socket_timeout=5)
    got = []

    def reader():
        try:
            got.append(other.execute_command("XREADGROUP", "GROUP", "g", "t", "COUNT", 10,
                                             "BLOCK", 0, "STREAMS", "k", ">"))
        except Exception as ex:  # noqa: BLE001 - reported by the assertion below
            got.append(ex)

    t = threading.Thread(target=reader)
    t.start()
    cid = None

    def blocked():
        nonlocal cid
        for line in cmd(r, "CLIENT", "LIST").split(b"\n"):
            if b"cmd=xreadgroup" in line:
                cid = int(line.split(b" ")[0][3:])
                return True
        return False

    wait_until(blocked, timeout=3.0)
    if cid is not None:
        wait_blocked(r, [cid], "xreadgroup")
    cmd(r, "XADD", "k", "1-1", "a", "b")
    t.join(10)
    assert not t.is_alive()
    assert got == [[[b"k", [e("1-1", "a", "b")]]]]
    other.connection_pool.disconnect()


@pytest.mark.parametrize("resp", [2, 3])
def test_block_timeout(conns, r, resp):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    c = conns.open(resp3=resp == 3)
    start = time.monotonic()
    c.send_command("XREADGROUP", "GROUP", "g", "c", "BLOCK", 100, "STREAMS", "k", ">")
    c.expect(NULL3 if resp == 3 else NULL2)
    assert 0.09 <= time.monotonic() - start < 2.0
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "BLOCK", 50, "STREAMS", "k", ">") is None
    assert consumers(r, "k", "g") == []
    assert cmd(r, "XPENDING", "k", "g") == [0, None, None, None]


def test_block_group_destroyed(conns, r):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">")
    assert cmd(r, "XGROUP", "DESTROY", "k", "g") == 1
    c.expect(GROUP_GONE)
    assert c.command("PING") == b"PONG"
    # destroyed and re-created in one transaction: the client is served by the new group
    cmd(r, "XGROUP", "CREATE", "k", "g", "$")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">")
    pipe = r.pipeline(transaction=True)
    pipe.execute_command("XGROUP", "DESTROY", "k", "g")
    pipe.execute_command("XGROUP", "CREATE", "k", "g", "$")
    pipe.execute_command("XADD", "k", "5-1", "f", "v")
    assert pipe.execute() == [1, b"OK", b"5-1"]
    c.expect(arr(arr(bulk(b"k"), arr(entry_bytes(b"5-1", b"f", b"v")))))
    assert cmd(r, "XPENDING", "k", "g") == [1, b"5-1", b"5-1", [[b"c", b"1"]]]


@pytest.mark.parametrize("how", ["del", "set", "rename", "flushall"])
def test_block_key_deleted(conns, r, how):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">")
    if how == "del":
        assert cmd(r, "DEL", "k") == 1
    elif how == "set":
        assert cmd(r, "SET", "k", "x") == b"OK"
    elif how == "rename":
        assert cmd(r, "RENAME", "k", "k2") == b"OK"
    else:
        assert cmd(r, "FLUSHALL") == b"OK"
    c.expect(KEY_GONE)
    assert c.command("PING") == b"PONG"


def test_block_key_deleted_and_recreated_in_a_transaction(conns, r):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">")
    pipe = r.pipeline(transaction=True)
    pipe.execute_command("DEL", "k")
    pipe.execute_command("XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    pipe.execute_command("XADD", "k", "5-1", "f", "v")
    assert pipe.execute() == [1, b"OK", b"5-1"]
    c.expect(arr(arr(bulk(b"k"), arr(entry_bytes(b"5-1", b"f", b"v")))))


def test_block_not_woken_by_setid_xdel_xtrim_or_delconsumer(conns, r):
    fill(r, "k", 2)
    cmd(r, "XGROUP", "CREATE", "k", "g", "$")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">")
    assert cmd(r, "XGROUP", "SETID", "k", "g", "1-1") == b"OK"
    assert cmd(r, "XDEL", "k", "1-1") == 1
    assert cmd(r, "XGROUP", "DELCONSUMER", "k", "g", "c") == 0
    assert cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "other") == 1
    assert quiet(c)
    # the next XADD serves everything after the group's (moved) position
    cmd(r, "XADD", "k", "3-1", "f", "v3")
    c.expect(arr(arr(bulk(b"k"), arr(entry_bytes(b"2-1", b"f", b"v2"),
                                      entry_bytes(b"3-1", b"f", b"v3")))))
    c2 = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">")
    assert cmd(r, "XTRIM", "k", "MAXLEN", 0) == 2
    assert quiet(c2)


def test_block_one_entry_goes_to_one_consumer(conns, r):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    cmd(r, "XGROUP", "CREATE", "k", "h", "$")
    x = conns.block("XREADGROUP", "GROUP", "g", "x", "BLOCK", 0, "STREAMS", "k", ">")
    y = conns.block("XREADGROUP", "GROUP", "g", "y", "BLOCK", 0, "STREAMS", "k", ">")
    z = conns.block("XREADGROUP", "GROUP", "h", "z", "BLOCK", 0, "STREAMS", "k", ">")
    cmd(r, "XADD", "k", "1-1", "f", "v")
    one = arr(arr(bulk(b"k"), arr(entry_bytes(b"1-1", b"f", b"v"))))
    x.expect(one)  # the first blocked client of the group
    z.expect(one)  # every group gets it
    assert quiet(y)
    cmd(r, "XADD", "k", "2-1", "f", "w")
    y.expect(arr(arr(bulk(b"k"), arr(entry_bytes(b"2-1", b"f", b"w")))))
    assert cmd(r, "XPENDING", "k", "g") == [2, b"1-1", b"2-1", [[b"x", b"1"], [b"y", b"1"]]]
    assert cmd(r, "XPENDING", "k", "h") == [1, b"1-1", b"1-1", [[b"z", b"1"]]]


def test_block_count_and_transactions(conns, r):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "COUNT", 1, "BLOCK", 0, "STREAMS", "k",
                    ">")
    pipe = r.pipeline(transaction=True)
    pipe.execute_command("XADD", "k", "1-1", "f", "a")
    pipe.execute_command("XADD", "k", "2-1", "f", "b")
    pipe.execute()
    c.expect(arr(arr(bulk(b"k"), arr(entry_bytes(b"1-1", b"f", b"a")))))
    c = conns.open()
    c.send_command("XREADGROUP", "GROUP", "g", "d", "BLOCK", 0, "STREAMS", "k", ">")
    c.expect(arr(arr(bulk(b"k"), arr(entry_bytes(b"2-1", b"f", b"b")))))  # at once
    c = conns.block("XREADGROUP", "GROUP", "g", "e", "NOACK", "BLOCK", 0, "STREAMS", "k", ">")
    pipe = r.pipeline(transaction=True)
    pipe.execute_command("XADD", "k", "3-1", "f", "c")
    pipe.execute_command("XADD", "k", "4-1", "f", "d")
    pipe.execute()
    c.expect(arr(arr(bulk(b"k"), arr(entry_bytes(b"3-1", b"f", b"c"),
                                      entry_bytes(b"4-1", b"f", b"d")))))
    assert cmd(r, "XPENDING", "k", "g") == [2, b"1-1", b"2-1", [[b"c", b"1"], [b"d", b"1"]]]


def test_block_on_several_streams(conns, r):
    fill(r, "{a}s", 1)
    cmd(r, "XGROUP", "CREATE", "{a}s", "g", "$")
    cmd(r, "XGROUP", "CREATE", "{b}s", "g", "$", "MKSTREAM")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "{a}s", "{b}s",
                    ">", ">")
    cmd(r, "XADD", "{b}s", "7-1", "x", "y")
    c.expect(arr(arr(bulk(b"{b}s"), arr(entry_bytes(b"7-1", b"x", b"y")))))
    assert cmd(r, "XPENDING", "{a}s", "g") == [0, None, None, None]
    assert consumers(r, "{a}s", "g") == []
    assert cmd(r, "XPENDING", "{b}s", "g") == [1, b"7-1", b"7-1", [[b"c", b"1"]]]


def test_block_with_a_history_id_answers_at_once(r):
    fill(r, "k", 1)
    cmd(r, "XGROUP", "CREATE", "k", "g", "$")
    start = time.monotonic()
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", "0") == [
        [b"k", []]]
    assert time.monotonic() - start < 2


def test_client_unblock_of_xreadgroup(conns, r):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">")
    assert cmd(r, "CLIENT", "UNBLOCK", c.cid) == 1
    c.expect(NULL2)
    conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "k", ">", conn=c)
    assert cmd(r, "CLIENT", "UNBLOCK", c.cid, "ERROR") == 1
    c.expect(b"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n")


# ---- XACK ----------------------------------------------------------------------------------------

def test_xack(r):
    fill(r, "k", 4)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XGROUP", "CREATE", "k", "h", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 2, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g", "b", "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "h", "a", "STREAMS", "k", ">")
    # unknown and repeated IDs count once; any consumer's entries
    assert cmd(r, "XACK", "k", "g", "1-1", "3-1", "9-9", "3-1") == 2
    assert cmd(r, "XACK", "k", "g", "1-1", "3-1") == 0
    assert cmd(r, "XACK", "k", "g", "0-0") == 0
    assert cmd(r, "XACK", "k", "g", "2") == 0  # 2-0
    assert cmd(r, "XPENDING", "k", "g") == [2, b"2-1", b"4-1", [[b"a", b"1"], [b"b", b"1"]]]
    assert cmd(r, "XPENDING", "k", "h") == [4, b"1-1", b"4-1", [[b"a", b"4"]]]  # per group
    assert cmd(r, "XINFO", "CONSUMERS", "k", "g")[1][3] == 1
    # a deleted entry can be acked
    cmd(r, "XDEL", "k", "2-1")
    assert cmd(r, "XACK", "k", "g", "2-1", "4-1") == 2
    assert cmd(r, "XPENDING", "k", "g") == [0, None, None, None]
    # XACK answers 0 for a missing key or group (without looking at the IDs)
    assert cmd(r, "XACK", "k", "nog", "1-1") == 0
    assert cmd(r, "XACK", "nokey", "g", "1-1") == 0
    assert cmd(r, "XACK", "k", "nog", "zz") == 0
    assert err(r, "XACK", "k", "h", "zz") == BAD_ID
    assert err(r, "XACK", "k", "h", "1-1", "zz") == BAD_ID
    assert err(r, "XACK", "k", "h", "-") == BAD_ID
    assert cmd(r, "XPENDING", "k", "h")[0] == 4  # a bad ID anywhere: nothing acked
    assert err(r, "XACK", "k", "h") == arity("xack")


# ---- XPENDING ------------------------------------------------------------------------------------

def test_xpending_summary(r):
    fill(r, "k", 6)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "zoe", "COUNT", 1, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g", "al", "COUNT", 3, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g", "Bo", "COUNT", 1, "STREAMS", "k", ">")
    cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "nothing")
    # counts are bulk strings; consumers by name; consumers with nothing pending left out
    assert cmd(r, "XPENDING", "k", "g") == [
        5, b"1-1", b"5-1", [[b"Bo", b"1"], [b"al", b"3"], [b"zoe", b"1"]]]
    cmd(r, "XACK", "k", "g", "1-1", "5-1")
    assert cmd(r, "XPENDING", "k", "g") == [3, b"2-1", b"4-1", [[b"al", b"3"]]]
    cmd(r, "XACK", "k", "g", "2-1", "3-1", "4-1")
    assert cmd(r, "XPENDING", "k", "g") == [0, None, None, None]
    cmd(r, "XGROUP", "CREATE", "k", "empty", "$")
    assert cmd(r, "XPENDING", "k", "empty") == [0, None, None, None]


def test_xpending_extended(r):
    fill(r, "k", 5)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 2, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g", "b", "COUNT", 2, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g", "n", "NOACK", "STREAMS", "k", ">")

    def rows(*args):
        out = cmd(r, "XPENDING", "k", "g", *args)
        for row in out:
            assert len(row) == 4 and 0 <= row[2] < 2000, row
        return [(row[0].decode(), row[1].decode(), row[3]) for row in out]

    everything = [("1-1", "a", 1), ("2-1", "a", 1), ("3-1", "b", 1), ("4-1", "b", 1)]
    assert rows("-", "+", 10) == everything
    assert rows("-", "+", 1) == everything[:1]
    assert rows("-", "+", 0) == []
    assert rows("-", "+", -1) == []
    assert rows("2-1", "3-1", 10) == everything[1:3]
    assert rows("2", "3", 10) == everything[1:3]  # 2-0 .. 3-<max>
    assert rows("(1-1", "(4-1", 10) == everything[1:3]
    assert rows("(4-1", "+", 10) == []
    assert rows("+", "-", 10) == []
    assert rows("-", "+", 10, "b") == everything[2:]
    assert rows("-", "+", 10, "n") == []  # NOACK: nothing pending
    assert rows("-", "+", 10, "nobody") == []
    assert rows("-", "+", 1, "b") == everything[2:3]
    assert rows("-", "+", 10, "a", "extra", "args") == everything[:2]  # ignored
    assert rows("IDLE", 0, "-", "+", 10) == everything
    assert rows("idle", 0, "-", "+", 10, "a") == everything[:2]
    assert rows("IDLE", 100000, "-", "+", 10) == []
    assert rows("IDLE", -5, "-", "+", 10) == everything
    cmd(r, "XGROUP", "CREATE", "k", "empty", "$")
    assert cmd(r, "XPENDING", "k", "empty", "-", "+", 10) == []


def test_xpending_idle_and_delivery_counts(r):
    fill(r, "k", 3)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 2, "STREAMS", "k", ">")
    time.sleep(0.15)
    cmd(r, "XREADGROUP", "GROUP", "g", "b", "STREAMS", "k", ">")
    old = cmd(r, "XPENDING", "k", "g", "-", "+", 10)
    assert [row[2] >= 150 for row in old] == [True, True, False]
    assert all(row[2] < 5000 for row in old)
    assert pel(r, "k", "g") == [("1-1", "a", 1), ("2-1", "a", 1), ("3-1", "b", 1)]
    assert [row[0] for row in cmd(r, "XPENDING", "k", "g", "IDLE", 100, "-", "+", 10)] == ids(
        "1-1", "2-1")
    assert cmd(r, "XPENDING", "k", "g", "IDLE", 100, "-", "+", 10, "b") == []
    one = cmd(r, "XPENDING", "k", "g", "IDLE", 100, "-", "+", 1)
    assert [(row[0], row[1], row[3]) for row in one] == [(b"1-1", b"a", 1)]
    # a history read delivers again: the count goes up and the idle time restarts
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 1, "STREAMS", "k", "0")
    assert pel(r, "k", "g") == [("1-1", "a", 2), ("2-1", "a", 1), ("3-1", "b", 1)]
    now = idles(r, "k", "g")
    assert now[0] < now[1] and now[1] >= 150
    # XPENDING itself changes nothing
    assert pel(r, "k", "g") == [("1-1", "a", 2), ("2-1", "a", 1), ("3-1", "b", 1)]


def test_xpending_errors(r):
    fill(r, "k", 1)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    assert err(r, "XPENDING", "k", "nog") == nogroup("k", "nog")
    assert err(r, "XPENDING", "nokey", "g") == nogroup("nokey", "g")
    assert err(r, "XPENDING", "k", "nog", "-", "+", 10) == nogroup("k", "nog")
    assert err(r, "XPENDING", "k", "g", "-", "+") == SYNTAX
    assert err(r, "XPENDING", "k", "g", "-") == SYNTAX
    assert err(r, "XPENDING", "k", "g", "IDLE", 10) == SYNTAX
    assert err(r, "XPENDING", "k", "g", "IDLE", 10, "-", "+") == SYNTAX
    assert err(r, "XPENDING", "k", "g", "IDLE", "x", "-", "+", 10) == NOT_INT
    assert err(r, "XPENDING", "k", "g", "-", "+", "x") == NOT_INT
    assert err(r, "XPENDING", "k", "g", "x", "+", 10) == BAD_ID
    assert err(r, "XPENDING", "k", "g", "-", "y", 10) == BAD_ID
    assert err(r, "XPENDING", "k", "g", "(18446744073709551615-18446744073709551615", "+",
               10) == "ERR invalid start ID for the interval"
    assert err(r, "XPENDING", "k", "g", "-", "(0-0", 10) == "ERR invalid end ID for the interval"
    # the arguments are checked before the group is looked up
    assert err(r, "XPENDING", "k", "nog", "x", "+", 1) == BAD_ID
    assert err(r, "XPENDING", "nokey", "g", "-", "+", "x") == NOT_INT
    assert err(r, "XPENDING", "k") == arity("xpending")


# ---- XCLAIM --------------------------------------------------------------------------------------

def claim_setup(r, n=5, read=3):
    fill(r, "k", n)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", read, "STREAMS", "k", ">")


def test_xclaim_min_idle_time(r):
    claim_setup(r)
    assert cmd(r, "XCLAIM", "k", "g", "b", 100000, "1-1") == []
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"a"]  # b not created
    time.sleep(0.12)
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "COUNT", 1, "STREAMS", "k", "1-1")  # 2-1 fresh
    assert cmd(r, "XCLAIM", "k", "g", "b", 100, "1-1", "2-1", "3-1") == [
        e("1-1", "f", "v1"), e("3-1", "f", "v3")]
    # claiming delivers: the count goes up, the idle time restarts
    assert pel(r, "k", "g") == [("1-1", "b", 2), ("2-1", "a", 2), ("3-1", "b", 2)]
    # claimed after 2-1's re-delivery: idle no longer than it
    b_idle, idle_2 = idles(r, "k", "g", "b"), idles(r, "k", "g", "a")[0]
    assert max(b_idle) <= idle_2 < 150
    assert cmd(r, "XPENDING", "k", "g") == [3, b"1-1", b"3-1", [[b"a", b"1"], [b"b", b"2"]]]
    assert [(c["name"], c["pending"]) for c in consumers(r, "k", "g")] == [(b"a", 1), (b"b", 2)]
    # not pending, unknown, repeated; a negative min-idle-time is 0
    assert cmd(r, "XCLAIM", "k", "g", "c", -1, "9-9", "5-1", "3-1", "1-1", "1-1") == [
        e("3-1", "f", "v3"), e("1-1", "f", "v1"), e("1-1", "f", "v1")]
    assert pel(r, "k", "g") == [("1-1", "c", 4), ("2-1", "a", 2), ("3-1", "c", 3)]
    assert cmd(r, "XCLAIM", "k", "g", "c", 0, "1-1") == [e("1-1", "f", "v1")]  # own entry too
    assert pel(r, "k", "g")[0] == ("1-1", "c", 5)


def test_xclaim_justid(r):
    claim_setup(r)
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "2-1", "1-1", "JUSTID") == ids("2-1", "1-1")
    # JUSTID does not count a delivery
    assert pel(r, "k", "g") == [("1-1", "b", 1), ("2-1", "b", 1), ("3-1", "a", 1)]
    assert max(idles(r, "k", "g", "b")) < 1000


def test_xclaim_idle_time_and_retrycount(r):
    claim_setup(r)
    assert cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "RETRYCOUNT", 7, "IDLE", 5000) == [
        e("3-1", "f", "v3")]
    assert pel(r, "k", "g")[2] == ("3-1", "c", 7)  # RETRYCOUNT set: no increment
    assert 5000 <= idles(r, "k", "g")[2] < 7000
    assert cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "TIME", now_ms() - 10000,
               "JUSTID") == ids("3-1")
    assert 10000 <= idles(r, "k", "g")[2] < 12000
    assert pel(r, "k", "g")[2] == ("3-1", "c", 7)
    # a time in the future, or a negative IDLE, is clamped to now
    assert cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "TIME", now_ms() + 100000,
               "JUSTID") == ids("3-1")
    assert idles(r, "k", "g")[2] < 1000
    cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "IDLE", 5000, "JUSTID")
    assert cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "IDLE", -100, "JUSTID") == ids("3-1")
    assert idles(r, "k", "g")[2] < 1000
    # the last of IDLE / TIME counts
    cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "IDLE", 10, "TIME", 5, "JUSTID")
    assert idles(r, "k", "g")[2] > now_ms() - 60000
    cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "TIME", 5, "IDLE", 20000, "JUSTID")
    assert 20000 <= idles(r, "k", "g")[2] < 22000
    # RETRYCOUNT 0 sets 0, also without JUSTID; -1 is "not given"
    assert cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "RETRYCOUNT", 0) == [e("3-1", "f", "v3")]
    assert pel(r, "k", "g")[2] == ("3-1", "c", 0)
    assert cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "RETRYCOUNT", -1) == [e("3-1", "f", "v3")]
    assert pel(r, "k", "g")[2] == ("3-1", "c", 1)
    # the min-idle-time is checked against the idle time before the claim
    cmd(r, "XCLAIM", "k", "g", "c", 0, "2-1", "IDLE", 3000, "JUSTID")
    assert cmd(r, "XCLAIM", "k", "g", "d", 2500, "2-1", "3-1", "JUSTID") == ids("2-1")


def test_xclaim_force(r):
    claim_setup(r)
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "5-1") == []  # not pending: needs FORCE
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "5-1", "FORCE") == [e("5-1", "f", "v5")]
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "4-1", "FORCE", "JUSTID") == ids("4-1")
    # created with one delivery, plus one for the claim without JUSTID
    assert pel(r, "k", "g") == [("1-1", "a", 1), ("2-1", "a", 1), ("3-1", "a", 1),
                                ("4-1", "b", 1), ("5-1", "b", 2)]
    # FORCE does not invent entries the stream does not have
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "9-1", "FORCE") == []
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "9-1", "FORCE", "JUSTID") == []
    assert cmd(r, "XPENDING", "k", "g")[0] == 5
    # FORCE on a pending entry is a plain claim
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "1-1", "FORCE", "JUSTID", "FORCE") == ids("1-1")
    assert pel(r, "k", "g")[0] == ("1-1", "b", 1)
    # the group position does not move
    assert position(r, "k", "g") == (b"3-1", 3, 2)


def test_xclaim_lastid(r):
    claim_setup(r)
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "1-1", "LASTID", "4-0", "JUSTID") == ids("1-1")
    # the group's last-delivered-id moves forward, its entries-read stays
    assert position(r, "k", "g") == (b"4-0", 3, 2)
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "1-1", "LASTID", "2-0", "JUSTID") == ids("1-1")
    assert position(r, "k", "g") == (b"4-0", 3, 2)  # never backwards
    assert cmd(r, "XCLAIM", "k", "g", "b", 100000, "1-1", "LASTID", "10-0") == []
    assert position(r, "k", "g") == (b"10-0", 3, 2)  # even when nothing is claimed
    assert cmd(r, "XREADGROUP", "GROUP", "g", "b", "STREAMS", "k", ">") is None


def test_xclaim_deleted_entries_leave_the_pel(r):
    claim_setup(r)
    cmd(r, "XDEL", "k", "2-1", "3-1")
    assert cmd(r, "XCLAIM", "k", "g", "b", 0, "3-1", "1-1", "2-1") == [e("1-1", "f", "v1")]
    assert pel(r, "k", "g") == [("1-1", "b", 2)]
    assert cmd(r, "XPENDING", "k", "g") == [1, b"1-1", b"1-1", [[b"b", b"1"]]]
    assert [(c["name"], c["pending"]) for c in consumers(r, "k", "g")] == [(b"a", 0), (b"b", 1)]
    # JUSTID too; a consumer that claims only deleted entries is not created
    cmd(r, "XDEL", "k", "1-1")
    assert cmd(r, "XCLAIM", "k", "g", "c", 0, "1-1", "JUSTID") == []
    assert cmd(r, "XPENDING", "k", "g") == [0, None, None, None]
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"a", b"b"]
    assert cmd(r, "XCLAIM", "k", "g", "c", 0, "3-1", "FORCE") == []
    assert group(r, "k", "g")["pending"] == 0


def test_xclaim_errors(r):
    claim_setup(r)
    assert err(r, "XCLAIM", "k", "g", "c", "x", "1-1") == (
        "ERR Invalid min-idle-time argument for XCLAIM")
    assert err(r, "XCLAIM", "k", "g", "c", 0, "1-1", "IDLE", "x") == (
        "ERR Invalid IDLE option argument for XCLAIM")
    assert err(r, "XCLAIM", "k", "g", "c", 0, "1-1", "TIME", "x") == (
        "ERR Invalid TIME option argument for XCLAIM")
    assert err(r, "XCLAIM", "k", "g", "c", 0, "1-1", "RETRYCOUNT", "x") == (
        "ERR Invalid RETRYCOUNT option argument for XCLAIM")
    assert err(r, "XCLAIM", "k", "g", "c", 0, "1-1", "LASTID", "xx") == BAD_ID
    for opt in ("FOO", "IDLE", "TIME", "RETRYCOUNT", "LASTID"):
        assert err(r, "XCLAIM", "k", "g", "c", 0, "1-1", opt) == (
            "ERR Unrecognized XCLAIM option '%s'" % opt)
    # the IDs end at the first argument that is not one; no IDs at all is the same error
    assert err(r, "XCLAIM", "k", "g", "c", 0, "zz") == "ERR Unrecognized XCLAIM option 'zz'"
    assert err(r, "XCLAIM", "k", "g", "c", 0, "1-1", "JUSTID", "2-1") == (
        "ERR Unrecognized XCLAIM option '2-1'")
    # the group is looked up first
    assert err(r, "XCLAIM", "k", "nog", "c", 0, "1-1") == nogroup("k", "nog")
    assert err(r, "XCLAIM", "nokey", "g", "c", "x", "1-1") == nogroup("nokey", "g")
    assert err(r, "XCLAIM", "k", "g", "c", 0) == arity("xclaim")
    assert pel(r, "k", "g") == [("1-1", "a", 1), ("2-1", "a", 1), ("3-1", "a", 1)]


# ---- XAUTOCLAIM ----------------------------------------------------------------------------------

def test_xautoclaim_cursor_and_count(r):
    claim_setup(r, n=7, read=6)
    assert cmd(r, "XAUTOCLAIM", "k", "g", "b", 100000, 0) == [b"0-0", [], []]
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"a"]  # b not created
    assert cmd(r, "XAUTOCLAIM", "k", "g", "b", 0, 0, "COUNT", 2) == [
        b"3-1", [e("1-1", "f", "v1"), e("2-1", "f", "v2")], []]
    assert cmd(r, "XAUTOCLAIM", "k", "g", "b", 0, "3-1", "COUNT", 2, "JUSTID") == [
        b"5-1", ids("3-1", "4-1"), []]
    # the default COUNT is 100; the cursor is 0-0 when the PEL is done
    assert cmd(r, "XAUTOCLAIM", "k", "g", "b", 0, "5-1", "JUSTID") == [
        b"0-0", ids("5-1", "6-1"), []]
    # JUSTID does not count a delivery
    assert pel(r, "k", "g") == [("1-1", "b", 2), ("2-1", "b", 2), ("3-1", "b", 1),
                                ("4-1", "b", 1), ("5-1", "b", 1), ("6-1", "b", 1)]
    # start: inclusive, exclusive with "(", "-" and "+"
    assert cmd(r, "XAUTOCLAIM", "k", "g", "c", 0, "(4-1", "JUSTID") == [
        b"0-0", ids("5-1", "6-1"), []]
    assert cmd(r, "XAUTOCLAIM", "k", "g", "c", 0, "-", "COUNT", 1, "JUSTID") == [
        b"2-1", ids("1-1"), []]
    assert cmd(r, "XAUTOCLAIM", "k", "g", "c", 0, "+") == [b"0-0", [], []]
    assert cmd(r, "XAUTOCLAIM", "k", "g", "c", 0, "99-0") == [b"0-0", [], []]
    assert cmd(r, "XAUTOCLAIM", "k", "g", "c", 0, "5", "JUSTID", "COUNT", 1) == [
        b"6-1", ids("5-1"), []]
    assert cmd(r, "XPENDING", "k", "g") == [6, b"1-1", b"6-1", [[b"b", b"3"], [b"c", b"3"]]]
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"a", b"b", b"c"]


def test_xautoclaim_min_idle_time(r):
    claim_setup(r, n=4, read=4)
    time.sleep(0.15)
    cmd(r, "XCLAIM", "k", "g", "b", 0, "2-1", "JUSTID")  # 2-1 idle again
    assert cmd(r, "XAUTOCLAIM", "k", "g", "c", 100, 0) == [
        b"0-0", [e("1-1", "f", "v1"), e("3-1", "f", "v3"), e("4-1", "f", "v4")], []]
    assert pel(r, "k", "g") == [("1-1", "c", 2), ("2-1", "b", 1), ("3-1", "c", 2),
                                ("4-1", "c", 2)]
    assert max(idles(r, "k", "g")) < 100
    assert cmd(r, "XAUTOCLAIM", "k", "g", "d", -1, 0, "COUNT", 1, "JUSTID") == [
        b"2-1", ids("1-1"), []]


def test_xautoclaim_deleted_entries(r):
    claim_setup(r, n=7, read=6)
    cmd(r, "XAUTOCLAIM", "k", "g", "b", 0, 0, "COUNT", 2, "JUSTID")
    cmd(r, "XDEL", "k", "2-1", "5-1", "6-1")
    assert cmd(r, "XAUTOCLAIM", "k", "g", "c", 0, "2-0") == [
        b"0-0", [e("3-1", "f", "v3"), e("4-1", "f", "v4")], ids("2-1", "5-1", "6-1")]
    assert pel(r, "k", "g") == [("1-1", "b", 1), ("3-1", "c", 2), ("4-1", "c", 2)]
    assert cmd(r, "XPENDING", "k", "g") == [3, b"1-1", b"4-1", [[b"b", b"1"], [b"c", b"2"]]]
    assert [(c["name"], c["pending"]) for c in consumers(r, "k", "g")] == [
        (b"a", 0), (b"b", 1), (b"c", 2)]


def test_xautoclaim_deleted_entries_count_against_count(r):
    claim_setup(r, n=30, read=30)
    cmd(r, "XDEL", "k", *["%d-1" % i for i in range(1, 13)])
    assert cmd(r, "XAUTOCLAIM", "k", "g", "c", 0, 0, "COUNT", 1) == [b"2-1", [], ids("1-1")]
    assert cmd(r, "XAUTOCLAIM", "k", "g", "c", 0, 0, "COUNT", 2, "JUSTID") == [
        b"4-1", [], ids("2-1", "3-1")]
    assert cmd(r, "XPENDING", "k", "g") == [27, b"4-1", b"30-1", [[b"a", b"27"]]]
    assert [c["name"] for c in consumers(r, "k", "g")] == [b"a"]  # c claimed nothing
    got = cmd(r, "XAUTOCLAIM", "k", "g", "c", 0, "4-1", "COUNT", 12, "JUSTID")
    # 4-1 .. 12-1 are deleted: 9 of the 12, then 3 claimed
    assert got == [b"16-1", ids("13-1", "14-1", "15-1"),
                   ids(*["%d-1" % i for i in range(4, 13)])]
    assert cmd(r, "XPENDING", "k", "g") == [18, b"13-1", b"30-1", [[b"a", b"15"],
                                                                     [b"c", b"3"]]]
    assert group(r, "k", "g")["pending"] == 18


def test_xautoclaim_errors(r):
    claim_setup(r)
    count_err = "ERR COUNT must be > 0"
    for bad in (0, -1, "x"):
        assert err(r, "XAUTOCLAIM", "k", "g", "c", 0, 0, "COUNT", bad) == count_err, bad
    assert err(r, "XAUTOCLAIM", "k", "g", "c", 0, 0, "COUNT") == SYNTAX
    assert err(r, "XAUTOCLAIM", "k", "g", "c", 0, 0, "FOO") == SYNTAX
    assert err(r, "XAUTOCLAIM", "k", "g", "c", 0, 0, "IDLE", 5) == SYNTAX
    assert err(r, "XAUTOCLAIM", "k", "g", "c", "x", 0) == (
        "ERR Invalid min-idle-time argument for XAUTOCLAIM")
    assert err(r, "XAUTOCLAIM", "k", "g", "c", 0, "zz") == BAD_ID
    assert err(r, "XAUTOCLAIM", "k", "nog", "c", 0, 0) == nogroup("k", "nog")
    assert err(r, "XAUTOCLAIM", "nokey", "g", "c", 0, 0) == nogroup("nokey", "g")
    # the arguments are checked before the group is looked up
    assert err(r, "XAUTOCLAIM", "nokey", "g", "c", "x", 0) == (
        "ERR Invalid min-idle-time argument for XAUTOCLAIM")
    assert err(r, "XAUTOCLAIM", "nokey", "g", "c", 0, 0, "FOO") == SYNTAX
    assert err(r, "XAUTOCLAIM", "k", "g", "c", 0) == arity("xautoclaim")
    assert pel(r, "k", "g") == [("1-1", "a", 1), ("2-1", "a", 1), ("3-1", "a", 1)]


# ---- XINFO ---------------------------------------------------------------------------------------

def test_xinfo_groups(r):
    fill(r, "k", 5)
    cmd(r, "XGROUP", "CREATE", "k", "readers", "0")
    cmd(r, "XGROUP", "CREATE", "k", "idle", "$")
    cmd(r, "XREADGROUP", "GROUP", "readers", "a", "COUNT", 2, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "readers", "b", "COUNT", 1, "STREAMS", "k", ">")
    cmd(r, "XGROUP", "CREATECONSUMER", "k", "readers", "c")
    cmd(r, "XACK", "k", "readers", "1-1")
    assert cmd(r, "XINFO", "GROUPS", "k") == [
        [b"name", b"idle", b"consumers", 0, b"pending", 0, b"last-delivered-id", b"5-1",
         b"entries-read", None, b"lag", 0],
        [b"name", b"readers", b"consumers", 3, b"pending", 2, b"last-delivered-id", b"3-1",
         b"entries-read", 3, b"lag", 2],
    ]
    cmd(r, "XADD", "k", "6-1", "f", "v6")
    # "idle" has no entries-read and sits between the first and last entries now: no lag
    assert [(g["name"], g["lag"]) for g in groups(r, "k")] == [(b"idle", None),
                                                               (b"readers", 3)]
    fill(r, "plain", 1)
    assert cmd(r, "XINFO", "GROUPS", "plain") == []
    assert err(r, "XINFO", "GROUPS", "nokey") == NO_SUCH_KEY
    assert err(r, "XINFO", "GROUPS") == arity("xinfo|groups")
    assert err(r, "XINFO", "GROUPS", "k", "x") == arity("xinfo|groups")


def test_xinfo_consumers(r):
    fill(r, "k", 4)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "b", "COUNT", 3, "STREAMS", "k", ">")
    cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "a")
    cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">")
    got = cmd(r, "XINFO", "CONSUMERS", "k", "g")
    # exactly name, pending, idle (no "inactive" in 7.0)
    assert [len(row) for row in got] == [6, 6, 6]
    assert [row[:5] for row in got] == [
        [b"name", b"a", b"pending", 0, b"idle"],
        [b"name", b"b", b"pending", 3, b"idle"],
        [b"name", b"c", b"pending", 1, b"idle"],
    ]
    assert all(0 <= row[5] < 2000 for row in got)
    time.sleep(0.15)
    # XCLAIM / XAUTOCLAIM that claim nothing, CREATECONSUMER of an existing consumer, XACK and
    # XPENDING do not touch the idle time; an XREADGROUP does
    cmd(r, "XCLAIM", "k", "g", "a", 100000, "1-1")
    cmd(r, "XAUTOCLAIM", "k", "g", "a", 100000, 0)
    cmd(r, "XGROUP", "CREATECONSUMER", "k", "g", "a")
    cmd(r, "XACK", "k", "g", "1-1")
    cmd(r, "XPENDING", "k", "g", "-", "+", 10, "b")
    assert all(c["idle"] >= 150 for c in consumers(r, "k", "g"))
    # a ">" read that finds nothing does not either; a history read does
    assert cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", ">") is None
    assert consumers(r, "k", "g")[0]["idle"] >= 150
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", "0")
    cmd(r, "XCLAIM", "k", "g", "c", 0, "2-1", "JUSTID")
    idle = {c["name"]: c["idle"] for c in consumers(r, "k", "g")}
    assert idle[b"a"] < 150 <= idle[b"b"]
    assert idle[b"c"] < 150
    assert [(c["name"], c["pending"]) for c in consumers(r, "k", "g")] == [
        (b"a", 0), (b"b", 1), (b"c", 2)]
    assert err(r, "XINFO", "CONSUMERS", "k", "nog") == nogroup_xgroup("k", "nog")
    assert err(r, "XINFO", "CONSUMERS", "nokey", "g") == NO_SUCH_KEY
    assert err(r, "XINFO", "CONSUMERS", "k") == arity("xinfo|consumers")


def test_xinfo_stream_full(r):
    t0 = now_ms()
    cmd(r, "XADD", "k", "1-1", "a", "1")
    cmd(r, "XADD", "k", "2-1", "b", "2")
    cmd(r, "XADD", "k", "3-1", "c", "3")
    cmd(r, "XGROUP", "CREATE", "k", "g1", "0")
    cmd(r, "XGROUP", "CREATE", "k", "g2", "0")
    cmd(r, "XREADGROUP", "GROUP", "g1", "alice", "COUNT", 2, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g1", "bob", "COUNT", 1, "STREAMS", "k", ">")
    cmd(r, "XREADGROUP", "GROUP", "g1", "alice", "COUNT", 1, "STREAMS", "k", "0")
    cmd(r, "XGROUP", "CREATECONSUMER", "k", "g2", "carol")
    full = cmd(r, "XINFO", "STREAM", "k", "FULL")
    t1 = now_ms()
    times = []

    def t(value):
        times.append(value)
        return "T"

    # pin the shape: time fields replaced by "T" after a range check
    assert full[0::2] == ids("length", "radix-tree-keys", "radix-tree-nodes",
                             "last-generated-id", "max-deleted-entry-id", "entries-added",
                             "recorded-first-entry-id", "entries", "groups")
    info = as_dict(full)
    assert isinstance(info["radix-tree-keys"], int) and isinstance(info["radix-tree-nodes"], int)
    assert [info[k] for k in ("length", "last-generated-id", "max-deleted-entry-id",
                              "entries-added", "recorded-first-entry-id")] == [
        3, b"3-1", b"0-0", 3, b"1-1"]
    assert info["entries"] == [e("1-1", "a", "1"), e("2-1", "b", "2"), e("3-1", "c", "3")]
    g1, g2 = info["groups"]
    assert g1[:12] == [b"name", b"g1", b"last-delivered-id", b"3-1", b"entries-read", 3,
                       b"lag", 0, b"pel-count", 3, b"pending",
                       [[b"1-1", b"alice", g1[11][0][2], 2],
                        [b"2-1", b"alice", g1[11][1][2], 1],
                        [b"3-1", b"bob", g1[11][2][2], 1]]]
    t(g1[11][0][2]), t(g1[11][1][2]), t(g1[11][2][2])
    alice, bob = g1[13]
    assert g1[12] == b"consumers" and len(g1) == 14
    assert alice == [b"name", b"alice", b"seen-time", alice[3], b"pel-count", 2, b"pending",
                     [[b"1-1", alice[7][0][1], 2], [b"2-1", alice[7][1][1], 1]]]
    assert bob == [b"name", b"bob", b"seen-time", bob[3], b"pel-count", 1, b"pending",
                   [[b"3-1", bob[7][0][1], 1]]]
    t(alice[3]), t(bob[3]), t(alice[7][0][1]), t(alice[7][1][1]), t(bob[7][0][1])
    # a consumer's PEL rows share the group's delivery times
    assert alice[7][0][1] == g1[11][0][2] and bob[7][0][1] == g1[11][2][2]
    assert alice[3] >= alice[7][0][1]  # seen at the history read, which re-delivered 1-1
    assert g2 == [b"name", b"g2", b"last-delivered-id", b"0-0", b"entries-read", None,
                  b"lag", 3, b"pel-count", 0, b"pending", [], b"consumers",
                  [[b"name", b"carol", b"seen-time", g2[13][0][3], b"pel-count", 0,
                    b"pending", []]]]
    t(g2[13][0][3])
    assert all(t0 - 1000 <= x <= t1 + 1000 for x in times), (t0, times, t1)


def test_xinfo_stream_full_count(r):
    fill(r, "k", 15)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    cmd(r, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", ">")

    def sizes(*args):
        info = as_dict(cmd(r, "XINFO", "STREAM", "k", "FULL", *args))
        g = as_dict(info["groups"][0])
        c = as_dict(g["consumers"][0])
        return (len(info["entries"]), g["pel-count"], len(g["pending"]), c["pel-count"],
                len(c["pending"]))

    assert sizes() == (10, 15, 10, 15, 10)  # COUNT 10 by default
    assert sizes("COUNT", 3) == (3, 15, 3, 15, 3)
    assert sizes("COUNT", 0) == (15, 15, 15, 15, 15)  # 0: everything
    assert sizes("count", 100) == (15, 15, 15, 15, 15)
    info = as_dict(cmd(r, "XINFO", "STREAM", "k", "FULL", "COUNT", 2))
    assert [x[0] for x in info["entries"]] == ids("1-1", "2-1")
    assert [x[0] for x in as_dict(info["groups"][0])["pending"]] == ids("1-1", "2-1")
    assert err(r, "XINFO", "STREAM", "k", "FULL", "COUNT", "x") == NOT_INT
    stream_err = bad_subcommand_args("XINFO", "STREAM")
    assert err(r, "XINFO", "STREAM", "k", "FULL", "COUNT") == stream_err
    assert err(r, "XINFO", "STREAM", "k", "FOO") == stream_err
    assert err(r, "XINFO", "STREAM", "k", "COUNT", 1) == stream_err
    assert err(r, "XINFO", "STREAM", "k", "FULL", "FOO", 1) == stream_err
    assert err(r, "XINFO", "STREAM", "nokey", "FULL") == NO_SUCH_KEY


def test_xinfo_stream_counts_groups(r):
    fill(r, "k", 2)
    cmd(r, "XGROUP", "CREATE", "k", "g1", "0")
    cmd(r, "XGROUP", "CREATE", "k", "g2", "0")
    info = as_dict(cmd(r, "XINFO", "STREAM", "k"))
    assert info["groups"] == 2
    cmd(r, "XGROUP", "DESTROY", "k", "g1")
    assert as_dict(cmd(r, "XINFO", "STREAM", "k"))["groups"] == 1
    full = as_dict(cmd(r, "XINFO", "STREAM", "k", "FULL"))
    assert [as_dict(g)["name"] for g in full["groups"]] == [b"g2"]


def test_xinfo_help_and_errors(r):
    assert cmd(r, "XINFO", "HELP") == ids(
        "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        "HELP",
        "    Prints this help.")
    assert err(r, "XINFO") == arity("xinfo")
    assert err(r, "XINFO", "FOO", "k") == "ERR unknown subcommand 'FOO'. Try XINFO HELP."
    assert err(r, "XINFO", "STREAM") == arity("xinfo|stream")


# ---- entries-read and lag ------------------------------------------------------------------------

def test_lag_and_entries_read_through_reads_deletes_and_trims(r):
    fill(r, "k", 5)

    def step(*args):
        cmd(r, *args)
        return position(r, "k", "g")

    assert step("XGROUP", "CREATE", "k", "g", "0") == (b"0-0", None, 5)
    assert step("XREADGROUP", "GROUP", "g", "a", "COUNT", 1, "STREAMS", "k", ">") == (
        b"1-1", 1, 4)
    assert step("XADD", "k", "6-1", "f", "v6") == (b"1-1", 1, 5)
    # a tombstone after the group's position: the lag cannot be computed
    assert step("XDEL", "k", "4-1") == (b"1-1", 1, None)
    assert as_dict(cmd(r, "XINFO", "STREAM", "k"))["max-deleted-entry-id"] == b"4-1"
    # reading towards it invalidates entries-read, until the group reaches the last entry
    read1 = ("XREADGROUP", "GROUP", "g", "a", "COUNT", 1, "STREAMS", "k", ">")
    assert step(*read1) == (b"2-1", None, None)
    assert step(*read1) == (b"3-1", None, None)
    assert step(*read1) == (b"5-1", None, None)
    assert step(*read1) == (b"6-1", 6, 0)
    assert step(*read1) == (b"6-1", 6, 0)
    assert step("XADD", "k", "7-1", "f", "v7") == (b"6-1", 6, 1)
    # a tombstone before the group's position does not matter
    assert step("XDEL", "k", "2-1") == (b"6-1", 6, 1)
    # SETID without ENTRIESREAD: an estimate where Redis can make one
    assert step("XGROUP", "SETID", "k", "g", "0") == (b"0-0", None, None)
    assert step("XGROUP", "SETID", "k", "g", "5-1") == (b"5-1", None, None)
    assert step("XGROUP", "SETID", "k", "g", "$") == (b"7-1", None, 0)
    # trimming the tombstones away makes estimates possible again
    assert step("XTRIM", "k", "MINID", "5-1") == (b"7-1", None, 0)
    assert step("XGROUP", "SETID", "k", "g", "0") == (b"0-0", None, 3)
    assert step("XGROUP", "SETID", "k", "g", "5-1") == (b"5-1", None, 2)  # the first entry
    assert step("XGROUP", "SETID", "k", "g", "6-1") == (b"6-1", None, None)  # in between
    assert step("XGROUP", "SETID", "k", "g", "3-0", "ENTRIESREAD", 4) == (b"3-0", 4, 3)
    assert step("XGROUP", "SETID", "k", "g", "99-0") == (b"99-0", None, None)  # the future
    # a wrong ENTRIESREAD is trusted, and carried on by reads
    assert step("XGROUP", "SETID", "k", "g", "0", "ENTRIESREAD", 0) == (b"0-0", 0, 7)
    assert step("XREADGROUP", "GROUP", "g", "a", "STREAMS", "k", ">") == (b"7-1", 3, 4)
    # deleting the last entry: the group is at the last ID, lag 0
    assert step("XDEL", "k", "7-1") == (b"7-1", 3, 0)
    assert step("XADD", "k", "8-1", "f", "v8") == (b"7-1", 3, None)
    # an emptied stream has no tombstones ahead: entries-read counts again (8 - 3)
    assert step("XDEL", "k", "5-1", "6-1", "8-1") == (b"7-1", 3, 5)
    assert step("XGROUP", "SETID", "k", "g", "0") == (b"0-0", None, 0)
    assert step("XADD", "k", "9-1", "f", "v9") == (b"0-0", None, 1)
    assert step(*read1) == (b"9-1", 9, 0)


def test_lag_of_new_groups(r):
    cmd(r, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM")
    assert position(r, "k", "g") == (b"0-0", None, 0)
    cmd(r, "XADD", "k", "1-1", "f", "v")
    assert position(r, "k", "g") == (b"0-0", None, 1)
    cmd(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">")
    assert position(r, "k", "g") == (b"1-1", 1, 0)
    # NOACK reads count as reads too
    cmd(r, "XADD", "k", "2-1", "f", "v")
    cmd(r, "XGROUP", "CREATE", "k", "n", "0")
    cmd(r, "XREADGROUP", "GROUP", "n", "c", "NOACK", "COUNT", 1, "STREAMS", "k", ">")
    assert position(r, "k", "n") == (b"1-1", 1, 1)
    # a stream with a tombstone: a group made at 0 has no lag, one made at $ has 0
    fill(r, "t", 5)
    cmd(r, "XDEL", "t", "3-1")
    cmd(r, "XGROUP", "CREATE", "t", "zero", "0")
    cmd(r, "XGROUP", "CREATE", "t", "end", "$")
    cmd(r, "XGROUP", "CREATE", "t", "after", "4-1")
    assert position(r, "t", "zero") == (b"0-0", None, None)
    assert position(r, "t", "end") == (b"5-1", None, 0)
    assert position(r, "t", "after") == (b"4-1", None, None)
    cmd(r, "XREADGROUP", "GROUP", "zero", "c", "STREAMS", "t", ">")
    assert position(r, "t", "zero") == (b"5-1", 5, 0)
    # XTRIM of the tombstone region: a group at 0 is estimated again
    cmd(r, "XTRIM", "t", "MAXLEN", 1)
    cmd(r, "XGROUP", "CREATE", "t", "late", "0")
    assert position(r, "t", "late") == (b"0-0", None, 1)
    # tombstones all before the first entry: a group before them is estimated
    for i in range(1, 5):
        cmd(r, "XADD", "b", "%d-0" % i, "f", i)
    cmd(r, "XDEL", "b", "1-0", "2-0")
    cmd(r, "XGROUP", "CREATE", "b", "g", "1-0")
    assert position(r, "b", "g") == (b"1-0", None, 2)


# ---- WRONGTYPE -----------------------------------------------------------------------------------

def test_wrongtype(r):
    cmd(r, "SET", "s", "x")
    for args in [("XGROUP", "CREATE", "s", "g", "$"),
                 ("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"),
                 ("XGROUP", "CREATE", "s", "g", "zz"),
                 ("XGROUP", "CREATECONSUMER", "s", "g", "c"),
                 ("XGROUP", "DELCONSUMER", "s", "g", "c"),
                 ("XGROUP", "DESTROY", "s", "g"),
                 ("XGROUP", "SETID", "s", "g", "0"),
                 ("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"),
                 ("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0"),
                 ("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "s", ">"),
                 ("XACK", "s", "g", "1-1"),
                 ("XPENDING", "s", "g"),
                 ("XPENDING", "s", "g", "-", "+", 10),
                 ("XPENDING", "s", "g", "IDLE", 5, "-", "+", 10, "c"),
                 ("XCLAIM", "s", "g", "c", 0, "1-1"),
                 ("XAUTOCLAIM", "s", "g", "c", 0, 0),
                 ("XINFO", "GROUPS", "s"),
                 ("XINFO", "CONSUMERS", "s", "g"),
                 ("XINFO", "STREAM", "s"),
                 ("XINFO", "STREAM", "s", "FULL")]:
        assert err(r, *args) == WRONGTYPE, args
    # a stream with the group first, then the string: still WRONGTYPE, nothing read
    fill(r, "k", 1)
    cmd(r, "XGROUP", "CREATE", "k", "g", "0")
    assert err(r, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", "s", ">", ">") == WRONGTYPE
    assert cmd(r, "XPENDING", "k", "g") == [0, None, None, None]
    assert cmd(r, "GET", "s") == b"x"


# ---- many keys, many consumers -------------------------------------------------------------------

NAMES = ["orders", "events:eu", "q{7}", "log.2024", "user:1001:feed", "x", "stream-%",
         "jobs/high", "ÄÖÜ", "a b"]


def test_groups_on_many_keys(r):
    keys = ["%s:%d" % (NAMES[i % len(NAMES)], i) for i in range(40)]
    pipe = r.pipeline(transaction=False)
    for i, key in enumerate(keys):
        for j in range(1, 4):
            pipe.execute_command("XADD", key, "%d-%d" % (j, i), "k", key, "n", j)
        pipe.execute_command("XGROUP", "CREATE", key, "grp%d" % (i % 3), "0")
    pipe.execute()
    by_group = {}
    for i, key in enumerate(keys):
        by_group.setdefault("grp%d" % (i % 3), []).append((i, key))
    for gname, members in by_group.items():
        ks = [k for _, k in members]
        got = cmd(r, "XREADGROUP", "GROUP", gname, "first-" + gname, "COUNT", 2, "STREAMS",
                  *ks, *([">"] * len(ks)))
        assert got == [[k.encode(), [[b"%d-%d" % (j, i), [b"k", k.encode(), b"n", b"%d" % j]]
                                     for j in (1, 2)]] for i, k in members]
        got = cmd(r, "XREADGROUP", "GROUP", gname, "second-" + gname, "STREAMS", *ks,
                  *([">"] * len(ks)))
        assert [(x[0], [y[0] for y in x[1]]) for x in got] == [
            (k.encode(), [b"3-%d" % i]) for i, k in members]
        assert cmd(r, "XREADGROUP", "GROUP", gname, "third", "STREAMS", *ks,
                   *([">"] * len(ks))) is None
    for i, key in enumerate(keys):
        gname = "grp%d" % (i % 3)
        assert cmd(r, "XPENDING", key, gname) == [
            3, b"1-%d" % i, b"3-%d" % i,
            [[b"first-" + gname.encode(), b"2"], [b"second-" + gname.encode(), b"1"]]]
        assert cmd(r, "XACK", key, gname, "1-%d" % i, "3-%d" % i) == 2
        assert position(r, key, gname) == (b"3-%d" % i, 3, 0)
        assert err(r, "XPENDING", key, "grp%d" % ((i + 1) % 3)) == nogroup(
            key, "grp%d" % ((i + 1) % 3))
    for i, key in enumerate(keys):
        gname = "grp%d" % (i % 3)
        assert cmd(r, "XAUTOCLAIM", key, gname, "claimer", 0, 0, "JUSTID") == [
            b"0-0", [b"2-%d" % i], []]
        assert cmd(r, "XPENDING", key, gname) == [1, b"2-%d" % i, b"2-%d" % i,
                                                  [[b"claimer", b"1"]]]


def test_block_on_many_keys(conns, r):
    keys = ["%s:blk%d" % (NAMES[i % len(NAMES)], i) for i in range(24)]
    for key in keys:
        cmd(r, "XGROUP", "CREATE", key, "g", "$", "MKSTREAM")
    c = conns.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", *keys,
                    *([">"] * len(keys)))
    d = conns.block("XREADGROUP", "GROUP", "g", "d", "BLOCK", 0, "STREAMS", keys[5], ">")
    cmd(r, "XADD", keys[17], "1-1", "f", "v")
    c.expect(arr(arr(bulk(keys[17].encode()), arr(entry_bytes(b"1-1", b"f", b"v")))))
    assert quiet(d)
    cmd(r, "XADD", keys[5], "1-1", "f", "w")
    d.expect(arr(arr(bulk(keys[5].encode()), arr(entry_bytes(b"1-1", b"f", b"w")))))
    for i, key in enumerate(keys):
        want = {17: [[b"c", b"1"]], 5: [[b"d", b"1"]]}.get(i)
        assert cmd(r, "XPENDING", key, "g")[3] == want, key


# ---- a large stream, two consumers, checked against a model --------------------------------------

def test_large_stream_two_consumers(r):
    gen = rng("test_large_stream_two_consumers")
    n = 2000
    pipe = r.pipeline(transaction=False)
    for i in range(1, n + 1):
        pipe.execute_command("XADD", "big", "%d-0" % i, "i", i)
    pipe.execute()
    cmd(r, "XGROUP", "CREATE", "big", "g", "0")
    owner = {}  # id number -> consumer
    turn = 0
    while True:
        name = ("alpha", "beta")[turn % 2]
        got = cmd(r, "XREADGROUP", "GROUP", "g", name, "COUNT", 100, "STREAMS", "big", ">")
        if got is None:
            break
        entries = got[0][1]
        assert len(entries) == 100
        for eid, fields in entries:
            num = int(eid.split(b"-")[0])
            assert fields == [b"i", b"%d" % num]
            owner[num] = name
        turn += 1
    assert turn == 20 and sorted(owner) == list(range(1, n + 1))
    assert position(r, "big", "g") == (b"2000-0", 2000, 0)
    acked = set(gen.sample(range(1, n + 1), n // 2))
    ack_list = sorted(acked)
    for i in range(0, len(ack_list), 250):
        batch = ack_list[i:i + 250]
        assert cmd(r, "XACK", "big", "g", *["%d-0" % x for x in batch]) == len(batch)
    assert cmd(r, "XACK", "big", "g", *["%d-0" % x for x in ack_list[:50]]) == 0
    left = sorted(set(owner) - acked)
    per = {}
    for x in left:
        per[owner[x]] = per.get(owner[x], 0) + 1
    assert cmd(r, "XPENDING", "big", "g") == [
        len(left), b"%d-0" % left[0], b"%d-0" % left[-1],
        [[name.encode(), str(per[name]).encode()] for name in sorted(per)]]
    rows = cmd(r, "XPENDING", "big", "g", "-", "+", n)
    assert [(int(row[0].split(b"-")[0]), row[1].decode(), row[3]) for row in rows] == [
        (x, owner[x], 1) for x in left]
    for name in ("alpha", "beta"):
        mine = [x for x in left if owner[x] == name]
        rows = cmd(r, "XPENDING", "big", "g", "500-0", "1500-0", 10000, name)
        assert [int(row[0].split(b"-")[0]) for row in rows] == [
            x for x in mine if 500 <= x <= 1500]
        got = cmd(r, "XREADGROUP", "GROUP", "g", name, "COUNT", 30, "STREAMS", "big", "0")
        assert [int(x[0].split(b"-")[0]) for x in got[0][1]] == mine[:30]
    assert [(c["name"], c["pending"]) for c in consumers(r, "big", "g")] == [
        (b"alpha", per["alpha"]), (b"beta", per["beta"])]
    assert group(r, "big", "g")["pending"] == len(left)
    # XAUTOCLAIM walks the whole PEL in pages of 100 with its cursor
    cursor, claimed = b"0-0", []
    for _ in range(100):
        cursor, page, deleted = cmd(r, "XAUTOCLAIM", "big", "g", "gamma", 0, cursor, "COUNT",
                                    100, "JUSTID")
        assert deleted == [] and len(page) <= 100
        claimed += [int(x.split(b"-")[0]) for x in page]
        if cursor == b"0-0":
            break
    assert claimed == left
    assert cmd(r, "XPENDING", "big", "g") == [
        len(left), b"%d-0" % left[0], b"%d-0" % left[-1], [[b"gamma", str(len(left)).encode()]]]
    # the history reads above counted; JUSTID did not
    first30 = {name: [x for x in left if owner[x] == name][:30] for name in ("alpha", "beta")}
    twice = set(first30["alpha"]) | set(first30["beta"])
    rows = cmd(r, "XPENDING", "big", "g", "-", "+", n, "gamma")
    assert [row[3] for row in rows] == [2 if x in twice else 1 for x in left]


# ---- RESP3 ---------------------------------------------------------------------------------------

def test_resp3_reply_types(server, r):
    with server.raw() as c:
        assert c.command("HELLO", "3")[b"proto"] == 3
        c.command("XADD", "k", "1-1", "f", "v")
        c.command("XADD", "k", "2-1", "f", "w")
        c.command("XGROUP", "CREATE", "k", "g", "0")
        c.command("XGROUP", "CREATE", "k", "e", "$")
        # XREADGROUP: a map of key -> entries
        c.send_command("XREADGROUP", "GROUP", "g", "c", "COUNT", 1, "STREAMS", "k", ">")
        c.expect(b"%1\r\n" + bulk(b"k") + arr(entry_bytes(b"1-1", b"f", b"v")))
        c.send_command("XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">")
        c.expect(b"%1\r\n" + bulk(b"k") + arr(entry_bytes(b"2-1", b"f", b"w")))
        c.send_command("XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">")
        c.expect(NULL3)
        # XINFO GROUPS: an array of maps, a null entries-read as _
        c.send_command("XINFO", "GROUPS", "k")
        c.expect(b"*2\r\n"
                 b"%6\r\n" + bulk(b"name") + bulk(b"e") + bulk(b"consumers") + b":0\r\n"
                 + bulk(b"pending") + b":0\r\n" + bulk(b"last-delivered-id") + bulk(b"2-1")
                 + bulk(b"entries-read") + b"_\r\n" + bulk(b"lag") + b":0\r\n"
                 b"%6\r\n" + bulk(b"name") + bulk(b"g") + bulk(b"consumers") + b":1\r\n"
                 + bulk(b"pending") + b":2\r\n" + bulk(b"last-delivered-id") + bulk(b"2-1")
                 + bulk(b"entries-read") + b":2\r\n" + bulk(b"lag") + b":0\r\n")
        # XPENDING summary: still arrays (not a map), counts as bulk strings
        c.send_command("XPENDING", "k", "g")
        c.expect(b"*4\r\n:2\r\n" + bulk(b"1-1") + bulk(b"2-1")
                 + arr(arr(bulk(b"c"), bulk(b"2"))))
        c.send_command("XPENDING", "k", "e")
        c.expect(b"*4\r\n:0\r\n_\r\n_\r\n_\r\n")
        rows = c.command("XPENDING", "k", "g", "-", "+", 5)
        assert [[x[0], x[1], x[3]] for x in rows] == [[b"1-1", b"c", 1], [b"2-1", b"c", 1]]
        # XINFO CONSUMERS: an array of maps
        got = c.command("XINFO", "CONSUMERS", "k", "g")
        assert isinstance(got, list) and isinstance(got[0], dict)
        assert list(got[0]) == [b"name", b"pending", b"idle"]
        assert got[0][b"name"] == b"c" and got[0][b"pending"] == 2
        # XCLAIM / XAUTOCLAIM: arrays
        c.send_command("XCLAIM", "k", "g", "d", 0, "1-1", "JUSTID")
        c.expect(arr(bulk(b"1-1")))
        c.send_command("XAUTOCLAIM", "k", "g", "d", 0, 0, "COUNT", 1)
        c.expect(b"*3\r\n" + bulk(b"2-1") + arr(entry_bytes(b"1-1", b"f", b"v")) + b"*0\r\n")
        # XINFO STREAM FULL: a map, its groups and consumers maps, PEL rows arrays
        full = c.command("XINFO", "STREAM", "k", "FULL")
        assert isinstance(full, dict) and list(full)[-2:] == [b"entries", b"groups"]
        assert full[b"entries"] == [e("1-1", "f", "v"), e("2-1", "f", "w")]
        g = full[b"groups"][1]
        assert isinstance(g, dict) and list(g) == [
            b"name", b"last-delivered-id", b"entries-read", b"lag", b"pel-count", b"pending",
            b"consumers"]
        assert full[b"groups"][0][b"entries-read"] is None
        assert [row[:2] + row[3:] for row in g[b"pending"]] == [[b"1-1", b"d", 2],
                                                                [b"2-1", b"c", 1]]
        assert [list(x) for x in g[b"consumers"]] == [
            [b"name", b"seen-time", b"pel-count", b"pending"]] * 2
        assert c.command("PING") == b"PONG"


# ---- DUMP / RESTORE with groups ------------------------------------------------------------------

def full_info(r, key):
    """XINFO STREAM FULL COUNT 0 as a dict, without Redis's layout figures (radix-tree-*)."""
    flat = cmd(r, "XINFO", "STREAM", key, "FULL", "COUNT", 0)
    info = dict(zip(flat[::2], flat[1::2]))
    del info[b"radix-tree-keys"], info[b"radix-tree-nodes"]
    return info


def test_dump_restore_groups_with_redis(r):
    """Groups, their PELs and consumers travel in DUMP payloads both ways with redis-server:
    entries over several nodes, a deleted entry, acked and reassigned pending entries, an
    unknown entries-read, a consumer with nothing pending."""
    other = OwnRedis()
    try:
        o = other.client
        for src, dst in ((o, r), (r, o)):
            cmd(src, "DEL", "s")
            for i in range(1, 251):
                cmd(src, "XADD", "s", "%d-1" % i, "f", i, "pad", "x" * (i % 50))
            cmd(src, "XGROUP", "CREATE", "s", "g1", "0")
            cmd(src, "XGROUP", "CREATE", "s", "g2", "120-1")
            cmd(src, "XREADGROUP", "GROUP", "g1", "alice", "COUNT", 10, "STREAMS", "s", ">")
            cmd(src, "XREADGROUP", "GROUP", "g1", "bob", "COUNT", 5, "STREAMS", "s", ">")
            cmd(src, "XACK", "s", "g1", "2-1", "12-1")
            cmd(src, "XCLAIM", "s", "g1", "bob", 0, "3-1", "4-1")
            cmd(src, "XGROUP", "CREATECONSUMER", "s", "g2", "carol")
            cmd(src, "XDEL", "s", "100-1")
            cmd(dst, "DEL", "s")
            assert cmd(dst, "RESTORE", "s", 0, cmd(src, "DUMP", "s")) == b"OK"
            assert cmd(dst, "XRANGE", "s", "-", "+") == cmd(src, "XRANGE", "s", "-", "+")
            assert cmd(dst, "XINFO", "GROUPS", "s") == cmd(src, "XINFO", "GROUPS", "s")
            assert full_info(dst, "s") == full_info(src, "s")
            assert cmd(dst, "XPENDING", "s", "g1") == cmd(src, "XPENDING", "s", "g1")
            assert cmd(dst, "XPENDING", "s", "g1") == [13, b"1-1", b"15-1",
                                                       [[b"alice", b"7"], [b"bob", b"6"]]]
    finally:
        other.cleanup()
