"""CLIENT PAUSE / UNPAUSE as Redis 7.0: WRITE holds writes and the commands that may reach
replicas (PUBLISH, EVAL, WAIT, EXEC of a transaction with a write) until the pause ends, reads
go on; ALL holds everything; a held command holds the client's later ones; UNPAUSE releases
at once; errors. FAILOVER (test_replication_failover_pause) pauses writes the same way. Also
runs against redis-server. About 5 s.
"""

import threading
import time

import pytest

from conftest import err, wait_until


class Timed(threading.Thread):
    """Runs one command on a new connection; `reply` and `took` once done."""

    def __init__(self, server, *args, start=True):
        super().__init__(daemon=True)
        self.client = server.client(socket_timeout=10)
        self.client.execute_command("PING")  # connected (a pause of ALL would hold this)
        self.args, self.reply, self.took = args, None, None
        if start:
            self.start()

    def run(self):
        start = time.monotonic()
        try:
            self.reply = self.client.execute_command(*self.args)
        except Exception as e:  # noqa: BLE001 - the reply is what the test looks at
            self.reply = e
        self.took = time.monotonic() - start
        self.client.connection_pool.disconnect()

    def finished(self, timeout=5.0):
        self.join(timeout)
        return not self.is_alive()


@pytest.fixture
def unpaused(server, r):
    yield r
    server.client().execute_command("CLIENT", "UNPAUSE")


def test_pause_write_holds_writes_until_it_ends(server, unpaused):
    r = unpaused
    r.execute_command("SET", "k", "before")
    assert r.execute_command("CLIENT", "PAUSE", 600, "WRITE") == b"OK"
    write = Timed(server, "SET", "k", "after")
    read = Timed(server, "GET", "k")
    assert read.finished(2.0) and read.reply == b"before" and read.took < 0.4
    assert write.finished(3.0)
    assert write.reply == b"OK" and write.took > 0.35, (write.reply, write.took)
    assert r.execute_command("GET", "k") == b"after"


def test_pause_write_holds_publish_and_transactions_that_write(server, unpaused):
    r = unpaused
    assert r.execute_command("CLIENT", "PAUSE", 5000, "WRITE") == b"OK"
    publish = Timed(server, "PUBLISH", "ch", "m")
    reads = server.client(socket_timeout=10)
    pipe = reads.pipeline(transaction=True)
    pipe.execute_command("GET", "a")
    pipe.execute_command("EXISTS", "a")
    assert pipe.execute() == [None, 0]  # a transaction of reads runs
    reads.connection_pool.disconnect()
    writes = Timed(server, "EVAL", "return redis.call('SET', 'e', '1')", 0)
    time.sleep(0.3)
    assert publish.is_alive() and writes.is_alive()
    assert r.execute_command("CLIENT", "UNPAUSE") == b"OK"
    assert publish.finished() and publish.reply == 0
    assert writes.finished() and writes.reply == b"OK"
    assert r.execute_command("GET", "e") == b"1"


def test_pause_write_holds_a_containers_writing_subcommands(server, unpaused):
    """XGROUP CREATE writes (held), XINFO STREAM reads (goes on): by the subcommand's flags."""
    r = unpaused
    r.execute_command("XADD", "s", "1-1", "f", "v")
    assert r.execute_command("CLIENT", "PAUSE", 600, "WRITE") == b"OK"
    create = Timed(server, "XGROUP", "CREATE", "s", "g", "0")
    info = Timed(server, "XINFO", "GROUPS", "s")
    assert info.finished(2.0) and info.reply == [] and info.took < 0.4
    assert create.finished(3.0)
    assert create.reply == b"OK" and create.took > 0.35, (create.reply, create.took)


def test_a_held_command_holds_the_clients_later_ones(server, unpaused):
    r = unpaused
    c = server.client(socket_timeout=10)
    assert r.execute_command("CLIENT", "PAUSE", 400, "WRITE") == b"OK"
    start = time.monotonic()
    pipe = c.pipeline(transaction=False)
    pipe.execute_command("SET", "order", "1")
    pipe.execute_command("GET", "order")  # a read, but after the held write
    assert pipe.execute() == [b"OK", b"1"]
    assert time.monotonic() - start > 0.25
    c.connection_pool.disconnect()


def test_pause_all_holds_every_command(server, unpaused):
    r = unpaused
    ping = Timed(server, "PING", start=False)
    assert r.execute_command("CLIENT", "PAUSE", 500) == b"OK"
    ping.start()
    time.sleep(0.2)
    assert ping.is_alive()
    assert ping.finished(3.0) and ping.reply in (b"PONG", True) and ping.took > 0.3


def test_unpause_releases_and_a_zero_timeout_pauses_nothing(server, unpaused):
    r = unpaused
    assert r.execute_command("CLIENT", "PAUSE", 0, "WRITE") == b"OK"
    assert r.execute_command("SET", "z", "1") == b"OK"
    assert r.execute_command("CLIENT", "PAUSE", 60000, "WRITE") == b"OK"
    write = Timed(server, "SET", "z", "2")
    time.sleep(0.2)
    assert write.is_alive()
    assert r.execute_command("CLIENT", "UNPAUSE") == b"OK"
    assert write.finished(2.0) and write.reply == b"OK"
    assert wait_until(lambda: r.execute_command("GET", "z") == b"2")


def test_pause_errors(r):
    assert err(r, "CLIENT", "PAUSE", "x") == "ERR timeout is not an integer or out of range"
    assert err(r, "CLIENT", "PAUSE", -1) == "ERR timeout is negative"
    assert err(r, "CLIENT", "PAUSE", 10, "READ") == "ERR CLIENT PAUSE mode must be WRITE or ALL"
    assert err(r, "CLIENT", "PAUSE") == "ERR wrong number of arguments for 'client|pause' command"
    assert err(r, "CLIENT", "PAUSE", 1, "WRITE", "x") == (
        "ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP.")
    assert err(r, "CLIENT", "UNPAUSE", "x") == (
        "ERR wrong number of arguments for 'client|unpause' command")
    help_lines = r.execute_command("CLIENT", "HELP")
    assert any(line.startswith(b"PAUSE <timeout>") for line in help_lines)
