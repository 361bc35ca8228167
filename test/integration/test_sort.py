"""SORT and SORT_RO as Redis 7.0.15 gives them: numeric and ALPHA sorts of lists, sets and
sorted sets, ties, LIMIT, BY weight patterns (strings, hash fields, constants), GET patterns,
STORE, error texts and their precedence, MULTI/EXEC, scripts, keyspace events, RESP3 bytes and
COMMAND GETKEYS / INFO.

Every reply below is Redis 7.0.15's own output, pinned as a literal, except the 2000-element
case, which is compared to Python's sorted(). A numeric sort parses with strtod (leading blanks,
"inf", hex accepted) and breaks ties by the elements' bytes. An ALPHA reply without STORE uses
strcoll in Redis, so those tests use lowercase ASCII letters and digits, which sort alike in the
C and the common UTF-8 locales; ALPHA with STORE compares bytes in every locale. No test feeds
an out-of-range number ("1e400"): Redis 7.0.15 does not clear errno before strtod, so after one
ERANGE its later numeric sorts fail too, until some system call overwrites errno.
Weight and object keys use many distinct names, so slotkv spreads them over its workers.
"""

import os
import random

from conftest import NOT_INT, SYNTAX, WRONGTYPE, Error, Simple, arity, err

NOT_DOUBLE = "ERR One or more scores can't be converted into double"
EXECABORT = "EXECABORT Transaction discarded because of previous errors."


def cmd(r, *args):
    return r.execute_command(*args)


def rng(name):
    seed = int(os.environ.get("SLOTKV_TEST_SEED", "0")) or random.randrange(1, 2 ** 31)
    print("%s: seed %d (rerun with SLOTKV_TEST_SEED=%d)" % (name, seed, seed))
    return random.Random(seed)


def bl(*items):
    return [i.encode() for i in items]


# ---- numeric sort -------------------------------------------------------------------------------

NUMBERS = ["3", "1", "1.0", "01", "-2", "2.5", "inf", "-inf", " 5", "10", "", "0x10", "1e1",
           "-0.5", "+4", "\t6", ".25", "INF"]
NUMBERS_ASC = bl("-inf", "-2", "-0.5", "", ".25", "01", "1", "1.0", "2.5", "3", "+4", " 5", "\t6",
                 "10", "1e1", "0x10", "INF", "inf")


def test_numeric_sort_of_a_list(r):
    cmd(r, "RPUSH", "l", *NUMBERS)
    assert cmd(r, "SORT", "l") == NUMBERS_ASC
    # DESC reverses the whole comparison, the byte tie-break too
    assert cmd(r, "SORT", "l", "DESC") == NUMBERS_ASC[::-1]
    assert cmd(r, "SORT", "l", "DESC", "ASC") == NUMBERS_ASC
    assert cmd(r, "LRANGE", "l", 0, -1) == bl(*NUMBERS)  # the source is left alone


def test_numeric_sort_of_sets(r):
    cmd(r, "SADD", "s", "5", "-1", "1.5", "10", "1e1", "010")
    assert cmd(r, "SORT", "s") == bl("-1", "1.5", "5", "010", "10", "1e1")
    assert cmd(r, "SORT", "s", "DESC") == bl("1e1", "10", "010", "5", "1.5", "-1")
    cmd(r, "SADD", "ints", 3, 1, 2, -7, 100)  # an intset in Redis
    assert cmd(r, "SORT", "ints") == bl("-7", "1", "2", "3", "100")


def test_sorted_set_sorts_by_member_values_not_scores(r):
    cmd(r, "ZADD", "z", 1, "3", 2, "1", 3, "2", 0, "10", -5, "-3")
    assert cmd(r, "SORT", "z") == bl("-3", "1", "2", "3", "10")
    assert cmd(r, "SORT", "z", "DESC") == bl("10", "3", "2", "1", "-3")
    assert cmd(r, "SORT", "z", "ALPHA") == bl("-3", "1", "10", "2", "3")
    cmd(r, "ZADD", "names", 1, "b", 2, "a")
    assert err(r, "SORT", "names") == NOT_DOUBLE


