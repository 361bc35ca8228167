"""slotkv's configuration: a config file in redis.conf syntax, --name value overrides, and a
start refused, naming the culprit, on an unknown option or a bad value."""
import contextlib
import hashlib
import subprocess
import time

import pytest
import redis

from conftest import SERVER, free_port

pytestmark = pytest.mark.slotkv_only


@contextlib.contextmanager
def running(conf, data_dir, *args):
    """A server started from conf; stopped (SIGTERM, exit 0) at the end if still running."""
    proc = subprocess.Popen([SERVER, str(conf), "--dir", str(data_dir)] + list(args),
                            stderr=subprocess.PIPE)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            assert proc.wait(timeout=15) == 0


def shutdown(c, proc):
    """SHUTDOWN through c; the server process exits with 0."""
    try:
        c.execute_command("SHUTDOWN")
    except redis.ConnectionError:
        pass
    assert proc.wait(timeout=15) == 0


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
    with running(conf, tmp_path / "data", "--maxclients", "60") as proc:
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
        shutdown(c, proc)
    # the rewritten file starts the server again with the changed option
    with running(conf, tmp_path / "data"):
        c = wait_up(port, password="se cret")
        assert c.config_get("slowlog-max-len") == {"slowlog-max-len": "77"}


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


def test_rewrite_writes_hostile_values_back_as_they_were(tmp_path):
    # Quotes, backslashes, '#' and spaces survive CONFIG REWRITE and a restart; control bytes
    # (which could forge a line of the file) are refused by CONFIG SET.
    port = free_port()
    conf = tmp_path / "slotkv.conf"
    conf.write_text("port %d\nhttp-port 0\n" % port)
    password = " a \"b\" \\c #d 'e' \\\"f\\ "
    with running(conf, tmp_path / "data") as proc:
        c = wait_up(port)
        with pytest.raises(redis.ResponseError, match="control characters"):
            c.config_set("requirepass", "pw\ndir /tmp/evil")
        assert c.config_set("requirepass", password)
        assert c.config_set("save", "900 1 300 10")
        assert c.execute_command("CONFIG", "REWRITE") == b"OK"
        assert not (tmp_path / "slotkv.conf.tmp").exists()
        shutdown(c, proc)
    with running(conf, tmp_path / "data"):
        c = wait_up(port, password=password)
        assert c.config_get("requirepass") == {"requirepass": password}
        assert c.config_get("save") == {"save": "900 1 300 10"}
        assert c.config_get("dir")["dir"].endswith("data")


def test_users_declared_in_the_config_file(tmp_path):
    """`user` lines declare ACL users as in redis.conf; CONFIG REWRITE writes every user back
    in their place (Redis's rewriteConfigUserOption), and the rewritten file starts again."""
    port = free_port()
    conf = tmp_path / "slotkv.conf"
    conf.write_text("port %d\nhttp-port 0\nuser alice on >pw ~a* +get\n"
                    "user default on nopass ~* +@all\n" % port)
    with running(conf, tmp_path / "data") as proc:
        c = wait_up(port)
        assert c.execute_command("ACL", "LIST") == [
            b"user alice on #" + hashlib.sha256(b"pw").hexdigest().encode() +
            b" ~a* resetchannels -@all +get",
            b"user default on nopass sanitize-payload ~* resetchannels +@all"]
        alice = redis.Redis(port=port, username="alice", password="pw", socket_timeout=5)
        assert alice.get("a1") is None
        with pytest.raises(redis.exceptions.NoPermissionError):
            alice.set("a1", "v")
        c.execute_command("ACL", "SETUSER", "bob", "on", "nopass", "+@all")
        assert c.execute_command("CONFIG", "REWRITE") == b"OK"
        lines = conf.read_text().splitlines()
        assert lines[2].startswith("user alice on #")
        assert lines[3] == "user bob on nopass resetchannels +@all"
        assert "user default on nopass sanitize-payload ~* resetchannels +@all" in lines
        shutdown(c, proc)
    with running(conf, tmp_path / "data"):
        c = wait_up(port)
        assert c.execute_command("ACL", "USERS") == [b"alice", b"bob", b"default"]


@pytest.mark.parametrize("lines, culprit", [
    ("user alice on bogus\n", b"bogus"),
    ("user alice on\nuser alice off\n", b"Duplicate user"),
    ("user alice on\naclfile /nonexistent.acl\n", b"ACL file path"),
])
def test_bad_user_lines_stop_the_start(tmp_path, lines, culprit):
    conf = tmp_path / "bad.conf"
    conf.write_text("port 0\nhttp-port 0\n" + lines)
    r = subprocess.run([SERVER, str(conf), "--dir", str(tmp_path / "d")], capture_output=True,
                       timeout=30)
    assert r.returncode != 0
    assert culprit in r.stderr, r.stderr
