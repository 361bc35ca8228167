"""LATENCY DOCTOR | GRAPH | HISTORY | LATEST | RESET | HISTOGRAM | HELP, the options
latency-monitor-threshold, latency-tracking and latency-tracking-info-percentiles, and INFO
latencystats / errorstats as Redis 7.0.15 gives them: HELP, error texts, the monitor off, one
slow EVAL as a "command" event (LATEST, HISTORY, GRAPH, DOCTOR, RESET), histograms in RESP2 and
RESP3 with Redis's bucket labels, percentile lines, error counts per code, INFO's section order.

slotkv records only the events "command" and "fast-command", leaves blocking commands out, and
keeps one histogram per container ("config" where Redis has "config|get"): so the slow call is
an EVAL, histograms are read for plain commands only, and the threshold is 5 ms (not 1), so a
busy machine is unlikely to add stray events.
"""

import re
import time

import pytest

from conftest import Simple, WRONGTYPE, arity, err, info_stat

UNKNOWN = "ERR unknown subcommand 'foo'. Try LATENCY HELP."
NO_SAMPLES = "ERR No samples available for event '%s'"
BAD_PERCENTILES = ("ERR CONFIG SET failed (possibly related to argument "
                   "'latency-tracking-info-percentiles') - ")
HELP = [
    b"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    b"DOCTOR",
    b"    Return a human readable latency analysis report.",
    b"GRAPH <event>",
    b"    Return an ASCII latency graph for the <event> class.",
    b"HISTORY <event>",
    b"    Return time-latency samples for the <event> class.",
    b"LATEST",
    b"    Return the latest latency samples for all events.",
    b"RESET [<event> ...]",
    b"    Reset latency data of one or more <event> classes.",
    b"    (default: reset all data for all event classes)",
    b"HISTOGRAM [COMMAND ...]",
    b"    Return a cumulative distribution of latencies in the format of a histogram for the "
    b"specified command names.",
    b"    If no commands are specified then all histograms are replied.",
    b"HELP",
    b"    Prints this help.",
]
SORRY = (b"I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
         b"instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
         b"order to enable it. If we weren't in a deep space mission I'd suggest to take a look "
         b"at https://redis.io/topics/latency-monitor.\n")
NO_SPIKES = (b"Dave, no latency spike was observed during the lifetime of this Redis instance, "
             b"not in the slightest bit. I honestly think you ought to sit down calmly, take a "
             b"stress pill, and think things over.\n")