def test_elements_that_are_not_numbers(r):
    for i, bad in enumerate(["5 ", "abc", "nan", "NaN", "-nan", "1,5", "5\t", "1_0", "--1"]):
        cmd(r, "RPUSH", "l%d" % i, "1", bad, "2")
        assert err(r, "SORT", "l%d" % i) == NOT_DOUBLE, bad
        assert err(r, "SORT", "l%d" % i, "LIMIT", 0, 0) == NOT_DOUBLE, bad  # all are parsed
    cmd(r, "SADD", "s", "x", "1")
    assert err(r, "SORT", "s") == NOT_DOUBLE
    # nothing to parse: ALPHA, a constant BY, an empty source
    assert cmd(r, "SORT", "l1", "ALPHA") == bl("1", "2", "abc")
    assert cmd(r, "SORT", "l1", "BY", "nosort") == bl("1", "abc", "2")
    assert cmd(r, "SORT", "nokey") == []


# ---- ALPHA and LIMIT ----------------------------------------------------------------------------

def test_alpha(r):
    cmd(r, "RPUSH", "l", "b", "a", "10", "9", "", "aa", "ab", "2")
    assert cmd(r, "SORT", "l", "ALPHA") == bl("", "10", "2", "9", "a", "aa", "ab", "b")
    assert cmd(r, "SORT", "l", "ALPHA", "DESC") == bl("b", "ab", "aa", "a", "9", "2", "10", "")
    assert cmd(r, "SORT", "l", "alpha", "limit", 1, 3) == bl("10", "2", "9")
    cmd(r, "SADD", "s", "b", "c", "a")
    assert cmd(r, "SORT", "s", "ALPHA") == bl("a", "b", "c")
    # with STORE the comparison is on bytes whatever the locale
    cmd(r, "RPUSH", "mixed", "b", "B", "a", "\xe9", "-1", "A-2", "a b")
    assert cmd(r, "SORT", "mixed", "ALPHA", "STORE", "d") == 7
    assert cmd(r, "LRANGE", "d", 0, -1) == [b"-1", b"A-2", b"B", b"a", b"a b", b"b",
                                            b"\xc3\xa9"]


def test_limit_and_its_errors(r):
    cmd(r, "RPUSH", "l", 5, 3, 1, 4, 2)
    cases = [((0, 2), "12"), ((1, 3), "234"), ((-1, 2), "12"), ((-100, 1), "1"),
             ((3, 10), "45"), ((4, 1), "5"), ((5, 1), ""), ((100, 2), ""), ((1, -1), "2345"),
             ((1, -7), "2345"), ((2, 0), ""), ((0, 0), ""),
             ((1, 9223372036854775807), "2345"), ((9223372036854775807, 1), ""),
             ((-9223372036854775808, 2), "12")]
    for (offset, count), want in cases:
        assert cmd(r, "SORT", "l", "LIMIT", offset, count) == bl(*want), (offset, count)
    assert cmd(r, "SORT", "l", "DESC", "LIMIT", 1, 2) == bl("4", "3")
    assert cmd(r, "SORT", "l", "LIMIT", 3, 1, "LIMIT", 0, 1) == bl("1")  # the last one counts
    for args in [("a", 1), (0, "1.5"), ("", 1), (" 1", 1), (0, "99999999999999999999")]:
        assert err(r, "SORT", "l", "LIMIT", *args) == NOT_INT, args
    assert err(r, "SORT", "l", "LIMIT", 0) == SYNTAX
    assert err(r, "SORT", "l", "LIMIT") == SYNTAX
    assert err(r, "SORT", "l", "LIMIT", 0, 1, "LIMIT", 0) == SYNTAX


# ---- errors --------------------------------------------------------------------------------------

