"""Every parameter redis-server 7.0.15 lists in CONFIG GET *, with its default, and the checks
of a sample of them: slotkv accepts them all (most with no effect, conf/config.cc says why)."""

import pytest

from conftest import err


def config_get(r, *patterns):
    reply = r.execute_command("CONFIG", "GET", *patterns)
    return dict(zip(reply[0::2], reply[1::2]))


# CONFIG GET * of redis-server 7.0.15 started with no options (192 names, old names included).
REDIS_7_0_15_DEFAULTS = {
    "acl-pubsub-default": "resetchannels",
    "aclfile": "",
    "acllog-max-len": "128",
    "active-defrag-cycle-max": "25",
    "active-defrag-cycle-min": "1",
    "active-defrag-ignore-bytes": "104857600",
    "active-defrag-max-scan-fields": "1000",
    "active-defrag-threshold-lower": "10",
    "active-defrag-threshold-upper": "100",
    "active-expire-effort": "1",
    "activedefrag": "no",
    "activerehashing": "yes",
    "always-show-logo": "no",
    "aof-disable-auto-gc": "no",
    "aof-load-truncated": "yes",
    "aof-rewrite-incremental-fsync": "yes",
    "aof-timestamp-enabled": "no",
    "aof-use-rdb-preamble": "yes",
    "aof_rewrite_cpulist": "",
    "appenddirname": "appendonlydir",
    "appendfilename": "appendonly.aof",
    "appendfsync": "everysec",
    "appendonly": "no",
    "auto-aof-rewrite-min-size": "67108864",
    "auto-aof-rewrite-percentage": "100",
    "bgsave_cpulist": "",
    "bind": "* -::*",
    "bind-source-addr": "",
    "bio_cpulist": "",
    "busy-reply-threshold": "5000",
    "client-output-buffer-limit": ("normal 0 0 0 slave 268435456 67108864 60 "
                                   "pubsub 33554432 8388608 60"),
    "client-query-buffer-limit": "1073741824",
    "cluster-allow-pubsubshard-when-down": "yes",
    "cluster-allow-reads-when-down": "no",
    "cluster-allow-replica-migration": "yes",
    "cluster-announce-bus-port": "0",
    "cluster-announce-hostname": "",
    "cluster-announce-ip": "",
    "cluster-announce-port": "0",
    "cluster-announce-tls-port": "0",
    "cluster-config-file": "nodes.conf",
    "cluster-enabled": "no",
    "cluster-link-sendbuf-limit": "0",
    "cluster-migration-barrier": "1",
    "cluster-node-timeout": "15000",
    "cluster-port": "0",
    "cluster-preferred-endpoint-type": "ip",
    "cluster-replica-no-failover": "no",
    "cluster-replica-validity-factor": "10",
    "cluster-require-full-coverage": "yes",
    "cluster-slave-no-failover": "no",
    "cluster-slave-validity-factor": "10",
    "crash-log-enabled": "yes",
    "crash-memcheck-enabled": "yes",
    "daemonize": "no",
    "databases": "16",
    "dbfilename": "dump.rdb",
    "dir": None,  # the working directory redis-server starts in
    "disable-thp": "yes",
    "dynamic-hz": "yes",
    "enable-debug-command": "no",
    "enable-module-command": "no",
    "enable-protected-configs": "no",
    "hash-max-listpack-entries": "512",
    "hash-max-listpack-value": "64",
    "hash-max-ziplist-entries": "512",
    "hash-max-ziplist-value": "64",
    "hll-sparse-max-bytes": "3000",
    "hz": "10",
    "ignore-warnings": "",
    "io-threads": "1",
    "io-threads-do-reads": "no",
    "jemalloc-bg-thread": "yes",
    "latency-monitor-threshold": "0",
    "latency-tracking": "yes",
    "latency-tracking-info-percentiles": "50 99 99.9",
    "lazyfree-lazy-eviction": "no",
    "lazyfree-lazy-expire": "no",
    "lazyfree-lazy-server-del": "no",
    "lazyfree-lazy-user-del": "no",
    "lazyfree-lazy-user-flush": "no",
    "lfu-decay-time": "1",
    "lfu-log-factor": "10",
    "list-compress-depth": "0",
    "list-max-listpack-size": "-2",
    "list-max-ziplist-size": "-2",
    "logfile": "",
    "loglevel": "notice",
    "lua-time-limit": "5000",
    "masterauth": "",
    "masteruser": "",
    "maxclients": "10000",
    "maxmemory": "0",
    "maxmemory-clients": "0",
    "maxmemory-eviction-tenacity": "10",
    "maxmemory-policy": "noeviction",
    "maxmemory-samples": "5",
    "min-replicas-max-lag": "10",
    "min-replicas-to-write": "0",
    "min-slaves-max-lag": "10",
    "min-slaves-to-write": "0",
    "no-appendfsync-on-rewrite": "no",
    "notify-keyspace-events": "",
    "oom-score-adj": "no",
    "oom-score-adj-values": "0 200 800",
    "pidfile": "",
    "port": "6379",
    "proc-title-template": "{title} {listen-addr} {server-mode}",
    "propagation-error-behavior": "ignore",
    "protected-mode": "yes",
    "proto-max-bulk-len": "536870912",
    "rdb-del-sync-files": "no",
    "rdb-save-incremental-fsync": "yes",
    "rdbchecksum": "yes",
    "rdbcompression": "yes",
    "repl-backlog-size": "1048576",
    "repl-backlog-ttl": "3600",
    "repl-disable-tcp-nodelay": "no",
    "repl-diskless-load": "disabled",
    "repl-diskless-sync": "yes",
    "repl-diskless-sync-delay": "5",
    "repl-diskless-sync-max-replicas": "0",
    "repl-ping-replica-period": "10",
    "repl-ping-slave-period": "10",
    "repl-timeout": "60",
    "replica-announce-ip": "",
    "replica-announce-port": "0",
    "replica-announced": "yes",
    "replica-ignore-disk-write-errors": "no",
    "replica-ignore-maxmemory": "yes",
    "replica-lazy-flush": "no",
    "replica-priority": "100",
    "replica-read-only": "yes",
    "replica-serve-stale-data": "yes",
    "replicaof": "",
    "requirepass": "",
    "sanitize-dump-payload": "no",
    "save": "3600 1 300 100 60 10000",
    "server_cpulist": "",
    "set-max-intset-entries": "512",
    "set-proc-title": "yes",
    "shutdown-on-sigint": "default",
    "shutdown-on-sigterm": "default",
    "shutdown-timeout": "10",
    "slave-announce-ip": "",
    "slave-announce-port": "0",
    "slave-ignore-maxmemory": "yes",
    "slave-lazy-flush": "no",
    "slave-priority": "100",
    "slave-read-only": "yes",
    "slave-serve-stale-data": "yes",
    "slaveof": "",
    "slowlog-log-slower-than": "10000",
    "slowlog-max-len": "128",
    "socket-mark-id": "0",
    "stop-writes-on-bgsave-error": "yes",
    "stream-node-max-bytes": "4096",
    "stream-node-max-entries": "100",
    "supervised": "no",
    "syslog-enabled": "no",
    "syslog-facility": "local0",
    "syslog-ident": "redis",
    "tcp-backlog": "511",
    "tcp-keepalive": "300",
    "timeout": "0",
    "tls-auth-clients": "yes",
    "tls-ca-cert-dir": "",
    "tls-ca-cert-file": "",
    "tls-cert-file": "",
    "tls-ciphers": "",
    "tls-ciphersuites": "",
    "tls-client-cert-file": "",
    "tls-client-key-file": "",
    "tls-client-key-file-pass": "",
    "tls-cluster": "no",
    "tls-dh-params-file": "",
    "tls-key-file": "",
    "tls-key-file-pass": "",
    "tls-port": "0",
    "tls-prefer-server-ciphers": "no",
    "tls-protocols": "",
    "tls-replication": "no",
    "tls-session-cache-size": "20480",
    "tls-session-cache-timeout": "300",
    "tls-session-caching": "yes",
    "tracking-table-max-keys": "1000000",
    "unixsocket": "",
    "unixsocketperm": "0",
    "zset-max-listpack-entries": "128",
    "zset-max-listpack-value": "64",
    "zset-max-ziplist-entries": "128",
    "zset-max-ziplist-value": "64",
}

