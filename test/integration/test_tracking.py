"""Client-side caching as Redis 7.0.15 does it: CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST]
[PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP], CLIENT CACHING YES|NO, CLIENT GETREDIR,
CLIENT TRACKINGINFO, the invalidation messages, INFO tracking_* fields and CLIENT LIST flags.

What Redis 7.0.15 does, pinned below:
- A RESP3 tracking client gets `>2 invalidate [key]` once per read key: the read-only command that
  read it (GET, MGET, EXISTS, TYPE...) remembers the key; the first write by anyone (SET, DEL,
  EXPIRE that sets a TTL, RENAME: both keys, INCR, LPUSH...) sends one message per key and forgets
  it, so a later write sends nothing until the key is read again. A write that changes nothing
  (EXPIRE of a missing key, HDEL of a missing field) sends nothing.
- A client's own write of a key it tracks: the command's reply comes first, then the push (after
  EXEC's reply for writes in MULTI). With NOLOOP nothing is sent, but the key is forgotten all the
  same. FLUSHALL / FLUSHDB send every tracking client `>2 invalidate _` (RESP2 redirect:
  `message __redis__:invalidate $-1`), NOLOOP or not, the flushing client too (after its +OK).
- REDIRECT: a RESP2 target gets `message __redis__:invalidate [key]` if subscribed, nothing if
  not; a RESP3 target gets the `invalidate` push without subscribing; a RESP2 client tracking
  without redirect gets nothing. When the target is gone, every invalidation that would have gone
  to it gives a RESP3 tracking client `>2 tracking-redir-broken <id>` instead (one per message,
  not once only) and TRACKINGINFO shows broken_redirect; CLIENT LIST shows flags=tR.
- BCAST (no read needed): every write of a key under one of the prefixes (all keys without
  PREFIX) is told; only one write at a time here (Redis may batch one event-loop turn's keys).
- OPTIN: only the command right after CLIENT CACHING YES tracks (a whole MULTI/EXEC when CACHING
  comes before EXEC); OPTOUT likewise with CACHING NO.
- CLIENT TRACKING ON again replaces the options (REDIRECT, OPTIN, NOLOOP) but adds prefixes;
  TRACKINGINFO lists prefixes sorted; flags in the order on bcast optin caching-yes optout
  caching-no noloop broken_redirect.
Not covered (slotkv differs): expiry of a key, reads inside scripts, BCAST batching,
tracking-table-max-keys.
"""

import time

from conftest import Error, Push, Simple, bulk, client_lines, wait_until

NULL_INVALIDATE = b">2\r\n$10\r\ninvalidate\r\n_\r\n"
RESP2_NULL_INVALIDATE = b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n$-1\r\n"
OFF_INFO = [b"flags", [b"off"], b"redirect", -1, b"prefixes", []]
BROKEN_REDIRECT = "ERR The client ID you want redirect to does not exist"
SWITCH_BCAST = ("ERR You can't switch BCAST mode on/off before disabling tracking for this "
                "client, and then re-enabling it with a different mode.")
SWITCH_OPT = ("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
              "and then re-enabling it with a different mode.")
CACHING_NOT_TRACKING = ("ERR CLIENT CACHING can be called only when the client is in tracking "
                        "mode with OPTIN or OPTOUT mode enabled")
CACHING_YES = "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."
CACHING_NO = "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."


def e(text):
    return Error(text.encode())


def inval(*keys):
    """The exact bytes of a RESP3 invalidation push for keys."""
    return b">2\r\n$10\r\ninvalidate\r\n*%d\r\n%s" % (
        len(keys), b"".join(bulk(k.encode()) for k in keys))


def message(key):
    """The exact bytes of the RESP2 Pub/Sub message a redirect target subscribed to
    __redis__:invalidate gets for key."""
    return b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n" + bulk(key.encode())


def push(c):
    """The next reply of c, which must be a RESP3 push."""
    msg = c.read_reply()
    assert isinstance(msg, Push), msg
    return msg


def pushed_keys(c, n):
    """The keys of the next n single-key invalidation pushes of c, sorted."""
    keys = []
    for _ in range(n):
        msg = push(c)
        assert msg[0] == b"invalidate" and len(msg[1]) == 1, msg
        keys.append(msg[1][0])
    return sorted(keys)


def silent(*cs, wait=0.2):
    """Nothing arrives on any of cs within wait seconds."""
    time.sleep(wait)
    for c in cs:
        got = c.read_available(0.01)
        assert got == b"", got


def track(c, *options):
    assert c.command("CLIENT", "TRACKING", "ON", *options) == Simple(b"OK")


