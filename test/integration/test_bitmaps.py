"""Bitmap commands: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO."""

import pytest

from conftest import NOT_INT, SYNTAX, WRONGTYPE, arity, err

BAD_OFFSET = "ERR bit offset is not an integer or out of range"
BAD_BIT = "ERR bit is not an integer or out of range"
BAD_TYPE = ("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported "
            "but i64 is.")


# ---- SETBIT / GETBIT -----------------------------------------------------------------------------

def test_setbit_returns_old_bit_and_grows_string(r):
    assert r.execute_command("SETBIT", "b", "7", "1") == 0
    assert r.execute_command("GET", "b") == b"\x01"
    assert r.execute_command("SETBIT", "b", "7", "1") == 1
    assert r.execute_command("SETBIT", "b", "7", "0") == 1
    assert r.execute_command("GET", "b") == b"\x00"  # clearing never shrinks
    assert r.execute_command("SETBIT", "b", "0", "1") == 0
    assert r.execute_command("GET", "b") == b"\x80"  # bit 0 is the most significant
    assert r.execute_command("SETBIT", "b", "17", "1") == 0
    assert r.execute_command("GET", "b") == b"\x80\x00\x40"


def test_setbit_on_existing_string(r):
    r.execute_command("SET", "s", "`")  # 0x60
    assert r.execute_command("SETBIT", "s", "7", "1") == 0
    assert r.execute_command("GET", "s") == b"a"
    assert r.execute_command("SETBIT", "s", "2", "0") == 1
    assert r.execute_command("GET", "s") == b"A"
    r.execute_command("SET", "i", "1")  # an int-encoded value works as its string bytes
    assert r.execute_command("SETBIT", "i", "6", "1") == 0
    assert r.execute_command("GET", "i") == b"3"


def test_getbit(r):
    r.execute_command("SET", "s", b"\x80\x01")
    assert r.execute_command("GETBIT", "s", "0") == 1
    assert r.execute_command("GETBIT", "s", "1") == 0
    assert r.execute_command("GETBIT", "s", "15") == 1
    assert r.execute_command("GETBIT", "s", "16") == 0  # beyond the end
    assert r.execute_command("GETBIT", "s", "4294967295") == 0
    assert r.execute_command("GETBIT", "nokey", "100") == 0
    assert r.execute_command("EXISTS", "nokey") == 0


def test_bit_offset_errors(r):
    for cmd in ("SETBIT", "GETBIT"):
        extra = ["1"] if cmd == "SETBIT" else []
        assert err(r, cmd, "b", "-1", *extra) == BAD_OFFSET
        assert err(r, cmd, "b", "4294967296", *extra) == BAD_OFFSET
        assert err(r, cmd, "b", "x", *extra) == BAD_OFFSET
        assert err(r, cmd, "b", "1.5", *extra) == BAD_OFFSET
    assert err(r, "SETBIT", "b", "0", "2") == BAD_BIT
    assert err(r, "SETBIT", "b", "0", "-1") == BAD_BIT
    assert err(r, "SETBIT", "b", "0", "x") == BAD_BIT
    assert err(r, "SETBIT", "b", "0") == arity("setbit")
    assert err(r, "GETBIT", "b") == arity("getbit")
    assert r.execute_command("EXISTS", "b") == 0


@pytest.mark.huge
def test_setbit_max_offset(server, r):
    r = server.client(socket_timeout=300)  # a 512 MB value: slotkv copies it a few times
    assert r.execute_command("SETBIT", "b", "4294967295", "1") == 0
    assert r.execute_command("STRLEN", "b") == 536870912
    assert r.execute_command("GETBIT", "b", "4294967295") == 1
    assert r.execute_command("BITCOUNT", "b") == 1
    r.execute_command("DEL", "b")


# ---- BITCOUNT ------------------------------------------------------------------------------------

