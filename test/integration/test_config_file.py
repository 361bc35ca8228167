"""slotkv's configuration: a config file in redis.conf syntax, --name value overrides, and a
start refused, naming the culprit, on an unknown option or a bad value."""
import subprocess
import time

import pytest
import redis

from conftest import SERVER, free_port

pytestmark = pytest.mark.slotkv_only


def wait_up(port, password=None, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            c = redis.Redis(port=port, password=password, socket_timeout=5)
            c.ping()
            return c
        except (redis.ConnectionError, redis.TimeoutError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_config_file_then_overrides_then_rewrite(tmp_path):
    port = free_port()
    conf = tmp_path / "slotkv.conf"
    conf.write_text("# my server\nport %d\nrequirepass \"se cret\"\ndatabases 4\n"
                    "maxclients 50\nhttp-port 0\n" % port)
    proc = subprocess.Popen([SERVER, str(conf), "--dir", str(tmp_path / "data"),
                             "--maxclients", "60"], stderr=subprocess.PIPE)
    try:
        c = wait_up(port, password="se cret")
        with pytest.raises(redis.ResponseError, match="WRONGPASS"):
            redis.Redis(port=port, socket_timeout=5).execute_command("AUTH", "wrong")
        assert c.config_get("databases") == {"databases": "4"}
        assert c.config_get("maxclients") == {"maxclients": "60"}  # the argument wins
        with pytest.raises(redis.ResponseError):
            c.execute_command("SELECT", "4")
        assert c.config_set("slowlog-max-len", "77")
        assert c.execute_command("CONFIG", "REWRITE") == b"OK"
        text = conf.read_text()
        assert text.startswith("# my server\n")
        assert "slowlog-max-len 77" in text
        assert "maxclients 60" in text
        try:
            c.execute_command("SHUTDOWN")
        except redis.ConnectionError:
            pass
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # the rewritten file starts the server again with the changed option
    proc = subprocess.Popen([SERVER, str(conf), "--dir", str(tmp_path / "data")],
                            stderr=subprocess.PIPE)
    try:
        c = wait_up(port, password="se cret")
        assert c.config_get("slowlog-max-len") == {"slowlog-max-len": "77"}
    finally:
        proc.terminate()
        assert proc.wait(timeout=15) == 0


@pytest.mark.parametrize("args,culprit", [
    (["--bogus-option", "1"], b"bogus-option"),
    (["--appendfsync", "sometimes"], b"appendfsync"),
    (["--port", "99999"], b"port"),
    (["--slots", "3"], b"slots"),
    (["--port"], b"port"),
])
def test_bad_option_stops_the_start(tmp_path, args, culprit):
    r = subprocess.run([SERVER, "--dir", str(tmp_path / "d"), "--port", "0"] + args,
                       capture_output=True, timeout=30)
    assert r.returncode != 0
    assert culprit in r.stderr, r.stderr


def test_bad_config_file_line_names_file_and_line(tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("port 0\n\nnot-an-option 5\n")
    r = subprocess.run([SERVER, str(conf)], capture_output=True, timeout=30)
    assert r.returncode != 0
    assert b"bad.conf:3" in r.stderr and b"not-an-option" in r.stderr, r.stderr