def test_syntax_errors_and_their_precedence(r):
    cmd(r, "RPUSH", "l", 1)
    cmd(r, "SET", "str", "x")
    for args in [("foo",), ("STORE",), ("BY",), ("GET",), ("ALPHA", "DESC", "x"),
                 ("GET", "#", "GET"), ("LIMIT", 0, 1, "STORE")]:
        assert err(r, "SORT", "l", *args) == SYNTAX, args
    assert err(r, "SORT_RO", "l", "STORE", "d") == SYNTAX  # SORT_RO has no STORE
    assert err(r, "SORT_RO", "l", "ALPHA", "STORE", "d") == SYNTAX
    # options are parsed before the key is looked up; the first bad option decides
    assert err(r, "SORT", "str", "foo") == SYNTAX
    assert err(r, "SORT", "nokey", "foo") == SYNTAX
    assert err(r, "SORT", "str", "LIMIT", "x", 1) == NOT_INT
    assert err(r, "SORT", "l", "LIMIT", 0, "x", "foo") == NOT_INT
    assert err(r, "SORT", "l", "foo", "LIMIT", 0, "x") == SYNTAX
    assert err(r, "SORT", "str", "LIMIT", 0, 1) == WRONGTYPE


def test_missing_and_wrong_type_sources_and_arity(r):
    assert cmd(r, "SORT", "nokey") == []
    assert cmd(r, "SORT_RO", "nokey", "BY", "w_*", "GET", "#", "GET", "o_*") == []
    cmd(r, "SET", "str", "1")
    cmd(r, "HSET", "h", "1", "2")
    for key in ("str", "h"):
        assert err(r, "SORT", key) == WRONGTYPE
        assert err(r, "SORT_RO", key) == WRONGTYPE
        assert err(r, "SORT", key, "ALPHA", "STORE", "d") == WRONGTYPE
    assert cmd(r, "EXISTS", "d") == 0
    assert err(r, "SORT") == arity("sort")
    assert err(r, "SORT_RO") == arity("sort_ro")


# ---- BY ------------------------------------------------------------------------------------------

def test_by_string_weights(r):
    cmd(r, "RPUSH", "l", "c", "a", "b", "d", "e", "f")
    cmd(r, "MSET", "w_a", "2", "w_b", "-1.5", "w_c", "inf", "w_d", " 7", "w_f", "")
    cmd(r, "RPUSH", "w_e", "x")  # wrong type: like a missing key, weight 0
    assert cmd(r, "SORT", "l", "BY", "w_*") == bl("b", "e", "f", "a", "d", "c")
    assert cmd(r, "SORT", "l", "BY", "w_*", "DESC") == bl("c", "d", "a", "f", "e", "b")
    assert cmd(r, "SORT", "l", "BY", "w_*", "LIMIT", 1, 2) == bl("e", "f")
    assert cmd(r, "SORT", "l", "BY", "nokey_*") == bl("a", "b", "c", "d", "e", "f")
    cmd(r, "SET", "w_e", "zz")
    assert err(r, "SORT", "l", "BY", "w_*") == NOT_DOUBLE
    cmd(r, "SET", "w_e", "nan")
    assert err(r, "SORT_RO", "l", "BY", "w_*") == NOT_DOUBLE
    # the elements themselves are not parsed when there is a BY pattern
    cmd(r, "SADD", "s", "x", "y")
    cmd(r, "MSET", "w_x", "2", "w_y", "1")
    assert cmd(r, "SORT", "s", "BY", "w_*") == bl("y", "x")


def test_by_alpha_weights(r):
    cmd(r, "RPUSH", "l", "c", "a", "b", "d", "e")
    cmd(r, "MSET", "aw_a", "m", "aw_b", "b", "aw_c", "zz", "aw_d", "ab")
    # e has no weight: it comes first (last with DESC)
    assert cmd(r, "SORT", "l", "BY", "aw_*", "ALPHA") == bl("e", "d", "b", "a", "c")
    assert cmd(r, "SORT", "l", "BY", "aw_*", "ALPHA", "DESC") == bl("c", "a", "b", "d", "e")
    assert cmd(r, "SORT", "l", "BY", "aw_*", "ALPHA", "LIMIT", 1, 2) == bl("d", "b")
    cmd(r, "HSET", "aw_e", "f", "a")  # wrong type: still no weight
    assert cmd(r, "SORT", "l", "BY", "aw_*", "ALPHA", "STORE", "d") == 5
    assert cmd(r, "LRANGE", "d", 0, -1) == bl("e", "d", "b", "a", "c")