@pytest.mark.parametrize("args,expected", [
    ([], 26),
    (["0", "0"], 4),
    (["1", "1"], 6),
    (["1", "1", "BYTE"], 6),
    (["0", "-1"], 26),
    (["-2", "-1"], 7),
    (["5", "30", "BIT"], 17),
    (["-2", "-1", "BIT"], 1),
    (["0", "-1", "bit"], 26),
    (["3", "1"], 0),
    (["100", "200"], 0),
    # Redis 7.0.15 clamps a negative end to 0, so these count byte 0 ('f': 4 bits)
    (["-100", "-50"], 4),
    (["0", "-100"], 4),
])
def test_bitcount(r, args, expected):
    r.execute_command("SET", "s", "foobar")
    assert r.execute_command("BITCOUNT", "s", *args) == expected


def test_bitcount_misc(r):
    assert r.execute_command("BITCOUNT", "nokey") == 0
    assert r.execute_command("BITCOUNT", "nokey", "0", "-1") == 0
    r.execute_command("SET", "s", "foobar")
    assert err(r, "BITCOUNT", "s", "0") == SYNTAX
    assert err(r, "BITCOUNT", "s", "0", "1", "FOO") == SYNTAX
    assert err(r, "BITCOUNT", "s", "0", "1", "BYTE", "x") == SYNTAX
    assert err(r, "BITCOUNT", "s", "a", "b") == NOT_INT
    assert err(r, "BITCOUNT") == arity("bitcount")
    r.execute_command("SET", "all", b"\xff" * 1000)
    assert r.execute_command("BITCOUNT", "all") == 8000
    assert r.execute_command("BITCOUNT", "all", "3", "7998", "BIT") == 7996


# ---- BITPOS --------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,args,expected", [
    (b"\xff\xf0\x00", ["0"], 12),
    (b"\x00\xff\xf0", ["1", "0"], 8),
    (b"\x00\xff\xf0", ["1", "2"], 16),
    (b"\x00\xff\xf0", ["1", "2", "-1", "BYTE"], 16),
    (b"\x00\xff\xf0", ["1", "7", "15", "BIT"], 8),
    (b"\x00\xff\xf0", ["1", "7", "-3", "BIT"], 8),
    (b"\x00\xff\xf0", ["1", "16", "23", "BIT"], 16),
    (b"\x00\xff\xf0", ["1", "20", "23", "BIT"], -1),
    (b"\x00\xff\xf0", ["1", "5", "1"], -1),
    # searching for a clear bit in an all-ones string: without an end the string counts as
    # padded with zeros, so the answer is the first bit after it; with an explicit end, -1
    (b"\xff\xff\xff", ["0"], 24),
    (b"\xff\xff\xff", ["0", "0"], 24),
    (b"\xff\xff\xff", ["0", "1"], 24),
    (b"\xff\xff\xff", ["0", "0", "-1"], -1),
    (b"\xff\xff\xff", ["0", "2", "2"], -1),
    (b"\xff\xff\xff", ["0", "0", "23", "BIT"], -1),
    (b"\xff\xff\xff", ["0", "0", "-1", "BIT"], -1),
    (b"\xff\xff\xff", ["0", "3"], -1),  # start beyond the end
    (b"\xff\xff\xff", ["1", "3"], -1),
    (b"\x00\x00", ["1"], -1),
    (b"\x00\x00", ["0"], 0),
    (b"\x00\x00", ["1", "0", "-1", "BIT"], -1),
    (b"foobar", ["1", "-100", "-50"], 1),
    (b"foobar", ["0", "1", "0"], -1),
    (b"foobar", ["1", "0", "-1", "byte"], 1),
])
def test_bitpos(r, value, args, expected):
    r.execute_command("SET", "k", value)
    assert r.execute_command("BITPOS", "k", *args) == expected


def test_bitpos_missing_key(r):
    assert r.execute_command("BITPOS", "nokey", "0") == 0
    assert r.execute_command("BITPOS", "nokey", "1") == -1
    assert r.execute_command("BITPOS", "nokey", "0", "5") == 0


