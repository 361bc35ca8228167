"""GEO commands (GEOADD GEOPOS GEOHASH GEODIST GEORADIUS[BYMEMBER][_RO] GEOSEARCH GEOSEARCHSTORE)
as Redis 7.0.15 gives them: replies, reply shapes, units, sorting, COUNT [ANY], STORE/STOREDIST,
error texts and their precedence, RESP3 bytes, and searches near the poles and the antimeridian.

Every distance, coordinate, geohash and score below is Redis 7.0.15's own output for the same
commands, pinned as a literal: none is computed by the test. Distances are "%.4f" bulk strings
(also in RESP3), coordinates are bulk strings in RESP2 and doubles in RESP3. Results of a search
without ASC/DESC/COUNT are compared as sets (Redis returns them in geohash-cell scan order).
"""

from conftest import NOT_INT, SYNTAX, WRONGTYPE, arity, err

XX_NX = SYNTAX  # Redis 7.0.15's GEOADD says "syntax error" for XX with NX (ZADD has its own text)
BAD_UNIT = "ERR unsupported unit provided. please use M, KM, FT, MI"
NOT_FLOAT = "ERR value is not a valid float"
STORE_WITH = ("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and "
              "WITHCOORD options")
SEARCHSTORE_WITH = ("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD "
                    "options")
COUNT_POS = "ERR COUNT must be > 0"
ANY_COUNT = "ERR the ANY argument requires COUNT argument"
NO_MEMBER = "ERR could not decode requested zset member"
NEG_RADIUS = "ERR radius cannot be negative"
NEG_BOX = "ERR height or width cannot be negative"


def bad_pair(text):
    return "ERR invalid longitude,latitude pair " + text


def need_from(cmd):
    return "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + cmd


def need_by(cmd):
    return "ERR exactly one of BYRADIUS and BYBOX can be specified for " + cmd


SICILY = ["13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania",
          "12.758489", "38.788135", "edge1", "17.241510", "38.788135", "edge2"]

# Redis 7.0.15's GEOPOS / WITHCOORD bytes and 52-bit geohash scores of the SICILY points
PALERMO_POS = [b"13.36138933897018433", b"38.11555639549629859"]
CATANIA_POS = [b"15.08726745843887329", b"37.50266842333162032"]
EDGE1_POS = [b"12.7584877610206604", b"38.78813451624225195"]
EDGE2_POS = [b"17.24151045083999634", b"38.78813451624225195"]
PALERMO_HASH = 3479099956230698
CATANIA_HASH = 3479447370796909
EDGE1_HASH = 3479273021651468
EDGE2_HASH = 3481342659049484

# points around the world, none on the +180 meridian or at the exact latitude limits (see
# test_boundary_coordinates_overflow_the_52_bit_score for those)
WORLD = ["179.9", "0", "east", "-179.9", "0", "west", "0", "85.05", "north", "0", "-85.05",
         "south", "0", "0", "origin", "13.361389", "38.115556", "Palermo", "90", "85", "n90",
         "-90", "85", "nm90", "179.99", "85", "ne", "-179.99", "85", "nw", "100", "-60", "s100"]
WORLD_NAMES = {b"east", b"west", b"north", b"south", b"origin", b"Palermo", b"n90", b"nm90",
               b"ne", b"nw", b"s100"}


def cmd(r, *args):
    return r.execute_command(*args)


def sicily(r, key="Sicily"):
    assert cmd(r, "GEOADD", key, *SICILY) == 4


def world(r, key="w"):
    assert cmd(r, "GEOADD", key, *WORLD) == 11