def test_by_hash_fields(r):
    cmd(r, "RPUSH", "l", "a", "b", "c", "d", "e")
    cmd(r, "HSET", "hw_a", "f", "9", "g", "-1")
    cmd(r, "HSET", "hw_b", "f", "8")
    cmd(r, "HSET", "hw_c", "g", "1")  # no field f: weight 0
    cmd(r, "SET", "hw_d", "-5")  # not a hash: weight 0
    assert cmd(r, "SORT", "l", "BY", "hw_*->f") == bl("c", "d", "e", "b", "a")
    assert cmd(r, "SORT", "l", "BY", "hw_*->f", "DESC") == bl("a", "b", "e", "d", "c")
    assert cmd(r, "SORT", "l", "BY", "hw_*->g", "LIMIT", 0, 2) == bl("a", "b")
    # "->" with nothing after it is no field: the key "<elem>->" is read as a string
    cmd(r, "MSET", "a->", "7", "b->", "-3")
    assert cmd(r, "SORT", "l", "BY", "*->") == bl("b", "c", "d", "e", "a")
    cmd(r, "HSET", "hw_e", "f", "x")
    assert err(r, "SORT", "l", "BY", "hw_*->f") == NOT_DOUBLE


def test_by_weights_on_many_keys(r):
    """40 elements, 36 weights ("40.5" down to "5.5"), 40 object keys, 40 hashes, on every source
    type: the 4 unweighted elements (0) come first, in byte order."""
    names = ["m%02d" % i for i in range(40)]
    for i, name in enumerate(names):
        if i < 36:
            cmd(r, "SET", "wt:" + name, "%d.5" % (40 - i))
        cmd(r, "SET", "obj:" + name, "o" + name)
        cmd(r, "HSET", "hash:" + name, "f", name.upper())
    order = names[36:] + names[35::-1]
    cmd(r, "RPUSH", "list", *names)
    cmd(r, "SADD", "set", *names)
    cmd(r, "ZADD", "zset", *[x for i, n in enumerate(names) for x in (i, n)])
    for src in ("list", "set", "zset"):
        assert cmd(r, "SORT", src, "BY", "wt:*") == bl(*order), src
        assert cmd(r, "SORT", src, "BY", "wt:*", "DESC") == bl(*order[::-1]), src
        assert cmd(r, "SORT_RO", src, "BY", "wt:*", "LIMIT", 10, 5) == bl(*order[10:15]), src
        got = cmd(r, "SORT", src, "BY", "wt:*", "GET", "obj:*", "GET", "#", "GET", "hash:*->f")
        assert got == [x.encode() for n in order for x in ("o" + n, n, n.upper())], src
    assert cmd(r, "SORT", "set", "BY", "wt:*", "GET", "obj:*", "STORE", "dst") == 40
    assert cmd(r, "LRANGE", "dst", 0, -1) == [("o" + n).encode() for n in order]


def test_by_constant_keeps_list_and_zset_order(r):
    cmd(r, "RPUSH", "l", "c", "a", "b", "d")
    assert cmd(r, "SORT", "l", "BY", "nosort") == bl("c", "a", "b", "d")
    assert cmd(r, "SORT", "l", "BY", "nosort", "DESC") == bl("d", "b", "a", "c")
    assert cmd(r, "SORT", "l", "BY", "nosort", "LIMIT", 1, 2) == bl("a", "b")
    assert cmd(r, "SORT", "l", "BY", "nosort", "DESC", "LIMIT", 1, 2) == bl("b", "a")
    assert cmd(r, "SORT", "l", "BY", "nosort", "DESC", "LIMIT", 3, 10) == bl("c")
    assert cmd(r, "SORT", "l", "BY", "nosort", "ALPHA") == bl("c", "a", "b", "d")
    assert cmd(r, "SORT", "l", "BY", "#") == bl("c", "a", "b", "d")  # "#" has no '*' either
    assert cmd(r, "SORT", "l", "BY", "nosort", "STORE", "d") == 4
    assert cmd(r, "LRANGE", "d", 0, -1) == bl("c", "a", "b", "d")
    cmd(r, "ZADD", "z", 1, "3", 2, "1", 3, "2", 0, "10")
    assert cmd(r, "SORT", "z", "BY", "nosort") == bl("10", "3", "1", "2")
    assert cmd(r, "SORT", "z", "BY", "nosort", "DESC") == bl("2", "1", "3", "10")
    assert cmd(r, "SORT", "z", "BY", "nosort", "LIMIT", 1, 2) == bl("3", "1")
    assert cmd(r, "SORT", "z", "BY", "nosort", "DESC", "LIMIT", 1, 2) == bl("1", "3")
    assert cmd(r, "SORT", "z", "BY", "nosort", "LIMIT", -3, 2) == bl("10", "3")
    assert cmd(r, "SORT", "z", "BY", "nosort", "DESC", "LIMIT", 3, 5) == bl("10")


