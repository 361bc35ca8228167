"""Values compressed with zstd dictionaries trained per key prefix group: every value reads back
exactly, before and after a restart or a SIGKILL; dictionaries are persisted; a missing
dictionary is an error, never wrong data; INFO reports the figures."""

import os

import pytest

from conftest import wait_until

pytestmark = pytest.mark.slotkv_only


def user_value(i):
    return ('{"id":%d,"name":"user%d","email":"user%d@example.com","plan":"%s",'
            '"settings":{"theme":"dark","lang":"en","notifications":true},'
            '"created_at":"2026-11-%02dT12:00:00Z","visits":%d}'
            % (i, i * 7919 % 10007, i, "pro" if i % 3 == 0 else "free", 1 + i % 28, i * 13))


def info(r):
    text = r.execute_command("INFO", "persistence").decode()
    return dict(line.split(":", 1) for line in text.splitlines()
                if ":" in line and not line.startswith("#"))


def load(r, first, count):
    pipe = r.pipeline(transaction=False)
    for i in range(first, first + count):
        pipe.execute_command("SET", f"user:{i}", user_value(i))
    pipe.execute()


def check(r, first, count):
    keys = [f"user:{i}" for i in range(first, first + count)]
    got = r.execute_command("MGET", *keys)
    assert got == [user_value(i).encode() for i in range(first, first + count)]


def trained(r):
    return int(info(r)["slotkv_dictionaries"]) >= 1


def test_values_compress_with_a_trained_dictionary_and_survive_restarts(make_server):
    srv = make_server()
    r = srv.client()
    load(r, 0, 1500)
    assert wait_until(lambda: trained(r), timeout=10.0)
    load(r, 1500, 1500)
    check(r, 0, 3000)
    # values are logged raw and compressed when persisted (a group flush; SAVE flushes all)
    r.execute_command("SAVE")
    figures = info(r)
    dict_lines = [v for k, v in figures.items()
                  if k.startswith("slotkv_dict_") and k != "slotkv_dict_0"]
    assert any(line.startswith("group=user,") for line in dict_lines)
    user = next(line for line in dict_lines if line.startswith("group=user,"))
    assert float(user.split("ratio=")[1]) > 2.0
    assert float(figures["slotkv_compression_ratio"]) > 1.5
    check(r, 0, 3000)
    srv.restart()
    r = srv.client()
    check(r, 0, 3000)
    assert trained(r)
    # the reloaded dictionary compresses new values at their first flush
    before = int(info(r)["slotkv_compressed_values"])
    load(r, 3000, 100)
    r.execute_command("SAVE")
    assert int(info(r)["slotkv_compressed_values"]) == before + 100
    check(r, 3000, 100)


def test_sigkill_after_training_loses_nothing(make_server):
    srv = make_server()
    r = srv.client()
    load(r, 0, 1500)
    assert wait_until(lambda: trained(r), timeout=10.0)
    load(r, 1500, 500)  # acknowledged with appendfsync always: compressed with the dictionary
    srv.kill()
    srv.start()
    check(srv.client(), 0, 2000)


def test_compression_can_be_turned_off_live(r):
    load(r, 0, 10)
    assert r.execute_command("CONFIG", "SET", "compress-min-bytes", "0") == b"OK"
    before = int(info(r)["slotkv_compressed_values"])
    load(r, 10, 50)
    assert int(info(r)["slotkv_compressed_values"]) == before
    check(r, 0, 60)
    assert r.execute_command("CONFIG", "SET", "compress-min-bytes", "64") == b"OK"


def test_a_missing_dictionary_is_an_error_not_wrong_data(make_server):
    srv = make_server()
    r = srv.client()
    load(r, 0, 1500)
    assert wait_until(lambda: trained(r), timeout=10.0)
    load(r, 5000, 10)
    srv.stop()
    dicts = os.path.join(srv.dir, "dicts")
    for name in os.listdir(dicts):
        if name != "dict-0":
            os.remove(os.path.join(dicts, name))
    srv.start()
    r = srv.client()
    with pytest.raises(Exception) as e:
        r.execute_command("GET", "user:5000")
    assert "dictionary" in str(e.value)
    assert r.execute_command("SET", "other", "v") == b"OK"