def grid(r, key="grid"):
    """300 points in one GEOADD: g000..g299 on a 0.1 degree grid, lon 12.50..14.40 (20 columns),
    lat 37.30..38.70 (15 rows); g<k> is column k % 20, row k // 20."""
    args = []
    for k in range(300):
        args += ["%.2f" % (12.5 + 0.1 * (k % 20)), "%.2f" % (37.3 + 0.1 * (k // 20)),
                 "g%03d" % k]
    assert cmd(r, "GEOADD", key, *args) == 300


def rows(reply):
    """An unsorted search reply as a sorted list of rows (plain members or WITH* rows)."""
    return sorted(reply, key=repr)


# ---- GEOADD --------------------------------------------------------------------------------------

def test_geoadd_counts_new_members_and_makes_a_zset(r):
    assert cmd(r, "GEOADD", "Sicily", *SICILY[:6]) == 2
    assert cmd(r, "GEOADD", "Sicily", *SICILY[:3]) == 0
    assert cmd(r, "GEOADD", "Sicily", *SICILY) == 2
    assert cmd(r, "TYPE", "Sicily") == b"zset"
    assert cmd(r, "ZCARD", "Sicily") == 4
    # Redis 7.0.15: the score is the 52-bit interleaved geohash, printed as an integer
    assert cmd(r, "ZSCORE", "Sicily", "Palermo") == b"3479099956230698"
    assert cmd(r, "ZRANGE", "Sicily", 0, -1, "WITHSCORES") == [
        b"Palermo", b"3479099956230698", b"edge1", b"3479273021651468",
        b"Catania", b"3479447370796909", b"edge2", b"3481342659049484"]
    # the same member twice in one call: added once, the last position wins
    assert cmd(r, "GEOADD", "g", 1, 1, "dup", 2, 2, "dup") == 1
    assert cmd(r, "GEOPOS", "g", "dup") == [[b"2.00000256299972534", b"2.0000001856465488"]]
    # a plain ZADD zset works as a geo set (its scores are geohashes)
    cmd(r, "ZADD", "z", PALERMO_HASH, "pal", CATANIA_HASH, "cat", 0, "zero")
    assert cmd(r, "GEOPOS", "z", "pal", "zero") == [
        PALERMO_POS, [b"-179.99999731779098511", b"-85.05112751263942528"]]
    assert cmd(r, "GEODIST", "z", "pal", "cat") == b"166274.1516"


def test_geoadd_nx_xx_ch(r):
    assert cmd(r, "GEOADD", "g", *SICILY[:3]) == 1
    # NX: only adds new members, never moves one
    assert cmd(r, "GEOADD", "g", "NX", 13, 38, "Palermo", *SICILY[3:6]) == 1
    assert cmd(r, "GEOPOS", "g", "Palermo") == [PALERMO_POS]
    # XX: only moves existing members, never adds
    assert cmd(r, "GEOADD", "g", "XX", 13, 38, "Palermo", 12, 37, "New") == 0
    assert cmd(r, "GEOPOS", "g", "Palermo", "New") == [
        [b"12.99999922513961792", b"38.0000009925631943"], None]
    # CH: counts changed positions too
    assert cmd(r, "GEOADD", "g", "XX", "CH", *SICILY[:3], 12, 37, "New") == 1
    assert cmd(r, "GEOPOS", "g", "Palermo", "New") == [PALERMO_POS, None]
    assert cmd(r, "GEOADD", "g", "CH", *SICILY[:3]) == 0
    assert cmd(r, "GEOADD", "g", "CH", *SICILY[3:6], 12, 37, "New") == 1
    assert cmd(r, "GEOADD", "g", "nx", "ch", 1, 1, "Palermo", 2, 2, "Other") == 1
    assert cmd(r, "GEOPOS", "g", "Palermo") == [PALERMO_POS]
    assert cmd(r, "GEOADD", "g", "ch", "xx", 3, 3, "Other", 3, 3, "Other") == 1
    assert cmd(r, "GEOADD", "g", "CH", "CH", 3, 3, "Other") == 0
    assert cmd(r, "ZCARD", "g") == 4
    # a move inside the same 52-bit cell keeps the score: not a change
    assert cmd(r, "GEOADD", "g", "1.5", "2.5", "p") == 1
    assert cmd(r, "ZSCORE", "g", "p") == b"3378202775938417"
    assert cmd(r, "GEOADD", "g", "CH", "1.5000001", "2.5", "p") == 0
    assert cmd(r, "ZSCORE", "g", "p") == b"3378202775938417"
    # XX on a missing key creates nothing
    assert cmd(r, "GEOADD", "none", "XX", 1, 1, "a") == 0
    assert cmd(r, "GEOADD", "none", "XX", "CH", 1, 1, "a") == 0
    assert cmd(r, "EXISTS", "none") == 0


def test_geoadd_errors(r):
    assert err(r, "GEOADD", "g", "XX", "NX", *SICILY[:3]) == XX_NX
    assert err(r, "GEOADD", "g", "NX", "XX", *SICILY[:3]) == XX_NX
    assert err(r, "GEOADD", "g", "CH", "XX", "NX", 13, 38, "y") == SYNTAX
    assert err(r, "GEOADD", "g", 200, 100, "x") == bad_pair("200.000000,100.000000")
    assert err(r, "GEOADD", "g", "180.1", 0, "x") == bad_pair("180.100000,0.000000")
    assert err(r, "GEOADD", "g", 180, "85.05112879", "x") == bad_pair("180.000000,85.051129")
    assert err(r, "GEOADD", "g", 0, "-85.05112879", "x") == bad_pair("0.000000,-85.051129")
    assert err(r, "GEOADD", "g", "inf", 0, "x") == bad_pair("inf,0.000000")
    assert err(r, "GEOADD", "g", "nan", 0, "x") == NOT_FLOAT
    assert err(r, "GEOADD", "g", "abc", 38, "x") == NOT_FLOAT
    assert err(r, "GEOADD", "g", 13, "abc", "x") == NOT_FLOAT
    assert err(r, "GEOADD", "g", " 10", 10, "x") == NOT_FLOAT
    # one bad pair refuses the whole command
    assert err(r, "GEOADD", "g", 13, 38, "a", 200, 100, "b") == bad_pair("200.000000,100.000000")
    assert err(r, "GEOADD", "g", 13, 38, "a", "abc", 100, "b") == NOT_FLOAT
    # arguments not in triplets, unknown options
    assert err(r, "GEOADD", "g", 13, 38, "x", 14) == SYNTAX
    assert err(r, "GEOADD", "g", "CH", 13, 38) == SYNTAX
    assert err(r, "GEOADD", "g", "FOO", 13, 38, "x") == SYNTAX
    assert err(r, "GEOADD", "g", "GT", 13, 38, "x") == SYNTAX
    assert err(r, "GEOADD", "g", "INCR", 13, 38, "x") == SYNTAX
    for args in ([], [13], [13, 38], ["CH"]):
        assert err(r, "GEOADD", "g", *args) == arity("geoadd")
    assert err(r, "GEOADD") == arity("geoadd")
    assert cmd(r, "EXISTS", "g") == 0


def test_geoadd_coordinate_limits(r):
    assert cmd(r, "GEOADD", "g", -180, 0, "w", 0, "-85.05112878", "s", "179.999999", 0, "e") == 3
    assert cmd(r, "GEOADD", "g", "1e1", "1E1", "ten", "-0", "-0", "zero") == 2
    # Redis 7.0.15's bytes
    assert cmd(r, "GEOPOS", "g", "w", "e", "s", "ten", "zero") == [
        [b"-179.99999731779098511", b"0.00000126736058093"],
        [b"179.99999731779098511", b"0.00000126736058093"],
        [b"0.00000268220901489", b"-85.05112751263942528"],
        [b"10.00000208616256714", b"10.00000092823272979"],
        [b"0.00000268220901489", b"0.00000126736058093"]]
    assert cmd(r, "ZSCORE", "g", "s") == b"2251799813685248"
    assert cmd(r, "ZSCORE", "g", "zero") == b"3377699720527872"


def test_boundary_coordinates_overflow_the_52_bit_score(r):
    # Redis 7.0.15: longitude 180 and latitude 85.05112878 are accepted but encode one past the
    # last 26-bit cell, so their scores exceed 2^52 (4503599627370496); GEOPOS still decodes them.
    assert cmd(r, "GEOADD", "g", 180, 0, "am", 0, "85.05112878", "top", 180, "85.05112878",
               "corner", 0, 0, "origin") == 4
    assert cmd(r, "ZRANGE", "g", 0, -1, "WITHSCORES") == [
        b"origin", b"3377699720527872", b"top", b"6755399441055744",
        b"am", b"10133099161583616", b"corner", b"13510798882111488"]
    assert cmd(r, "GEOPOS", "g", "am", "top", "corner") == [
        [b"180", b"0.00000126736058093"],
        [b"0.00000268220901489", b"85.0511287799999991"],
        [b"180", b"85.0511287799999991"]]
    assert cmd(r, "GEOHASH", "g", "am", "top", "corner", "origin") == [
        b"80000000000", b"up05b5048p0", b"bp05b5048p0", b"s0000000000"]
    # ... and no search finds them, not even one covering the whole earth
    assert cmd(r, "GEOSEARCH", "g", "FROMLONLAT", 0, 0, "BYRADIUS", 25000, "km") == [b"origin"]
    # (a search centred on one of them still finds it)
    assert cmd(r, "GEOSEARCH", "g", "FROMMEMBER", "top", "BYRADIUS", 100, "km") == [b"top"]
    assert cmd(r, "GEODIST", "g", "origin", "top", "km") == b"9459.9222"
    assert cmd(r, "GEODIST", "g", "origin", "am", "km") == b"20020.7336"


# ---- WRONGTYPE -----------------------------------------------------------------------------------

def test_wrongtype(r):
    cmd(r, "SET", "s", "x")
    for args in (["GEOADD", "s", 13, 38, "a"], ["GEOPOS", "s", "a"], ["GEOHASH", "s", "a"],
                 ["GEODIST", "s", "a", "b"], ["GEORADIUS", "s", 13, 38, 1, "km"],
                 ["GEORADIUS_RO", "s", 13, 38, 1, "km"],
                 ["GEORADIUSBYMEMBER", "s", "a", 1, "km"],
                 ["GEORADIUSBYMEMBER_RO", "s", "a", 1, "km"],
                 ["GEOSEARCH", "s", "FROMLONLAT", 13, 38, "BYRADIUS", 1, "km"],
                 ["GEOSEARCHSTORE", "d", "s", "FROMLONLAT", 13, 38, "BYRADIUS", 1, "km"],
                 # WRONGTYPE comes before option parsing
                 ["GEORADIUS", "s", 15, 37, -1, "km"], ["GEORADIUS", "s", 15, 37, 1, "km", "FOO"]):
        assert err(r, *args) == WRONGTYPE, args
    # ... but after GEOADD's and GEODIST's argument checks
    assert err(r, "GEOADD", "s", 200, 100, "a") == bad_pair("200.000000,100.000000")
    assert err(r, "GEOADD", "s", 13, 38, "a", 14) == SYNTAX
    assert err(r, "GEODIST", "s", "a", "b", "yd") == BAD_UNIT
    assert err(r, "GEODIST", "s", "a", "b", "km", "x") == SYNTAX
    assert cmd(r, "GET", "s") == b"x"
    assert cmd(r, "EXISTS", "d") == 0


# ---- GEOPOS / GEOHASH ----------------------------------------------------------------------------

def test_geopos(server, r):
    sicily(r)
    assert cmd(r, "GEOPOS", "Sicily", "Palermo", "Catania", "nope", "edge1", "edge2",
               "Palermo") == [PALERMO_POS, CATANIA_POS, None, EDGE1_POS, EDGE2_POS, PALERMO_POS]
    assert cmd(r, "GEOPOS", "nokey", "a", "b") == [None, None]
    assert cmd(r, "GEOPOS", "Sicily") == []
    assert cmd(r, "GEOPOS", "nokey") == []
    assert err(r, "GEOPOS") == arity("geopos")
    with server.raw() as c:
        # a missing member is a null array in RESP2
        c.send_command("GEOPOS", "Sicily", "Palermo", "nope")
        c.expect(b"*2\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n"
                 b"*-1\r\n")
        c.send_command("GEOPOS", "nokey", "a")
        c.expect(b"*1\r\n*-1\r\n")


def test_geohash(server, r):
    sicily(r)
    world(r)
    # Redis 7.0.15's 11-character geohashes
    assert cmd(r, "GEOHASH", "Sicily", "Palermo", "Catania", "nope", "edge1", "edge2") == [
        b"sqc8b49rny0", b"sqdtr74hyu0", None, b"sqchdm4mq20", b"squk8m4vk20"]
    assert cmd(r, "GEOHASH", "w", "east", "west", "north", "south", "origin", "ne", "nw",
               "s100") == [b"xbpbj8p0jb0", b"8000420b400", b"up05b4bh0j0", b"h0bh0j05b40",
                           b"s0000000000", b"zzpgxcb8yu0", b"bp0581z2ch0", b"njr4et3f8v0"]
    assert cmd(r, "GEOHASH", "nokey", "a", "b") == [None, None]
    assert cmd(r, "GEOHASH", "Sicily") == []
    assert err(r, "GEOHASH") == arity("geohash")
    with server.raw() as c:
        c.send_command("GEOHASH", "Sicily", "Palermo", "nope")
        c.expect(b"*2\r\n$11\r\nsqc8b49rny0\r\n$-1\r\n")


# ---- GEODIST -------------------------------------------------------------------------------------

def test_geodist_units(r):
    sicily(r)
    # Redis 7.0.15: "%.4f" in the unit asked for, the unit in any case
    for unit, want in ((None, b"166274.1516"), ("m", b"166274.1516"), ("M", b"166274.1516"),
                       ("km", b"166.2742"), ("KM", b"166.2742"), ("Km", b"166.2742"),
                       ("ft", b"545518.8700"), ("FT", b"545518.8700"),
                       ("mi", b"103.3182"), ("MI", b"103.3182"), ("mI", b"103.3182")):
        args = ["GEODIST", "Sicily", "Palermo", "Catania"] + ([unit] if unit else [])
        assert cmd(r, *args) == want, unit
    assert cmd(r, "GEODIST", "Sicily", "Catania", "Palermo", "km") == b"166.2742"
    assert cmd(r, "GEODIST", "Sicily", "Palermo", "Palermo") == b"0.0000"
    assert cmd(r, "GEODIST", "Sicily", "Palermo", "edge1", "km") == b"91.4007"
    world(r)
    assert cmd(r, "GEODIST", "w", "east", "west", "km") == b"22.2454"
    assert cmd(r, "GEODIST", "w", "ne", "nw", "km") == b"0.1939"
    assert cmd(r, "GEODIST", "w", "origin", "east") == b"20009610.9828"


def test_geodist_missing_and_errors(server, r):
    sicily(r)
    assert cmd(r, "GEODIST", "Sicily", "Palermo", "nope") is None
    assert cmd(r, "GEODIST", "Sicily", "nope", "Palermo") is None
    assert cmd(r, "GEODIST", "Sicily", "nope", "nope2", "km") is None
    assert cmd(r, "GEODIST", "nokey", "a", "b") is None
    # the unit is checked first, even for a missing key or member
    assert err(r, "GEODIST", "Sicily", "Palermo", "Catania", "yd") == BAD_UNIT
    assert err(r, "GEODIST", "Sicily", "Palermo", "nope", "yd") == BAD_UNIT
    assert err(r, "GEODIST", "nokey", "a", "b", "yd") == BAD_UNIT
    assert err(r, "GEODIST", "Sicily", "Palermo", "Catania", "") == BAD_UNIT
    assert err(r, "GEODIST", "Sicily", "Palermo", "Catania", "km", "extra") == SYNTAX
    assert err(r, "GEODIST", "nokey", "a", "b", "km", "extra") == SYNTAX
    assert err(r, "GEODIST", "Sicily", "Palermo") == arity("geodist")
    assert err(r, "GEODIST", "Sicily") == arity("geodist")
    with server.raw() as c:
        c.send_command("GEODIST", "Sicily", "Palermo", "Catania")
        c.expect(b"$11\r\n166274.1516\r\n")
        c.send_command("GEODIST", "Sicily", "Palermo", "nope")
        c.expect(b"$-1\r\n")


# ---- GEORADIUS family ----------------------------------------------------------------------------

# Redis 7.0.15's rows for GEORADIUS Sicily 15 37 ... km: members within 200 km, and all four
# within 400 km, nearest first
NEAR = [[b"Catania", b"56.4413", CATANIA_HASH, CATANIA_POS],
        [b"Palermo", b"190.4424", PALERMO_HASH, PALERMO_POS]]
ALL = NEAR + [[b"edge2", b"279.7403", EDGE2_HASH, EDGE2_POS],
              [b"edge1", b"279.7405", EDGE1_HASH, EDGE1_POS]]


def pick(table, *fields):
    """Rows of NEAR/ALL with only the given fields (0 member, 1 dist, 2 hash, 3 coord); one
    field gives plain members."""
    if fields == (0,):
        return [row[0] for row in table]
    return [[row[f] for f in fields] for row in table]


def test_georadius_replies_and_with_options(r):
    sicily(r)
    q = ["GEORADIUS", "Sicily", 15, 37, 200, "km"]
    assert rows(cmd(r, *q)) == rows(pick(NEAR, 0))
    assert rows(cmd(r, *q, "WITHDIST")) == rows(pick(NEAR, 0, 1))
    assert rows(cmd(r, *q, "WITHCOORD")) == rows(pick(NEAR, 0, 3))
    assert rows(cmd(r, *q, "WITHHASH")) == rows(pick(NEAR, 0, 2))
    # whatever order the options come in, a row is member, dist, hash, coord
    for opts in (["WITHDIST", "WITHCOORD", "WITHHASH"], ["WITHCOORD", "WITHHASH", "WITHDIST"],
                 ["withhash", "withdist", "withcoord"]):
        assert cmd(r, *q, *opts, "ASC") == NEAR
    assert cmd(r, *q, "WITHCOORD", "WITHDIST", "ASC") == pick(NEAR, 0, 1, 3)
    assert cmd(r, *q, "WITHHASH", "WITHCOORD", "ASC") == pick(NEAR, 0, 2, 3)
    assert cmd(r, *q, "WITHHASH", "WITHDIST", "ASC") == pick(NEAR, 0, 1, 2)
    assert cmd(r, *q, "WITHDIST", "WITHDIST", "ASC") == pick(NEAR, 0, 1)
    # the _RO variant answers the same
    assert cmd(r, "GEORADIUS_RO", "Sicily", 15, 37, 200, "km", "WITHDIST", "WITHHASH",
               "WITHCOORD", "ASC") == NEAR
    assert rows(cmd(r, "GEORADIUS_RO", "Sicily", 15, 37, 200, "km")) == rows(pick(NEAR, 0))
    # missing key: an empty array
    assert cmd(r, "GEORADIUS", "nokey", 15, 37, 200, "km") == []
    assert cmd(r, "GEORADIUS", "nokey", 15, 37, 200, "km", "WITHDIST") == []


def test_georadius_units(r):
    sicily(r)
    # Redis 7.0.15: distances come back in the radius's unit
    q = ["GEORADIUS", "Sicily", 15, 37]
    assert cmd(r, *q, 400000, "m", "WITHDIST", "ASC") == [
        [b"Catania", b"56441.2579"], [b"Palermo", b"190442.4298"],
        [b"edge2", b"279740.3418"], [b"edge1", b"279740.4521"]]
    assert cmd(r, *q, 400, "KM", "WITHDIST", "ASC") == pick(ALL, 0, 1)
    assert cmd(r, *q, 250, "mi", "WITHDIST", "ASC") == [
        [b"Catania", b"35.0711"], [b"Palermo", b"118.3357"],
        [b"edge2", b"173.8230"], [b"edge1", b"173.8231"]]
    assert cmd(r, *q, 1300000, "Ft", "WITHDIST", "ASC") == [
        [b"Catania", b"185174.7305"], [b"Palermo", b"624811.1215"],
        [b"edge2", b"917783.2736"], [b"edge1", b"917783.6356"]]
    assert cmd(r, *q, "1e3", "km", "ASC") == pick(ALL, 0)
    assert cmd(r, *q, 0, "km") == []


def test_georadius_sort_and_count(r):
    sicily(r)
    q = ["GEORADIUS", "Sicily", 15, 37, 400, "km"]
    assert rows(cmd(r, *q)) == rows(pick(ALL, 0))
    assert cmd(r, *q, "ASC") == pick(ALL, 0)
    assert cmd(r, *q, "desc") == pick(ALL[::-1], 0)
    assert cmd(r, *q, "WITHDIST", "ASC") == pick(ALL, 0, 1)
    assert cmd(r, *q, "WITHDIST", "DESC") == pick(ALL[::-1], 0, 1)
    # the last of ASC / DESC wins
    assert cmd(r, *q, "DESC", "ASC") == pick(ALL, 0)
    # COUNT without ANY sorts (nearest first unless DESC), then cuts
    assert cmd(r, *q, "WITHDIST", "COUNT", 2) == pick(ALL[:2], 0, 1)
    assert cmd(r, *q, "WITHDIST", "COUNT", 2, "DESC") == pick(ALL[:1:-1], 0, 1)
    assert cmd(r, *q, "COUNT", 1, "COUNT", 3) == pick(ALL[:3], 0)
    assert cmd(r, *q, "WITHDIST", "COUNT", 10) == pick(ALL, 0, 1)
    assert cmd(r, *q, "count", 4, "asc", "withhash") == pick(ALL, 0, 2)


def test_georadius_count_any(r):
    sicily(r)
    q = ["GEORADIUS", "Sicily", 15, 37, 400, "km"]
    # ANY stops at the first COUNT matches found, in scan order: which ones is not pinned
    got = cmd(r, *q, "WITHDIST", "COUNT", 3, "ANY")
    assert len(got) == 3 and all(row in pick(ALL, 0, 1) for row in got)
    got = cmd(r, *q, "COUNT", 1, "ANY", "ASC")
    assert len(got) == 1 and got[0] in pick(ALL, 0)
    assert rows(cmd(r, *q, "WITHDIST", "COUNT", 4, "ANY")) == rows(pick(ALL, 0, 1))
    assert cmd(r, *q, "WITHDIST", "COUNT", 4, "ANY", "ASC") == pick(ALL, 0, 1)
    assert cmd(r, *q, "COUNT", 9, "ANY", "DESC") == pick(ALL[::-1], 0)
    assert cmd(r, *q, "ANY", "COUNT", 5, "ASC") == pick(ALL, 0)
    assert cmd(r, *q, "COUNT", 4, "ANY", "ANY", "ASC") == pick(ALL, 0)


def test_georadiusbymember(r):
    sicily(r)
    # Redis 7.0.15's rows around Palermo within 200 km
    around = [[b"Palermo", b"0.0000", PALERMO_HASH, PALERMO_POS],
              [b"edge1", b"91.4007", EDGE1_HASH, EDGE1_POS],
              [b"Catania", b"166.2742", CATANIA_HASH, CATANIA_POS]]
    for name in ("GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"):
        assert rows(cmd(r, name, "Sicily", "Palermo", 200, "km")) == rows(pick(around, 0))
        assert cmd(r, name, "Sicily", "Palermo", 200, "km", "WITHDIST", "ASC") == pick(
            around, 0, 1)
        assert cmd(r, name, "Sicily", "Palermo", 200, "km", "WITHCOORD", "WITHHASH",
                   "WITHDIST", "ASC") == around
        assert cmd(r, name, "Sicily", "Palermo", 200, "km", "COUNT", 2, "DESC") == [
            b"Catania", b"edge1"]
        assert cmd(r, name, "Sicily", "Palermo", 0, "km", "WITHDIST") == [[b"Palermo", b"0.0000"]]
        assert cmd(r, name, "nokey", "Palermo", 200, "km") == []
        assert err(r, name, "Sicily", "nope", 200, "km") == NO_MEMBER
    assert cmd(r, "GEORADIUSBYMEMBER", "Sicily", "edge1", 300, "km", "WITHDIST", "DESC") == [
        [b"Catania", b"248.8609"], [b"Palermo", b"91.4007"], [b"edge1", b"0.0000"]]
    assert cmd(r, "GEORADIUSBYMEMBER", "Sicily", "Palermo", 100, "mi", "WITHDIST", "ASC") == [
        [b"Palermo", b"0.0000"], [b"edge1", b"56.7939"]]


def test_georadius_store_and_storedist(r):
    sicily(r, "{a}Sicily")
    q = ["GEORADIUS", "{a}Sicily", 15, 37]
    # STORE: the count; the destination's scores are the geohashes (Redis 7.0.15's)
    assert cmd(r, *q, 200, "km", "STORE", "{b}dst") == 2
    assert cmd(r, "ZRANGE", "{b}dst", 0, -1, "WITHSCORES") == [
        b"Palermo", b"3479099956230698", b"Catania", b"3479447370796909"]
    # STOREDIST: scores are the distances in the radius's unit, unrounded
    assert cmd(r, *q, 200, "km", "STOREDIST", "{c}dst") == 2
    assert cmd(r, "ZRANGE", "{c}dst", 0, -1, "WITHSCORES") == [
        b"Catania", b"56.441257870158204", b"Palermo", b"190.44242984775784"]
    assert cmd(r, *q, 200000, "m", "STOREDIST", "{c}dst") == 2
    assert cmd(r, "ZSCORE", "{c}dst", "Catania") == b"56441.257870158202"
    # with COUNT and DESC: the farthest three replace the old content
    assert cmd(r, *q, 400, "km", "STOREDIST", "{c}dst", "COUNT", 3, "DESC") == 3
    assert cmd(r, "ZRANGE", "{c}dst", 0, -1, "WITHSCORES") == [
        b"Palermo", b"190.44242984775784", b"edge2", b"279.7403417843143",
        b"edge1", b"279.74045213563431"]
    # the last STORE / STOREDIST wins: one key written
    assert cmd(r, *q, 400, "km", "STORE", "{b}s1", "STOREDIST", "{b}s2") == 4
    assert cmd(r, "EXISTS", "{b}s1") == 0
    assert cmd(r, "ZRANGE", "{b}s2", 0, -1, "WITHSCORES") == [
        b"Catania", b"56.441257870158204", b"Palermo", b"190.44242984775784",
        b"edge2", b"279.7403417843143", b"edge1", b"279.74045213563431"]
    assert cmd(r, *q, 400, "km", "STOREDIST", "{b}s3", "STORE", "{b}s4") == 4
    assert cmd(r, "EXISTS", "{b}s3") == 0
    assert cmd(r, "ZRANGE", "{b}s4", 0, -1, "WITHSCORES") == [
        b"Palermo", b"3479099956230698", b"edge1", b"3479273021651468",
        b"Catania", b"3479447370796909", b"edge2", b"3481342659049484"]
    # BYMEMBER, and COUNT given around STORE
    assert cmd(r, "GEORADIUSBYMEMBER", "{a}Sicily", "Palermo", 200, "km", "COUNT", 1,
               "STORE", "{b}dst", "COUNT", 2) == 2
    assert cmd(r, "ZRANGE", "{b}dst", 0, -1) == [b"Palermo", b"edge1"]


def test_georadius_store_overwrites_and_deletes(r):
    sicily(r)
    # any type at the destination is replaced
    cmd(r, "SET", "str", "x")
    assert cmd(r, "GEORADIUS", "Sicily", 15, 37, 200, "km", "STORE", "str") == 2
    assert cmd(r, "TYPE", "str") == b"zset"
    # an empty result deletes the destination, whatever it held
    cmd(r, "SET", "str", "x")
    assert cmd(r, "GEORADIUS", "Sicily", 15, 37, 1, "km", "STORE", "str") == 0
    assert cmd(r, "EXISTS", "str") == 0
    cmd(r, "SET", "str", "x")
    assert cmd(r, "GEORADIUS", "nokey", 15, 37, 200, "km", "STOREDIST", "str") == 0
    assert cmd(r, "EXISTS", "str") == 0
    cmd(r, "SET", "str", "x")
    assert cmd(r, "GEORADIUSBYMEMBER", "nokey", "Palermo", 200, "km", "STORE", "str") == 0
    assert cmd(r, "EXISTS", "str") == 0
    assert cmd(r, "GEORADIUS", "nokey", 15, 37, 200, "km", "STORE", "d") == 0
    assert cmd(r, "EXISTS", "d") == 0
    # the source itself as the destination
    assert cmd(r, "GEORADIUSBYMEMBER", "Sicily", "Palermo", 100, "km", "STORE", "Sicily") == 2
    assert cmd(r, "ZRANGE", "Sicily", 0, -1, "WITHSCORES") == [
        b"Palermo", b"3479099956230698", b"edge1", b"3479273021651468"]


def test_georadius_errors(r):
    sicily(r)
    q = ["GEORADIUS", "Sicily", 15, 37]
    assert err(r, *q, -1, "km") == NEG_RADIUS
    assert err(r, "GEORADIUSBYMEMBER", "Sicily", "Palermo", -1, "km") == NEG_RADIUS
    assert err(r, *q, "abc", "km") == "ERR need numeric radius"
    assert err(r, *q, 1, "yd") == BAD_UNIT
    assert err(r, "GEORADIUS", "Sicily", "abc", 37, 1, "km") == NOT_FLOAT
    assert err(r, "GEORADIUS", "Sicily", 200, 37, 1, "km") == bad_pair("200.000000,37.000000")
    assert err(r, "GEORADIUS", "Sicily", 15, 90, 1, "km") == bad_pair("15.000000,90.000000")
    assert err(r, *q, 200, "km", "COUNT", 0) == COUNT_POS
    assert err(r, *q, 200, "km", "COUNT", -1) == COUNT_POS
    assert err(r, *q, 200, "km", "COUNT", 1, "COUNT", 0) == COUNT_POS
    assert err(r, *q, 200, "km", "COUNT", "abc") == NOT_INT
    assert err(r, *q, 200, "km", "COUNT", "1.5") == NOT_INT
    assert err(r, *q, 200, "km", "COUNT", "99999999999999999999") == NOT_INT
    assert err(r, *q, 200, "km", "COUNT") == SYNTAX
    assert err(r, *q, 200, "km", "ANY") == ANY_COUNT
    assert err(r, *q, 200, "km", "FOO") == SYNTAX
    assert err(r, *q, 200, "km", "STORE") == SYNTAX
    assert err(r, *q, 200, "km", "STOREDIST") == SYNTAX
    assert err(r, *q, 200, "km", "BYBOX", 1, 1, "km") == SYNTAX
    assert err(r, *q, 200, "km", "FROMMEMBER", "Palermo") == SYNTAX
    for opts in (["STORE", "d", "WITHDIST"], ["WITHHASH", "STOREDIST", "d"],
                 ["WITHCOORD", "STORE", "d"], ["ANY", "STORE", "d", "WITHDIST"]):
        assert err(r, *q, 200, "km", *opts) == STORE_WITH, opts
    assert err(r, "GEORADIUSBYMEMBER", "Sicily", "Palermo", 200, "km", "STORE", "d",
               "WITHDIST") == STORE_WITH
    # COUNT is checked while parsing, before STORE with WITH*
    assert err(r, *q, 200, "km", "COUNT", 0, "STORE", "d", "WITHDIST") == COUNT_POS
    # the _RO variants have no STORE
    assert err(r, "GEORADIUS_RO", "Sicily", 15, 37, 200, "km", "STORE", "d") == SYNTAX
    assert err(r, "GEORADIUS_RO", "Sicily", 15, 37, 200, "km", "STOREDIST", "d") == SYNTAX
    assert err(r, "GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", 200, "km", "STORE", "d") == SYNTAX
    assert cmd(r, "EXISTS", "d") == 0
    # arity
    assert err(r, *q, 1) == arity("georadius")
    assert err(r, "GEORADIUS", "Sicily", 15, 37) == arity("georadius")
    assert err(r, "GEORADIUS_RO", "Sicily", 15, 37, 200) == arity("georadius_ro")
    assert err(r, "GEORADIUSBYMEMBER", "Sicily", "Palermo", 200) == arity("georadiusbymember")
    assert err(r, "GEORADIUSBYMEMBER_RO", "Sicily", "Palermo") == arity("georadiusbymember_ro")


def test_georadius_error_precedence(r):
    sicily(r)
    # a missing key still gets its arguments checked ...
    for args, want in (([15, 37, 200, "km", "COUNT", 0], COUNT_POS),
                       ([15, 37, -1, "km"], NEG_RADIUS),
                       ([200, 37, 1, "km"], bad_pair("200.000000,37.000000")),
                       ([15, 37, 1, "yd"], BAD_UNIT),
                       ([15, 37, 1, "km", "FOO"], SYNTAX),
                       ([15, 37, 1, "km", "ANY"], ANY_COUNT),
                       ([15, 37, 1, "km", "STORE", "d", "WITHDIST"], STORE_WITH)):
        assert err(r, "GEORADIUS", "nokey", *args) == want, args
    # ... but BYMEMBER on a missing key answers before looking at the radius
    assert cmd(r, "GEORADIUSBYMEMBER", "nokey", "x", -1, "km") == []
    # and a missing member is reported before a bad radius
    assert err(r, "GEORADIUSBYMEMBER", "Sicily", "nope", -1, "km") == NO_MEMBER


# ---- GEOSEARCH / GEOSEARCHSTORE ------------------------------------------------------------------

def test_geosearch_fromlonlat(r):
    sicily(r)
    q = ["GEOSEARCH", "Sicily", "FROMLONLAT", 15, 37]
    assert rows(cmd(r, *q, "BYRADIUS", 200, "km")) == rows(pick(NEAR, 0))
    assert cmd(r, *q, "BYRADIUS", 200, "km", "ASC") == pick(NEAR, 0)
    assert cmd(r, *q, "BYRADIUS", 200, "km", "WITHDIST", "WITHHASH", "WITHCOORD", "ASC") == NEAR
    assert cmd(r, *q, "BYRADIUS", 400, "km", "DESC", "COUNT", 2, "WITHDIST") == pick(
        ALL[:1:-1], 0, 1)
    # BYBOX width height: a 400 x 400 km box reaches the four points
    assert rows(cmd(r, *q, "BYBOX", 400, 400, "km")) == rows(pick(ALL, 0))
    assert cmd(r, *q, "BYBOX", 400, 400, "km", "ASC", "WITHCOORD", "WITHDIST", "WITHHASH") == ALL
    assert cmd(r, *q, "BYBOX", 400, 400, "km", "DESC") == pick(ALL[::-1], 0)
    assert cmd(r, *q, "bybox", 500, 500, "KM", "withdist", "asc") == pick(ALL, 0, 1)
    assert cmd(r, *q, "BYBOX", 0, 0, "km") == []
    assert cmd(r, *q, "BYRADIUS", 0, "km") == []
    assert cmd(r, "GEOSEARCH", "nokey", "FROMLONLAT", 15, 37, "BYRADIUS", 1, "km") == []


def test_geosearch_frommember(r):
    sicily(r)
    q = ["GEOSEARCH", "Sicily", "FROMMEMBER"]
    # Redis 7.0.15's rows
    assert cmd(r, *q, "Palermo", "BYRADIUS", 200, "km", "ASC", "WITHDIST") == [
        [b"Palermo", b"0.0000"], [b"edge1", b"91.4007"], [b"Catania", b"166.2742"]]
    # the box is width (east-west) by height (north-south)
    assert cmd(r, *q, "Catania", "BYBOX", 400, 200, "km", "WITHDIST", "ASC") == [
        [b"Catania", b"0.0000"], [b"Palermo", b"166.2742"]]
    assert cmd(r, *q, "Catania", "BYBOX", 200, 400, "km", "WITHDIST", "ASC") == [
        [b"Catania", b"0.0000"]]
    assert cmd(r, *q, "Catania", "BYBOX", 400000, 400000, "m", "WITHDIST", "ASC",
               "COUNT", 2) == [[b"Catania", b"0.0000"], [b"Palermo", b"166274.1516"]]
    assert rows(cmd(r, *q, "Catania", "BYBOX", 400, 400, "mi", "WITHDIST", "COUNT", 4,
                    "ANY")) == rows([[b"Palermo", b"103.3182"], [b"edge1", b"154.6354"],
                                     [b"Catania", b"0.0000"], [b"edge2", b"146.9728"]])
    got = cmd(r, *q, "Catania", "BYBOX", 400, 400, "MI", "COUNT", 2, "ANY")
    assert len(got) == 2 and set(got) <= {b"Palermo", b"edge1", b"Catania", b"edge2"}
    assert cmd(r, *q, "Catania", "BYBOX", 1000000, 1000000, "ft", "WITHDIST", "COUNT", 4,
               "DESC") == [[b"Palermo", b"545518.8700"], [b"Catania", b"0.0000"]]
    assert err(r, *q, "nope", "BYRADIUS", 1, "km") == NO_MEMBER
    assert cmd(r, "GEOSEARCH", "nokey", "FROMMEMBER", "nope", "BYRADIUS", 1, "km") == []


def test_geosearch_errors(r):
    sicily(r)
    frm = ["FROMLONLAT", 15, 37]
    by = ["BYRADIUS", 1, "km"]
    # both FROM or both BY: a syntax error
    assert err(r, "GEOSEARCH", "Sicily", "FROMMEMBER", "Catania", *frm, *by) == SYNTAX
    assert err(r, "GEOSEARCH", "Sicily", *frm, "FROMMEMBER", "Catania", *by) == SYNTAX
    assert err(r, "GEOSEARCH", "Sicily", *frm, *by, "BYBOX", 1, 1, "km") == SYNTAX
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYBOX", 1, 1, "km", *by) == SYNTAX
    # neither: the text names the command as the client spelled it
    assert err(r, "GEOSEARCH", "Sicily", *by, "ASC", "WITHDIST") == need_from("GEOSEARCH")
    assert err(r, "geosearch", "Sicily", *by, "ASC", "WITHDIST") == need_from("geosearch")
    assert err(r, "GeoSearch", "Sicily", *by, "ASC", "WITHDIST") == need_from("GeoSearch")
    assert err(r, "GEOSEARCH", "Sicily", *frm, "ASC", "WITHDIST") == need_by("GEOSEARCH")
    assert err(r, "geosearch", "nokey", *frm, "ASC", "WITHDIST") == need_by("geosearch")
    # no STORE in GEOSEARCH
    for opts in (["STORE", "d"], ["STOREDIST", "d"], ["STOREDIST"]):
        assert err(r, "GEOSEARCH", "Sicily", *frm, *by, *opts) == SYNTAX
    assert cmd(r, "EXISTS", "d") == 0
    # shape and option arguments
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYRADIUS", -1, "km") == NEG_RADIUS
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYRADIUS", "a", "km") == "ERR need numeric radius"
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYRADIUS", 1, "yd") == BAD_UNIT
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYRADIUS", 1) == SYNTAX
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYBOX", -1, 1, "km") == NEG_BOX
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYBOX", 1, -1, "km") == NEG_BOX
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYBOX", "a", 1, "km") == "ERR need numeric width"
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYBOX", 1, "a", "km") == "ERR need numeric height"
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYBOX", 1, 1, "yd") == BAD_UNIT
    assert err(r, "GEOSEARCH", "Sicily", *frm, "BYBOX", 1, 1) == SYNTAX
    assert err(r, "GEOSEARCH", "Sicily", "FROMLONLAT", 15, *by) == NOT_FLOAT
    assert err(r, "GEOSEARCH", "Sicily", "FROMLONLAT", "a", 37, *by) == NOT_FLOAT
    assert err(r, "GEOSEARCH", "Sicily", "FROMLONLAT", 200, 37, *by) == bad_pair(
        "200.000000,37.000000")
    assert err(r, "GEOSEARCH", "Sicily", *frm, *by, "COUNT", 0) == COUNT_POS
    assert err(r, "GEOSEARCH", "Sicily", *frm, *by, "ANY") == ANY_COUNT
    assert err(r, "GEOSEARCH", "Sicily", *frm, *by, "FOO") == SYNTAX
    assert err(r, "GEOSEARCH", "nokey", *frm, *by, "FOO") == SYNTAX
    # a missing key still checks the radius of FROMMEMBER (unlike GEORADIUSBYMEMBER) ...
    assert err(r, "GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", -1, "km") == NEG_RADIUS
    # ... and a missing member is reported before a bad radius
    assert err(r, "GEOSEARCH", "Sicily", "FROMMEMBER", "nope", "BYRADIUS", -1, "km") == NO_MEMBER
    # arity: at least 7 arguments
    for args in ([], ["FROMLONLAT"], ["FROMMEMBER"], ["FROMMEMBER", "Catania"], by,
                 ["FROMMEMBER", "Catania", "WITHDIST"], [*frm, "BYRADIUS"]):
        assert err(r, "GEOSEARCH", "Sicily", *args) == arity("geosearch"), args


def test_geosearchstore(r):
    sicily(r, "{a}Sicily")
    q = ["GEOSEARCHSTORE", "{b}d", "{a}Sicily", "FROMLONLAT", 15, 37]
    assert cmd(r, *q, "BYRADIUS", 200, "km") == 2
    assert cmd(r, "ZRANGE", "{b}d", 0, -1, "WITHSCORES") == [
        b"Palermo", b"3479099956230698", b"Catania", b"3479447370796909"]
    assert cmd(r, *q, "BYRADIUS", 200, "km", "STOREDIST") == 2
    assert cmd(r, "ZRANGE", "{b}d", 0, -1, "WITHSCORES") == [
        b"Catania", b"56.441257870158204", b"Palermo", b"190.44242984775784"]
    assert cmd(r, *q, "BYRADIUS", 400, "km", "STOREDIST", "COUNT", 1) == 1
    assert cmd(r, "ZRANGE", "{b}d", 0, -1, "WITHSCORES") == [b"Catania", b"56.441257870158204"]
    assert cmd(r, *q, "BYBOX", 400, 400, "km", "DESC", "COUNT", 2) == 2
    assert cmd(r, "ZRANGE", "{b}d", 0, -1, "WITHSCORES") == [
        b"edge1", b"3479273021651468", b"edge2", b"3481342659049484"]
    assert cmd(r, *q, "BYRADIUS", 200, "km", "storedist", "STOREDIST", "ASC") == 2
    assert cmd(r, *q, "BYRADIUS", 200, "km", "storedist", "DESC", "COUNT", 1, "ANY") == 1
    assert cmd(r, "ZCARD", "{b}d") == 1
    assert cmd(r, "GEOSEARCHSTORE", "{c}d", "{a}Sicily", "FROMMEMBER", "Palermo", "BYRADIUS",
               100, "km", "STOREDIST") == 2
    assert cmd(r, "ZRANGE", "{c}d", 0, -1, "WITHSCORES") == [
        b"Palermo", b"0", b"edge1", b"91.400658605814272"]


def test_geosearchstore_empty_and_overwrite(r):
    sicily(r)
    q = ["FROMLONLAT", 15, 37, "BYRADIUS"]
    # an empty result deletes the destination
    assert cmd(r, "GEOSEARCHSTORE", "d", "Sicily", *q, 200, "km") == 2
    assert cmd(r, "GEOSEARCHSTORE", "d", "Sicily", *q, 1, "km") == 0
    assert cmd(r, "EXISTS", "d") == 0
    assert cmd(r, "GEOSEARCHSTORE", "d", "Sicily", *q, 200, "km") == 2
    assert cmd(r, "GEOSEARCHSTORE", "d", "nokey", *q, 200, "km") == 0
    assert cmd(r, "EXISTS", "d") == 0
    cmd(r, "SET", "d", "x")
    assert cmd(r, "GEOSEARCHSTORE", "d", "nokey", "FROMMEMBER", "x", "BYRADIUS", 200, "km") == 0
    assert cmd(r, "EXISTS", "d") == 0
    # a destination of another type is replaced
    cmd(r, "SET", "d", "x")
    assert cmd(r, "GEOSEARCHSTORE", "d", "Sicily", *q, 1000, "km") == 4
    assert cmd(r, "TYPE", "d") == b"zset"
    # the source as the destination
    assert cmd(r, "GEOSEARCHSTORE", "Sicily", "Sicily", *q, 200, "km", "STOREDIST") == 2
    assert cmd(r, "ZRANGE", "Sicily", 0, -1, "WITHSCORES") == [
        b"Catania", b"56.441257870158204", b"Palermo", b"190.44242984775784"]


def test_geosearchstore_errors(r):
    sicily(r)
    q = ["GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", 15, 37]
    by = ["BYRADIUS", 1, "km"]
    for opt in ("WITHDIST", "WITHCOORD", "WITHHASH"):
        assert err(r, *q, *by, opt) == SEARCHSTORE_WITH
    assert err(r, *q, *by, "WITHDIST", "ANY") == SEARCHSTORE_WITH
    # checked before the FROM / BY checks
    assert err(r, *q, "ASC", "WITHDIST") == SEARCHSTORE_WITH
    assert err(r, *q, "ASC", "COUNT", 1) == need_by("GEOSEARCHSTORE")
    assert err(r, "geosearchstore", "d", "Sicily", "BYRADIUS", 15, "km", "ASC", "COUNT",
               1) == need_from("geosearchstore")
    assert err(r, *q, *by, "STORE", "x") == SYNTAX
    assert err(r, *q, *by, "STOREDIST", "x") == SYNTAX
    assert err(r, *q, "BYRADIUS", 1) == SYNTAX
    assert err(r, "GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "x", "BYRADIUS", 200,
               "km") == NO_MEMBER
    for args in ([], ["Sicily"], ["Sicily", "FROMLONLAT", 15, 37]):
        assert err(r, "GEOSEARCHSTORE", "d", *args) == arity("geosearchstore")
    assert cmd(r, "EXISTS", "d", "x") == 0


# ---- a 300-point grid ----------------------------------------------------------------------------

# Redis 7.0.15: GEOSEARCH grid FROMLONLAT 13.53 38.02 BYRADIUS 30 km ASC WITHDIST (28 members)
GRID_30KM = [
    [b"g150", b"3.4438"], [b"g151", b"6.5252"], [b"g170", b"9.2779"], [b"g171", b"10.8054"],
    [b"g149", b"11.6075"], [b"g130", b"13.6038"], [b"g169", b"14.4495"], [b"g131", b"14.6910"],
    [b"g152", b"15.0634"], [b"g172", b"17.3445"], [b"g129", b"17.5530"], [b"g132", b"20.0101"],
    [b"g190", b"20.1922"], [b"g148", b"20.2786"], [b"g191", b"20.9371"], [b"g168", b"22.0204"],
    [b"g189", b"23.0275"], [b"g153", b"23.7659"], [b"g128", b"24.1862"], [b"g110", b"24.6111"],
    [b"g192", b"24.9436"], [b"g111", b"25.2291"], [b"g173", b"25.2643"], [b"g109", b"26.9985"],
    [b"g133", b"27.1805"], [b"g188", b"28.3901"], [b"g112", b"28.6590"], [b"g147", b"29.0051"]]
GRID_30KM_MEMBERS = [row[0] for row in GRID_30KM]


def test_grid_radius_search(r):
    grid(r)
    assert cmd(r, "ZCARD", "grid") == 300
    q = ["GEOSEARCH", "grid", "FROMLONLAT", "13.53", "38.02", "BYRADIUS", 30, "km"]
    assert cmd(r, *q, "ASC", "WITHDIST") == GRID_30KM
    assert cmd(r, *q, "DESC", "WITHDIST") == GRID_30KM[::-1]
    assert rows(cmd(r, *q)) == sorted(GRID_30KM_MEMBERS)
    assert rows(cmd(r, *q, "WITHDIST")) == rows(GRID_30KM)
    assert cmd(r, *q, "COUNT", 7, "WITHDIST") == GRID_30KM[:7]
    assert cmd(r, *q, "COUNT", 7, "DESC", "WITHDIST") == GRID_30KM[:-8:-1]
    assert cmd(r, "GEORADIUS", "grid", "13.53", "38.02", 30, "km", "ASC", "WITHDIST") == GRID_30KM
    assert cmd(r, "GEORADIUS_RO", "grid", "13.53", "38.02", 30, "km", "COUNT", 3) == [
        b"g150", b"g151", b"g170"]
    got = cmd(r, *q, "COUNT", 10, "ANY")
    assert len(got) == 10 and set(got) <= set(GRID_30KM_MEMBERS)
    got = cmd(r, *q, "COUNT", 10, "ANY", "WITHDIST", "ASC")
    assert len(got) == 10 and all(row in GRID_30KM for row in got)
    assert cmd(r, "GEOSEARCH", "grid", "FROMMEMBER", "g150", "BYRADIUS", 12, "km", "ASC",
               "WITHCOORD", "COUNT", 1) == [
        [b"g150", [b"13.50000053644180298", b"38.0000009925631943"]]]
    # Redis 7.0.15: the farthest three of the whole grid
    assert cmd(r, *q[:-2], 1000, "km", "DESC", "COUNT", 3, "WITHDIST") == [
        [b"g000", b"120.9889"], [b"g280", b"117.4306"], [b"g001", b"114.5370"]]
    assert len(cmd(r, *q[:-2], 1000, "km")) == 300


def test_grid_box_search_and_store(r):
    grid(r)
    q = ["GEOSEARCH", "grid", "FROMLONLAT", "13.53", "38.02", "BYBOX", 30, 25, "km"]
    # Redis 7.0.15's rows
    assert cmd(r, *q, "ASC", "WITHDIST") == [
        [b"g150", b"3.4438"], [b"g151", b"6.5252"], [b"g170", b"9.2779"], [b"g171", b"10.8054"],
        [b"g149", b"11.6075"], [b"g169", b"14.4495"], [b"g152", b"15.0634"],
        [b"g172", b"17.3445"]]
    assert rows(cmd(r, *q)) == [b"g149", b"g150", b"g151", b"g152", b"g169", b"g170", b"g171",
                                b"g172"]
    assert cmd(r, "GEOSEARCHSTORE", "gd", "grid", "FROMLONLAT", "13.53", "38.02", "BYRADIUS",
               30, "km", "STOREDIST") == 28
    assert cmd(r, "ZRANGE", "gd", 0, -1) == GRID_30KM_MEMBERS
    # Redis 7.0.15's unrounded distances (first and last)
    assert cmd(r, "ZRANGE", "gd", 0, 0, "WITHSCORES") == [b"g150", b"3.4438017726740608"]
    assert cmd(r, "ZRANGE", "gd", -1, -1, "WITHSCORES") == [b"g147", b"29.005071072780471"]
    assert cmd(r, "GEOSEARCHSTORE", "gd", "grid", "FROMLONLAT", "13.53", "38.02", "BYRADIUS",
               1000, "km") == 300
    assert cmd(r, "ZRANGE", "gd", 0, -1, "WITHSCORES") == cmd(r, "ZRANGE", "grid", 0, -1,
                                                              "WITHSCORES")


# ---- RESP3 ---------------------------------------------------------------------------------------

def test_resp2_raw_search_reply(server, r):
    sicily(r)
    with server.raw() as c:
        c.send_command("GEORADIUS", "Sicily", 15, 37, 200, "km", "WITHDIST", "WITHCOORD",
                       "WITHHASH", "ASC")
        c.expect(b"*2\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n"
                 b"*2\r\n$20\r\n15.08726745843887329\r\n$20\r\n37.50266842333162032\r\n"
                 b"*4\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n:3479099956230698\r\n"
                 b"*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n")


def test_resp3(server, r):
    sicily(r)
    with server.raw() as c:
        assert c.command("HELLO", "3")[b"proto"] == 3
        # Redis 7.0.15: GEODIST and WITHDIST stay "%.4f" bulk strings in RESP3 ...
        c.send_command("GEODIST", "Sicily", "Palermo", "Catania")
        c.expect(b"$11\r\n166274.1516\r\n")
        c.send_command("GEODIST", "Sicily", "Palermo", "Catania", "km")
        c.expect(b"$8\r\n166.2742\r\n")
        c.send_command("GEODIST", "Sicily", "Palermo", "nope")
        c.expect(b"_\r\n")
        c.send_command("GEODIST", "nokey", "a", "b")
        c.expect(b"_\r\n")
        # ... while coordinates become doubles
        c.send_command("GEOPOS", "Sicily", "Palermo", "nope")
        c.expect(b"*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n_\r\n")
        c.send_command("GEOPOS", "nokey", "a")
        c.expect(b"*1\r\n_\r\n")
        c.send_command("GEOHASH", "Sicily", "Palermo", "nope")
        c.expect(b"*2\r\n$11\r\nsqc8b49rny0\r\n_\r\n")
        c.send_command("GEORADIUS", "Sicily", 15, 37, 200, "km", "WITHDIST", "WITHCOORD",
                       "WITHHASH", "ASC")
        c.expect(b"*2\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n"
                 b"*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n"
                 b"*4\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n:3479099956230698\r\n"
                 b"*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n")
        c.send_command("GEORADIUS", "Sicily", 15, 37, 200, "km", "ASC")
        c.expect(b"*2\r\n$7\r\nCatania\r\n$7\r\nPalermo\r\n")
        c.send_command("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", 200, "km",
                       "WITHDIST", "ASC")
        c.expect(b"*3\r\n*2\r\n$7\r\nPalermo\r\n$6\r\n0.0000\r\n*2\r\n$5\r\nedge1\r\n"
                 b"$7\r\n91.4007\r\n*2\r\n$7\r\nCatania\r\n$8\r\n166.2742\r\n")
        c.send_command("GEOSEARCH", "Sicily", "FROMLONLAT", 15, 37, "BYBOX", 200, 200, "km",
                       "WITHCOORD", "ASC")
        c.expect(b"*1\r\n*2\r\n$7\r\nCatania\r\n"
                 b"*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n")
        c.send_command("GEOSEARCH", "nokey", "FROMMEMBER", "Palermo", "BYBOX", 400, 400, "km",
                       "WITHCOORD", "ASC")
        c.expect(b"*0\r\n")
        c.send_command("GEORADIUSBYMEMBER", "Sicily", "Palermo", 200, "km", "STOREDIST", "d")
        c.expect(b":3\r\n")
        c.send_command("ZRANGE", "d", 0, 0, "WITHSCORES")
        c.expect(b"*1\r\n*2\r\n$7\r\nPalermo\r\n,0\r\n")
        c.send_command("GEOADD", "Sicily", 0, 0, "origin")
        c.expect(b":1\r\n")
        c.send_command("GEOPOS", "Sicily", "origin")
        c.expect(b"*1\r\n*2\r\n,0.00000268220901489\r\n,0.00000126736058093\r\n")


# ---- the whole earth, the antimeridian, the poles ------------------------------------------------

# Redis 7.0.15: distances from 0,0 of the WORLD points, nearest first ("north" and "south",
# "nm90" and "n90", "ne" and "nw", "east" and "west" tie at 4 decimals)
WORLD_DISTS = [b"0.0003", b"4454.7332", b"9459.7968", b"9459.7968", b"10010.3670",
               b"10010.3670", b"10564.3770", b"10566.4985", b"10566.4985", b"20009.6113",
               b"20009.6113"]
WORLD_ROWS = [[b"origin", b"0.0003"], [b"Palermo", b"4454.7332"], [b"north", b"9459.7968"],
              [b"south", b"9459.7968"], [b"nm90", b"10010.3670"], [b"n90", b"10010.3670"],
              [b"s100", b"10564.3770"], [b"ne", b"10566.4985"], [b"nw", b"10566.4985"],
              [b"east", b"20009.6113"], [b"west", b"20009.6113"]]


def test_whole_earth_search(r):
    world(r)
    # Redis 7.0.15's positions
    assert cmd(r, "GEOPOS", "w", "east", "west", "north", "south", "ne", "nw", "s100") == [
        [b"179.89999920129776001", b"0.00000126736058093"],
        [b"-179.89999920129776001", b"0.00000126736058093"],
        [b"0.00000268220901489", b"85.04999956172351006"],
        [b"0.00000268220901489", b"-85.04999956172352427"],
        [b"179.98999804258346558", b"84.99999965213439168"],
        [b"-179.98999804258346558", b"84.99999965213439168"],
        [b"100.00000208616256714", b"-59.9999992325934528"]]
    for radius in (20100, 25000, 40000):
        for name in ("GEOSEARCH", "GEORADIUS"):
            if name == "GEOSEARCH":
                q = [name, "w", "FROMLONLAT", 0, 0, "BYRADIUS", radius, "km"]
            else:
                q = [name, "w", 0, 0, radius, "km"]
            assert set(cmd(r, *q)) == WORLD_NAMES
            got = cmd(r, *q, "ASC", "WITHDIST")
            assert [row[1] for row in got] == WORLD_DISTS
            assert rows(got) == rows(WORLD_ROWS)
    q = ["GEOSEARCH", "w", "FROMLONLAT", 0, 0]
    assert rows(cmd(r, *q, "BYBOX", 40100, 40100, "km", "WITHDIST")) == rows(WORLD_ROWS)
    # east and west are 20009.6113 km away: a 20000 km radius leaves them out
    got = cmd(r, *q, "BYRADIUS", 20000, "km", "WITHDIST")
    assert rows(got) == rows(WORLD_ROWS[:-2])
    assert cmd(r, *q, "BYRADIUS", 20000, "km", "COUNT", 2) == [b"origin", b"Palermo"]
    assert cmd(r, "GEOSEARCHSTORE", "all", "w", "FROMLONLAT", 0, 0, "BYRADIUS", 25000,
               "km") == 11
    assert cmd(r, "ZRANGE", "all", 0, -1, "WITHSCORES") == cmd(r, "ZRANGE", "w", 0, -1,
                                                               "WITHSCORES")


def test_antimeridian(r):
    world(r)
    # Redis 7.0.15: east (179.9) and west (-179.9) are 22.2454 km apart across the antimeridian
    assert cmd(r, "GEODIST", "w", "east", "west", "km") == b"22.2454"
    q = ["GEOSEARCH", "w", "FROMLONLAT"]
    assert cmd(r, *q, "179.95", 0, "BYRADIUS", 20, "km", "ASC", "WITHDIST") == [
        [b"east", b"5.5614"], [b"west", b"16.6840"]]
    assert cmd(r, *q, "-179.95", 0, "BYRADIUS", 20, "km", "ASC", "WITHDIST") == [
        [b"west", b"5.5614"], [b"east", b"16.6840"]]
    assert cmd(r, *q, "-179.95", 0, "BYRADIUS", 10, "km", "WITHDIST") == [[b"west", b"5.5614"]]
    assert cmd(r, *q, "-179.95", 0, "BYBOX", 20, 20, "km", "WITHDIST") == [[b"west", b"5.5614"]]
    assert cmd(r, *q, "-179.95", 0, "BYBOX", 10, 20, "km") == []
    assert cmd(r, "GEOSEARCH", "w", "FROMMEMBER", "east", "BYRADIUS", 30, "km", "ASC",
               "WITHDIST") == [[b"east", b"0.0000"], [b"west", b"22.2454"]]
    assert cmd(r, "GEORADIUSBYMEMBER", "w", "west", 30, "km", "DESC") == [b"east", b"west"]
    # near the pole too: ne (179.99, 85) and nw (-179.99, 85)
    assert cmd(r, "GEOSEARCH", "w", "FROMMEMBER", "ne", "BYRADIUS", 5, "km", "ASC",
               "WITHDIST") == [[b"ne", b"0.0000"], [b"nw", b"0.1939"]]
    assert cmd(r, *q, "179.995", 85, "BYBOX", 100, 100, "km", "ASC", "WITHDIST") == [
        [b"ne", b"0.0485"], [b"nw", b"0.1454"]]


def test_bybox_near_the_pole(r):
    world(r)
    q = ["GEOSEARCH", "w", "FROMLONLAT", 0, 85, "BYBOX"]
    # Redis 7.0.15's rows (nm90 and n90 differ in the last digit)
    assert cmd(r, *q, 2000, 200, "km", "ASC", "WITHDIST") == [
        [b"north", b"5.5613"], [b"nm90", b"785.9889"], [b"n90", b"785.9890"]]
    got = cmd(r, *q, 10000, 200, "km", "ASC", "WITHDIST")
    assert got[:3] == [[b"north", b"5.5613"], [b"nm90", b"785.9889"], [b"n90", b"785.9890"]]
    assert rows(got[3:]) == [[b"ne", b"1112.2630"], [b"nw", b"1112.2630"]]
    assert cmd(r, "GEOSEARCH", "w", "FROMMEMBER", "north", "BYBOX", 1000, 1000, "km",
               "WITHDIST") == [[b"north", b"0.0000"]]
    assert rows(cmd(r, "GEOSEARCH", "w", "FROMMEMBER", "north", "BYBOX", 2000, 200, "km",
                    "WITHDIST")) == rows([[b"north", b"0.0000"], [b"n90", b"782.0739"],
                                          [b"nm90", b"782.0739"]])
    assert cmd(r, "GEOSEARCH", "w", "FROMLONLAT", 0, -85, "BYBOX", 100, 100, "km",
               "WITHDIST") == [[b"south", b"5.5613"]]