def test_by_constant_on_a_set(r):
    members = {b"c", b"a", b"b", b"d", b"10", b"9"}
    cmd(r, "SADD", "s", *members)
    assert sorted(cmd(r, "SORT", "s", "BY", "nosort")) == sorted(members)
    assert len(cmd(r, "SORT", "s", "BY", "nosort", "LIMIT", 1, 4)) == 4
    got = cmd(r, "SORT", "s", "BY", "nosort", "GET", "#", "GET", "o_*")
    assert sorted(got[0::2]) == sorted(members) and got[1::2] == [None] * 6
    # with STORE Redis sorts a set ALPHA anyway, so the stored list does not depend on the set
    assert cmd(r, "SORT", "s", "BY", "nosort", "STORE", "d") == 6
    assert cmd(r, "LRANGE", "d", 0, -1) == bl("10", "9", "a", "b", "c", "d")
    assert cmd(r, "SORT", "s", "BY", "nosort", "DESC", "STORE", "d") == 6
    assert cmd(r, "LRANGE", "d", 0, -1) == bl("d", "c", "b", "a", "9", "10")
    assert cmd(r, "SORT", "s", "BY", "nosort", "LIMIT", 1, 2, "STORE", "d") == 2
    assert cmd(r, "LRANGE", "d", 0, -1) == bl("9", "a")


# ---- GET -----------------------------------------------------------------------------------------

def test_get_patterns(r):
    cmd(r, "RPUSH", "l", "2", "1", "3")
    cmd(r, "MSET", "o_1", "one", "o_3", "three")
    cmd(r, "RPUSH", "o_2", "a list")  # wrong type: nil
    cmd(r, "HSET", "h_1", "f", "F1", "g", "G1")
    cmd(r, "HSET", "h_2", "g", "G2")  # no field f: nil
    cmd(r, "SET", "h_3", "a string")  # not a hash: nil
    assert cmd(r, "SORT", "l", "GET", "#") == bl("1", "2", "3")
    assert cmd(r, "SORT", "l", "GET", "o_*") == [b"one", None, b"three"]
    assert cmd(r, "SORT", "l", "GET", "h_*->f") == [b"F1", None, None]
    assert cmd(r, "SORT", "l", "GET", "o_*", "GET", "#", "GET", "h_*->g", "DESC") == [
        b"three", b"3", None, None, b"2", b"G2", b"one", b"1", b"G1"]
    assert cmd(r, "SORT", "l", "GET", "#", "GET", "#", "LIMIT", 1, 1) == [b"2", b"2"]
    # no '*' (even "o_1", an existing key) gives nil; "##" is not "#"
    assert cmd(r, "SORT", "l", "GET", "o_1", "GET", "##") == [None] * 6
    # GET does not change the sort order
    assert cmd(r, "SORT", "l", "GET", "o_*", "ALPHA", "DESC", "LIMIT", 0, 2) == [b"three", None]


