"""Connection placement (net/connection.h, "Placement"): a client whose requests each have one key,
all in slots of the other worker, moves to that worker when quiet, with its state (id, name,
database) and without losing or reordering a reply; a client whose keys spread stays; a client
watching keys does not move. The suite's servers run 2 workers, and connections are handed to
them in turn, so of two clients connected one after the other exactly one is not on the owner
of a given key."""
import random

import pytest

from conftest import info_stat

pytestmark = pytest.mark.slotkv_only


def moves(r):
    return info_stat(r, "slotkv_client_moves")


def two_clients(server, **kwargs):
    """Two clients connected one after the other: on different workers."""
    a = server.client(decode=True, **kwargs)
    a.ping()
    b = server.client(decode=True, **kwargs)
    b.ping()
    return a, b


def test_client_on_one_key_moves_to_its_owner_keeping_its_state(server, r):
    before = moves(r)
    a, b = two_clients(server, db=3, client_name="mover")
    ids = [a.client_id(), b.client_id()]
    replies = []
    for _ in range(100):
        replies.append(a.incr("counter"))
        replies.append(b.incr("counter"))
    assert replies == list(range(1, 201))
    assert moves(r) - before == 1
    # Still the same connections, with their name and database.
    assert [a.client_id(), b.client_id()] == ids
    assert a.client_getname() == "mover" and b.client_getname() == "mover"
    assert a.get("counter") == "200" and b.get("counter") == "200"
    assert r.exists("counter") == 0  # db 0
    listed = {int(line.split(" ")[0].split("=")[1]): line
              for line in r.execute_command("CLIENT", "LIST").decode().splitlines()}
    for i in ids:
        assert " name=mover " in listed[i] and " db=3 " in listed[i]


def test_client_spreading_its_keys_stays(server, r):
    before = moves(r)
    a = server.client(decode=True)
    rng = random.Random(7)
    for i in range(2000):
        assert a.set("spread:%d" % rng.randrange(1 << 30), i) == "OK"
    assert moves(r) == before


def test_pipelined_client_moves_between_pipelines_without_losing_replies(server, r):
    before = moves(r)
    a, b = two_clients(server)
    pushed = {"a": [], "b": []}
    for round_ in range(20):
        for name, c in (("a", a), ("b", b)):
            p = c.pipeline(transaction=False)
            values = ["%s:%d:%d" % (name, round_, i) for i in range(50)]
            for v in values:
                p.rpush("plist", v)
            replies = p.execute()
            assert all(x < y for x, y in zip(replies, replies[1:]))
            assert replies[-1] - replies[0] == 49
            pushed[name] += values
    assert moves(r) - before == 1
    got = a.lrange("plist", 0, -1)
    assert len(got) == 2000
    # Each client's pushes landed in the order it sent them.
    assert [v for v in got if v.startswith("a:")] == pushed["a"]
    assert [v for v in got if v.startswith("b:")] == pushed["b"]


def test_watching_client_stays_until_it_unwatches(server, r):
    before = moves(r)
    a, b = two_clients(server)
    a.set("wkey", "v")
    for c in (a, b):
        c.execute_command("WATCH", "watched")
    for _ in range(100):
        assert a.get("wkey") == "v" and b.get("wkey") == "v"
    assert moves(r) == before
    for c in (a, b):
        c.execute_command("UNWATCH")
    for _ in range(5):
        assert a.get("wkey") == "v" and b.get("wkey") == "v"
    assert moves(r) - before == 1
    # A transaction after the move runs as before it.
    p = b.pipeline(transaction=True)
    p.incr("wcount")
    p.get("wkey")
    assert p.execute() == [1, "v"]


def test_moved_client_can_be_killed_and_blocked(server, r):
    before = moves(r)
    a, b = two_clients(server)
    for _ in range(50):
        a.rpush("bq", "x")
        b.lpop("bq")
    assert moves(r) - before == 1
    # Blocking on the key it moved for, woken by the other client.
    a.rpush("bq", "woken")
    assert b.blpop("bq", timeout=5) == ["bq", "woken"]
    assert a.blpop("bq", timeout=0.1) is None
    ids = [a.client_id(), b.client_id()]
    for i in ids:
        assert r.execute_command("CLIENT", "KILL", "ID", i) == 1
    listed = r.execute_command("CLIENT", "LIST").decode()
    for i in ids:
        assert "id=%d " % i not in listed
