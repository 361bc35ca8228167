"""/metrics scraped by a real Prometheus (/usr/bin/prometheus, Debian's `prometheus`, installed by
scripts/setup.sh): the text format is accepted, the per-slot gauges and command counters add up
to what was written over RESP, and with requirepass the scrape needs HTTP basic auth.

Prometheus runs on its own free port with a temp config and TSDB dir, scraping every second; it
is always stopped and its dir removed, and its log and target errors are printed on failure."""
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import free_port, read_log

pytestmark = pytest.mark.slotkv_only

PROMETHEUS_BIN = os.environ.get("PROMETHEUS_BIN", "/usr/bin/prometheus")
SLOTS = 8  # conftest starts slotkv with --slots 8
READY_TIMEOUT = 15.0
QUERY_TIMEOUT = 30.0


def _scrape_config(job, port, auth=None):
    lines = ["  - job_name: %s" % job,
             "    scrape_interval: 1s",
             "    scrape_timeout: 1s",
             "    metrics_path: /metrics",
             "    static_configs:",
             "      - targets: ['127.0.0.1:%d']" % port]
    if auth is not None:
        lines.append("    basic_auth: {username: %s, password: %s}"
                     % (json.dumps(auth[0]), json.dumps(auth[1])))
    return "\n".join(lines) + "\n"


class Prometheus:
    """One prometheus process on 127.0.0.1:<free port>, its config and TSDB under `base`."""

    def __init__(self, base, scrape_configs):
        self.base = base
        self.config = os.path.join(base, "prometheus.yml")
        self.log_path = os.path.join(base, "prometheus.log")
        with open(self.config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "  evaluation_interval: 1s\nscrape_configs:\n")
            f.write("".join(scrape_configs))
        self.port = None
        self.proc = None

    def command_line(self):
        return [PROMETHEUS_BIN,
                "--config.file=" + self.config,
                "--storage.tsdb.path=" + os.path.join(self.base, "data"),
                "--storage.tsdb.retention.time=1h",
                "--web.listen-address=127.0.0.1:%d" % self.port,
                "--web.console.templates=" + os.path.join(self.base, "consoles"),
                "--web.console.libraries=" + os.path.join(self.base, "console_libraries"),
                "--log.level=info",  # to the log file only; printed on failure
                "--log.format=logfmt"]

    def start(self):
        for _ in range(3):  # another process may take the free port before prometheus binds it
            self.port = free_port()
            with open(self.log_path, "ab") as log:
                log.write(b"\n=== start: %s\n" % " ".join(self.command_line()).encode())
                log.flush()
                env = dict(os.environ, GOMAXPROCS="1")  # a small shared machine
                self.proc = subprocess.Popen(self.command_line(), stdout=log,
                                             stderr=subprocess.STDOUT, cwd=self.base, env=env)
            if self._wait_ready():
                return self
            if self.proc.poll() is None:
                break
        raise RuntimeError("prometheus did not become ready within %.0f s" % READY_TIMEOUT)

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % self.port,
                                            timeout=2) as resp:
                    if resp.status == 200:
                        return True
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)
        return False

    def get(self, path, **params):
        url = "http://127.0.0.1:%d%s" % (self.port, path)
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=5) as resp:
            body = json.loads(resp.read().decode())
        assert body.get("status") == "success", body
        return body["data"]

    def query(self, expr):
        """An instant query: [(labels dict, float value), ...]."""
        data = self.get("/api/v1/query", query=expr)
        assert data["resultType"] == "vector", data
        return [(s["metric"], float(s["value"][1])) for s in data["result"]]

    def scalar(self, expr):
        """The single value of a query that yields one series, None while it yields none."""
        result = self.query(expr)
        assert len(result) <= 1, (expr, result)
        return result[0][1] if result else None

    def wait(self, exprs, done, timeout=QUERY_TIMEOUT):
        """Polls {name: expr} until done(values) is true; returns the last values either way."""
        deadline = time.monotonic() + timeout
        while True:
            values = {name: self.scalar(expr) for name, expr in exprs.items()}
            if done(values) or time.monotonic() >= deadline:
                return values
            time.sleep(0.25)

    def log(self):
        return read_log(self.log_path)

    def dump(self):
        """Prometheus's log and what it says about each target, for a failed test's output."""
        print("---- prometheus config ----")
        try:
            with open(self.config) as f:
                print(f.read())
        except OSError:
            pass
        if self.proc is not None and self.proc.poll() is None:
            try:
                for t in self.get("/api/v1/targets")["activeTargets"]:
                    print("target %s %s health=%s lastError=%r lastScrape=%s"
                          % (t["labels"].get("job"), t["scrapeUrl"], t["health"],
                             t["lastError"], t["lastScrape"]))
            except Exception as e:  # noqa: BLE001
                print("targets: %r" % e)
        print("---- prometheus log ----\n%s\n------------------------" % self.log()[-20000:])

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def prometheus(scrape_configs):
    if not os.access(PROMETHEUS_BIN, os.X_OK):
        pytest.fail("%s not found: run ./scripts/setup.sh (Debian package prometheus)"
                    % PROMETHEUS_BIN)
    base = tempfile.mkdtemp(prefix="slotkv-prom-")
    prom = Prometheus(base, scrape_configs)
    try:
        prom.start()
        yield prom
    except BaseException as e:
        if not isinstance(e, pytest.skip.Exception):
            prom.dump()
        raise
    finally:
        prom.stop()
        shutil.rmtree(base, ignore_errors=True)