# Differ on purpose, or by how conftest starts the servers.
NOT_COMPARED = {
    "port": "conftest picks a free port for each server",
    "dir": "conftest picks a temp dir for each server",
    "bind": "conftest starts both servers with --bind 127.0.0.1",
    "save": "conftest starts redis with --save ''; slotkv never snapshots and shows ''",
    "appendonly": "slotkv's WAL is always on: it shows yes (redis: as conftest starts it)",
    "appendfsync": "conftest starts slotkv with --appendfsync always",
}


def test_every_redis_parameter_is_listed_with_its_default(r):
    got = config_get(r, "*")
    names = {k.decode() for k in got}
    assert len(REDIS_7_0_15_DEFAULTS) == 192
    assert sorted(set(REDIS_7_0_15_DEFAULTS) - names) == []
    differ = {}
    for name, default in REDIS_7_0_15_DEFAULTS.items():
        if name in NOT_COMPARED:
            continue
        value = got[name.encode()].decode()
        if value != default:
            differ[name] = (value, default)
    assert differ == {}


def test_every_redis_parameter_by_exact_name(r):
    for name in REDIS_7_0_15_DEFAULTS:
        assert list(config_get(r, name)) == [name.encode()], name


def set_error(param, why):
    return "ERR CONFIG SET failed (possibly related to argument '%s') - %s" % (param, why)


