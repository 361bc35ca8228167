"""The HTTP admin API and Prometheus /metrics (issue 6), spoken to with Python's own HTTP client
(http.client, urllib.request): every endpoint and method, status codes, Content-Type, JSON shapes
and types, /info and /config against INFO and CONFIG over RESP, /slots and /metrics against
DBSIZE and what was written, Basic auth as ACL users (and metrics-auth), bad requests and
concurrent requests.

Each server here gets its own free HTTP port (`--http-port P`); the conftest starts every other
slotkv server with `--http-port 0` (no HTTP listener)."""
import base64
import http.client
import json
import math
import random
import re
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest
import redis

from conftest import err, free_port, start_http_server, wait_until

pytestmark = pytest.mark.slotkv_only

SLOTS = 8    # conftest: --slots 8
WORKERS = 2  # conftest: --workers 2
JSON_TYPE = "application/json"
METRICS_TYPE = "text/plain; version=0.0.4"
NOT_FOUND = {"error": "not found"}
NOT_ALLOWED = {"error": "method not allowed"}
UNAUTHORIZED = {"error": "unauthorized"}
CHALLENGE = 'Basic realm="slotkv"'
PASSWORD = "secret"

SLOT_FIELDS = ("slot", "worker", "keys", "wal_entries", "wal_bytes", "wal_truncated_bytes",
               "failed", "write_failures", "recoveries", "disk_bytes",
               "user_bytes_written", "disk_bytes_written", "flushes", "flush_usec",
               "flush_fetches", "flush_kept_entries", "publishes", "publish_wait_usec",
               "bucket_splits", "chunk_segments_used", "chunk_segments_free", "compacted_bytes",
               "expired_keys", "value_cache_hits", "value_cache_misses", "bucket_cache_hits",
               "bucket_cache_misses", "chunk_cache_hits", "chunk_cache_misses",
               "compressed_raw_bytes", "compressed_stored_bytes", "value_deltas", "wal_map_bytes",
               "compacted_segments", "value_cache_bytes", "bucket_cache_bytes",
               "chunk_cache_bytes", "cache_budget_bytes")

# /metrics families with label slot only, and with labels slot and cache
SLOT_METRICS = ("slotkv_slot_keys", "slotkv_slot_wal_entries", "slotkv_slot_wal_bytes",
                "slotkv_slot_wal_truncated_bytes_total", "slotkv_slot_failed",
                "slotkv_slot_write_failures_total", "slotkv_slot_recoveries_total",
                "slotkv_slot_disk_bytes", "slotkv_slot_user_bytes_written_total",
                "slotkv_slot_disk_bytes_written_total", "slotkv_slot_flushes_total",
                "slotkv_slot_flush_seconds_total", "slotkv_slot_publishes_total",
                "slotkv_slot_publish_wait_seconds_total", "slotkv_slot_bucket_splits_total",
                "slotkv_slot_chunk_segments_used", "slotkv_slot_chunk_segments_free",
                "slotkv_slot_compaction_reclaimed_bytes_total", "slotkv_slot_expired_keys_total",
                "slotkv_slot_compressed_raw_bytes_total",
                "slotkv_slot_compressed_stored_bytes_total", "slotkv_slot_value_deltas_total",
                "slotkv_slot_compression_ratio", "slotkv_slot_cache_budget_bytes")
CACHE_METRICS = ("slotkv_slot_cache_hits_total", "slotkv_slot_cache_misses_total",
                 "slotkv_slot_cache_bytes")
CACHES = ("value", "bucket", "chunk")
COMMAND_METRICS = ("slotkv_commands_total", "slotkv_commands_duration_seconds_total",
                   "slotkv_commands_failed_total")
SERVER_METRICS = ("slotkv_commands_processed_total", "slotkv_connected_clients",
                  "slotkv_blocked_clients", "slotkv_net_input_bytes_total",
                  "slotkv_net_output_bytes_total", "slotkv_keyspace_hits_total",
                  "slotkv_keyspace_misses_total", "slotkv_uptime_seconds")


# ---------------------------------------------------------------------------------------------
# HTTP client


class Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def content_type(self):
        return self.headers.get("Content-Type")

    def __repr__(self):
        return "<HTTP %s %s %r>" % (self.status, self.content_type, self.body[:300])


def basic(password, user="default"):
    token = base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
    return "Basic " + token