def tracking_stats(r):
    out = {}
    for section in ("clients", "stats"):
        for line in r.execute_command("INFO", section).decode().splitlines():
            if line.startswith("tracking_"):
                name, value = line.split(":", 1)
                out[name] = int(value)
    return out


def expect_stats(r, clients, keys, items, prefixes):
    want = {"tracking_clients": clients, "tracking_total_keys": keys,
            "tracking_total_items": items, "tracking_total_prefixes": prefixes}
    wait_until(lambda: tracking_stats(r) == want)
    assert tracking_stats(r) == want


# ---- CLIENT TRACKINGINFO / GETREDIR ------------------------------------------------------------

def test_trackinginfo_and_getredir_of_a_client_not_tracking(conns):
    c2 = conns.open()
    assert c2.command("CLIENT", "TRACKINGINFO") == OFF_INFO
    assert c2.command("CLIENT", "GETREDIR") == -1
    c3 = conns.open(resp3=True)
    c3.send_command("CLIENT", "TRACKINGINFO")
    c3.expect(b"%3\r\n$5\r\nflags\r\n~1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n"
              b"$8\r\nprefixes\r\n*0\r\n")
    assert c3.command("CLIENT", "GETREDIR") == -1


def test_trackinginfo_flags_of_each_mode(conns):
    c = conns.open()
    track(c)
    assert c.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on"], b"redirect", 0, b"prefixes", []]
    assert c.command("CLIENT", "GETREDIR") == 0
    assert c.command("CLIENT", "TRACKING", "OFF") == Simple(b"OK")
    assert c.command("CLIENT", "TRACKINGINFO") == OFF_INFO

    track(c, "OPTIN")
    assert c.command("CLIENT", "CACHING", "YES") == Simple(b"OK")
    assert c.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on", b"optin", b"caching-yes"], b"redirect", 0, b"prefixes", []]
    assert c.command("GET", "x") is None  # uses the CACHING YES up
    assert c.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on", b"optin"], b"redirect", 0, b"prefixes", []]
    c.command("CLIENT", "TRACKING", "OFF")

    track(c, "optout", "noloop")
    assert c.command("CLIENT", "CACHING", "no") == Simple(b"OK")
    assert c.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on", b"optout", b"caching-no", b"noloop"], b"redirect", 0, b"prefixes", []]
    c.command("CLIENT", "TRACKING", "OFF")

    target = conns.open()
    track(c, "REDIRECT", target.cid)
    assert c.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on"], b"redirect", target.cid, b"prefixes", []]
    assert c.command("CLIENT", "GETREDIR") == target.cid


def test_trackinginfo_of_bcast_lists_prefixes_sorted_in_both_protocols(conns):
    c = conns.open(resp3=True)
    track(c, "BCAST", "PREFIX", "zz", "PREFIX", "b", "PREFIX", "a", "NOLOOP")
    c.send_command("CLIENT", "TRACKINGINFO")
    c.expect(b"%3\r\n$5\r\nflags\r\n~3\r\n$2\r\non\r\n$5\r\nbcast\r\n$6\r\nnoloop\r\n"
             b"$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*3\r\n$1\r\na\r\n$1\r\nb\r\n"
             b"$2\r\nzz\r\n")
    track(c, "BCAST", "PREFIX", "c")  # adds a prefix, drops NOLOOP
    c.send_command("CLIENT", "TRACKINGINFO")
    c.expect(b"%3\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n$5\r\nbcast\r\n"
             b"$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*4\r\n$1\r\na\r\n$1\r\nb\r\n"
             b"$1\r\nc\r\n$2\r\nzz\r\n")
    c2 = conns.open()
    track(c2, "BCAST")
    assert c2.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on", b"bcast"], b"redirect", 0, b"prefixes", [b""]]


def test_tracking_on_again_replaces_the_options(conns):
    c = conns.open()
    target = conns.open()
    track(c, "REDIRECT", target.cid, "OPTIN", "NOLOOP")
    track(c)
    assert c.command("CLIENT", "GETREDIR") == 0
    assert c.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on"], b"redirect", 0, b"prefixes", []]
    track(c, "OPTIN")  # OPTIN from plain tracking is allowed
    assert c.command("CLIENT", "TRACKINGINFO")[1] == [b"on", b"optin"]
    assert c.command("CLIENT", "TRACKING", "OFF", "BCAST", "PREFIX", "z") == Simple(b"OK")
    assert c.command("CLIENT", "TRACKINGINFO") == OFF_INFO
    assert c.command("CLIENT", "TRACKING", "off") == Simple(b"OK")  # off when off: fine


