"""CLUSTER, READONLY, READWRITE, ASKING and MODULE as Redis 7.0.15 answers them in a standalone
server with no modules (core/command/cluster_commands.cc, module_command.cc): arity errors and
unknown subcommands first, then "cluster support disabled" for every cluster command; MODULE
LIST empty, LOAD / LOADEX / UNLOAD refused unless enable-module-command lets the client try,
and then failing as for a module that does not load. Every test passes on redis-server too.
"""

import pytest

from conftest import arity, err, start_server

DISABLED = "ERR This instance has cluster support disabled"
MODULE_NOT_ALLOWED = (
    "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", "
    "you can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.")

# CLUSTER's subcommands as redis-server 7.0.15's COMMAND INFO lists them: name -> (arity, flags,
# ACL categories).
ADMIN = (["admin", "stale", "no_async_loading"], ["@admin", "@slow", "@dangerous"])
STALE = (["stale"], ["@slow"])
ADMIN_STALE = (["admin", "stale"], ["@admin", "@slow", "@dangerous"])
CLUSTER_SUBCOMMANDS = {
    "addslots": (-3, *ADMIN), "addslotsrange": (-4, *ADMIN), "bumpepoch": (2, *ADMIN),
    "count-failure-reports": (3, *ADMIN_STALE), "countkeysinslot": (3, *STALE),
    "delslots": (-3, *ADMIN), "delslotsrange": (-4, *ADMIN), "failover": (-2, *ADMIN),
    "flushslots": (2, *ADMIN), "forget": (3, *ADMIN), "getkeysinslot": (4, *STALE),
    "help": (2, ["loading", "stale"], ["@slow"]), "info": (2, *STALE), "keyslot": (3, *STALE),
    "links": (2, *STALE), "meet": (-4, *ADMIN), "myid": (2, *STALE), "nodes": (2, *STALE),
    "replicas": (3, *ADMIN_STALE), "replicate": (3, *ADMIN),
    "reset": (-2, ["admin", "noscript", "stale"], ["@admin", "@slow", "@dangerous"]),
    "saveconfig": (2, *ADMIN), "set-config-epoch": (3, *ADMIN), "setslot": (-4, *ADMIN),
    "shards": (2, *STALE), "slaves": (3, *ADMIN_STALE), "slots": (2, *STALE),
}
MODULE_HELP = [
    b"MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    b"LIST",
    b"    Return a list of loaded modules.",
    b"LOAD <path> [<arg> ...]",
    b"    Load a module library from <path>, passing to it any optional arguments.",
    b"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
    b"    Load a module library from <path>, while passing it module configurations and "
    b"optional arguments.",
    b"UNLOAD <name>",
    b"    Unload a module.",
    b"HELP",
    b"    Prints this help.",
]


def text(items):
    return sorted(x.decode() for x in items)


def test_every_cluster_subcommand_says_cluster_support_is_disabled(r):
    for name, (ar, _, _) in CLUSTER_SUBCOMMANDS.items():
        n = ar if ar > 0 else -ar
        args = ["CLUSTER", name] + ["1"] * (n - 2)
        assert err(r, *args) == DISABLED, name
        if ar > 0:  # one argument too many
            assert err(r, *args, "x") == arity("cluster|" + name), name
        if n > 2:  # one too few
            assert err(r, *args[:-1]) == arity("cluster|" + name), name
    assert err(r, "CLUSTER") == arity("cluster")
    assert err(r, "CLUSTER", "nosuch") == "ERR unknown subcommand 'nosuch'. Try CLUSTER HELP."
    assert err(r, "cluster", "Info") == DISABLED


def test_readonly_readwrite_asking(r):
    for cmd in ("READONLY", "READWRITE", "ASKING"):
        assert err(r, cmd) == DISABLED
        assert err(r, cmd, "x") == arity(cmd.lower())
    # Nothing changed for the connection: it still reads and writes.
    assert r.execute_command("SET", "k", "v") == b"OK"
    assert r.execute_command("GET", "k") == b"v"