# One "command" spike with threshold 5 ms (slowlog-log-slower-than at its 10000 us default);
# @N stands for a number, @F for "%.2f" (re.escape keeps "@").
DOCTOR_ONE_SPIKE = re.escape(
    "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about "
    "it, do you Dave?\n\n"
    "1. command: 1 latency spikes (average @Nms, mean deviation 0ms, period @F sec). Worst "
    "all time event @Nms.\n\n"
    "I have a few advices for you:\n\n"
    "- Your current Slow Log configuration only logs events that are slower than your "
    "configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than "
    "5000'.\n"
    "- Check your Slow Log to understand what are the commands you are running which are too "
    "slow to execute. Please check https://redis.io/commands/slowlog for more information.\n"
    "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a "
    "blocking operation. If you have very large objects that are often deleted, expired, or "
    "evicted, try to fragment those objects into multiple smaller objects.\n"
).replace("@N", r"\d+").replace("@F", r"\d+\.\d\d")
# hdr_iter_log from 1024 ns, base 2: a level's label is floor(highest_equivalent(1024 * 2^k)
# / 1000) us, 2 significant digits (resolution 2^(k+3) ns at 1024 * 2^k ns).
LABELS = [((1024 << k) + (8 << k) - 1) // 1000 for k in range(21)]
# Busy for 30 ms (TIME is allowed in scripts), at most 10^7 rounds; returns the us it spent.
BUSY = ("local t = redis.call('TIME') local s = t[1] * 1000000 + t[2] "
        "for i = 1, 10000000 do local u = redis.call('TIME') "
        "local d = u[1] * 1000000 + u[2] - s if d >= 30000 then return d end end return 0")
SECTIONS = ["Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU",
            "Modules", "Commandstats", "Errorstats", "Latencystats", "Cluster", "Keyspace"]
DEFAULT_SECTIONS = [s for s in SECTIONS if s not in ("Commandstats", "Latencystats")]


def lat(r, *args):
    return r.execute_command("LATENCY", *args)


def config_set(r, name, value):
    assert r.execute_command("CONFIG", "SET", name, value) == b"OK"


def resp3(server):
    c = server.raw()
    assert c.command("HELLO", 3)[b"proto"] == 3
    return c


def verbatim(server, *args):
    """A command's `=` reply over RESP3, its format prefix kept."""
    with resp3(server) as c:
        c.send_command(*args)
        line = c.read_line()
        assert line[:1] == b"=", line
        return c.read_exact(int(line[1:]) + 2)[:-2]


def busy(r):
    elapsed = r.execute_command("EVAL", BUSY, 0)
    assert elapsed >= 30000, elapsed
    return elapsed


@pytest.fixture
def spike(r):
    """Monitor at 5 ms, events reset, then one ~30 ms EVAL: (elapsed us, start s, end s)."""
    try:
        config_set(r, "latency-monitor-threshold", 5)
        lat(r, "RESET")
        start = time.time()
        elapsed = busy(r)
        yield elapsed, start, time.time()
    finally:
        config_set(r, "latency-monitor-threshold", 0)
        lat(r, "RESET")


def histogram(r, name):
    """LATENCY HISTOGRAM name over RESP2: (calls, [(label, cumulative calls), ...])."""
    (got, (calls_, calls, usec, flat)) = lat(r, "HISTOGRAM", name)
    assert (got, calls_, usec) == (name.lower().encode(), b"calls", b"histogram_usec")
    return calls, list(zip(flat[::2], flat[1::2]))


# ---- HELP, errors, the monitor off ------------------------------------------------------------

def test_help_lines(server, r):
    assert lat(r, "HELP") == lat(r, "help") == HELP
    with server.raw() as c:
        lines = c.command("LATENCY", "HELP")
    assert lines == HELP and all(isinstance(line, Simple) for line in lines)


def test_unknown_subcommand_and_arity(r):
    assert err(r, "LATENCY", "foo") == UNKNOWN
    assert err(r, "LATENCY", "foo", "bar") == UNKNOWN
    assert err(r, "LATENCY") == arity("latency")
    for sub in ("graph", "history"):
        assert err(r, "LATENCY", sub.upper()) == arity("latency|" + sub)
        assert err(r, "LATENCY", sub, "command", "x") == arity("latency|" + sub)
    for sub in ("latest", "doctor", "help"):
        assert err(r, "LATENCY", sub.upper(), "x") == arity("latency|" + sub)


def test_replies_with_the_monitor_off(server, r):
    assert isinstance(lat(r, "RESET"), int)
    assert lat(r, "LATEST") == []
    assert lat(r, "HISTORY", "command") == []
    assert err(r, "LATENCY", "GRAPH", "command") == NO_SAMPLES % "command"
    assert err(r, "LATENCY", "GRAPH", "nosuch") == NO_SAMPLES % "nosuch"
    assert lat(r, "RESET") == 0
    assert lat(r, "DOCTOR") == SORRY
    assert verbatim(server, "LATENCY", "DOCTOR") == b"txt:" + SORRY
    with resp3(server) as c:
        c.send_command("LATENCY", "LATEST")
        c.expect(b"*0\r\n")


def test_doctor_with_no_spike_and_threshold_errors(server, r):
    try:
        config_set(r, "latency-monitor-threshold", 10000)
        assert r.execute_command("CONFIG", "GET", "latency-monitor-threshold") == [
            b"latency-monitor-threshold", b"10000"]
        lat(r, "RESET")
        assert lat(r, "DOCTOR") == NO_SPIKES
        assert verbatim(server, "LATENCY", "DOCTOR") == b"txt:" + NO_SPIKES
    finally:
        config_set(r, "latency-monitor-threshold", 0)
    head = "ERR CONFIG SET failed (possibly related to argument 'latency-monitor-threshold') - "
    assert err(r, "CONFIG", "SET", "latency-monitor-threshold", -1) == (
        head + "argument must be between 0 and 9223372036854775807 inclusive")
    assert err(r, "CONFIG", "SET", "latency-monitor-threshold", "abc") == (
        head + "argument couldn't be parsed into an integer")
    assert r.execute_command("CONFIG", "GET", "latency-monitor-threshold") == [
        b"latency-monitor-threshold", b"0"]


# ---- events -----------------------------------------------------------------------------------

def test_latest_and_history_of_a_slow_script(r, spike):
    elapsed, start, end = spike
    latest = lat(r, "LATEST")
    events = {e[0]: e[1:] for e in latest}
    assert len(events) == len(latest) and b"command" in events, latest
    at, ms, worst = events[b"command"]
    assert int(start) - 1 <= at <= int(end) + 1
    assert ms >= elapsed // 1000 >= 30 and worst == ms
    assert lat(r, "HISTORY", "command") == [[at, ms]]
    assert lat(r, "HISTORY", "COMMAND") == []  # event names are case-sensitive here


def test_graph_of_a_slow_script(server, r, spike):
    graph = lat(r, "GRAPH", "command")
    ms = dict((e[0], e[2]) for e in lat(r, "LATEST"))[b"command"]
    # one sample: the lowest mark, a blank row, then its label ("0s", "1s") downwards
    want = (b"command - high %d ms, low %d ms (all time high %d ms)\n" % (ms, ms, ms)
            + b"-" * 80 + b"\n \n \n \n_\n \n")
    assert graph.startswith(want), graph
    assert re.fullmatch(rb"\d\ns\n", graph[len(want):]), graph
    # The same graph over RESP3; its age label may have turned a second meanwhile.
    shown = verbatim(server, "LATENCY", "GRAPH", "command")
    assert shown.startswith(b"txt:" + want), shown
    assert re.fullmatch(rb"\d\ns\n", shown[len(b"txt:" + want):]), shown
    assert err(r, "LATENCY", "GRAPH", "COMMAND") == NO_SAMPLES % "COMMAND"


def test_doctor_reports_a_slow_script(server, r, spike):
    report = lat(r, "DOCTOR")
    assert re.fullmatch(DOCTOR_ONE_SPIKE, report.decode()), report
    ms = dict((e[0], e[2]) for e in lat(r, "LATEST"))[b"command"]
    assert b"(average %dms, " % ms in report and b"event %dms.\n" % ms in report
    assert verbatim(server, "LATENCY", "DOCTOR") == b"txt:" + report


def test_reset(r, spike):
    assert lat(r, "RESET", "nosuch") == 0
    assert lat(r, "RESET", "COMMAND", "command") == 1  # any case, counted once
    assert b"command" not in [e[0] for e in lat(r, "LATEST")]
    assert lat(r, "HISTORY", "command") == []
    assert err(r, "LATENCY", "GRAPH", "command") == NO_SAMPLES % "command"
    lat(r, "RESET")
    assert lat(r, "LATEST") == []
    assert lat(r, "RESET") == 0


# ---- HISTOGRAM --------------------------------------------------------------------------------

def check_distribution(calls, buckets):
    labels = [label for label, _ in buckets]
    counts = [count for _, count in buckets]
    assert buckets and all(label in LABELS for label in labels), buckets
    assert labels == sorted(set(labels)), buckets
    assert counts == sorted(set(counts)) and counts[0] > 0 and counts[-1] == calls, buckets


def test_histogram_of_set_resp2_and_resp3(server, r):
    r.execute_command("CONFIG", "RESETSTAT")
    for i in range(50):
        r.execute_command("SET", "k%d" % i, "v")
    calls, buckets = histogram(r, "set")
    assert calls == 50
    check_distribution(calls, buckets)
    with resp3(server) as c:
        got = c.command("LATENCY", "HISTOGRAM", "set")
    assert got == {b"set": {b"calls": 50, b"histogram_usec": dict(buckets)}}
    assert list(got[b"set"][b"histogram_usec"]) == [label for label, _ in buckets]


def test_histogram_skips_unknown_and_uncalled_commands(r):
    r.execute_command("CONFIG", "RESETSTAT")
    r.execute_command("SET", "k", "v")
    one = lat(r, "HISTOGRAM", "set")
    assert one[0] == b"set" and one[1][:2] == [b"calls", 1]
    assert lat(r, "HISTOGRAM", "nosuch", "get", "SET") == one
    assert lat(r, "HISTOGRAM", "nosuch") == []
    assert lat(r, "HISTOGRAM", "get") == []
    every = lat(r, "HISTOGRAM")
    names = every[::2]
    assert b"set" in names and b"get" not in names and len(names) == len(set(names))
    for value in every[1::2]:
        assert value[0] == b"calls" and value[2] == b"histogram_usec"
        check_distribution(value[1], list(zip(value[3][::2], value[3][1::2])))
    assert every[names.index(b"set") * 2 + 1] == one[1]


def test_histogram_bucket_of_a_slow_script(r):
    r.execute_command("CONFIG", "RESETSTAT")
    elapsed = busy(r)
    calls, buckets = histogram(r, "eval")
    assert calls == 1 and len(buckets) == 1, buckets
    label, count = buckets[0]
    assert count == 1 and label in LABELS and label >= elapsed
    assert label in (33816, 67633)  # 30 ms is in the 2^25 ns level (2^26 if over 33.8 ms)


def test_tracking_off_keeps_the_histograms_and_stops_recording(r):
    r.execute_command("CONFIG", "RESETSTAT")
    try:
        for _ in range(3):
            r.execute_command("SET", "k", "v")
        config_set(r, "latency-tracking", "no")
        assert r.execute_command("CONFIG", "GET", "latency-tracking") == [
            b"latency-tracking", b"no"]
        r.execute_command("SET", "k", "v")
        assert histogram(r, "set")[0] == 3
        assert r.execute_command("INFO", "latencystats") == b"# Latencystats\r\n"
        assert err(r, "CONFIG", "SET", "latency-tracking", "maybe") == (
            "ERR CONFIG SET failed (possibly related to argument 'latency-tracking') - "
            "argument must be 'yes' or 'no'")
    finally:
        config_set(r, "latency-tracking", "yes")
    r.execute_command("SET", "k", "v")
    assert histogram(r, "set")[0] == 4


# ---- INFO latencystats ------------------------------------------------------------------------

def set_line(r):
    lines = r.execute_command("INFO", "latencystats").decode().splitlines()
    assert lines[0] == "# Latencystats"
    assert all(line.startswith("latency_percentiles_usec_") for line in lines[1:]), lines
    assert not any(line.startswith("latency_percentiles_usec_get:") for line in lines)
    mine = [line for line in lines if line.startswith("latency_percentiles_usec_set:")]
    assert len(mine) == 1, lines
    return mine[0]


def test_percentiles_option_and_info_lines(r):
    name = "latency-tracking-info-percentiles"
    r.execute_command("CONFIG", "RESETSTAT")
    for i in range(20):
        r.execute_command("SET", "k%d" % i, "v")
    assert r.execute_command("CONFIG", "GET", name) == [name.encode(), b"50 99 99.9"]
    num = r"(\d+\.\d{3})"
    assert re.fullmatch(r"latency_percentiles_usec_set:p50=%s,p99=%s,p99\.9=%s" % (num, num, num),
                        set_line(r))
    try:
        config_set(r, name, "99.90 50.0 0")
        assert r.execute_command("CONFIG", "GET", name) == [name.encode(), b"99.9 50 0"]
        line = set_line(r)
        m = re.fullmatch(r"latency_percentiles_usec_set:p99\.9=%s,p50=%s,p0=%s" % (num, num, num),
                         line)
        assert m, line
        p999, p50, p0 = (float(x) for x in m.groups())
        assert 0 < p0 <= p50 <= p999
        assert p999 < histogram(r, "set")[1][-1][0] + 1  # within the last histogram level
        assert err(r, "CONFIG", "SET", name, "50 101") == (
            BAD_PERCENTILES + name + " parameters should sit between [0.0,100.0]")
        assert err(r, "CONFIG", "SET", name, "abc") == (
            BAD_PERCENTILES + "Invalid " + name + " parameters")
        assert r.execute_command("CONFIG", "GET", name) == [name.encode(), b"99.9 50 0"]
        config_set(r, name, "")
        assert r.execute_command("CONFIG", "GET", name) == [name.encode(), b""]
        assert set_line(r) == "latency_percentiles_usec_set:"
    finally:
        config_set(r, name, "50 99 99.9")


# ---- INFO errorstats and the sections ---------------------------------------------------------

def test_errorstats_count_by_code(r):
    r.execute_command("CONFIG", "RESETSTAT")
    assert r.execute_command("INFO", "errorstats") == b"# Errorstats\r\n"
    r.execute_command("SET", "s", "abc")
    assert err(r, "INCR", "s") == "ERR value is not an integer or out of range"
    assert err(r, "LPUSH", "s", "x") == WRONGTYPE
    assert err(r, "NOSUCHCMD") == "ERR unknown command 'NOSUCHCMD', with args beginning with: "
    assert err(r, "GET") == arity("get")
    assert r.execute_command("INFO", "errorstats") == (
        b"# Errorstats\r\nerrorstat_ERR:count=3\r\nerrorstat_WRONGTYPE:count=1\r\n")
    assert info_stat(r, "total_error_replies") == 4
    r.execute_command("CONFIG", "RESETSTAT")
    assert r.execute_command("INFO", "errorstats") == b"# Errorstats\r\n"
    assert info_stat(r, "total_error_replies") == 0


def test_info_section_order(r):
    def headers(*args):
        text = r.execute_command("INFO", *args).decode()
        return [line[2:] for line in text.splitlines() if line.startswith("# ")]

    assert headers() == DEFAULT_SECTIONS
    assert headers("default") == DEFAULT_SECTIONS
    assert headers("all") == SECTIONS
    assert headers("everything") == SECTIONS
    assert headers("latencystats") == ["Latencystats"]
    assert headers("errorstats", "latencystats") == ["Errorstats", "Latencystats"]