class Http:
    """One request per connection (http.client), with optional Basic auth on every request."""

    def __init__(self, port, password=None, user="default", timeout=30.0, host="127.0.0.1"):
        self.port = port
        self.host = host
        self.auth = basic(password, user) if password is not None else None
        self.timeout = timeout

    def with_password(self, password, user="default"):
        return Http(self.port, password, user, self.timeout, self.host)

    def request(self, method, path, body=None, headers=None, authorization=None):
        h = {}
        if authorization is not None:
            h["Authorization"] = authorization
        elif self.auth:
            h["Authorization"] = self.auth
        h.update(headers or {})
        if isinstance(body, str):
            body = body.encode()
        if body is None and method in ("PUT", "POST"):
            body = b""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=body, headers=h)
            resp = conn.getresponse()
            return Reply(resp.status, resp.headers, resp.read())
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def put(self, path, body, **kw):
        return self.request("PUT", path, body=body, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


def json_of(reply, status=200):
    """The JSON body of a reply that must have `status` and Content-Type application/json."""
    assert reply.status == status, reply
    assert reply.content_type == JSON_TYPE, reply
    try:
        return json.loads(reply.body.decode("utf-8"))
    except ValueError as e:
        raise AssertionError("not JSON (%s): %r" % (e, reply.body[:500])) from None


def error_of(reply, status):
    """The error text of a JSON error reply {"error": "<text>"} (nothing else in it)."""
    data = json_of(reply, status)
    assert isinstance(data, dict) and set(data) == {"error"}, data
    assert isinstance(data["error"], str) and data["error"], data
    return data["error"]


# ---------------------------------------------------------------------------------------------
# Prometheus text exposition format 0.0.4


NAME_RE = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL_NAME_RE = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
TYPES = ("counter", "gauge", "summary", "histogram", "untyped")


class Metrics:
    """A parsed exposition: samples [(name, labels, value)], types {name: type}, helps."""

    def __init__(self, samples, types, helps):
        self.samples = samples
        self.types = types
        self.helps = helps

    def names(self):
        return {name for name, _, _ in self.samples}

    def series(self, name):
        return [(labels, value) for n, labels, value in self.samples if n == name]

    def get(self, name, **labels):
        """The value of the one sample of `name` with exactly these labels (None if absent)."""
        found = [v for n, l, v in self.samples if n == name and l == labels]
        assert len(found) <= 1, (name, labels, found)
        return found[0] if found else None

    def sum(self, name, **match):
        return sum(v for l, v in self.series(name)
                   if all(l.get(k) == want for k, want in match.items()))


def _parse_labels(text, line):
    labels = {}
    pos = 0
    while pos < len(text):
        m = re.compile(r'\s*([^=\s]+)\s*=\s*"((?:[^"\\\n]|\\.)*)"\s*(?:,|\Z)').match(text, pos)
        assert m, "bad label set in %r" % line
        name = m.group(1)
        assert LABEL_NAME_RE.fullmatch(name), "bad label name %r in %r" % (name, line)
        assert not name.startswith("__"), line
        assert name not in labels, "label %r twice in %r" % (name, line)
        value = re.sub(r"\\(.)", lambda e: {"n": "\n", "\\": "\\", '"': '"'}.get(e.group(1), None)
                       or _bad_escape(e.group(0), line), m.group(2))
        labels[name] = value
        pos = m.end()
    return labels


def _bad_escape(seq, line):
    raise AssertionError("bad escape %r in %r" % (seq, line))


def _family(name, types):
    if name in types:
        return name
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[:-len(suffix)]
        if name.endswith(suffix) and types.get(base) in ("histogram", "summary"):
            return base
    return name


def parse_metrics(text):
    """Parses the text format strictly: HELP/TYPE lines, `name{labels} value [timestamp]`
    samples; a family's TYPE comes before its samples, each family once and in one group,
    no series twice, every line ends with "\\n"."""
    assert text == "" or text.endswith("\n"), "exposition does not end with a newline"
    samples, types, helps = [], {}, {}
    seen_series = set()
    done_families = set()
    current = None

    def enter(family, line):
        nonlocal current
        if family != current:
            assert family not in done_families, "family %s split in two groups at %r" % (
                family, line)
            if current is not None:
                done_families.add(current)
            current = family

    for line in text.split("\n")[:-1]:
        if line.strip() == "":
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                assert NAME_RE.fullmatch(name), "bad metric name in %r" % line
                enter(name, line)
                if parts[1] == "HELP":
                    assert name not in helps, "second HELP for %s" % name
                    helps[name] = parts[3] if len(parts) > 3 else ""
                else:
                    assert name not in types, "second TYPE for %s" % name
                    assert len(parts) == 4 and parts[3] in TYPES, "bad TYPE line %r" % line
                    assert not any(n == name for n, _, _ in samples), \
                        "TYPE of %s after its samples" % name
                    types[name] = parts[3]
            continue  # other comments are allowed
        m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?[ \t]+(\S+)(?:[ \t]+(-?\d+))?",
                         line)
        assert m, "bad sample line %r" % line
        name, label_text, value_text = m.group(1), m.group(2), m.group(3)
        labels = _parse_labels(label_text, line) if label_text else {}
        assert value_text in ("+Inf", "-Inf", "NaN") or re.fullmatch(
            r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", value_text), "bad value in %r" % line
        value = float(value_text)
        enter(_family(name, types), line)
        key = (name, tuple(sorted(labels.items())))
        assert key not in seen_series, "series twice: %r" % line
        seen_series.add(key)
        samples.append((name, labels, value))
    return Metrics(samples, types, helps)


def test_metrics_parser_itself():
    m = parse_metrics('# HELP a_total Things.\n# TYPE a_total counter\n'
                      'a_total{x="1",y="q\\"\\n"} 3\na_total{x="2"} 4.5e1\n'
                      '# TYPE b gauge\nb 7 1700000000\n')
    assert m.get("a_total", x="1", y='q"\n') == 3
    assert m.sum("a_total") == 48 and m.get("b") == 7
    assert m.types == {"a_total": "counter", "b": "gauge"} and m.helps == {"a_total": "Things."}
    for bad in ("a 1", "a{x=1} 1\n", "a{x=\"1\"} one\n", "# TYPE a gauge\n# TYPE a gauge\n",
                "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na{x=\"2\"} 1\n", "a 1\na 2\n"):
        with pytest.raises(AssertionError):
            parse_metrics(bad)


# ---------------------------------------------------------------------------------------------
# RESP side


def parse_info(text):
    """INFO's text as {section (lower case): {field: value}}."""
    out = {}
    section = None
    for line in text.split("\r\n"):
        if not line:
            continue
        if line.startswith("# "):
            section = line[2:].lower()
            out[section] = {}
            continue
        name, sep, value = line.partition(":")
        assert sep and section is not None, line
        out[section][name] = value
    return out


def info(rc, *sections):
    return parse_info(rc.execute_command("INFO", *sections))


def config_get(rc, name):
    reply = rc.execute_command("CONFIG", "GET", name)
    assert len(reply) == 2, reply
    return reply[1]


def dbsize(rc):
    return rc.execute_command("DBSIZE")


# ---------------------------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def hs(make_server):
    """The module's server with HTTP on a free port, no password."""
    return start_http_server(make_server)


@pytest.fixture
def h(hs):
    return Http(hs.http_port)


@pytest.fixture
def rc(hs):
    """RESP client (str replies, exact errors) on the HTTP server, flushed."""
    c = hs.client(decode=True)
    c.execute_command("FLUSHALL")
    yield c
    c.connection_pool.disconnect()


@pytest.fixture(scope="module")
def auth_server(make_server):
    return start_http_server(make_server, "--requirepass", PASSWORD)


def scrape(h):
    reply = h.get("/metrics")
    assert reply.status == 200, reply
    assert reply.content_type == METRICS_TYPE, reply
    return parse_metrics(reply.body.decode("utf-8"))


# ---------------------------------------------------------------------------------------------
# /health


def test_health(h):
    assert json_of(h.get("/health")) == {"status": "ok"}


def test_health_with_urllib(hs):
    with urllib.request.urlopen("http://127.0.0.1:%d/health" % hs.http_port, timeout=10) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"] == JSON_TYPE
        assert json.loads(resp.read()) == {"status": "ok"}


# ---------------------------------------------------------------------------------------------
# /info

INT_RE = re.compile(r"-?(0|[1-9][0-9]{0,17})")
DEC_RE = re.compile(r"-?(0|[1-9][0-9]{0,17})\.[0-9]+")

# Fields whose value does not change between two INFO calls on an idle server.
STABLE = {
    "server": ("redis_version", "slotkv_version", "redis_mode", "os", "arch_bits", "process_id",
               "process_supervised", "run_id", "tcp_port", "configured_hz", "executable",
               "config_file", "io_threads_active", "slotkv_workers", "slotkv_slots",
               "slotkv_storage"),
    "clients": ("maxclients", "cluster_connections"),
    "memory": ("maxmemory", "maxmemory_policy", "mem_allocator", "total_system_memory"),
    "persistence": ("loading", "async_loading", "aof_enabled", "rdb_saves",
                    "rdb_last_save_time", "rdb_last_bgsave_status"),
    "replication": ("role", "connected_slaves", "master_replid", "master_repl_offset",
                    "second_repl_offset"),
    "cluster": ("cluster_enabled",),
}


def kind(text):
    """What JSON type INFO's text value must become: int, float, str, or None when the
    contract leaves it open (digits with leading zeros, exponents, ...)."""
    if INT_RE.fullmatch(text):
        return int
    if DEC_RE.fullmatch(text):
        return float
    if re.fullmatch(r"[-+0-9.eE]+", text):
        return None
    return str


def check_info_value(section, name, text, value, stable):
    where = "%s.%s: INFO %r, JSON %r" % (section, name, text, value)
    k = kind(text)
    if k is int:
        assert type(value) is int, where
        if stable:
            assert value == int(text), where
    elif k is float:
        assert type(value) in (int, float), where
        if stable:
            assert math.isclose(value, float(text), rel_tol=1e-9, abs_tol=1e-9), where
    elif k is str:
        assert type(value) is str, where
        if stable:
            assert value == text, where


def test_info_matches_info_all_over_resp(h, rc, hs):
    rc.execute_command("SET", "k1", "v")
    rc.execute_command("SET", "k2", "v")
    resp_info = info(rc, "all")
    data = json_of(h.get("/info"))
    assert isinstance(data, dict)
    assert set(data) == set(resp_info), "sections"
    for section, fields in resp_info.items():
        assert isinstance(data[section], dict), section
        # INFO itself adds a cmdstat and a latency line between the two calls
        if section not in ("commandstats", "latencystats"):
            assert set(data[section]) == set(fields), section
        for name, text in fields.items():
            if name in data[section]:
                check_info_value(section, name, text, data[section][name],
                                 name in STABLE.get(section, ()))
    server = data["server"]
    assert server["redis_version"] == "7.0.15"
    assert server["tcp_port"] == hs.port
    assert server["process_id"] == hs.proc.pid
    assert type(data["clients"]["connected_clients"]) is int
    assert data["clients"]["connected_clients"] >= 1
    assert data["modules"] == {}
    assert data["keyspace"] == {"db0": "keys=2,expires=0,avg_ttl=0"}
    assert data["commandstats"]["cmdstat_set"].startswith("calls=")
    assert type(data["cpu"]["used_cpu_sys"]) in (int, float)
    assert type(data["memory"]["used_memory_human"]) is str
    assert data["server"]["config_file"] == ""  # an empty value stays a string


def test_info_section(h, rc):
    resp_clients = info(rc, "clients")["clients"]
    data = json_of(h.get("/info?section=clients"))
    assert list(data) == ["clients"]
    assert set(data["clients"]) == set(resp_clients)
    assert data["clients"]["maxclients"] == int(resp_clients["maxclients"])
    assert type(data["clients"]["connected_clients"]) is int
    assert data["clients"]["connected_clients"] >= 1
    data = json_of(h.get("/info?section=server"))
    assert list(data) == ["server"] and data["server"]["redis_version"] == "7.0.15"
    assert json_of(h.get("/info?section=commandstats"))["commandstats"]["cmdstat_info"].startswith(
        "calls=")


def test_info_section_unknown_is_empty(h, rc):
    assert rc.execute_command("INFO", "nosuchsection") == ""
    assert json_of(h.get("/info?section=nosuchsection")) == {}


def test_info_keyspace(h, rc, hs):
    assert json_of(h.get("/info?section=keyspace")) == {"keyspace": {}}
    rc.execute_command("SET", "a", "1")
    db3 = hs.client(decode=True, db=3)
    db3.execute_command("SET", "b", "2")
    db3.execute_command("SET", "c", "3")
    assert json_of(h.get("/info?section=keyspace")) == {"keyspace": {
        "db0": "keys=1,expires=0,avg_ttl=0", "db3": "keys=2,expires=0,avg_ttl=0"}}


def test_info_persistence_fields_are_numbers(h, rc):
    rc.execute_command("SET", "a", "1")
    data = json_of(h.get("/info?section=persistence"))["persistence"]
    resp = info(rc, "persistence")["persistence"]
    assert data["rdb_saves"] == int(resp["rdb_saves"])
    assert data["rdb_last_save_time"] == int(resp["rdb_last_save_time"])
    assert data["rdb_last_bgsave_status"] == "ok"
    assert type(data["rdb_changes_since_last_save"]) is int


# ---------------------------------------------------------------------------------------------
# /slots


def check_slot_object(obj, n):
    assert isinstance(obj, dict), obj
    assert set(obj) == set(SLOT_FIELDS), sorted(set(obj) ^ set(SLOT_FIELDS))
    for name in SLOT_FIELDS:
        assert type(obj[name]) is int and obj[name] >= 0, (n, name, obj[name])
    assert obj["slot"] == n
    assert obj["worker"] == n % WORKERS


def test_slots(h, rc, hs):
    for i in range(100):
        rc.execute_command("SET", "key:%d" % i, "value-%d" % i)
    assert dbsize(rc) == 100
    data = json_of(h.get("/slots"))
    assert set(data) == {"slots", "workers", "databases", "slot_list"}, data.keys()
    assert data["slots"] == SLOTS and type(data["slots"]) is int
    assert data["workers"] == WORKERS and type(data["workers"]) is int
    assert data["databases"] == int(config_get(rc, "databases")) and type(data["databases"]) is int
    slot_list = data["slot_list"]
    assert isinstance(slot_list, list) and len(slot_list) == SLOTS
    assert [s.get("slot") for s in slot_list] == list(range(SLOTS)), "slot_list in slot order"
    for n, obj in enumerate(slot_list):
        check_slot_object(obj, n)
    assert sum(s["keys"] for s in slot_list) == dbsize(rc) == 100
    assert sum(1 for s in slot_list if s["keys"]) >= 2, "100 keys all in one slot?"
    assert sum(s["user_bytes_written"] for s in slot_list) > 0


def test_slots_keys_count_every_database(h, rc, hs):
    for i in range(10):
        rc.execute_command("SET", "k%d" % i, "v")
    other = hs.client(decode=True, db=5)
    for i in range(7):
        other.execute_command("SET", "o%d" % i, "v")
    slot_list = json_of(h.get("/slots"))["slot_list"]
    assert sum(s["keys"] for s in slot_list) == 17
    assert dbsize(rc) == 10


def test_slots_grow_with_writes(h, rc):
    before = json_of(h.get("/slots"))["slot_list"]
    for i in range(50):
        rc.execute_command("SET", "g%d" % i, "x" * 100)
    after = json_of(h.get("/slots"))["slot_list"]
    assert sum(s["user_bytes_written"] for s in after) >= \
        sum(s["user_bytes_written"] for s in before) + 50 * 100


@pytest.mark.parametrize("n", [0, 7, 3])
def test_slot(h, rc, n):
    for i in range(40):
        rc.execute_command("SET", "s%d" % i, "v")
    obj = json_of(h.get("/slots/%d" % n))
    check_slot_object(obj, n)
    listed = json_of(h.get("/slots"))["slot_list"][n]
    assert obj["keys"] == listed["keys"]


@pytest.mark.parametrize("arg", ["8", "-1", "x", "1.0", "99999999999999999999",
                                 "18446744073709551616", "4294967296", "0x1", ""])
def test_slot_out_of_range_or_not_a_number(h, arg):
    error_of(h.get("/slots/" + arg), 404)


# ---------------------------------------------------------------------------------------------
# /config


def test_config_get(h, rc):
    for name in ("maxclients", "appendfsync", "databases", "slots", "hz", "metrics-auth",
                 "client-output-buffer-limit", "http-port"):
        assert json_of(h.get("/config/" + name)) == {"name": name,
                                                      "value": config_get(rc, name)}, name
    assert json_of(h.get("/config/metrics-auth"))["value"] == "yes"


def test_config_http_port(h, rc, hs):
    assert config_get(rc, "http-port") == str(hs.http_port)
    assert json_of(h.get("/config/http-port")) == {"name": "http-port",
                                                    "value": str(hs.http_port)}


def test_config_put_round_trip(h, rc):
    try:
        assert json_of(h.put("/config/maxclients", "50")) == {"name": "maxclients", "value": "50"}
        assert config_get(rc, "maxclients") == "50"
        assert json_of(h.get("/config/maxclients")) == {"name": "maxclients", "value": "50"}
        assert info(rc, "clients")["clients"]["maxclients"] == "50"  # in effect
        # one trailing "\n" or "\r\n" is not part of the value
        assert json_of(h.put("/config/maxclients", "60\n"))["value"] == "60"
        assert json_of(h.put("/config/maxclients", "70\r\n"))["value"] == "70"
        assert config_get(rc, "maxclients") == "70"
        # CONFIG SET over RESP is seen by GET /config at once
        rc.execute_command("CONFIG", "SET", "maxclients", "80")
        assert json_of(h.get("/config/maxclients"))["value"] == "80"
    finally:
        rc.execute_command("CONFIG", "SET", "maxclients", "10000")


def test_config_put_value_as_config_get_gives_it(h, rc):
    assert config_get(rc, "appendfsync") == "always"  # conftest
    old_bulk = config_get(rc, "proto-max-bulk-len")
    try:
        assert json_of(h.put("/config/appendfsync", "EVERYSEC")) == {
            "name": "appendfsync", "value": "everysec"}
        assert config_get(rc, "appendfsync") == "everysec"
        assert json_of(h.put("/config/appendfsync", "always\n"))["value"] == "always"
        assert config_get(rc, "appendfsync") == "always"
        assert json_of(h.put("/config/proto-max-bulk-len", "2mb")) == {
            "name": "proto-max-bulk-len", "value": "2097152"}
        assert config_get(rc, "proto-max-bulk-len") == "2097152"
    finally:
        rc.execute_command("CONFIG", "SET", "appendfsync", "always")
        rc.execute_command("CONFIG", "SET", "proto-max-bulk-len", old_bulk)


def test_config_put_value_with_spaces_and_empty_value(h, rc):
    old = config_get(rc, "client-output-buffer-limit")
    try:
        value = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 30"
        reply = json_of(h.put("/config/client-output-buffer-limit", value))
        assert reply == {"name": "client-output-buffer-limit",
                         "value": config_get(rc, "client-output-buffer-limit")}
        assert reply["value"] != old
        assert json_of(h.put("/config/save", "900 1")) == {"name": "save",
                                                           "value": config_get(rc, "save")}
        assert json_of(h.put("/config/save", "")) == {"name": "save", "value": ""}
        assert config_get(rc, "save") == ""
    finally:
        rc.execute_command("CONFIG", "SET", "client-output-buffer-limit", old)
        rc.execute_command("CONFIG", "SET", "save", "")


def test_config_put_bad_value(h, rc):
    reply = h.put("/config/maxclients", "abc")
    assert error_of(reply, 400) == ("ERR CONFIG SET failed (possibly related to argument "
                                    "'maxclients') - argument couldn't be parsed into an integer")
    assert config_get(rc, "maxclients") == "10000"
    # only one trailing newline is dropped: "61\n" is not an integer
    error_of(h.put("/config/maxclients", "61\n\n"), 400)
    assert config_get(rc, "maxclients") == "10000"


@pytest.mark.parametrize("name,value", [
    ("maxclients", "0"),
    ("maxclients", "1.5"),
    ("appendfsync", "sometimes"),
    ("loglevel", "loud"),
    ("proto-max-bulk-len", "lots"),
    ("metrics-auth", "maybe"),
    ("port", "7000"),  # not settable at runtime
    ("databases", "4"),
    # control bytes would forge lines in the file CONFIG REWRITE writes
    ("requirepass", "pw\r\ndir /tmp/evil"),
    ("save", "900 1\x01"),
])
def test_config_put_refused_with_config_set_error(h, rc, name, value):
    before = config_get(rc, name)
    resp_error = err(rc, "CONFIG", "SET", name, value)
    assert resp_error.startswith("ERR ")
    assert error_of(h.put("/config/" + name, value), 400) == resp_error
    assert config_get(rc, name) == before


@pytest.mark.parametrize("host", ["evil.example", "evil.example:7380", "localhost.evil"])
def test_changes_refused_for_a_host_name_not_ours(h, rc, host):
    # DNS rebinding: a page on evil.example that resolves its name to 127.0.0.1 makes the
    # browser send Host: evil.example. Reads stay open; changes are refused.
    before = config_get(rc, "maxclients")
    assert error_of(h.put("/config/maxclients", "77", headers={"Host": host}), 403) == (
        "forbidden Host header")
    assert error_of(h.post("/save", headers={"Host": host}), 403) == "forbidden Host header"
    assert config_get(rc, "maxclients") == before
    assert json_of(h.get("/config/maxclients", headers={"Host": host}))["value"] == before
    assert json_of(h.put("/config/maxclients", before,
                         headers={"Host": "localhost:%d" % h.port}))["value"] == before


def test_http_bind_apart_from_bind(make_server):
    # The admin API listens on http-bind only (127.0.0.2 here), whatever bind says.
    port = free_port()
    s = make_server(extra_args=["--http-port", str(port), "--http-bind", "127.0.0.2"])
    assert s.client().execute_command("PING") == b"PONG"
    assert Http(port, timeout=5, host="127.0.0.2").get("/health").status == 200
    with pytest.raises(OSError):
        Http(port, timeout=2).get("/health")


@pytest.mark.parametrize("method", ["GET", "PUT"])
def test_config_unknown_option(h, method):
    error_of(h.request(method, "/config/no-such-option", body="1" if method == "PUT" else None),
             404)


# ---------------------------------------------------------------------------------------------
# /save


def test_post_save(h, rc):
    for i in range(30):
        rc.execute_command("SET", "save:%d" % i, "v%d" % i)
    before = info(rc, "persistence")["persistence"]
    assert int(before["rdb_changes_since_last_save"]) > 0
    slots = json_of(h.get("/slots"))["slot_list"]
    assert sum(s["wal_entries"] for s in slots) > 0
    lastsave_before = rc.execute_command("LASTSAVE")
    t0 = time.time()
    assert json_of(h.post("/save")) == {"status": "ok"}
    t1 = time.time()
    after = info(rc, "persistence")["persistence"]
    assert after["rdb_changes_since_last_save"] == "0"
    assert int(after["rdb_saves"]) == int(before["rdb_saves"]) + 1
    lastsave = rc.execute_command("LASTSAVE")
    assert lastsave >= lastsave_before
    assert int(t0) - 1 <= lastsave <= t1 + 1
    assert int(after["rdb_last_save_time"]) == lastsave
    data = json_of(h.get("/info?section=persistence"))["persistence"]
    assert data["rdb_saves"] == int(before["rdb_saves"]) + 1
    assert data["rdb_changes_since_last_save"] == 0
    assert data["rdb_last_save_time"] == lastsave
    assert all(s["wal_entries"] == 0 for s in json_of(h.get("/slots"))["slot_list"])
    assert scrape(h).sum("slotkv_slot_wal_entries") == 0
    assert rc.execute_command("GET", "save:7") == "v7"
    assert dbsize(rc) == 30


def test_post_save_twice_and_with_nothing_to_save(h, rc):
    assert json_of(h.post("/save")) == {"status": "ok"}
    saves = int(info(rc, "persistence")["persistence"]["rdb_saves"])
    assert json_of(h.post("/save")) == {"status": "ok"}
    assert int(info(rc, "persistence")["persistence"]["rdb_saves"]) == saves + 1


# ---------------------------------------------------------------------------------------------
# /metrics


def test_metrics_format(h, rc):
    rc.execute_command("SET", "a", "1")
    rc.execute_command("GET", "a")
    m = scrape(h)
    for name in m.names():
        if not name.startswith("slotkv_"):
            continue
        assert name in m.types, "no TYPE for %s" % name
        expected = "counter" if name.endswith("_total") else "gauge"
        assert m.types[name] == expected, "%s is a %s" % (name, m.types[name])
    for name, labels, value in m.samples:
        if name.startswith("slotkv_"):
            assert math.isfinite(value) and value >= 0, (name, labels, value)
    for name in SLOT_METRICS + CACHE_METRICS + SERVER_METRICS + COMMAND_METRICS:
        assert name in m.names(), "missing %s" % name


def test_metrics_every_slot(h, rc):
    m = scrape(h)  # a flushed server: every slot appears, with zeros
    want_slots = {str(n) for n in range(SLOTS)}
    for name in SLOT_METRICS:
        series = m.series(name)
        assert all(set(labels) == {"slot"} for labels, _ in series), (name, series)
        assert sorted(labels["slot"] for labels, _ in series) == sorted(want_slots), name
    for name in CACHE_METRICS:
        series = m.series(name)
        assert all(set(labels) == {"slot", "cache"} for labels, _ in series), (name, series)
        pairs = sorted((labels["slot"], labels["cache"]) for labels, _ in series)
        assert pairs == sorted((s, c) for s in want_slots for c in CACHES), name
    assert m.sum("slotkv_slot_keys") == 0
    for name in SERVER_METRICS:
        series = m.series(name)
        assert len(series) == 1 and series[0][0] == {}, (name, series)


def test_metrics_slot_keys_sum_to_dbsize(h, rc, hs):
    for i in range(100):
        rc.execute_command("SET", "m:%d" % i, "v")
    m = scrape(h)
    assert m.sum("slotkv_slot_keys") == dbsize(rc) == 100
    slot_list = json_of(h.get("/slots"))["slot_list"]
    for s in slot_list:
        assert m.get("slotkv_slot_keys", slot=str(s["slot"])) == s["keys"], s["slot"]
    # summed over the slot's databases
    other = hs.client(decode=True, db=9)
    for i in range(3):
        other.execute_command("SET", "m:%d" % i, "v")
    assert scrape(h).sum("slotkv_slot_keys") == 103
    assert dbsize(rc) == 100


def test_metrics_expired_keys(h, rc):
    for i in range(20):
        rc.execute_command("SET", "ttl:%d" % i, "v", "PX", "30")
    # reclaimed by active expiry (hz 10) or a group flush; the three figures agree once it stops
    deadline = time.monotonic() + 10
    while True:
        metric = scrape(h).sum("slotkv_slot_expired_keys_total")
        from_info = int(info(rc, "stats")["stats"]["expired_keys"])
        from_slots = sum(s["expired_keys"] for s in json_of(h.get("/slots"))["slot_list"])
        if metric > 0 and metric == from_info == from_slots:
            break
        assert time.monotonic() < deadline, (metric, from_info, from_slots)
        time.sleep(0.2)


def test_metrics_match_slots(h, rc):
    """Each per-slot metric is the /slots figure (compared when two /slots reads around the
    scrape agree, so background work cannot make it flaky)."""
    for i in range(60):
        rc.execute_command("SET", "x:%d" % i, "v" * 50)
        rc.execute_command("GET", "x:%d" % (i // 2))
    plain = {"slotkv_slot_keys": "keys", "slotkv_slot_wal_entries": "wal_entries",
             "slotkv_slot_wal_bytes": "wal_bytes", "slotkv_slot_disk_bytes": "disk_bytes",
             "slotkv_slot_wal_truncated_bytes_total": "wal_truncated_bytes",
             "slotkv_slot_failed": "failed",
             "slotkv_slot_write_failures_total": "write_failures",
             "slotkv_slot_recoveries_total": "recoveries",
             "slotkv_slot_user_bytes_written_total": "user_bytes_written",
             "slotkv_slot_disk_bytes_written_total": "disk_bytes_written",
             "slotkv_slot_flushes_total": "flushes",
             "slotkv_slot_publishes_total": "publishes",
             "slotkv_slot_bucket_splits_total": "bucket_splits",
             "slotkv_slot_chunk_segments_used": "chunk_segments_used",
             "slotkv_slot_chunk_segments_free": "chunk_segments_free",
             "slotkv_slot_compaction_reclaimed_bytes_total": "compacted_bytes",
             "slotkv_slot_expired_keys_total": "expired_keys",
             "slotkv_slot_compressed_raw_bytes_total": "compressed_raw_bytes",
             "slotkv_slot_compressed_stored_bytes_total": "compressed_stored_bytes",
             "slotkv_slot_value_deltas_total": "value_deltas"}
    for _ in range(10):
        first = json_of(h.get("/slots"))["slot_list"]
        m = scrape(h)
        second = json_of(h.get("/slots"))["slot_list"]
        if first == second:
            break
        time.sleep(0.2)
    else:
        pytest.fail("/slots never stable across a scrape")
    for s in first:
        slot = str(s["slot"])
        for metric, field in plain.items():
            assert m.get(metric, slot=slot) == s[field], (metric, slot)
        assert math.isclose(m.get("slotkv_slot_flush_seconds_total", slot=slot),
                            s["flush_usec"] / 1e6, rel_tol=1e-6, abs_tol=1e-6), slot
        for cache in CACHES:
            assert m.get("slotkv_slot_cache_hits_total", slot=slot, cache=cache) == \
                s["%s_cache_hits" % cache], (slot, cache)
            assert m.get("slotkv_slot_cache_misses_total", slot=slot, cache=cache) == \
                s["%s_cache_misses" % cache], (slot, cache)


def test_metrics_commands_total_counts_sets(h, rc):
    before = scrape(h).get("slotkv_commands_total", cmd="set") or 0
    n = random.randint(5, 40)
    for i in range(n):
        rc.execute_command("SET", "c:%d" % i, "v")
    m = scrape(h)
    assert m.get("slotkv_commands_total", cmd="set") == before + n
    stat = info(rc, "commandstats")["commandstats"]["cmdstat_set"]
    assert int(re.match(r"calls=(\d+),", stat).group(1)) == before + n
    assert m.get("slotkv_commands_duration_seconds_total", cmd="set") >= 0
    assert m.get("slotkv_commands_failed_total", cmd="set") is not None


def test_metrics_commands_only_those_called(h, rc):
    m = scrape(h)
    cmds = [{l["cmd"] for l, _ in m.series(name)} for name in COMMAND_METRICS]
    for labels_list in (m.series(name) for name in COMMAND_METRICS):
        assert all(set(labels) == {"cmd"} for labels, _ in labels_list)
    assert cmds[0] == cmds[1] == cmds[2], "the three command families list the same commands"
    assert "strlen" not in cmds[0]  # nothing in this module calls STRLEN before this test
    rc.execute_command("STRLEN", "nokey")
    m = scrape(h)
    assert m.get("slotkv_commands_total", cmd="strlen") == 1
    assert m.get("slotkv_commands_failed_total", cmd="strlen") == 0
    assert all(c == c.lower() for c in cmds[0])


def test_metrics_commands_failed(h, rc):
    rc.execute_command("SET", "notnum", "abc")
    before = scrape(h).get("slotkv_commands_failed_total", cmd="incr") or 0
    for _ in range(3):
        with pytest.raises(redis.ResponseError):
            rc.execute_command("INCR", "notnum")
    assert scrape(h).get("slotkv_commands_failed_total", cmd="incr") == before + 3


def test_metrics_commands_processed(h, rc):
    before = scrape(h).get("slotkv_commands_processed_total")
    for _ in range(25):
        rc.execute_command("PING")
    assert scrape(h).get("slotkv_commands_processed_total") >= before + 25


def test_metrics_connected_clients(h, rc, hs):
    rc.execute_command("PING")
    base = scrape(h).get("slotkv_connected_clients")
    assert base >= 1
    conns = [hs.raw() for _ in range(3)]
    try:
        for c in conns:
            assert c.command("PING") == b"PONG"
        assert wait_until(lambda: scrape(h).get("slotkv_connected_clients") == base + 3)
        assert int(info(rc, "clients")["clients"]["connected_clients"]) == base + 3
    finally:
        for c in conns:
            c.close()
    assert wait_until(lambda: scrape(h).get("slotkv_connected_clients") == base)


def test_metrics_blocked_clients(h, rc, hs):
    assert scrape(h).get("slotkv_blocked_clients") == 0
    blocker = hs.client(decode=True)
    result = []
    t = threading.Thread(target=lambda: result.append(
        blocker.execute_command("BLPOP", "blk", "10")))
    t.start()
    try:
        assert wait_until(lambda: scrape(h).get("slotkv_blocked_clients") == 1, timeout=5)
    finally:
        rc.execute_command("RPUSH", "blk", "x")
        t.join(15)
    assert result == [["blk", "x"]]
    assert wait_until(lambda: scrape(h).get("slotkv_blocked_clients") == 0)


def test_metrics_keyspace_hits_and_misses(h, rc):
    rc.execute_command("SET", "hit", "1")
    m = scrape(h)
    hits, misses = m.get("slotkv_keyspace_hits_total"), m.get("slotkv_keyspace_misses_total")
    for _ in range(4):
        rc.execute_command("GET", "hit")
    for _ in range(6):
        rc.execute_command("GET", "miss")
    m = scrape(h)
    assert m.get("slotkv_keyspace_hits_total") == hits + 4
    assert m.get("slotkv_keyspace_misses_total") == misses + 6
    stats = info(rc, "stats")["stats"]
    assert int(stats["keyspace_hits"]) == hits + 4
    assert int(stats["keyspace_misses"]) == misses + 6


def test_metrics_net_bytes_and_uptime(h, rc, hs):
    m = scrape(h)
    rc.execute_command("SET", "big", "z" * 100000)
    assert len(rc.execute_command("GET", "big")) == 100000
    after = scrape(h)
    assert after.get("slotkv_net_input_bytes_total") >= m.get("slotkv_net_input_bytes_total") + \
        100000
    assert after.get("slotkv_net_output_bytes_total") >= \
        m.get("slotkv_net_output_bytes_total") + 100000
    uptime = after.get("slotkv_uptime_seconds")
    assert 0 <= uptime <= int(info(rc, "server")["server"]["uptime_in_seconds"]) + 1


def test_metrics_without_requirepass_need_no_auth(h):
    assert h.get("/metrics").status == 200


# ---------------------------------------------------------------------------------------------
# auth

ENDPOINTS = [
    ("GET", "/metrics", None),
    ("GET", "/info", None),
    ("GET", "/info?section=server", None),
    ("GET", "/slots", None),
    ("GET", "/slots/0", None),
    ("GET", "/config/maxclients", None),
    ("PUT", "/config/maxclients", "10000"),
    ("POST", "/save", None),
]
ENDPOINT_IDS = ["%s %s" % (m, p) for m, p, _ in ENDPOINTS]


def check_unauthorized(reply):
    assert reply.status == 401, reply
    assert reply.headers.get("WWW-Authenticate") == CHALLENGE, reply.headers.items()
    assert json_of(reply, 401) == UNAUTHORIZED


@pytest.mark.parametrize("method,path,body", ENDPOINTS, ids=ENDPOINT_IDS)
def test_auth_required(auth_server, method, path, body):
    http_ = Http(auth_server.http_port)
    check_unauthorized(http_.request(method, path, body=body))
    check_unauthorized(http_.with_password("wrong").request(method, path, body=body))
    check_unauthorized(http_.with_password("secre").request(method, path, body=body))
    check_unauthorized(http_.with_password("secret2").request(method, path, body=body))
    reply = http_.with_password(PASSWORD).request(method, path, body=body)
    assert reply.status == 200, reply
    # The user name is an ACL user's: the password is the default user's.
    for user in ("someone", ""):
        check_unauthorized(http_.with_password(PASSWORD, user).request(method, path, body=body))


@pytest.mark.parametrize("authorization", [
    "Bearer secret",
    "Basic",
    "Basic ",
    "Basic !!!not-base64!!!",
    "Basic " + base64.b64encode(b"secret").decode(),         # no colon
    "Basic " + base64.b64encode(b"secret:default").decode(),  # password and user swapped
    "Basic " + base64.b64encode(b"default:secret ").decode(),
    "Basic " + base64.b64encode(b"default:secret\x00").decode(),
    "Digest username=\"default\"",
])
def test_auth_malformed_credentials(auth_server, authorization):
    check_unauthorized(Http(auth_server.http_port).get("/info", authorization=authorization))


def test_auth_colon_in_password(make_server):
    """The user name ends at the first colon: the rest is the password."""
    s = start_http_server(make_server, "--requirepass", "a:b")
    token = base64.b64encode(b"default:a:b").decode()
    assert Http(s.http_port).get("/info", authorization="Basic " + token).status == 200
    assert Http(s.http_port, "a:b").get("/info").status == 200
    check_unauthorized(Http(s.http_port).get("/info", authorization="Basic " + base64.b64encode(
        b"default:a").decode()))


def test_acl_users_and_their_commands(make_server):
    """Basic auth names an ACL user, who must be allowed the command a route stands for."""
    s = start_http_server(make_server)
    rc = s.client(decode=True)
    rc.execute_command("ACL", "SETUSER", "ops", "on", ">opw", "+info", "+config|get")
    rc.execute_command("ACL", "SETUSER", "off", "off", ">x", "+@all")
    ops = Http(s.http_port, "opw", user="ops")
    assert ops.get("/info").status == 200
    assert ops.get("/slots").status == 200
    assert ops.get("/config/maxclients").status == 200
    for reply in (ops.put("/config/maxclients", "77"), ops.post("/save")):
        assert reply.status == 403 and json_of(reply, 403) == {"error": "forbidden"}, reply
    assert rc.execute_command("CONFIG", "GET", "maxclients") == ["maxclients", "10000"]
    check_unauthorized(Http(s.http_port, "wrong", user="ops").get("/info"))
    check_unauthorized(Http(s.http_port, "x", user="off").get("/info"))
    # Without credentials the request is the default user's; it may lose commands too.
    assert Http(s.http_port).get("/info").status == 200
    rc.execute_command("ACL", "SETUSER", "default", "-info")
    try:
        assert Http(s.http_port).get("/info").status == 403
        assert Http(s.http_port).get("/health").status == 200
    finally:
        rc.execute_command("ACL", "SETUSER", "default", "+@all")


def test_health_needs_no_auth(auth_server):
    http_ = Http(auth_server.http_port)
    assert json_of(http_.get("/health")) == {"status": "ok"}
    assert json_of(http_.with_password("wrong").get("/health")) == {"status": "ok"}


@pytest.mark.parametrize("method,path,status", [
    ("GET", "/nope", 404),
    ("DELETE", "/nope", 404),
    ("POST", "/health", 405),
    ("GET", "/save", 405),
    ("DELETE", "/config/maxclients", 405),
])
def test_auth_before_routing(auth_server, method, path, status):
    """The contract: every request except GET /health needs auth, so without credentials an
    unknown path or a wrong method is 401 too; with them, the 404 / 405 of the route."""
    check_unauthorized(Http(auth_server.http_port).request(method, path))
    reply = Http(auth_server.http_port, PASSWORD).request(method, path)
    assert json_of(reply, status) == (NOT_FOUND if status == 404 else NOT_ALLOWED)


def test_auth_refused_put_changes_nothing(auth_server):
    rc = auth_server.client(decode=True, password=PASSWORD)
    check_unauthorized(Http(auth_server.http_port, "wrong").put("/config/maxclients", "77"))
    check_unauthorized(Http(auth_server.http_port).put("/config/maxclients", "77"))
    assert config_get(rc, "maxclients") == "10000"
    assert config_get(rc, "metrics-auth") == "yes"


def test_auth_with_urllib_basic_auth_handler(auth_server):
    """urllib answers the WWW-Authenticate challenge itself: the challenge is well formed."""
    url = "http://127.0.0.1:%d/info?section=server" % auth_server.http_port
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(url, timeout=10)
    assert e.value.code == 401
    assert e.value.headers["WWW-Authenticate"] == CHALLENGE
    passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
    passwords.add_password(None, url, "default", PASSWORD)
    opener = urllib.request.build_opener(urllib.request.HTTPBasicAuthHandler(passwords))
    with opener.open(url, timeout=10) as resp:
        assert resp.status == 200
        assert json.loads(resp.read())["server"]["tcp_port"] == auth_server.port


def test_metrics_auth_no(make_server):
    s = start_http_server(make_server, "--requirepass", PASSWORD, "--metrics-auth", "no")
    anon = Http(s.http_port)
    authed = Http(s.http_port, PASSWORD)
    rc = s.client(decode=True, password=PASSWORD)
    assert config_get(rc, "metrics-auth") == "no"
    assert json_of(authed.get("/config/metrics-auth")) == {"name": "metrics-auth", "value": "no"}
    assert anon.get("/metrics").status == 200
    for path in ("/info", "/slots", "/config/maxclients"):
        check_unauthorized(anon.get(path))
    check_unauthorized(anon.post("/save"))
    # metrics-auth changes at runtime, over RESP and over HTTP
    assert rc.execute_command("CONFIG", "SET", "metrics-auth", "yes") == "OK"
    check_unauthorized(anon.get("/metrics"))
    assert authed.get("/metrics").status == 200
    assert json_of(authed.put("/config/metrics-auth", "no")) == {"name": "metrics-auth",
                                                                  "value": "no"}
    assert anon.get("/metrics").status == 200
    assert config_get(rc, "metrics-auth") == "no"


def test_metrics_auth_without_requirepass_is_open(make_server):
    s = start_http_server(make_server, "--metrics-auth", "yes")
    assert Http(s.http_port).get("/metrics").status == 200
    assert Http(s.http_port).get("/info").status == 200


def test_requirepass_set_at_runtime_applies_to_http_at_once(make_server):
    s = start_http_server(make_server)
    anon = Http(s.http_port)
    assert anon.get("/info").status == 200
    rc = s.client(decode=True)
    assert rc.execute_command("CONFIG", "SET", "requirepass", "hot") == "OK"
    check_unauthorized(anon.get("/info"))
    check_unauthorized(anon.get("/metrics"))
    assert anon.get("/health").status == 200
    assert Http(s.http_port, "hot").get("/info").status == 200
    # and over HTTP: the new password is in force for the very next request
    assert json_of(Http(s.http_port, "hot").put("/config/requirepass", "cold")) == {
        "name": "requirepass", "value": "cold"}
    check_unauthorized(Http(s.http_port, "hot").get("/info"))
    assert Http(s.http_port, "cold").get("/slots").status == 200
    assert s.client(decode=True, password="cold").execute_command("PING") == "PONG"
    with pytest.raises(redis.RedisError):
        s.client(decode=True, password="hot").execute_command("PING")
    # cleared again: no auth needed
    s.client(decode=True, password="cold").execute_command("CONFIG", "SET", "requirepass", "")
    assert anon.get("/info").status == 200
    assert anon.get("/metrics").status == 200


# ---------------------------------------------------------------------------------------------
# bad requests


@pytest.mark.parametrize("method,path", [
    ("GET", "/"),
    ("GET", "/nope"),
    ("GET", "/healthz"),
    ("GET", "/health/x"),
    ("GET", "/metrics/x"),
    ("GET", "/save/x"),
    ("GET", "/api/v1/health"),
    ("GET", "/HEALTH"),
    ("DELETE", "/nope"),
    ("POST", "/nope"),
])
def test_unknown_path(h, method, path):
    assert json_of(h.request(method, path), 404) == NOT_FOUND


@pytest.mark.parametrize("path", ["/config", "/config/", "/slots/", "/info/x",
                                  "/config/maxclients/x", "/slots/0/x"])
def test_unknown_path_status_only(h, path):
    error_of(h.get(path), 404)


@pytest.mark.parametrize("method,path", [
    ("POST", "/health"),
    ("PUT", "/health"),
    ("DELETE", "/health"),
    ("POST", "/metrics"),
    ("DELETE", "/metrics"),
    ("POST", "/info"),
    ("PUT", "/info"),
    ("POST", "/slots"),
    ("DELETE", "/slots/0"),
    ("PUT", "/slots/0"),
    ("DELETE", "/config/maxclients"),
    ("POST", "/config/maxclients"),
    ("PATCH", "/config/maxclients"),
    ("GET", "/save"),
    ("PUT", "/save"),
    ("DELETE", "/save"),
])
def test_wrong_method(h, rc, method, path):
    body = "123" if method in ("PUT", "POST", "PATCH") else None
    assert json_of(h.request(method, path, body=body), 405) == NOT_ALLOWED
    assert config_get(rc, "maxclients") == "10000"


def alive(hs):
    c = hs.client(decode=True)
    try:
        assert c.execute_command("PING") == "PONG"
    finally:
        c.connection_pool.disconnect()
    assert hs.running()
    assert json_of(Http(hs.http_port).get("/health")) == {"status": "ok"}


def raw_http(port, data, wait=2.0):
    """Sends raw bytes, returns what came back within `wait` (b"" if the server closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        try:
            s.sendall(data)
        except OSError:
            return b""
        s.settimeout(wait)
        out = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except (socket.timeout, OSError):
            pass
        return out


def test_huge_body_to_put_config(h, rc, hs):
    body = b"1" * (16 << 20)
    try:
        reply = h.put("/config/maxclients", body)
        assert 400 <= reply.status < 500, reply
    except (ConnectionError, http.client.HTTPException, OSError):
        pass  # refusing to read it all and closing is fine
    alive(hs)
    assert config_get(rc, "maxclients") == "10000"


def test_binary_body_to_put_config(h, rc, hs):
    body = bytes(range(256)) * 64
    reply = h.put("/config/maxclients", body)
    assert 400 <= reply.status < 500, reply
    reply = h.put("/config/appendfsync", b"\x00always\xff")
    assert 400 <= reply.status < 500, reply
    reply = h.put("/config/maxclients", b"\xff\xfe\r\n")
    assert 400 <= reply.status < 500, reply
    alive(hs)
    assert config_get(rc, "maxclients") == "10000"
    assert config_get(rc, "appendfsync") == "always"


@pytest.mark.parametrize("data", [
    b"\x00\xff\xfe garbage\r\n\r\n",
    b"GET\r\n\r\n",
    b"GET /health\r\n\r\n",
    b"GET /health HTTP/9.9\r\n\r\n",
    b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n",
    b"GET /health HTTP/1.1\r\n" + b"X-H: v\r\n" * 20000 + b"\r\n",
    b"GET /" + b"a" * (1 << 20) + b" HTTP/1.1\r\n\r\n",
    b"PUT /config/maxclients HTTP/1.1\r\nContent-Length: -5\r\n\r\n10000",
    b"PUT /config/maxclients HTTP/1.1\r\nContent-Length: abc\r\n\r\n10000",
    b"PUT /config/maxclients HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n1",
    b"PUT /config/maxclients HTTP/1.1\r\nContent-Length: 1000000000000\r\n\r\n1",
    b"PUT /config/maxclients HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"PUT /config/maxclients HTTP/1.1\r\nContent-Length: 5\r\n\r\n1",  # body cut short
    b"GET /health HTTP/1.1\r\nHost: x",  # headers cut short
])
def test_malformed_requests_do_not_hurt_the_server(rc, hs, data):
    reply = raw_http(hs.http_port, data, wait=1.0)
    if reply:
        assert re.match(rb"HTTP/1\.[01] [1-5]\d\d ", reply), reply[:200]
        assert not reply.startswith((b"HTTP/1.1 2", b"HTTP/1.0 2")) or b"/health" in data, \
            reply[:200]
    alive(hs)
    assert config_get(rc, "maxclients") == "10000"


def test_many_connections_dropped_mid_request(hs):
    for i in range(50):
        s = socket.create_connection(("127.0.0.1", hs.http_port), timeout=5)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n"[: 5 + i % 20])
        if i % 2:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
    for i in range(20):  # full request, reply never read
        s = socket.create_connection(("127.0.0.1", hs.http_port), timeout=5)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        s.close()
    alive(hs)


def test_two_requests_on_one_connection(hs):
    """http.client reuses the connection when the server keeps it open, and reconnects when it
    says Connection: close; either way both requests get their own full reply."""
    conn = http.client.HTTPConnection("127.0.0.1", hs.http_port, timeout=10)
    try:
        for path in ("/health", "/slots/1", "/health"):
            conn.request("GET", path)
            resp = conn.getresponse()
            assert resp.status == 200
            json.loads(resp.read())
    finally:
        conn.close()


def test_concurrent_requests(h, rc, hs):
    for i in range(50):
        rc.execute_command("SET", "cc:%d" % i, "v")
    failures = []
    counts = {"metrics": 0, "info": 0}
    lock = threading.Lock()

    def worker(k):
        client = Http(hs.http_port)
        for j in range(20):
            try:
                if (k + j) % 2:
                    m = scrape(client)
                    assert m.sum("slotkv_slot_keys") == 50
                    which = "metrics"
                else:
                    data = json_of(client.get("/info"))
                    assert data["keyspace"] == {"db0": "keys=50,expires=0,avg_ttl=0"}
                    which = "info"
                with lock:
                    counts[which] += 1
            except Exception as e:  # noqa: BLE001
                with lock:
                    failures.append("thread %d request %d: %r" % (k, j, e))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "requests hung"
    assert failures == [], failures[:5]
    assert counts == {"metrics": 200, "info": 200}
    alive(hs)


def test_concurrent_requests_with_resp_traffic(h, rc, hs):
    stop = threading.Event()
    failures = []

    def writer():
        c = hs.client(decode=True)
        i = 0
        while not stop.is_set():
            try:
                c.execute_command("SET", "w:%d" % (i % 500), "v" * (i % 300))
            except Exception as e:  # noqa: BLE001
                failures.append(repr(e))
                return
            i += 1

    def reader():
        client = Http(hs.http_port)
        for path in ("/metrics", "/slots", "/info?section=stats", "/slots/5") * 5:
            try:
                reply = client.get(path)
                assert reply.status == 200, reply
                if path == "/metrics":
                    parse_metrics(reply.body.decode())
                else:
                    json.loads(reply.body)
            except Exception as e:  # noqa: BLE001
                failures.append("%s: %r" % (path, e))

    writers = [threading.Thread(target=writer) for _ in range(4)]
    readers = [threading.Thread(target=reader) for _ in range(8)]
    for t in writers + readers:
        t.start()
    for t in readers:
        t.join(120)
    stop.set()
    for t in writers:
        t.join(30)
    assert failures == [], failures[:5]
    alive(hs)


# ---------------------------------------------------------------------------------------------
# --http-port 0 (the conftest default)


def test_default_test_server_has_no_http(server):
    cmd = server.command_line()
    assert cmd.count("--http-port") == 1
    assert cmd[cmd.index("--http-port") + 1] == "0"
    c = server.client(decode=True)
    assert c.execute_command("PING") == "PONG"
    assert config_get(c, "http-port") == "0"
    lines = [line for line in server.log().splitlines() if not line.startswith("=== start:")]
    assert not any("http" in line.lower() for line in lines), lines


def test_http_listens_on_the_bind_address_only(hs):
    """conftest binds 127.0.0.1; the HTTP port is not open on another loopback address."""
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.2", hs.http_port), timeout=2).close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.2", hs.port), timeout=2).close()  # as RESP


def test_own_http_port_is_not_overridden(hs):
    cmd = hs.command_line()
    assert cmd.count("--http-port") == 1
    assert cmd[cmd.index("--http-port") + 1] == str(hs.http_port)