def test_get_pattern_parsing(r):
    cmd(r, "RPUSH", "l", "a")
    cmd(r, "MSET", "a->", "plain", "x_a_*", "first star only", "h->f_a", "arrow before star",
        "a", "the element itself")
    cmd(r, "HSET", "hh_a", "f->g", "FG", "", "empty field")
    assert cmd(r, "SORT", "l", "ALPHA", "GET", "*->") == [b"plain"]
    assert cmd(r, "SORT", "l", "ALPHA", "GET", "x_*_*") == [b"first star only"]
    assert cmd(r, "SORT", "l", "ALPHA", "GET", "h->f_*") == [b"arrow before star"]
    assert cmd(r, "SORT", "l", "ALPHA", "GET", "hh_*->f->g") == [b"FG"]
    assert cmd(r, "SORT", "l", "ALPHA", "GET", "hh_*->") == [None]  # the string "hh_a->"
    assert cmd(r, "SORT", "l", "ALPHA", "GET", "*") == [b"the element itself"]


# ---- STORE ---------------------------------------------------------------------------------------

def test_store(r):
    cmd(r, "RPUSH", "l", 3, 1, 2)
    cmd(r, "SET", "o_1", "one")
    assert cmd(r, "SORT", "l", "STORE", "dst") == 3
    assert cmd(r, "TYPE", "dst") == b"list"
    assert cmd(r, "LRANGE", "dst", 0, -1) == bl("1", "2", "3")
    # count = GETs x elements; a nil GET is stored as an empty string
    assert cmd(r, "SORT", "l", "GET", "#", "GET", "o_*", "DESC", "STORE", "dst") == 6
    assert cmd(r, "LRANGE", "dst", 0, -1) == bl("3", "", "2", "", "1", "one")
    assert cmd(r, "SORT", "l", "GET", "nostar", "LIMIT", 1, 5, "STORE", "dst") == 2
    assert cmd(r, "LRANGE", "dst", 0, -1) == [b"", b""]
    # the last STORE counts
    assert cmd(r, "SORT", "l", "STORE", "a", "STORE", "b") == 3
    assert cmd(r, "EXISTS", "a", "b") == 1
    assert cmd(r, "LRANGE", "b", 0, -1) == bl("1", "2", "3")


def test_store_replaces_any_destination(r):
    cmd(r, "RPUSH", "l", 3, 1, 2)
    cmd(r, "SET", "str", "x", "EX", 100)
    cmd(r, "HSET", "h", "a", "b")
    cmd(r, "ZADD", "z", 1, "m")
    cmd(r, "SADD", "s", "m")
    cmd(r, "RPUSH", "lst", "old", "values")
    for dst in ("str", "h", "z", "s", "lst"):
        assert cmd(r, "SORT", "l", "STORE", dst) == 3, dst
        assert cmd(r, "TYPE", dst) == b"list", dst
        assert cmd(r, "LRANGE", dst, 0, -1) == bl("1", "2", "3"), dst
    assert cmd(r, "TTL", "str") == -1  # the TTL of the old value is gone
    # the source itself as destination
    assert cmd(r, "SORT", "l", "DESC", "STORE", "l") == 3
    assert cmd(r, "LRANGE", "l", 0, -1) == bl("3", "2", "1")


def test_empty_result_deletes_the_destination(r):
    cmd(r, "RPUSH", "l", 1, 2)
    for i, create in enumerate([("SET", "d0", "x"), ("HSET", "d1", "a", "b"),
                                ("RPUSH", "d2", "x"), ("ZADD", "d3", 1, "m")]):
        cmd(r, *create)
        assert cmd(r, "SORT", "l", "LIMIT", 5, 5, "STORE", "d%d" % i) == 0
        assert cmd(r, "EXISTS", "d%d" % i) == 0
    cmd(r, "SET", "d", "x", "EX", 100)
    assert cmd(r, "SORT", "nokey", "STORE", "d") == 0
    assert cmd(r, "EXISTS", "d") == 0
    assert cmd(r, "SORT", "l", "LIMIT", 0, 0, "GET", "#", "STORE", "d") == 0
    assert cmd(r, "EXISTS", "d") == 0
    # an error leaves the destination alone
    cmd(r, "SET", "d", "keep")
    cmd(r, "RPUSH", "bad", "1", "abc")
    assert err(r, "SORT", "bad", "STORE", "d") == NOT_DOUBLE
    assert cmd(r, "GET", "d") == b"keep"


