"""Replication of compressed values (slotkv only): a master ships its values as it logs them
(strings raw, compressed by each server when it persists them; pages of collections compressed)
and, in a full sync, as it stores them, compressed with the zstd dictionaries it trained per key
group; it sends each dictionary (DICT frame) before the first value that needs it; the replica keeps a copy under an id of its own
and renames the values it applies to it. Cases: values streamed after a dictionary was trained
read back on the replica; a full sync to a replica that trained dictionaries of its own (the
ids differ), the copies surviving its restart (kill -9); a promoted replica's own writes use the
adopted dictionary and its replica syncs them in full.

A group trains its first dictionary after 1000 values (slot/dictionaries.h), so each case writes
a few thousand ~300-byte values per group. About 10 s.
"""

import json

import pytest

from conftest import string_dump, wait_until
from repl_util import SYNC_TIMEOUT, assert_same_strings, cmd, info, link, role, wait_linked

pytestmark = pytest.mark.slotkv_only


def value(group, i):
    """A JSON-like value, alike across i as real values of one key group are."""
    return json.dumps({"id": i, "group": group, "name": "%s-%d" % (group, i * 7919 % 10007),
                       "email": "%s%d@example.com" % (group, i), "plan": "pro" if i % 3 else "free",
                       "settings": {"theme": "dark", "lang": "en", "notifications": i % 2 == 0},
                       "created_at": "2026-11-%02dT12:00:00Z" % (1 + i % 28)})


def write(server, group, start, stop):
    c = server.client()
    for i in range(start, stop, 500):
        c.execute_command("MSET", *[v for k in range(i, min(stop, i + 500))
                                    for v in ("%s:%d" % (group, k), value(group, k))])
    c.connection_pool.disconnect()


def dictionaries(server):
    return int(info(server, "persistence")["slotkv_dictionaries"])


def train(server, group, start=0, stop=3000):
    """Writes group's values until the server trained a dictionary for them."""
    before = dictionaries(server)
    write(server, group, start, stop)
    assert wait_until(lambda: dictionaries(server) > before, timeout=SYNC_TIMEOUT), (
        info(server, "persistence"))


def compressed_values(server):
    return int(info(server, "persistence")["slotkv_compressed_values"])


def check_values(server, groups):
    """Every key of the groups (group -> count) reads back as written."""
    data = string_dump(server)
    for group, n in groups.items():
        for i in range(n):
            key = ("%s:%d" % (group, i)).encode()
            assert data.get(key) == value(group, i).encode(), (server.port, key, data.get(key))


def test_streamed_values_of_trained_dictionaries_read_back_on_replicas(servers):
    master, rep = servers(), servers()
    link(rep, master)
    train(master, "user")
    write(master, "user", 3000, 5000)  # compressed with the trained dictionary
    train(master, "order")
    write(master, "order", 3000, 4000)
    assert_same_strings(master, rep)
    check_values(rep, {"user": 5000, "order": 4000})
    # A dictionary goes out with the first frame after it was trained, needed or not.
    assert dictionaries(rep) == dictionaries(master)


def test_full_sync_to_a_replica_with_dictionaries_of_its_own(servers):
    master, rep = servers(), servers()
    # The replica trained a dictionary first: the master's get other ids there.
    train(rep, "cart")
    train(master, "user")
    write(master, "user", 3000, 5000)
    cmd(master, "SAVE", socket_timeout=120)  # persisted, compressed (a sync per group flush)
    link(rep, master)  # a full sync: values go as the master stores them
    assert_same_strings(master, rep)
    check_values(rep, {"user": 5000})
    assert dictionaries(rep) == dictionaries(master) + 1
    # The copies are on the replica's disk: after kill -9 every value still reads.
    rep.kill()
    rep.start()
    wait_linked(rep, master)
    check_values(rep, {"user": 5000})
    train(master, "order")  # a new dictionary while streaming, after the restart
    write(master, "order", 3000, 4000)
    assert_same_strings(master, rep)
    check_values(rep, {"user": 5000, "order": 4000})
    assert dictionaries(rep) == dictionaries(master) + 1


def test_promoted_replica_compresses_with_adopted_dictionaries_and_syncs_its_replica(servers):
    master, rep, other = servers(), servers(), servers()
    train(other, "cart")  # the next replica's ids differ too
    train(master, "user")
    link(rep, master)
    assert_same_strings(master, rep)
    assert cmd(rep, "REPLICAOF", "NO", "ONE") == b"OK"
    assert role(rep)[0] == b"master"
    before = compressed_values(rep)
    write(rep, "user", 3000, 4000)  # the adopted dictionary compresses them: no training
    cmd(rep, "SAVE", socket_timeout=120)
    assert compressed_values(rep) >= before + 1000
    assert dictionaries(rep) == dictionaries(master)
    link(other, rep)
    assert_same_strings(rep, other)
    check_values(other, {"user": 4000})