@pytest.fixture
def restore(r):
    """Puts back, after the test, every option the test names through it."""
    saved = {}

    def remember(*names):
        for name in names:
            saved.update(config_get(r, name))
    yield remember
    for name, value in saved.items():
        r.execute_command("CONFIG", "SET", name, value)


# (option, values it takes with what CONFIG GET then shows, bad values with Redis's error)
SAMPLES = [
    # bool
    ("rdbcompression", [("no", "no"), ("YES", "yes")],
     [("maybe", "argument must be 'yes' or 'no'"), ("1", "argument must be 'yes' or 'no'")]),
    # integer with a range
    ("active-defrag-cycle-min", [("50", "50"), ("99", "99"), ("1", "1")],
     [("0", "argument must be between 1 and 99 inclusive"),
      ("100", "argument must be between 1 and 99 inclusive"),
      ("abc", "argument couldn't be parsed into an integer"),
      ("1k", "argument couldn't be parsed into an integer")]),
    ("cluster-announce-port", [("65535", "65535"), ("0", "0")],
     [("-1", "argument must be between 0 and 65535 inclusive")]),
    ("acllog-max-len", [("0", "0"), ("9223372036854775807", "9223372036854775807")],
     [("-1", "argument must be between 0 and 9223372036854775807 inclusive")]),
    # enum
    ("repl-diskless-load", [("SwapDB", "swapdb"), ("on-empty-db", "on-empty-db")],
     [("foo", "argument(s) must be one of the following: disabled, on-empty-db, swapdb")]),
    ("oom-score-adj", [("relative", "yes"), ("absolute", "absolute")],
     [("maybe", "argument(s) must be one of the following: no, yes, relative, absolute")]),
    ("maxmemory-policy", [("allkeys-lru", "allkeys-lru")],
     [("lru", "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
              "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
              "noeviction")]),
    # memory value
    ("stream-node-max-bytes", [("4kb", "4096"), ("1m", "1000000"), ("0", "0")],
     [("-1", "argument must be a memory value"), ("4q", "argument must be a memory value")]),
    ("active-defrag-ignore-bytes", [("100mb", "104857600")],
     [("0", "argument must be between 1 and 9223372036854775807 inclusive")]),
    ("hash-max-listpack-value", [("1kb", "1024")],
     [("x", "argument must be a memory value")]),
    ("maxmemory-clients", [("10%", "10%"), ("0%", "0"), ("1mb", "1048576")],
     [("150%", "percentage argument must be less or equal to 100"),
      ("-5%", "argument must be a memory or percent value"),
      ("abc", "argument must be a memory or percent value")]),
    # string
    ("proc-title-template", [("{port} {title}", "{port} {title}"), ("{{x}}", "{{x}}")],
     [("{title}", "template format is invalid or contains unknown variables"),
      ("{nosuch}", "template format is invalid or contains unknown variables"),
      ("x{port", "template format is invalid or contains unknown variables")]),
    ("cluster-announce-hostname", [("node-1.example", "node-1.example"), ("", "")],
     [("a_b", "Hostnames may only contain alphanumeric characters, hyphens or dots"),
      ("a" * 256, "Hostnames must be less than 256 characters")]),
    ("tls-ciphers", [("DEFAULT:!MEDIUM", "DEFAULT:!MEDIUM"), ("", "")], []),
    # several words
    ("shutdown-on-sigint", [("now nosave", "nosave now"), ("default", "default")],
     [("later", "argument(s) must be one of the following: default, save, nosave, now, force"),
      ("save nosave", "shutdown options SAVE and NOSAVE can't be used simultaneously")]),
    ("oom-score-adj-values", [("-2000 +5 2000", "-2000 5 2000")],
     [("1 2", "wrong number of arguments"),
      ("1 2 2001", "Invalid oom-score-adj-values, elements must be between -2000 and 2000.")]),
]