# ---- invalidation of keys read -------------------------------------------------------------------

def test_resp3_client_is_told_once_per_read(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    track(t)
    w.command("SET", "k", "v")
    assert t.command("GET", "k") == b"v"
    assert w.command("SET", "k", "v2") == Simple(b"OK")
    t.expect(inval("k"))
    assert w.command("SET", "k", "v3") == Simple(b"OK")  # forgotten: not read since
    silent(t)
    assert t.command("GET", "k") == b"v3"
    assert w.command("APPEND", "k", "x") == 3
    assert push(t) == [b"invalidate", [b"k"]]
    silent(t)


def test_a_key_never_read_is_not_told(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    track(t)
    assert t.command("GET", "read") is None
    w.command("SET", "unread", "1")
    w.command("SET", "read", "1")
    t.expect(inval("read"))
    silent(t)


def test_read_only_commands_track_their_keys(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    w.command("SET", "s", "v")
    w.command("HSET", "h", "f", "v")
    w.command("RPUSH", "l", "x")
    track(t)
    assert t.command("MGET", "m1", "m2") == [None, None]
    assert t.command("EXISTS", "e1", "e2") == 0
    assert t.command("HGET", "h", "f") == b"v"
    assert t.command("LRANGE", "l", 0, -1) == [b"x"]
    assert t.command("STRLEN", "s") == 1
    assert t.command("TYPE", "ty") == Simple(b"none")
    for key in ("m1", "m2", "e1", "e2", "ty"):
        w.command("SET", key, "new")
        t.expect(inval(key))
    w.command("HSET", "h", "f", "w")
    t.expect(inval("h"))
    w.command("RPUSH", "l", "y")
    t.expect(inval("l"))
    w.command("SET", "s", "w")
    t.expect(inval("s"))
    silent(t)


def test_writes_that_invalidate(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    for k in ("del", "exp", "ren1", "set", "incr"):
        w.command("SET", k, "1")
    track(t)
    assert t.command("MGET", "del", "exp", "ren1", "ren2", "set", "incr", "lpush",
                     "sadd", "missing") == [b"1", b"1", b"1", None, b"1", b"1", None, None, None]
    assert w.command("DEL", "del") == 1
    t.expect(inval("del"))
    assert w.command("EXPIRE", "exp", 100) == 1  # setting a TTL is a write
    t.expect(inval("exp"))
    assert w.command("EXPIRE", "missing", 100) == 0  # changes nothing: nothing told
    silent(t)
    assert w.command("RENAME", "ren1", "ren2") == Simple(b"OK")
    assert pushed_keys(t, 2) == [b"ren1", b"ren2"]  # both keys (ren1 first in Redis)
    assert w.command("SET", "set", "2") == Simple(b"OK")
    t.expect(inval("set"))
    assert w.command("INCR", "incr") == 2
    t.expect(inval("incr"))
    assert w.command("LPUSH", "lpush", "x") == 1
    t.expect(inval("lpush"))
    assert w.command("SADD", "sadd", "x") == 1
    t.expect(inval("sadd"))
    silent(t)


def test_a_write_that_changes_nothing_sends_nothing(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    w.command("HSET", "h", "f", "v")
    track(t)
    assert t.command("HGET", "h", "f") == b"v"
    assert w.command("HDEL", "h", "nope") == 0
    silent(t)
    assert w.command("HDEL", "h", "f") == 1
    t.expect(inval("h"))


def test_reads_inside_multi_exec_are_tracked(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    track(t)
    assert t.command("MULTI") == Simple(b"OK")
    assert t.command("GET", "a") == Simple(b"QUEUED")
    assert t.command("HGET", "h", "f") == Simple(b"QUEUED")
    assert t.command("EXEC") == [None, None]
    w.command("SET", "a", "1")
    t.expect(inval("a"))
    w.command("HSET", "h", "f", "v")
    t.expect(inval("h"))
    silent(t)


# ---- RESP2: redirect or nothing ------------------------------------------------------------------

def test_resp2_redirect_to_a_subscriber_of_the_invalidate_channel(conns):
    sub = conns.open()
    assert sub.command("SUBSCRIBE", "__redis__:invalidate") == [
        b"subscribe", b"__redis__:invalidate", 1]
    t = conns.open()
    w = conns.open()
    track(t, "REDIRECT", sub.cid)
    assert t.command("GET", "k") is None
    assert w.command("SET", "k", "1") == Simple(b"OK")
    sub.expect(message("k"))
    w.command("SET", "k", "2")
    silent(sub, t)
    assert t.command("GET", "k") == b"2"
    t.command("SET", "k", "3")  # its own write (no NOLOOP): told to the target
    sub.expect(message("k"))
    silent(t)
    assert t.command("GET", "k") == b"3"
    w.command("FLUSHALL")
    sub.expect(RESP2_NULL_INVALIDATE)
    silent(t, sub)


def test_resp2_client_tracking_without_redirect_gets_nothing(conns):
    t = conns.open()
    w = conns.open()
    track(t)
    assert t.command("GET", "k") is None
    w.command("SET", "k", "1")
    w.command("FLUSHALL")
    silent(t)
    assert t.command("PING") == Simple(b"PONG")


def test_redirect_to_a_resp3_client_or_an_unsubscribed_resp2_client(conns):
    w = conns.open()
    target3 = conns.open(resp3=True)  # not subscribed: gets the push all the same
    t = conns.open()
    track(t, "REDIRECT", target3.cid)
    t2 = conns.open()
    track(t2, "REDIRECT", target3.cid)
    t.command("GET", "k")
    t2.command("GET", "k")
    w.command("SET", "k", "1")
    assert [push(target3), push(target3)] == [[b"invalidate", [b"k"]]] * 2  # one per tracker
    silent(target3, t, t2)
    target2 = conns.open()  # RESP2, not subscribed: nothing can be sent to it
    track(t, "REDIRECT", target2.cid)
    t.command("GET", "k")
    w.command("SET", "k", "2")
    silent(target2, target3, t)
    assert target2.command("PING") == Simple(b"PONG")


# ---- a client's own writes -----------------------------------------------------------------------

def test_own_write_reply_comes_before_its_invalidation(conns):
    t = conns.open(resp3=True)
    track(t)
    assert t.command("GET", "k") is None
    t.send_command("SET", "k", "1")
    t.expect(b"+OK\r\n" + inval("k"))
    silent(t)
    assert t.command("GET", "k") == b"1"
    t.send_command("DEL", "k")
    t.expect(b":1\r\n" + inval("k"))
    assert t.command("MGET", "a", "b") == [None, None]
    assert t.command("MULTI") == Simple(b"OK")
    assert t.command("SET", "a", "1") == Simple(b"QUEUED")
    assert t.command("SET", "b", "2") == Simple(b"QUEUED")
    t.send_command("EXEC")
    t.expect(b"*2\r\n+OK\r\n+OK\r\n" + inval("a") + inval("b"))
    silent(t)


def test_own_writes_of_many_keys_each_reply_then_its_invalidation(conns):
    t = conns.open(resp3=True)
    track(t)
    keys = ["own:%d" % i for i in range(20)]
    assert t.command("MGET", *keys) == [None] * 20
    for k in keys:
        t.send_command("SET", k, "v")
        t.expect(b"+OK\r\n" + inval(k))
    silent(t)


def test_noloop_own_writes_are_not_told_but_forget_the_key(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    track(t, "NOLOOP")
    assert t.command("GET", "k") is None
    t.send_command("SET", "k", "1")
    t.expect(b"+OK\r\n")
    silent(t)
    w.command("SET", "k", "2")  # the own write forgot the key
    silent(t)
    assert t.command("GET", "k") == b"2"
    w.command("SET", "k", "3")
    t.expect(inval("k"))
    assert t.command("GET", "k") == b"3"
    t.send_command("FLUSHALL")  # a flush is told even with NOLOOP
    t.expect(b"+OK\r\n" + NULL_INVALIDATE)
    silent(t)


# ---- BCAST ---------------------------------------------------------------------------------------

def test_bcast_without_prefix_tells_every_write(conns):
    b = conns.open(resp3=True)
    w = conns.open()
    track(b, "BCAST")
    for k in ("x", "user:1", "other"):
        assert w.command("SET", k, "1") == Simple(b"OK")
        b.expect(inval(k))
    w.command("SET", "x", "2")  # told again: no read needed
    b.expect(inval("x"))
    w.command("DEL", "x")
    b.expect(inval("x"))
    w.command("GET", "x")
    silent(b)


def test_bcast_with_prefixes_tells_matching_keys_only(conns):
    b = conns.open(resp3=True)
    b2 = conns.open(resp3=True)
    w = conns.open()
    track(b, "BCAST", "PREFIX", "user:", "PREFIX", "item:")
    track(b2, "BCAST", "PREFIX", "user:1")  # overlapping another client's prefix is fine
    w.command("SET", "user:1", "1")
    b.expect(inval("user:1"))
    b2.expect(inval("user:1"))
    w.command("SET", "user:2", "1")
    b.expect(inval("user:2"))
    w.command("INCR", "item:9")
    b.expect(inval("item:9"))
    silent(b2)
    for k in ("other", "use", "user", "Item:1", "xuser:1"):
        w.command("SET", k, "1")
    silent(b, b2)


def test_bcast_noloop_and_redirect(conns):
    sub = conns.open()
    sub.command("SUBSCRIBE", "__redis__:invalidate")
    b = conns.open(resp3=True)
    w = conns.open()
    track(b, "BCAST", "NOLOOP", "PREFIX", "p:")
    b.send_command("SET", "p:1", "1")
    b.expect(b"+OK\r\n")
    silent(b)
    w.command("SET", "p:1", "2")
    b.expect(inval("p:1"))
    r2 = conns.open()
    track(r2, "BCAST", "PREFIX", "q", "REDIRECT", sub.cid)
    w.command("SET", "q1", "1")
    sub.expect(message("q1"))
    w.command("FLUSHDB")
    sub.expect(RESP2_NULL_INVALIDATE)
    b.expect(NULL_INVALIDATE)
    silent(sub, b, r2)


# ---- OPTIN / OPTOUT ------------------------------------------------------------------------------

def test_optin_tracks_only_the_command_after_caching_yes(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    track(t, "OPTIN")
    assert t.command("GET", "a") is None
    assert t.command("CLIENT", "CACHING", "YES") == Simple(b"OK")
    assert t.command("GET", "b") is None
    assert t.command("GET", "c") is None
    assert t.command("CLIENT", "CACHING", "yes") == Simple(b"OK")
    assert t.command("PING") == Simple(b"PONG")  # uses it up
    assert t.command("GET", "d") is None
    for k in ("a", "b", "c", "d"):
        w.command("SET", k, "1")
    t.expect(inval("b"))
    silent(t)


def test_optout_tracks_all_but_the_command_after_caching_no(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    track(t, "OPTOUT")
    assert t.command("GET", "a") is None
    assert t.command("CLIENT", "CACHING", "NO") == Simple(b"OK")
    assert t.command("GET", "b") is None
    assert t.command("GET", "c") is None
    for k in ("a", "b", "c"):
        w.command("SET", k, "1")
    assert pushed_keys(t, 2) == [b"a", b"c"]
    silent(t)


def test_caching_with_multi_exec_covers_the_whole_transaction(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    track(t, "OPTIN")
    assert t.command("CLIENT", "CACHING", "YES") == Simple(b"OK")
    t.command("MULTI")
    t.command("GET", "a")
    t.command("GET", "b")
    assert t.command("EXEC") == [None, None]
    t.command("MULTI")
    assert t.command("CLIENT", "CACHING", "YES") == Simple(b"QUEUED")
    t.command("GET", "c")
    t.command("GET", "d")
    assert t.command("EXEC") == [Simple(b"OK"), None, None]
    t.command("GET", "e")  # not tracked: CACHING was used up by the transaction
    for k in ("a", "b", "c", "d", "e"):
        w.command("SET", k, "1")
        if k != "e":
            t.expect(inval(k))
    silent(t)

    t.command("CLIENT", "TRACKING", "OFF")
    track(t, "OPTOUT")
    t.command("MULTI")
    t.command("CLIENT", "CACHING", "NO")
    t.command("GET", "a")
    t.command("GET", "b")
    assert t.command("EXEC") == [Simple(b"OK"), b"1", b"1"]
    t.command("GET", "c")
    for k in ("a", "b", "c"):
        w.command("SET", k, "2")
    t.expect(inval("c"))
    silent(t)


# ---- FLUSHALL / FLUSHDB --------------------------------------------------------------------------

def test_flushall_and_flushdb_tell_every_tracking_client_with_a_null(conns):
    t = conns.open(resp3=True)
    idle = conns.open(resp3=True)  # tracking, read nothing: told all the same
    b = conns.open(resp3=True)
    w = conns.open()
    track(t)
    track(idle)
    track(b, "BCAST", "PREFIX", "zz")
    t.command("GET", "k")
    w.command("SET", "k", "1")
    t.expect(inval("k"))
    for flush in ("FLUSHALL", "FLUSHDB"):
        assert w.command(flush) == Simple(b"OK")
        for c in (t, idle, b):
            c.expect(NULL_INVALIDATE)
    silent(t, idle, b)
    t.send_command("FLUSHDB")  # its own flush: reply, then the push
    t.expect(b"+OK\r\n" + NULL_INVALIDATE)
    idle.expect(NULL_INVALIDATE)
    b.expect(NULL_INVALIDATE)
    silent(t, idle, b)


def test_flushall_forgets_every_key_read(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    track(t)
    t.command("MGET", "a", "b")
    w.command("FLUSHALL")
    t.expect(NULL_INVALIDATE)
    w.command("SET", "a", "1")
    silent(t)


# ---- clients and keys on different workers -------------------------------------------------------

def test_many_keys_read_and_written_over_many_connections(conns):
    keys = ["mw:%d" % i for i in range(20)]
    a = conns.open(resp3=True)
    m = conns.open(resp3=True)
    sub = conns.open()
    sub.command("SUBSCRIBE", "__redis__:invalidate")
    g2 = conns.open()
    m2 = conns.open()
    writers = [conns.open() for _ in range(3)]
    track(a)
    track(m)
    track(g2, "REDIRECT", sub.cid)
    track(m2, "REDIRECT", sub.cid)
    for k in keys:
        assert a.command("GET", k) is None
        assert g2.command("GET", k) is None
    assert m.command("MGET", *keys) == [None] * 20
    assert m2.command("MGET", *keys) == [None] * 20
    for i, k in enumerate(keys):
        assert writers[i % 3].command("SET", k, i) == Simple(b"OK")
    want = sorted(k.encode() for k in keys)
    assert pushed_keys(a, 20) == want
    assert pushed_keys(m, 20) == want
    got = []
    for _ in range(40):
        msg = sub.read_reply()
        assert msg[:2] == [b"message", b"__redis__:invalidate"] and len(msg[2]) == 1, msg
        got.append(msg[2][0])
    assert sorted(got) == sorted(want * 2)
    for i, k in enumerate(keys):  # not read again: nothing more
        writers[(i + 1) % 3].command("INCR", k)
    silent(a, m, sub, g2, m2)


def test_bcast_hears_writes_from_every_connection(conns):
    b = conns.open(resp3=True)
    track(b, "BCAST", "PREFIX", "bc:")
    writers = [conns.open() for _ in range(3)]
    for i in range(20):
        k = "bc:%d" % i
        writers[i % 3].command("SET", k, i)
        b.expect(inval(k))
        writers[(i + 1) % 3].command("SET", "nb:%d" % i, i)
    silent(b)


# ---- broken redirect -----------------------------------------------------------------------------

def gone(r, conn):
    conn.close()
    assert wait_until(lambda: conn.cid not in client_lines(r))


def test_redirect_client_gone_resp3_tracker_is_told_per_invalidation(r, conns):
    target = conns.open()
    t = conns.open(resp3=True)
    w = conns.open()
    track(t, "REDIRECT", target.cid)
    assert t.command("MGET", "k1", "k2") == [None, None]
    gone(r, target)
    broken = b">2\r\n$21\r\ntracking-redir-broken\r\n:%d\r\n" % target.cid
    w.command("SET", "k1", "1")
    t.expect(broken)
    silent(t)
    assert t.command("CLIENT", "TRACKINGINFO") == {
        b"flags": {b"on", b"broken_redirect"}, b"redirect": target.cid, b"prefixes": []}
    assert t.command("CLIENT", "GETREDIR") == target.cid
    w.command("SET", "k1", "2")  # k1 was forgotten
    silent(t)
    w.command("SET", "k2", "1")
    t.expect(broken)
    silent(t)
    line = client_lines(r)[t.cid]
    assert (line[b"flags"], line[b"redir"]) == (b"tR", str(target.cid).encode())


def test_redirect_client_gone_resp2_tracker_gets_nothing(r, conns):
    target = conns.open()
    t = conns.open()
    w = conns.open()
    track(t, "REDIRECT", target.cid, "OPTIN", "NOLOOP")
    t.command("CLIENT", "CACHING", "YES")
    t.command("GET", "k")
    gone(r, target)
    w.command("SET", "k", "1")
    silent(t)
    assert t.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on", b"optin", b"noloop", b"broken_redirect"], b"redirect", target.cid,
        b"prefixes", []]
    track(t, "REDIRECT", w.cid)  # a new redirect clears it
    assert t.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on"], b"redirect", w.cid, b"prefixes", []]


def test_client_list_flags_and_redir(r, conns):
    plain = conns.open()
    target = conns.open()
    t = conns.open(resp3=True)
    b = conns.open()
    optin = conns.open()
    track(t, "REDIRECT", target.cid)
    track(b, "BCAST")
    track(optin, "OPTIN")
    lines = client_lines(r)

    def flags(c):
        return lines[c.cid][b"flags"], lines[c.cid][b"redir"]

    assert flags(plain) == (b"N", b"-1")
    assert flags(t) == (b"t", str(target.cid).encode())
    assert flags(b) == (b"tB", b"0")
    assert flags(optin) == (b"t", b"0")


# ---- errors --------------------------------------------------------------------------------------

def test_tracking_option_errors(conns):
    c = conns.open()
    other = conns.open()
    missing = other.cid + 100000
    assert c.command("CLIENT", "TRACKING", "ON", "REDIRECT", missing) == e(BROKEN_REDIRECT)
    assert c.command("CLIENT", "TRACKING", "ON", "REDIRECT", 0) == e(BROKEN_REDIRECT)
    assert c.command("CLIENT", "TRACKING", "ON", "REDIRECT", "abc") == e(
        "ERR value is not an integer or out of range")
    assert c.command("CLIENT", "TRACKING", "ON", "REDIRECT", other.cid, "REDIRECT",
                     other.cid) == e("ERR A client can only redirect to a single other client")
    assert c.command("CLIENT", "TRACKING", "ON", "PREFIX", "a") == e(
        "ERR PREFIX option requires BCAST mode to be enabled")
    assert c.command("CLIENT", "TRACKING", "ON", "OPTIN", "OPTOUT") == e(
        "ERR You can't specify both OPTIN mode and OPTOUT mode")
    for opt in ("OPTIN", "OPTOUT"):
        assert c.command("CLIENT", "TRACKING", "ON", opt, "BCAST") == e(
            "ERR OPTIN and OPTOUT are not compatible with BCAST")
    assert c.command("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "ab", "PREFIX", "a") == e(
        "ERR Prefix 'ab' overlaps with another provided prefix 'a'. "
        "Prefixes for a single client must not overlap.")
    assert c.command("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a", "PREFIX", "a") == e(
        "ERR Prefix 'a' overlaps with another provided prefix 'a'. "
        "Prefixes for a single client must not overlap.")
    assert c.command("CLIENT", "TRACKINGINFO") == OFF_INFO  # nothing of it was applied
    assert c.command("CLIENT", "TRACKING", "maybe") == e("ERR syntax error")
    assert c.command("CLIENT", "TRACKING", "ON", "bogus") == e("ERR syntax error")
    assert c.command("CLIENT", "TRACKING", "ON", "REDIRECT") == e("ERR syntax error")
    assert c.command("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX") == e("ERR syntax error")
    assert c.command("CLIENT", "TRACKING", "OFF", "bogus") == e("ERR syntax error")
    assert c.command("CLIENT", "TRACKINGINFO") == OFF_INFO


def test_errors_changing_mode_while_tracking(conns):
    c = conns.open()
    track(c, "BCAST", "PREFIX", "a", "PREFIX", "b")
    assert c.command("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "abc") == e(
        "ERR Prefix 'abc' overlaps with an existing prefix 'a'. "
        "Prefixes for a single client must not overlap.")
    assert c.command("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "") == e(
        "ERR Prefix '' overlaps with an existing prefix 'a'. "
        "Prefixes for a single client must not overlap.")
    assert c.command("CLIENT", "TRACKING", "ON") == e(SWITCH_BCAST)
    assert c.command("CLIENT", "TRACKINGINFO") == [
        b"flags", [b"on", b"bcast"], b"redirect", 0, b"prefixes", [b"a", b"b"]]
    c.command("CLIENT", "TRACKING", "OFF")
    track(c)
    assert c.command("CLIENT", "TRACKING", "ON", "BCAST") == e(SWITCH_BCAST)
    c.command("CLIENT", "TRACKING", "OFF")
    track(c, "OPTIN")
    assert c.command("CLIENT", "TRACKING", "ON", "OPTOUT") == e(SWITCH_OPT)
    c.command("CLIENT", "TRACKING", "OFF")
    track(c, "OPTOUT")
    assert c.command("CLIENT", "TRACKING", "ON", "OPTIN") == e(SWITCH_OPT)
    assert c.command("CLIENT", "TRACKINGINFO")[1] == [b"on", b"optout"]


def test_caching_errors(conns):
    c = conns.open()
    assert c.command("CLIENT", "CACHING", "YES") == e(CACHING_NOT_TRACKING)
    assert c.command("CLIENT", "CACHING", "maybe") == e(CACHING_NOT_TRACKING)
    track(c)
    assert c.command("CLIENT", "CACHING", "YES") == e(CACHING_YES)
    assert c.command("CLIENT", "CACHING", "NO") == e(CACHING_NO)
    assert c.command("CLIENT", "CACHING", "maybe") == e("ERR syntax error")
    c.command("CLIENT", "TRACKING", "OFF")
    track(c, "OPTIN")
    assert c.command("CLIENT", "CACHING", "NO") == e(CACHING_NO)
    assert c.command("CLIENT", "CACHING", "maybe") == e("ERR syntax error")
    c.command("CLIENT", "TRACKING", "OFF")
    track(c, "OPTOUT")
    assert c.command("CLIENT", "CACHING", "YES") == e(CACHING_YES)
    c.command("CLIENT", "TRACKING", "OFF")
    track(c, "BCAST")
    assert c.command("CLIENT", "CACHING", "YES") == e(CACHING_YES)
    assert c.command("CLIENT", "CACHING", "NO") == e(CACHING_NO)


def test_wrong_number_of_arguments(conns):
    c = conns.open()

    def arity(sub):
        return e("ERR wrong number of arguments for 'client|%s' command" % sub)

    assert c.command("CLIENT", "TRACKING") == arity("tracking")
    assert c.command("CLIENT", "CACHING") == arity("caching")
    assert c.command("CLIENT", "CACHING", "YES", "x") == arity("caching")
    assert c.command("CLIENT", "GETREDIR", "x") == arity("getredir")
    assert c.command("CLIENT", "TRACKINGINFO", "x") == arity("trackinginfo")


# ---- INFO ----------------------------------------------------------------------------------------

def test_info_tracking_fields(r, conns):
    expect_stats(r, 0, 0, 0, 0)
    t = conns.open(resp3=True)
    u = conns.open(resp3=True)
    w = conns.open()
    track(t)
    expect_stats(r, 1, 0, 0, 0)
    for k in ("x1", "x2", "x3"):
        t.command("GET", k)
    expect_stats(r, 1, 3, 3, 0)
    track(u)
    u.command("MGET", "x1", "x2")
    expect_stats(r, 2, 3, 5, 0)
    w.command("SET", "x1", "1")
    t.expect(inval("x1"))
    u.expect(inval("x1"))
    expect_stats(r, 2, 2, 3, 0)
    w.command("FLUSHALL")
    t.expect(NULL_INVALIDATE)
    u.expect(NULL_INVALIDATE)
    expect_stats(r, 2, 0, 0, 0)
    b1 = conns.open()
    b2 = conns.open()
    track(b1, "BCAST", "PREFIX", "user:", "PREFIX", "item:")
    track(b2, "BCAST", "PREFIX", "user:")
    expect_stats(r, 4, 0, 0, 2)
    assert b1.command("RESET") == Simple(b"RESET")
    expect_stats(r, 3, 0, 0, 1)
    b2.command("CLIENT", "TRACKING", "OFF")
    expect_stats(r, 2, 0, 0, 0)
    t.close()
    expect_stats(r, 1, 0, 0, 0)


def test_reset_turns_tracking_off(conns):
    t = conns.open(resp3=True)
    w = conns.open()
    track(t, "OPTOUT", "NOLOOP")
    t.command("GET", "k")
    assert t.command("RESET") == Simple(b"RESET")
    assert t.command("CLIENT", "TRACKINGINFO") == OFF_INFO  # RESET is back to RESP2 too
    assert t.command("CLIENT", "GETREDIR") == -1
    assert t.command("HELLO", "3")[b"proto"] == 3
    w.command("SET", "k", "1")
    w.command("FLUSHALL")
    silent(t)
    track(t, "BCAST")
    t.command("RESET")
    t.command("HELLO", "3")
    w.command("SET", "k", "2")
    silent(t)


# ---- expiry and scripts --------------------------------------------------------------------------

def test_a_key_that_expires_is_invalidated(conns):
    """The expiry deletes the key: its readers hear of it without anyone writing."""
    t = conns.open(resp3=True)
    w = conns.open()
    # Long enough for TRACKING and GET to come first on a loaded ASan run (50 ms was not).
    w.command("SET", "short", "v", "PX", 500)
    track(t)
    assert t.command("GET", "short") == b"v"
    got = b""

    def told():
        nonlocal got
        got += t.read_available(0.1)
        return got == inval("short")

    assert wait_until(told, timeout=5.0), got


def test_reads_inside_scripts_are_remembered(conns):
    """The commands a script runs are tracked for its caller (EVAL_RO's declared keys are not,
    only what it reads)."""
    t = conns.open(resp3=True)
    w = conns.open()
    track(t)
    body = "return redis.call('GET', KEYS[1])"
    assert t.command("EVAL", body, 1, "s1") is None
    assert t.command("EVAL_RO", "return 1", 1, "s2") == 1
    w.command("SET", "s1", "x")
    t.expect(inval("s1"))
    w.command("SET", "s2", "x")
    silent(t)
