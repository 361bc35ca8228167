"""Pub/Sub: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE SSUBSCRIBE SUNSUBSCRIBE PUBLISH SPUBLISH
PUBSUB, RESP2 subscribed mode and RESP3 pushes, redis-py's pubsub(), delivery across workers in
publish order, CLIENT KILL TYPE pubsub, and a slow subscriber cut off by
client-output-buffer-limit."""

import os
import socket
import threading
import time

import pytest
import redis

from conftest import RawConn, Error, Push, Simple, arity, err, is_redis, wait_until

NOT_ALLOWED = ("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
               "RESET are allowed in this context")


def test_subscribe_confirms_each_channel_with_the_running_count(server, r):
    with RawConn(server.port) as c:
        c.send_command("SUBSCRIBE", "a", "b")
        assert [c.read_reply(), c.read_reply()] == [[b"subscribe", b"a", 1],
                                                     [b"subscribe", b"b", 2]]
        assert c.command("PSUBSCRIBE", "x*") == [b"psubscribe", b"x*", 3]
        assert c.command("SSUBSCRIBE", "s1") == [b"ssubscribe", b"s1", 1]  # shard: own count
        c.send_command("UNSUBSCRIBE")
        got = sorted([c.read_reply(), c.read_reply()], key=lambda x: x[1])
        assert [g[:2] for g in got] == [[b"unsubscribe", b"a"], [b"unsubscribe", b"b"]]
        assert sorted(g[2] for g in got) == [1, 2]
        assert c.command("PUNSUBSCRIBE") == [b"punsubscribe", b"x*", 0]
        assert c.command("SUNSUBSCRIBE") == [b"sunsubscribe", b"s1", 0]
        assert c.command("UNSUBSCRIBE") == [b"unsubscribe", None, 0]
        assert c.command("GET", "k") is None  # out of subscribed mode


def test_resp2_subscribed_mode_allows_only_its_commands(server, r):
    with RawConn(server.port) as c:
        c.command("SUBSCRIBE", "a")
        assert c.command("PING") == [b"pong", b""]
        assert c.command("PING", "hi") == [b"pong", b"hi"]
        assert c.command("GET", "k") == Error((NOT_ALLOWED % "get").encode())
        assert c.command("CLIENT", "LIST") == Error((NOT_ALLOWED % "client|list").encode())
        assert c.command("MULTI") == Error((NOT_ALLOWED % "multi").encode())
        assert c.command("RESET") == Simple(b"RESET")
        assert c.command("GET", "k") is None


def test_resp3_subscribers_get_pushes_and_run_any_command(server, r):
    with RawConn(server.port) as c:
        c.command("HELLO", "3")
        reply = c.command("SUBSCRIBE", "a")
        assert isinstance(reply, Push) and reply == [b"subscribe", b"a", 1]
        assert c.command("GET", "k") is None
        assert c.command("PING") == Simple(b"PONG")
        assert r.execute_command("PUBLISH", "a", "m") == 1
        msg = c.read_reply()
        assert isinstance(msg, Push) and msg == [b"message", b"a", b"m"]
        assert c.command("UNSUBSCRIBE", "a") == [b"unsubscribe", b"a", 0]


def test_errors_and_arity(server, r):
    assert err(r, "SUBSCRIBE") == arity("subscribe")
    assert err(r, "PSUBSCRIBE") == arity("psubscribe")
    assert err(r, "SSUBSCRIBE") == arity("ssubscribe")
    assert err(r, "PUBLISH", "a") == arity("publish")
    assert err(r, "PUBSUB") == arity("pubsub")
    assert err(r, "PUBSUB", "NOPE") == "ERR unknown subcommand 'NOPE'. Try PUBSUB HELP."
    assert err(r, "PUBSUB", "CHANNELS", "a", "b") == (
        "ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.")
    assert err(r, "PUBSUB", "NUMPAT", "x") == arity("pubsub|numpat")
    assert r.execute_command("PUBSUB", "HELP")[0] == (
        b"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")


def test_publish_counts_receivers_on_every_worker(server, r):
    conns = [RawConn(server.port) for _ in range(6)]  # connections go to workers in turn
    try:
        for i, c in enumerate(conns):
            c.command("SUBSCRIBE", "news")
            if i % 2 == 0:
                c.command("PSUBSCRIBE", "n*")  # receives twice
        assert r.execute_command("PUBLISH", "news", "hello") == 9
        for i, c in enumerate(conns):
            assert c.read_reply() == [b"message", b"news", b"hello"]
            if i % 2 == 0:
                assert c.read_reply() == [b"pmessage", b"n*", b"news", b"hello"]
        assert r.execute_command("PUBSUB", "NUMSUB", "news", "none") == [b"news", 6, b"none", 0]
        assert r.execute_command("PUBSUB", "NUMPAT") == 1
        assert r.execute_command("PUBSUB", "CHANNELS") == [b"news"]
        assert r.execute_command("PUBSUB", "CHANNELS", "x*") == []
        assert r.execute_command("PUBLISH", "other", "x") == 0
    finally:
        for c in conns:
            c.close()
    assert wait_until(lambda: r.execute_command("PUBSUB", "NUMSUB", "news") == [b"news", 0])
    assert r.execute_command("PUBSUB", "NUMPAT") == 0