# ---- transactions, scripts, events ------------------------------------------------------------

def test_inside_multi_exec(server, r):
    cmd(r, "RPUSH", "g", "b", "a")
    cmd(r, "MSET", "w_a", "2", "w_b", "1", "o_a", "A")
    with server.raw() as c:
        replies = [c.command(*args) for args in (
            ["MULTI"], ["SORT", "g", "BY", "w_*", "GET", "o_*", "GET", "#"],
            ["SORT", "g", "STORE", "x"], ["SORT", "g", "ALPHA", "STORE", "x"],
            ["LRANGE", "x", 0, -1], ["SORT", "x", "ALPHA", "DESC"], ["SORT", "g", "FOO"],
            ["EXEC"])]
        assert replies[:7] == [Simple(b"OK")] + [Simple(b"QUEUED")] * 6
        assert replies[7] == [[None, b"b", b"A", b"a"], Error(NOT_DOUBLE.encode()), 2,
                              [b"a", b"b"], [b"b", b"a"], Error(SYNTAX.encode())]
        assert [c.command(*args) for args in (["MULTI"], ["SORT"], ["EXEC"])] == [
            Simple(b"OK"), Error(arity("sort").encode()), Error(EXECABORT.encode())]


def test_in_a_script_a_set_by_constant_is_sorted_alpha(r):
    cmd(r, "SADD", "s", "c", "a", "b", "d", "10", "9")
    cmd(r, "RPUSH", "l", "c", "a", "b")
    script = "return redis.call(ARGV[1], KEYS[1], 'by', 'nosort', unpack(ARGV, 2))"
    assert cmd(r, "EVAL", script, 1, "s", "sort") == bl("10", "9", "a", "b", "c", "d")
    assert cmd(r, "EVAL", script, 1, "s", "sort_ro") == bl("10", "9", "a", "b", "c", "d")
    assert cmd(r, "EVAL", script, 1, "s", "sort", "desc", "limit", 1, 2) == bl("c", "b")
    assert cmd(r, "EVAL", script, 1, "l", "sort") == bl("c", "a", "b")  # lists keep their order


def test_keyspace_events(r, listen):
    def run(*args):
        cmd(r, *args)
        return listen.drain(r)

    cmd(r, "RPUSH", "l", 2, 1)
    cmd(r, "SET", "d", "x")
    listen.drain(r)
    sortstore = [("__keyspace@0__:d", "sortstore"), ("__keyevent@0__:sortstore", "d")]
    assert run("SORT", "l", "STORE", "d") == sortstore  # replacing a string: no del, no set
    assert run("SORT", "l", "LIMIT", 0, 0, "STORE", "d") == [("__keyspace@0__:d", "del"),
                                                              ("__keyevent@0__:del", "d")]
    assert run("SORT", "l", "LIMIT", 0, 0, "STORE", "d") == []  # nothing to delete
    assert run("SORT", "nokey", "STORE", "d") == []
    assert run("SORT", "l", "BY", "w_*", "GET", "o_*") == []
    assert run("SORT", "l", "STORE", "l") == [("__keyspace@0__:l", "sortstore"),
                                              ("__keyevent@0__:sortstore", "l")]
    cmd(r, "RPUSH", "bad", "x")
    listen.drain(r)
    assert err(r, "SORT", "bad", "STORE", "d") == NOT_DOUBLE
    assert listen.drain(r) == []
    # sortstore is a list event ('l'), del a generic one ('g')
    cmd(r, "CONFIG", "SET", "notify-keyspace-events", "Kl")
    assert run("SORT", "l", "STORE", "d") == [("__keyspace@0__:d", "sortstore")]
    assert run("SORT", "l", "LIMIT", 0, 0, "STORE", "d") == []
    cmd(r, "CONFIG", "SET", "notify-keyspace-events", "Eg")
    assert run("SORT", "l", "STORE", "d") == []
    assert run("SORT", "l", "LIMIT", 0, 0, "STORE", "d") == [("__keyevent@0__:del", "d")]


# ---- a large list -------------------------------------------------------------------------------