def test_bitpos_errors(r):
    r.execute_command("SET", "k", "foobar")
    assert err(r, "BITPOS", "k", "2") == "ERR The bit argument must be 1 or 0."
    assert err(r, "BITPOS", "k", "-1") == "ERR The bit argument must be 1 or 0."
    assert err(r, "BITPOS", "k", "x") == NOT_INT
    assert err(r, "BITPOS", "k", "1", "a") == NOT_INT
    assert err(r, "BITPOS", "k", "1", "0", "1", "FOO") == SYNTAX
    assert err(r, "BITPOS", "k", "1", "0", "1", "BIT", "x") == SYNTAX
    assert err(r, "BITPOS", "k") == arity("bitpos")


# ---- BITOP ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("op,expected", [
    ("AND", b"\x0f\x00"), ("OR", b"\xff\x0f"), ("XOR", b"\xf0\x0f"), ("and", b"\x0f\x00"),
])
def test_bitop_different_lengths(r, op, expected):
    r.execute_command("SET", "a", b"\xff\x0f")
    r.execute_command("SET", "b", b"\x0f")  # shorter: padded with zeros
    assert r.execute_command("BITOP", op, "dest", "a", "b") == 2
    assert r.execute_command("GET", "dest") == expected


def test_bitop_not(r):
    r.execute_command("SET", "a", b"\xff\x0f\x00")
    assert r.execute_command("BITOP", "NOT", "dest", "a") == 3
    assert r.execute_command("GET", "dest") == b"\x00\xf0\xff"
    assert r.execute_command("BITOP", "NOT", "a", "a") == 3  # in place
    assert r.execute_command("GET", "a") == b"\x00\xf0\xff"


def test_bitop_many_keys_and_missing_keys(r):
    r.execute_command("SET", "a", b"\x01")
    r.execute_command("SET", "b", b"\x02")
    r.execute_command("SET", "c", b"\x04\x80")
    assert r.execute_command("BITOP", "OR", "d", "a", "b", "c", "nokey") == 2
    assert r.execute_command("GET", "d") == b"\x07\x80"
    assert r.execute_command("BITOP", "AND", "d", "a", "nokey") == 1
    assert r.execute_command("GET", "d") == b"\x00"


def test_bitop_all_missing_deletes_dest(r):
    r.execute_command("SET", "d", "x")
    assert r.execute_command("BITOP", "AND", "d", "nokey", "nokey2") == 0
    assert r.execute_command("EXISTS", "d") == 0
    assert r.execute_command("BITOP", "NOT", "d", "nokey") == 0
    assert r.execute_command("EXISTS", "d") == 0


def test_bitop_overwrites_dest_and_clears_ttl(r):
    r.execute_command("SET", "d", "old", "EX", "100")
    r.execute_command("SET", "a", "x")
    assert r.execute_command("BITOP", "OR", "d", "a") == 1
    assert r.execute_command("GET", "d") == b"x"
    assert r.execute_command("TTL", "d") == -1


def test_bitop_errors(r):
    r.execute_command("SET", "a", "x")
    assert err(r, "BITOP", "NOT", "d", "a", "a") == (
        "ERR BITOP NOT must be called with a single source key.")
    assert err(r, "BITOP", "FOO", "d", "a") == SYNTAX
    assert err(r, "BITOP", "AND", "d") == arity("bitop")
    assert err(r, "BITOP", "NOT", "d") == arity("bitop")
    assert r.execute_command("EXISTS", "d") == 0


def test_bitop_wrongtype(r, list_key):
    r.execute_command("SET", "a", "x")
    assert err(r, "BITOP", "AND", "d", "a", list_key) == WRONGTYPE
    assert err(r, "SETBIT", list_key, "0", "1") == WRONGTYPE
    assert err(r, "GETBIT", list_key, "0") == WRONGTYPE
    assert err(r, "BITCOUNT", list_key) == WRONGTYPE
    assert err(r, "BITPOS", list_key, "1") == WRONGTYPE
    assert err(r, "BITFIELD", list_key, "GET", "u8", "0") == WRONGTYPE
    assert err(r, "BITFIELD_RO", list_key, "GET", "u8", "0") == WRONGTYPE