def test_prometheus_scrapes_slotkv(make_server):
    started = time.monotonic()
    http_port = free_port()
    s = make_server(extra_args=["--http-port", http_port])
    with prometheus([_scrape_config("slotkv", http_port)]) as prom:
        r = s.client()
        pipe = r.pipeline(transaction=False)
        for i in range(1000):
            pipe.execute_command("SET", "key:%d" % i, "value:%d" % i)
        assert pipe.execute() == [b"OK"] * 1000

        exprs = {"up": 'up{job="slotkv"}',
                 "keys": 'sum(slotkv_slot_keys{job="slotkv"})',
                 "slots": 'count(slotkv_slot_keys{job="slotkv"})',
                 "set": 'sum(slotkv_commands_total{job="slotkv",cmd="set"})'}
        values = prom.wait(exprs, lambda v: v["up"] == 1 and v["keys"] == 1000
                           and v["set"] is not None and v["set"] >= 1000)
        print("prometheus saw %r after %.1f s" % (values, time.monotonic() - started))
        assert values["up"] == 1, values
        assert values["keys"] == 1000, values
        assert values["slots"] == SLOTS, values
        assert values["set"] == 1000, values
        # every slot is a series of its own, each holding some of the keys
        per_slot = prom.query('slotkv_slot_keys{job="slotkv"}')
        assert sorted(int(m["slot"]) for m, _ in per_slot) == list(range(SLOTS))
        assert sum(v for _, v in per_slot) == 1000


def test_prometheus_scrape_needs_basic_auth(make_server):
    http_port = free_port()
    s = make_server(extra_args=["--http-port", http_port, "--requirepass", "secret"])
    jobs = [_scrape_config("good", http_port, ("default", "secret")),
            _scrape_config("wrong", http_port, ("default", "not-the-password")),
            _scrape_config("none", http_port)]
    with prometheus(jobs) as prom:
        r = s.client(password="secret")
        assert r.execute_command("SET", "k", "v") == b"OK"
        exprs = {job: 'up{job="%s"}' % job for job in ("good", "wrong", "none")}
        exprs["keys"] = 'sum(slotkv_slot_keys{job="good"})'
        values = prom.wait(exprs, lambda v: v["good"] == 1 and v["keys"] == 1
                           and v["wrong"] is not None and v["none"] is not None)
        assert values["good"] == 1, values
        assert values["keys"] == 1, values
        assert values["wrong"] == 0, values
        assert values["none"] == 0, values