def test_large_list(r):
    gen = rng("test_large_list")
    values = ["%d" % (i - 1000) for i in range(1000)] + ["%d.25" % (i - 500) for i in range(1000)]
    gen.shuffle(values)
    weights = list(range(2000))
    gen.shuffle(weights)
    pipe = r.pipeline(transaction=False)
    for i in range(0, 2000, 500):
        pipe.execute_command("RPUSH", "big", *values[i:i + 500])
        pipe.execute_command("MSET", *[x for v, w in zip(values[i:i + 500], weights[i:i + 500])
                                       for x in ("lw:" + v, w)])
    pipe.execute()
    numeric = [v.encode() for v in sorted(values, key=float)]
    assert cmd(r, "SORT", "big") == numeric
    assert cmd(r, "SORT", "big", "DESC") == numeric[::-1]
    assert cmd(r, "SORT", "big", "LIMIT", 1000, 25) == numeric[1000:1025]
    assert cmd(r, "SORT", "big", "DESC", "LIMIT", 990, 20) == numeric[::-1][990:1010]
    by_weight = [v.encode() for _, v in sorted(zip(weights, values))]
    assert cmd(r, "SORT", "big", "BY", "lw:*") == by_weight
    assert cmd(r, "SORT", "big", "BY", "lw:*", "LIMIT", 700, 50) == by_weight[700:750]
    assert cmd(r, "SORT", "big", "BY", "lw:*", "GET", "lw:*", "LIMIT", 1990, 100) == [
        str(w).encode() for w in range(1990, 2000)]
    assert cmd(r, "SORT", "big", "BY", "lw:*", "STORE", "dst") == 2000
    assert cmd(r, "LRANGE", "dst", 0, -1) == by_weight


# ---- RESP3 and COMMAND ---------------------------------------------------------------------------

def test_resp3(server, r):
    cmd(r, "RPUSH", "g", "b", "a")
    cmd(r, "SADD", "s", "b", "a")
    cmd(r, "SET", "o_a", "A")
    with server.raw() as c:
        assert c.command("HELLO", "3")[b"proto"] == 3
        c.send_command("SORT", "g", "ALPHA", "GET", "o_*", "GET", "#")
        c.expect(b"*4\r\n$1\r\nA\r\n$1\r\na\r\n_\r\n$1\r\nb\r\n")
        c.send_command("SORT", "s", "ALPHA")  # an array, not a set
        c.expect(b"*2\r\n$1\r\na\r\n$1\r\nb\r\n")
        c.send_command("SORT", "nokey")
        c.expect(b"*0\r\n")
        c.send_command("SORT", "g", "ALPHA", "STORE", "d")
        c.expect(b":2\r\n")


def test_command_getkeys_and_info(r):
    def keys(*args):
        return cmd(r, "COMMAND", "GETKEYS", *args)

    assert keys("SORT", "src") == [b"src"]
    assert keys("SORT", "src", "STORE", "dst") == [b"src", b"dst"]
    assert keys("SORT", "src", "store", "dst", "foo") == [b"src", b"dst"]
    assert keys("SORT", "src", "GET", "store", "STORE", "a", "STORE", "b") == [b"src", b"b"]
    assert keys("SORT", "src", "LIMIT", "store", "store", "BY", "store") == [b"src"]
    assert keys("SORT", "src", "STORE") == [b"src"]
    assert keys("SORT_RO", "src") == [b"src"]
    assert keys("SORT_RO", "src", "STORE", "dst") == [b"src"]
    info = cmd(r, "COMMAND", "INFO", "sort", "sort_ro")
    assert [i[:6] for i in info] == [
        [b"sort", -2, [b"write", b"denyoom", b"movablekeys"], 1, 1, 1],
        [b"sort_ro", -2, [b"readonly", b"movablekeys"], 1, 1, 1],
    ]
    assert sorted(info[0][6]) == [b"@dangerous", b"@list", b"@set", b"@slow", b"@sortedset",
                                  b"@write"]
    assert sorted(info[1][6]) == [b"@dangerous", b"@list", b"@read", b"@set", b"@slow",
                                  b"@sortedset"]