# ---- BITFIELD ------------------------------------------------------------------------------------

def test_bitfield_set_get_signed_unsigned(r):
    assert r.execute_command("BITFIELD", "bf", "SET", "i8", "0", "-100") == [0]
    assert r.execute_command("BITFIELD", "bf", "GET", "i8", "0", "GET", "u8", "0") == [-100, 156]
    assert r.execute_command("GET", "bf") == b"\x9c"
    assert r.execute_command("BITFIELD", "bf", "SET", "u8", "#1", "255", "GET", "u8", "#1",
                             "GET", "u4", "8", "GET", "i4", "8") == [0, 255, 15, -1]
    assert r.execute_command("GET", "bf") == b"\x9c\xff"
    assert r.execute_command("BITFIELD", "bf", "SET", "u4", "#3", "5") == [15]  # bits 12..15
    assert r.execute_command("GET", "bf") == b"\x9c\xf5"


def test_bitfield_unaligned_and_wide(r):
    assert r.execute_command("BITFIELD", "bf", "SET", "u5", "3", "31") == [0]
    assert r.execute_command("GET", "bf") == b"\x1f"
    assert r.execute_command("BITFIELD", "bf", "SET", "i64", "0", "-1") == [2233785415175766016]
    assert r.execute_command("BITFIELD", "bf", "GET", "i64", "0", "GET", "u63", "0",
                             "GET", "u1", "63") == [-1, 9223372036854775807, 1]
    assert r.execute_command("BITFIELD", "bf", "GET", "u8", "4294967288") == [0]


def test_bitfield_incrby_overflow_modes(r):
    r.execute_command("BITFIELD", "bf", "SET", "i8", "0", "-100")
    # default WRAP
    assert r.execute_command("BITFIELD", "bf", "INCRBY", "i8", "0", "-100") == [56]
    assert r.execute_command("BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i8", "0",
                             "-100") == [-44]
    assert r.execute_command("BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i8", "0",
                             "-100") == [-128]
    assert r.execute_command("BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "i8", "0",
                             "-1") == [None]
    assert r.execute_command("BITFIELD", "bf", "GET", "i8", "0") == [-128]
    assert r.execute_command("BITFIELD", "bf", "OVERFLOW", "WRAP", "INCRBY", "u8", "0",
                             "300") == [172]


def test_bitfield_overflow_applies_to_following_ops(r):
    reply = r.execute_command("BITFIELD", "bf",
                              "OVERFLOW", "SAT", "INCRBY", "u2", "100", "1", "INCRBY", "u2",
                              "100", "1", "INCRBY", "u2", "100", "1", "INCRBY", "u2", "100", "1",
                              "OVERFLOW", "FAIL", "INCRBY", "u2", "102", "1", "INCRBY", "u2",
                              "102", "1", "INCRBY", "u2", "102", "1", "INCRBY", "u2", "102", "1",
                              "OVERFLOW", "WRAP", "INCRBY", "u2", "104", "1", "INCRBY", "u2",
                              "104", "1", "INCRBY", "u2", "104", "1", "INCRBY", "u2", "104", "1")
    assert reply == [1, 2, 3, 3, 1, 2, 3, None, 1, 2, 3, 0]