def test_shard_channels(server, r):
    with RawConn(server.port) as c:
        c.command("SSUBSCRIBE", "{s}1")
        c.command("SUBSCRIBE", "{s}1")
        assert r.execute_command("SPUBLISH", "{s}1", "m") == 1
        assert c.read_reply() == [b"smessage", b"{s}1", b"m"]
        assert r.execute_command("PUBSUB", "SHARDCHANNELS") == [b"{s}1"]
        assert r.execute_command("PUBSUB", "SHARDNUMSUB", "{s}1") == [b"{s}1", 1]


def test_hundred_subscribers_get_every_message_in_publish_order(server, r):
    subs = [RawConn(server.port, timeout=10) for _ in range(100)]
    try:
        for c in subs:
            assert c.command("SUBSCRIBE", "feed") == [b"subscribe", b"feed", 1]
        publishers = [server.client() for _ in range(2)]
        n = 200

        def publish(p, tag):
            for i in range(n):
                assert p.execute_command("PUBLISH", "feed", "%s:%d" % (tag, i)) == 100

        threads = [threading.Thread(target=publish, args=(p, t))
                   for p, t in zip(publishers, ["a", "b"])]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        for c in subs:
            got = {"a": [], "b": []}
            for _ in range(2 * n):
                kind, channel, payload = c.read_reply()
                tag, i = payload.decode().split(":")
                got[tag].append(int(i))
            assert got == {"a": list(range(n)), "b": list(range(n))}  # each publisher's order
    finally:
        for c in subs:
            c.close()


def test_redis_py_pubsub(server, r):
    c = server.client(parsed=True, decode=True)
    p = c.pubsub()
    p.subscribe("ch")
    p.psubscribe("pat*")
    assert wait_until(lambda: c.pubsub_numsub("ch") == [("ch", 1)])
    assert p.get_message(timeout=2)["type"] == "subscribe"
    assert p.get_message(timeout=2)["type"] == "psubscribe"
    c.publish("ch", "one")
    c.publish("pattern", "two")
    m1 = p.get_message(timeout=2)
    m2 = p.get_message(timeout=2)
    assert (m1["type"], m1["channel"], m1["data"]) == ("message", "ch", "one")
    assert (m2["type"], m2["pattern"], m2["channel"], m2["data"]) == (
        "pmessage", "pat*", "pattern", "two")
    received = []
    p2 = c.pubsub()
    p2.subscribe(**{"cb": lambda m: received.append(m["data"])})
    worker = p2.run_in_thread(sleep_time=0.01)
    try:
        assert wait_until(lambda: c.pubsub_numsub("cb") == [("cb", 1)])
        for i in range(5):
            c.publish("cb", str(i))
        assert wait_until(lambda: received == ["0", "1", "2", "3", "4"], timeout=5)
    finally:
        worker.stop()
        worker.join(5)
    p.close()
    p2.close()


def test_client_kill_type_pubsub_and_client_list(server, r):
    sub = RawConn(server.port)
    sub.command("CLIENT", "SETNAME", "sub1")
    sub.command("SUBSCRIBE", "x", "y")
    sub.command("PSUBSCRIBE", "z*")
    normal = RawConn(server.port)
    normal.command("CLIENT", "SETNAME", "plain")
    try:
        listed = r.execute_command("CLIENT", "LIST", "TYPE", "pubsub")
        assert b"name=sub1" in listed and b"name=plain" not in listed
        line = [l for l in r.execute_command("CLIENT", "LIST").split(b"\n") if b"sub1" in l][0]
        assert b" flags=P " in line and b" sub=2 psub=1 ssub=0 " in line
        assert r.execute_command("CLIENT", "KILL", "TYPE", "pubsub") == 1
        assert sub.is_closed()
        assert b"name=plain" in r.execute_command("CLIENT", "LIST", "TYPE", "normal")
        assert err(r, "CLIENT", "KILL", "TYPE", "bogus") == "ERR Unknown client type 'bogus'"
    finally:
        sub.close()
        normal.close()


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_slow_subscriber_is_disconnected_and_memory_stays_bounded(server, r):
    r.execute_command("CONFIG", "SET", "client-output-buffer-limit", "pubsub 4mb 2mb 60")
    slow = RawConn(server.port)
    slow.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.command("CLIENT", "SETNAME", "slow")
    slow.command("SUBSCRIBE", "big")  # and never reads again
    try:
        before = rss_kb(server.proc.pid)
        payload = b"x" * 100000
        for _ in range(15):  # 150 MB published, far past the 4 MB hard limit
            p = r.pipeline(transaction=False)
            for _ in range(100):
                p.execute_command("PUBLISH", "big", payload)
            p.execute()
        assert wait_until(lambda: b"name=slow" not in r.execute_command("CLIENT", "LIST"),
                          timeout=10)
        growth_mb = (rss_kb(server.proc.pid) - before) / 1024
        print("RSS growth while publishing 150 MB to a stuck subscriber: %.1f MB" % growth_mb)
        if os.environ.get("SLOTKV_TEST_SANITIZED") != "1":  # ASan keeps freed memory a while
            assert growth_mb < 64
    finally:
        slow.close()
        r.execute_command("CONFIG", "SET", "client-output-buffer-limit",
                          "pubsub 33554432 8388608 60")


def test_subscribe_inside_multi_and_publish_in_exec(server, r):
    with RawConn(server.port) as c:
        c.command("MULTI")
        c.command("PUBLISH", "t", "m")
        c.command("PUBSUB", "NUMSUB", "t")
        assert c.command("EXEC") == [0, [b"t", 0]]
