"""A real full disk: the data dir on a size-limited tmpfs that the test mounts (as root, or with
passwordless sudo; else skipped: slot/slot_recovery_test.cc covers the same course over FaultFs).

Filled with a ballast file while clients write: writes get MISCONF, reads keep working, INFO,
/health and the per-slot metric say so, nothing acknowledged is lost, and writes resume by
themselves once the ballast goes; after a SIGKILL every acknowledged write is there.
"""
import errno
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest
import redis

from conftest import free_port

pytestmark = pytest.mark.slotkv_only

MISCONF = "MISCONF Errors writing to disk: "


def _run(*cmd):
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    return subprocess.run(prefix + list(cmd), capture_output=True, timeout=30)


@pytest.fixture
def small_fs():
    """A 24 MB tmpfs, unmounted at the end."""
    mnt = tempfile.mkdtemp(prefix="slotkv-full-")
    if _run("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mnt).returncode != 0:
        os.rmdir(mnt)
        pytest.skip("cannot mount a tmpfs here (not root, no passwordless sudo)")
    try:
        yield mnt
    finally:
        _run("umount", "-l", mnt)
        shutil.rmtree(mnt, ignore_errors=True)


def fill(path):
    """Writes path until the file system is full; returns the bytes written."""
    written = 0
    with open(path, "wb", buffering=0) as f:
        for size in (1 << 20, 64 << 10, 4 << 10, 512):
            block = b"\0" * size
            while True:
                try:
                    f.write(block)
                    written += size
                except OSError as e:
                    assert e.errno == errno.ENOSPC, e
                    break
    return written


def health(port):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/health" % port, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def wait_for(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    pytest.fail("timed out waiting for " + what)


def test_full_disk_refuses_writes_keeps_reads_and_recovers(small_fs, make_server):
    data = os.path.join(small_fs, "data")
    ballast = os.path.join(small_fs, "ballast")
    http_port = free_port()
    srv = make_server(["--key-estimate", "4096",
                        "--http-port", http_port, "--compress-min-bytes", "0"], data_dir=data)
    c = srv.client(decode=True, parsed=True)
    allowed = {}  # key -> values it may read: the acknowledged one, then failed attempts after

    def put(key, value):
        try:
            c.set(key, value)
        except redis.ResponseError as e:
            assert str(e).startswith(MISCONF), e
            assert "No space left on device" in str(e), e
            allowed.setdefault(key, set()).add(value)
            return False
        allowed[key] = {value}
        return True

    def value(i, round_):
        return ("v%d.%d:" % (i, round_)).ljust(40 + i % 200, "x")

    keys = ["key:%d" % i for i in range(1500)]
    for i, k in enumerate(keys):
        assert put(k, value(i, 0))
    assert health(http_port) == (200, {"status": "ok"})

    fill(ballast)
    refused = 0
    for round_ in range(1, 40):
        for i, k in enumerate(keys):
            if not put(k, value(i, round_)):
                refused += 1
        if refused > len(keys):
            break
    assert refused > 0, "the full disk refused nothing"

    # Reads go on, and see what was acknowledged (or a failed write's value, never older).
    for k in keys:
        assert c.get(k) in allowed[k], k

    # SWAPDB records its map (slotkv.meta) before any slot follows it: refused whole when that
    # write fails (unless a slot freed a page meanwhile: then done whole).
    try:
        c.swapdb(0, 1)
        assert c.dbsize() == 0
        assert c.swapdb(0, 1)
    except redis.ResponseError as e:
        assert str(e).startswith(MISCONF) and "No space left on device" in str(e), e
    assert c.get(keys[0]) in allowed[keys[0]]

    def info_says(status):
        info = c.info("persistence")
        return info["aof_last_write_status"] == status

    wait_for(lambda: info_says("err"), 5, "aof_last_write_status:err")
    assert c.info("persistence")["slotkv_failed_slots"] >= 1
    code, body = health(http_port)
    assert code == 503 and body["status"] == "failing" and body["failed_slots"] >= 1, body
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % http_port, timeout=5) as r:
        metrics = r.read().decode()
    assert any(line.startswith("slotkv_slot_failed{") and line.endswith(" 1")
               for line in metrics.splitlines()), "no slot reports slotkv_slot_failed 1"

    # Room again: every slot takes writes by itself within a few seconds.
    os.unlink(ballast)

    def all_take_writes():
        return all(put(k, value(i, 99)) for i, k in enumerate(keys[:64]))

    wait_for(all_take_writes, 15, "writes to resume")
    for i, k in enumerate(keys):
        assert put(k, value(i, 100)), k
    wait_for(lambda: info_says("ok"), 5, "aof_last_write_status:ok")
    assert health(http_port) == (200, {"status": "ok"})
    assert c.info("persistence")["slotkv_slot_recoveries"] >= 1

    srv.kill()
    srv.start()
    c = srv.client(decode=True, parsed=True)
    for i, k in enumerate(keys):
        assert c.get(k) == value(i, 100), k
    srv.stop()