def test_bitfield_set_overflow(r):
    assert r.execute_command("BITFIELD", "bf", "SET", "i8", "0", "200", "GET", "i8", "0") == [
        0, -56]  # WRAP
    assert r.execute_command("BITFIELD", "bf", "OVERFLOW", "SAT", "SET", "i8", "0", "200",
                             "GET", "i8", "0") == [-56, 127]
    assert r.execute_command("BITFIELD", "bf", "OVERFLOW", "FAIL", "SET", "i8", "0", "-200",
                             "GET", "i8", "0") == [None, 127]
    # an unsigned SET takes the value as a 64-bit unsigned: -1 is huge and saturates to 255
    assert r.execute_command("BITFIELD", "bf", "OVERFLOW", "SAT", "SET", "u8", "0", "-1",
                             "GET", "u8", "0") == [127, 255]
    assert r.execute_command("BITFIELD", "bf", "SET", "u8", "0", "256", "GET", "u8", "0") == [
        255, 0]


def test_bitfield_i64_incr_wraps(r):
    big = str(2 ** 63 - 1)
    assert r.execute_command("BITFIELD", "bf", "INCRBY", "i64", "0", big,
                             "INCRBY", "i64", "0", big) == [9223372036854775807, -2]


def test_bitfield_missing_key_get_does_not_create(r):
    assert r.execute_command("BITFIELD", "nokey", "GET", "u8", "0") == [0]
    assert r.execute_command("EXISTS", "nokey") == 0
    assert r.execute_command("BITFIELD", "nokey") == []
    assert r.execute_command("EXISTS", "nokey") == 0


def test_bitfield_fail_on_missing_key_replies_nil_element(server, r):
    with server.raw() as c:
        c.send_command("BITFIELD", "nokey", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "5")
        c.expect(b"*1\r\n$-1\r\n")


@pytest.mark.parametrize("args,expected", [
    (["SET", "u64", "0", "1"], BAD_TYPE),
    (["GET", "i65", "0"], BAD_TYPE),
    (["GET", "x8", "0"], BAD_TYPE),
    (["GET", "i0", "0"], BAD_TYPE),
    (["GET", "u", "0"], BAD_TYPE),
    (["GET", "u8", "-1"], BAD_OFFSET),
    (["GET", "u8", "#-1"], BAD_OFFSET),
    (["GET", "u8", "a"], BAD_OFFSET),
    (["GET", "u8", "4294967296"], BAD_OFFSET),
    (["SET", "u8", "0", "a"], NOT_INT),
    (["SET", "i64", "0", "9223372036854775808"], NOT_INT),
    (["INCRBY", "u8", "0", "a"], NOT_INT),
    (["OVERFLOW", "FOO", "GET", "u8", "0"], "ERR Invalid OVERFLOW type specified"),
    (["FOO"], SYNTAX),
    (["GET", "u8"], SYNTAX),
    (["SET", "u8", "0", "1", "GET", "x8", "0"], BAD_TYPE),  # parsed whole before any write
])
def test_bitfield_errors(r, args, expected):
    r.execute_command("SET", "bf", b"\x00")
    assert err(r, "BITFIELD", "bf", *args) == expected
    assert r.execute_command("GET", "bf") == b"\x00"


def test_bitfield_ro(r):
    r.execute_command("SET", "bf", b"\xff\x01")
    assert r.execute_command("BITFIELD_RO", "bf", "GET", "u8", "0", "GET", "i8", "8") == [255, 1]
    assert r.execute_command("BITFIELD_RO", "bf") == []
    assert r.execute_command("BITFIELD_RO", "nokey", "GET", "u4", "0") == [0]
    msg = "ERR BITFIELD_RO only supports the GET subcommand"
    assert err(r, "BITFIELD_RO", "bf", "SET", "u8", "0", "1") == msg
    assert err(r, "BITFIELD_RO", "bf", "INCRBY", "u8", "0", "1") == msg
    assert err(r, "BITFIELD_RO", "bf", "GET", "u8") == SYNTAX
    assert err(r, "BITFIELD_RO", "bf", "GET", "u64", "0") == BAD_TYPE
    assert err(r, "BITFIELD_RO") == arity("bitfield_ro")
    assert r.execute_command("GET", "bf") == b"\xff\x01"