@pytest.mark.parametrize("param,good,bad", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_set_and_refuse_as_redis(r, restore, param, good, bad):
    restore(param)
    for value, shown in good:
        assert r.execute_command("CONFIG", "SET", param, value) == b"OK", value
        assert config_get(r, param) == {param.encode(): shown.encode()}, value
    before = config_get(r, param)
    for value, why in bad:
        assert err(r, "CONFIG", "SET", param, value) == set_error(param, why), value
    assert config_get(r, param) == before  # a refused value changes nothing


def test_old_names_share_the_value(r, restore):
    restore("hash-max-listpack-entries", "cluster-replica-validity-factor")
    assert r.execute_command("CONFIG", "SET", "hash-max-ziplist-entries", "7") == b"OK"
    assert config_get(r, "hash-max-*-entries") == {b"hash-max-listpack-entries": b"7",
                                                   b"hash-max-ziplist-entries": b"7"}
    assert r.execute_command("CONFIG", "SET", "cluster-slave-validity-factor", "3") == b"OK"
    assert config_get(r, "cluster-replica-validity-factor") == {
        b"cluster-replica-validity-factor": b"3"}
    # a name and its old name are two names: both are set, in order
    assert r.execute_command("CONFIG", "SET", "hash-max-ziplist-entries", "1",
                             "hash-max-listpack-entries", "2") == b"OK"
    assert config_get(r, "hash-max-ziplist-entries") == {b"hash-max-ziplist-entries": b"2"}
    assert err(r, "CONFIG", "SET", "hash-max-ziplist-entries", "1",
               "HASH-max-ziplist-entries", "2") == set_error("HASH-max-ziplist-entries",
                                                             "duplicate parameter")


# What Redis 7.0.15 refuses to CONFIG SET ("can't set immutable config").
IMMUTABLE = {
    "aclfile", "always-show-logo", "aof_rewrite_cpulist", "appenddirname", "appendfilename",
    "bgsave_cpulist", "bio_cpulist", "cluster-config-file", "cluster-enabled", "cluster-port",
    "daemonize", "databases", "disable-thp", "enable-debug-command", "enable-module-command",
    "enable-protected-configs", "io-threads", "io-threads-do-reads", "logfile", "pidfile",
    "rdbchecksum", "replicaof", "server_cpulist", "set-proc-title", "slaveof", "socket-mark-id",
    "supervised", "syslog-enabled", "syslog-facility", "syslog-ident", "tcp-backlog",
    "unixsocket", "unixsocketperm",
}
# Settable in Redis, not in slotkv (its listener and data dir are fixed at start), or refused
# by Redis under another rule.
SETTABLE_NOT_COMPARED = {
    "port": "slotkv: immutable",
    "bind": "slotkv: immutable",
    "dir": "slotkv: immutable; Redis: a protected config (refused unless enabled)",
    "dbfilename": "Redis: a protected config; slotkv: immutable",
}


def test_each_parameter_is_settable_or_immutable_as_in_redis(r):
    """CONFIG SET of each parameter's own value: OK, or refused as immutable, as in Redis."""
    got = config_get(r, "*")
    for name in sorted(set(REDIS_7_0_15_DEFAULTS) - set(SETTABLE_NOT_COMPARED)):
        args = ("CONFIG", "SET", name, got[name.encode()])
        if name in IMMUTABLE:
            assert err(r, *args) == set_error(name, "can't set immutable config")
        else:
            assert r.execute_command(*args) == b"OK", name