def test_cluster_command_info_matches_redis(r):
    info = r.execute_command("COMMAND", "INFO", "cluster", "readonly", "readwrite", "asking")
    assert info[0][:7] == [b"cluster", -2, [], 0, 0, 0, [b"@slow"]]
    subs = {s[0].decode(): (s[1], text(s[2]), text(s[6])) for s in info[0][9]}
    assert subs == {"cluster|" + name: (ar, sorted(flags), sorted(cats))
                    for name, (ar, flags, cats) in CLUSTER_SUBCOMMANDS.items()}
    assert [row[:7] for row in info[1:]] == [
        [b"readonly", 1, [b"loading", b"stale", b"fast"], 0, 0, 0, [b"@fast", b"@connection"]],
        [b"readwrite", 1, [b"loading", b"stale", b"fast"], 0, 0, 0, [b"@fast", b"@connection"]],
        [b"asking", 1, [b"fast"], 0, 0, 0, [b"@fast", b"@connection"]],
    ]
    docs = r.execute_command("COMMAND", "DOCS", "asking")
    assert docs[0] == b"asking"
    fields = dict(zip(docs[1][0::2], docs[1][1::2]))
    assert fields[b"summary"] == b"Sent by cluster clients after an -ASK redirect"
    assert fields[b"group"] == b"cluster"


def test_cluster_in_multi_and_acl(r):
    r.execute_command("MULTI")
    assert r.execute_command("CLUSTER", "INFO") == b"QUEUED"
    assert r.execute_command("SET", "k", "1") == b"QUEUED"
    out = r.execute_command("EXEC")
    assert str(out[0]) == DISABLED and out[1] == b"OK"
    r.execute_command("ACL", "SETUSER", "nodanger", "on", "nopass", "+@all", "-@dangerous", "~*")
    try:
        c = r.connection_pool.get_connection("x")
        c.send_command("AUTH", "nodanger", "x")
        assert c.read_response() == b"OK"
        c.send_command("CLUSTER", "INFO")  # @slow only: allowed, then disabled
        with pytest.raises(Exception, match="cluster support disabled"):
            c.read_response()
        c.send_command("CLUSTER", "RESET")
        with pytest.raises(Exception, match="NOPERM"):
            c.read_response()
        c.disconnect()
    finally:
        r.execute_command("ACL", "DELUSER", "nodanger")


def test_module_list_help_and_refused_loads(r):
    assert r.execute_command("MODULE", "LIST") == []
    assert r.execute_command("MODULE", "HELP") == MODULE_HELP
    for args in (["LOAD", "/nonexistent/m.so"], ["LOAD", "/x.so", "a", "b"],
                 ["LOADEX", "/x.so", "CONFIG", "n", "v"], ["UNLOAD", "m"]):
        assert err(r, "MODULE", *args) == MODULE_NOT_ALLOWED
    assert err(r, "MODULE") == arity("module")
    assert err(r, "MODULE", "LIST", "x") == arity("module|list")
    assert err(r, "MODULE", "LOAD") == arity("module|load")
    assert err(r, "MODULE", "UNLOAD") == arity("module|unload")
    assert err(r, "MODULE", "UNLOAD", "a", "b") == arity("module|unload")
    assert err(r, "MODULE", "nosuch") == "ERR unknown subcommand 'nosuch'. Try MODULE HELP."
    assert r.execute_command("CONFIG", "GET", "enable-module-command") == [
        b"enable-module-command", b"no"]
    assert err(r, "CONFIG", "SET", "enable-module-command", "yes").startswith(
        "ERR CONFIG SET failed (possibly related to argument 'enable-module-command') - can't "
        "set immutable config")


@pytest.mark.parametrize("mode", ["yes", "local"])
def test_module_loads_fail_when_allowed(mode):
    s = start_server(["--enable-module-command", mode])
    try:
        c = s.client()
        assert c.execute_command("CONFIG", "GET", "enable-module-command") == [
            b"enable-module-command", mode.encode()]
        assert err(c, "MODULE", "LOAD", "/nonexistent/m.so") == (
            "ERR Error loading the extension. Please check the server logs.")
        assert err(c, "MODULE", "LOADEX", "/nonexistent/m.so") == (
            "ERR Error loading the extension. Please check the server logs.")
        assert err(c, "MODULE", "UNLOAD", "m") == (
            "ERR Error unloading module: no such module with that name")
        assert c.execute_command("MODULE", "LIST") == []
        c.connection_pool.disconnect()
    finally:
        s.cleanup()
