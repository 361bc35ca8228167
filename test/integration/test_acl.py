"""ACL as Redis 7.0.15 does it: ACL SETUSER / GETUSER / LIST / USERS / WHOAMI / DELUSER / CAT /
GENPASS / HELP / DRYRUN / LOG / SAVE / LOAD, AUTH and HELLO AUTH, requirepass, and the permission
checks (commands, subcommands, keys with read/write flags, channels, MULTI, scripts, selectors).

What Redis 7.0.15 does, pinned below:
- A new user is `off`, no passwords, `-@all`, no keys, no channels (acl-pubsub-default is
  resetchannels): ACL LIST shows `user u off resetchannels -@all`. `reset` also adds the
  `sanitize-payload` flag. Rules are case-insensitive (lower-cased in the output), patterns keep
  their case. A SETUSER with one bad rule changes nothing (a new user is not even created).
- Passwords are listed as sha256 hex in the order added (adding one twice keeps one); `>p` drops
  nopass, `nopass` drops every password, `resetpass` leaves no password and no nopass.
- Key patterns: `%R~p`, `%W~p`, `%RW~p` (shown as `~p`); the same pattern again merges its flags in
  place; `~*`/allkeys swallows the earlier patterns and refuses later ones (error text below).
  Channels likewise with `&`/allchannels. An empty `~` or `&` pattern is accepted.
- GETUSER "commands": `+@all`/`-@all` first, then categories picked by best fit, then single
  commands / subcommands IN THE ORDER OF REDIS'S COMMAND HASH TABLE, which is seeded at random per
  process: the single-command rules are compared as a set here (`rules()`), the rest exactly.
- First-arg rules on non-container commands are accepted (`+select|0`, even `+get|x`): SELECT 0 is
  allowed, SELECT 1 is refused as 'select'. `-get|x` is an unknown command; `+config|get|x` is
  "Allowing first-arg of a subcommand is not supported".
- Selectors `(...)` (args may be split across arguments) are shown as a list of maps in GETUSER and
  `(~b* resetchannels -@all +set)` in ACL LIST. A command is allowed if the root or any selector
  allows it; otherwise the "most relevant" denial is reported: a channel or key denial beats a
  command denial, and of two key denials the one of the later argument wins.
- NOPERM texts: "run the 'get' command" / 'config|set' (the subcommand), "access one of the keys
  used as arguments", "access one of the channels used as arguments". A key needs read permission
  when the command reads its value (GET, INCR, TTL, LMOVE source) and write permission when it
  changes it (SET, APPEND, DEL, EXPIRE, INCR); a command that does neither (STRLEN, EXISTS) needs
  only some pattern that matches. KEYS/SCAN are not filtered. SORT BY <pattern> (not BY nosort)
  and GET (even GET #) need read access to every key.
- PUBLISH / SUBSCRIBE / SSUBSCRIBE check every channel (one denied channel refuses the whole
  command); PSUBSCRIBE patterns must equal an allowed pattern literally. Narrowing a user's
  channels disconnects its clients subscribed to channels (or patterns) no longer allowed.
- In MULTI the denial is given when queueing and EXEC then gives EXECABORT. From Lua:
  "ERR The user executing the script can't run this command or subcommand" (plus the script
  suffix when redis.call raised it); keys declared to EVAL are checked before it runs (NOPERM).
- AUTH/HELLO (no-auth commands) and QUIT are always allowed. AUTH of a wrong pair, of a disabled
  user, or of a missing user: WRONGPASS. AUTH <pass> with a nopass default user is an ERR.
  Disabling a user or changing its rules does not disconnect its clients (the new rules apply at
  once); ACL DELUSER does (its own connection gets its reply first). ACL LOAD disconnects every
  client of a (non-default) user it loads, even an unchanged one.
- ACL DRYRUN answers +OK or a bulk string ("This user has no permissions to run the 'x' command" /
  "... access the 'k' key" / "... access the 'c' channel") and writes no ACL LOG entry.
- ACL LOG entries (newest first) have exactly count, reason, context, object, username,
  age-seconds (a bulk string holding a double in RESP2, a double in RESP3), client-info. Reasons
  command / key / channel / auth; contexts toplevel / multi / lua; the object of an auth failure
  is the command name as the client typed it (AUTH, auth, HELLO). An identical denial (same
  reason, context, object, username) bumps the count of its entry, refreshes its client-info and
  moves it to the head of the log.
- CONFIG SET requirepass <p> makes the default user's password list exactly [sha256(p)] (nopass
  gone); requirepass "" makes it nopass again. ACL SETUSER default >x does not change CONFIG GET
  requirepass.
- aclfile: one `user ...` line per user, no comments; ACL SAVE writes ACL LIST's lines (sorted by
  name, default included); a bad file makes ACL LOAD fail naming the file and line and keeps the
  users; without aclfile ACL SAVE / LOAD are errors.
"""

import hashlib

import pytest

from conftest import Error, Simple, client_lines, err, start_server

DEFAULT_LINE = b"user default on nopass ~* &* +@all"
FIELDS = [b"count", b"reason", b"context", b"object", b"username", b"age-seconds",
          b"client-info"]
WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled."
NOPERM_KEY = "NOPERM this user has no permissions to access one of the keys used as arguments"
NOPERM_CHANNEL = ("NOPERM this user has no permissions to access one of the channels used as "
                  "arguments")
SYNTAX = "Syntax error"
UNKNOWN = "Unknown command or category name in ACL"
BAD_HASH = ("The password hash must be exactly 64 characters and contain only lowercase "
            "hexadecimal characters")
NO_SUCH_PASSWORD = "The password you are trying to remove from the user does not exist"
AFTER_ALLKEYS = ("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and "
                 "does not have any effect. Try 'resetkeys' to start with an empty list of "
                 "patterns")
AFTER_ALLCHANNELS = ("Adding a pattern after the * pattern (or the 'allchannels' flag) is not "
                     "valid and does not have any effect. Try 'resetchannels' to start with an "
                     "empty list of channels")
NO_ACLFILE = ("ERR This Redis instance is not configured to use an ACL file. You may want to "
              "specify users via the ACL SETUSER command and then issue a CONFIG REWRITE "
              "(assuming you have a Redis configuration file set) in order to store users in the "
              "Redis configuration.")
DEFAULT_AUTH = ("ERR AUTH <password> called without any password configured for the default "
                "user. Are you sure your configuration is correct?")
LOAD_KEPT = ("WARNING: ACL errors detected, no change to the previously active ACL rules was "
             "performed")
CATEGORIES = {"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
              "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
              "dangerous", "connection", "transaction", "scripting"}


def noperm(cmd):
    return "NOPERM this user has no permissions to run the '%s' command" % cmd


def modifier(op, why):
    return "ERR Error in ACL SETUSER modifier '%s': %s" % (op, why)


def sha(password):
    return hashlib.sha256(password.encode()).hexdigest().encode()


def script_suffix(body):
    return " script: %s, on @user_script:1." % hashlib.sha1(body.encode()).hexdigest()


def e(text):
    return Error(text.encode())


def rules(text):
    """A "commands" rule string with its single-command rules sorted. Redis 7.0 emits those in
    the order of its command hash table, seeded at random per process; `+@all`/`-@all` and the
    categories come first, in a fixed order."""
    if isinstance(text, bytes):
        text = text.decode()
    tokens = text.split()
    cats = [t for t in tokens if t[1:2] == "@"]
    cmds = [t for t in tokens if t[1:2] != "@"]
    assert tokens == cats + cmds, text
    return " ".join(cats + sorted(cmds))


def line_rules(line):
    """An ACL LIST line without selectors, its single-command rules sorted as by rules()."""
    tokens = line.decode().split()
    i = next(i for i, t in enumerate(tokens) if t in ("+@all", "-@all"))
    return " ".join(tokens[:i] + [rules(" ".join(tokens[i:]))])


def setuser(r, name, *rule_args):
    assert r.execute_command("ACL", "SETUSER", name, *rule_args) == b"OK"


def getuser(r, name):
    reply = r.execute_command("ACL", "GETUSER", name)
    assert reply[::2] == [b"flags", b"passwords", b"commands", b"keys", b"channels",
                          b"selectors"], reply
    return dict(zip(reply[::2], reply[1::2]))


def commands_after(r, *rule_args):
    """The GETUSER "commands" of a user reset then given rule_args (single commands sorted)."""
    setuser(r, "seq", "reset", *rule_args)
    return rules(getuser(r, "seq")[b"commands"])


def acl_log(r, *args):
    """ACL LOG entries as dicts, after checking each has exactly Redis 7.0's fields in order."""
    out = []
    for entry in r.execute_command("ACL", "LOG", *args):
        assert entry[::2] == FIELDS, entry
        out.append(dict(zip(entry[::2], entry[1::2])))
    return out


def brief(entry):
    """count, reason, context, object, username of a log entry."""
    return (entry[b"count"], entry[b"reason"].decode(), entry[b"context"].decode(),
            entry[b"object"].decode(), entry[b"username"].decode())


@pytest.fixture(autouse=True)
def clean_acl(server, r):
    """Every test ends with only the default user (on nopass ~* &* +@all) and an empty log."""
    yield
    for name in r.execute_command("ACL", "USERS"):
        if name != b"default":
            r.execute_command("ACL", "DELUSER", name)
    r.execute_command("ACL", "SETUSER", "default", "on", "nopass", "~*", "&*", "+@all",
                      "clearselectors")
    r.execute_command("ACL", "LOG", "RESET")
    assert r.execute_command("ACL", "LIST") == [DEFAULT_LINE]


@pytest.fixture
def login(server):
    """login(user, password="pw") -> a RawConn authenticated as user; all closed at teardown."""
    opened = []

    def make(user, password="pw"):
        c = server.raw()
        opened.append(c)
        assert c.command("AUTH", user, password) == Simple(b"OK")
        return c

    yield make
    for c in opened:
        c.close()


# ---- SETUSER rules, GETUSER, LIST --------------------------------------------------------------

def test_new_user_has_nothing(r):
    setuser(r, "alice")
    assert r.execute_command("ACL", "GETUSER", "alice") == [
        b"flags", [b"off"], b"passwords", [], b"commands", b"-@all", b"keys", b"",
        b"channels", b"", b"selectors", []]
    assert r.execute_command("ACL", "LIST") == [b"user alice off resetchannels -@all",
                                               DEFAULT_LINE]


def test_default_user_and_missing_user(r):
    assert r.execute_command("ACL", "GETUSER", "default") == [
        b"flags", [b"on", b"nopass"], b"passwords", [], b"commands", b"+@all", b"keys", b"~*",
        b"channels", b"&*", b"selectors", []]
    assert r.execute_command("ACL", "GETUSER", "nosuch") is None
    assert r.execute_command("ACL", "USERS") == [b"default"]


def test_getuser_and_list_of_a_typical_user(r):
    setuser(r, "alice", "on", ">pw", "~k*", "&ch", "+get")
    assert r.execute_command("ACL", "GETUSER", "alice") == [
        b"flags", [b"on"], b"passwords", [sha("pw")], b"commands", b"-@all +get",
        b"keys", b"~k*", b"channels", b"&ch", b"selectors", []]
    assert r.execute_command("ACL", "LIST") == [
        b"user alice on #" + sha("pw") + b" ~k* resetchannels &ch -@all +get", DEFAULT_LINE]


def test_getuser_resp3_is_a_map_with_flags_as_a_set(server, r):
    setuser(r, "alice", "reset", "on", "nopass", "~a*", "+get", "(~b* +set)")
    with server.raw() as c:
        c.command("HELLO", "3")
        assert c.command("ACL", "GETUSER", "alice") == {
            b"flags": {b"on", b"nopass", b"sanitize-payload"}, b"passwords": [],
            b"commands": b"-@all +get", b"keys": b"~a*", b"channels": b"",
            b"selectors": [{b"commands": b"-@all +set", b"keys": b"~b*", b"channels": b""}]}


def test_users_and_list_are_sorted_by_name(r):
    for name in ("zed", "alice", "Bob", "a@b"):
        setuser(r, name)
    assert r.execute_command("ACL", "USERS") == [b"Bob", b"a@b", b"alice", b"default", b"zed"]
    assert r.execute_command("ACL", "LIST") == [
        b"user Bob off resetchannels -@all", b"user a@b off resetchannels -@all",
        b"user alice off resetchannels -@all", DEFAULT_LINE, b"user zed off resetchannels -@all"]


def test_on_off(r, server):
    setuser(r, "alice", "on", ">pw", "+@all")
    assert getuser(r, "alice")[b"flags"] == [b"on"]
    setuser(r, "alice", "off")
    assert getuser(r, "alice")[b"flags"] == [b"off"]
    with server.raw() as c:
        assert c.command("AUTH", "alice", "pw") == e(WRONGPASS)
        setuser(r, "alice", "on")
        assert c.command("AUTH", "alice", "pw") == Simple(b"OK")


def test_passwords_are_added_in_order_and_removed(r, server):
    setuser(r, "alice", "on", ">p1", ">p2", ">p1", "+@all")
    assert getuser(r, "alice")[b"passwords"] == [sha("p1"), sha("p2")]
    setuser(r, "alice", "<p1")
    assert getuser(r, "alice")[b"passwords"] == [sha("p2")]
    assert err(r, "ACL", "SETUSER", "alice", "<nothere") == modifier("<nothere", NO_SUCH_PASSWORD)
    with server.raw() as c:
        assert c.command("AUTH", "alice", "p1") == e(WRONGPASS)
        assert c.command("AUTH", "alice", "p2") == Simple(b"OK")


def test_hashed_passwords(r, server):
    h = sha("password").decode()
    setuser(r, "alice", "on", ">other", "#" + h, "+@all")
    assert getuser(r, "alice")[b"passwords"] == [sha("other"), h.encode()]
    with server.raw() as c:
        assert c.command("AUTH", "alice", "password") == Simple(b"OK")
    setuser(r, "alice", "!" + h)
    assert getuser(r, "alice")[b"passwords"] == [sha("other")]
    zeros = "0" * 64
    assert err(r, "ACL", "SETUSER", "alice", "!" + zeros) == modifier("!" + zeros, NO_SUCH_PASSWORD)
    for bad in ("#abc", "!abc", "#" + h.upper(), "#" + h + "0", "#" + "g" * 64):
        assert err(r, "ACL", "SETUSER", "alice", bad) == modifier(bad, BAD_HASH)


def test_nopass_and_resetpass(r, server):
    setuser(r, "alice", "on", ">pw", "nopass", "+@all")
    assert getuser(r, "alice")[b"flags"] == [b"on", b"nopass"]
    assert getuser(r, "alice")[b"passwords"] == []
    with server.raw() as c:
        assert c.command("AUTH", "alice", "anything") == Simple(b"OK")
        assert c.command("AUTH", "alice", "") == Simple(b"OK")
    setuser(r, "alice", ">x")  # a password ends nopass
    assert getuser(r, "alice")[b"flags"] == [b"on"]
    assert getuser(r, "alice")[b"passwords"] == [sha("x")]
    setuser(r, "alice", "resetpass")
    assert getuser(r, "alice")[b"flags"] == [b"on"]
    assert getuser(r, "alice")[b"passwords"] == []
    assert r.execute_command("ACL", "LIST")[0] == b"user alice on resetchannels +@all"
    with server.raw() as c:
        assert c.command("AUTH", "alice", "x") == e(WRONGPASS)
        assert c.command("AUTH", "alice", "") == e(WRONGPASS)


def test_key_patterns_with_read_write_flags(r):
    setuser(r, "alice", "~a*", "%R~r*", "%W~w*", "%RW~b*", "~a*")
    assert getuser(r, "alice")[b"keys"] == b"~a* %R~r* %W~w* ~b*"
    assert r.execute_command("ACL", "LIST")[0] == (
        b"user alice off ~a* %R~r* %W~w* ~b* resetchannels -@all")
    # the same pattern again merges its flags where it first stood
    setuser(r, "bob", "%R~a*", "~b*", "%W~a*", "%R~c*", "%R~c*")
    assert getuser(r, "bob")[b"keys"] == b"~a* ~b* %R~c*"


def test_allkeys_and_resetkeys(r):
    setuser(r, "alice", "~a", "%R~b", "allkeys")
    assert getuser(r, "alice")[b"keys"] == b"~*"
    for op in ("~x", "%R~x", "%R~*"):
        assert err(r, "ACL", "SETUSER", "alice", op) == modifier(op, AFTER_ALLKEYS)
    setuser(r, "alice", "resetkeys", "~x")
    assert getuser(r, "alice")[b"keys"] == b"~x"
    setuser(r, "alice", "~*")  # ~* is allkeys: the earlier patterns go
    assert getuser(r, "alice")[b"keys"] == b"~*"
    setuser(r, "alice", "resetkeys", "%R~*", "~b")
    assert getuser(r, "alice")[b"keys"] == b"%R~* ~b"
    setuser(r, "alice", "resetkeys")
    assert getuser(r, "alice")[b"keys"] == b""


def test_channel_patterns(r):
    setuser(r, "alice", "&a", "&b*", "&a")
    assert getuser(r, "alice")[b"channels"] == b"&a &b*"
    assert r.execute_command("ACL", "LIST")[0] == b"user alice off resetchannels &a &b* -@all"
    setuser(r, "alice", "allchannels")
    assert getuser(r, "alice")[b"channels"] == b"&*"
    assert r.execute_command("ACL", "LIST")[0] == b"user alice off &* -@all"
    assert err(r, "ACL", "SETUSER", "alice", "&x") == modifier("&x", AFTER_ALLCHANNELS)
    setuser(r, "alice", "resetchannels", "&x", "&y")
    assert getuser(r, "alice")[b"channels"] == b"&x &y"
    setuser(r, "alice", "&*")
    assert getuser(r, "alice")[b"channels"] == b"&*"
    setuser(r, "alice", "resetchannels")
    assert getuser(r, "alice")[b"channels"] == b""


def test_allcommands_nocommands_and_reset(r):
    setuser(r, "alice", "on", ">pw", "~k", "&c", "allcommands", "(~s +get)")
    assert getuser(r, "alice")[b"commands"] == b"+@all"
    setuser(r, "alice", "nocommands")
    assert getuser(r, "alice")[b"commands"] == b"-@all"
    setuser(r, "alice", "reset")
    assert r.execute_command("ACL", "GETUSER", "alice") == [
        b"flags", [b"off", b"sanitize-payload"], b"passwords", [], b"commands", b"-@all",
        b"keys", b"", b"channels", b"", b"selectors", []]
    assert r.execute_command("ACL", "LIST")[0] == (
        b"user alice off sanitize-payload resetchannels -@all")
    setuser(r, "alice", "on", "nopass")
    assert getuser(r, "alice")[b"flags"] == [b"on", b"nopass", b"sanitize-payload"]


def test_commands_string_after_sequences_of_rules(r):
    assert commands_after(r, "+@all", "-get") == "+@all -get"
    assert commands_after(r, "-@all", "+get", "+set", "-get") == "-@all +set"
    assert commands_after(r, "+@read", "-@write") == "-@all +@read"
    assert commands_after(r, "+@read", "-get") == "-@all +@read -get"
    assert commands_after(r, "+@all", "-@all") == "-@all"
    assert commands_after(r, "+@all", "+get") == "+@all"
    assert commands_after(r, "-get") == "-@all"
    assert commands_after(r, "+get", "+@string") == "-@all +@string"
    assert commands_after(r, "+@hash", "+@set", "-hget") == "-@all +@set +@hash -hget"
    assert commands_after(r, "+@all", "-@dangerous", "+config|get") == (
        "+@all -@dangerous +config|get")
    assert commands_after(r, "+@all", "-set", "-get", "-lpush", "+get") == "+@all -lpush -set"
    assert commands_after(r, "+hget", "+get", "+set", "+lpush") == "-@all +get +hget +lpush +set"
    # no category fits: the string commands that only read, one by one
    assert commands_after(r, "+@string", "-@write") == (
        "-@all +get +getrange +lcs +mget +strlen +substr")


def test_subcommand_rules(r, login):
    setuser(r, "alice", "on", ">pw", "+config|get", "+client|setname")
    assert rules(getuser(r, "alice")[b"commands"]) == "-@all +client|setname +config|get"
    c = login("alice")
    assert c.command("CONFIG", "GET", "maxmemory") == [b"maxmemory", b"0"]
    assert c.command("CONFIG", "SET", "maxmemory", "0") == e(noperm("config|set"))
    assert c.command("CLIENT", "SETNAME", "x") == Simple(b"OK")
    assert c.command("CLIENT", "ID") == e(noperm("client|id"))
    setuser(r, "alice", "+config")
    assert rules(getuser(r, "alice")[b"commands"]) == "-@all +client|setname +config"
    setuser(r, "alice", "-config|set")
    assert rules(getuser(r, "alice")[b"commands"]) == "-@all +client|setname +config -config|set"
    assert c.command("CONFIG", "SET", "maxmemory", "0") == e(noperm("config|set"))
    setuser(r, "alice", "+@all", "-client")  # +@all lifts the earlier -config|set
    assert rules(getuser(r, "alice")[b"commands"]) == "+@all -client"
    setuser(r, "alice", "-config|set")
    assert rules(getuser(r, "alice")[b"commands"]) == "+@all -client -config|set"


def test_first_arg_rules(r, login):
    setuser(r, "alice", "on", ">pw", "~*", "+select|0", "+get|x")
    assert rules(getuser(r, "alice")[b"commands"]) == "-@all +get|x +select|0"
    assert line_rules(r.execute_command("ACL", "LIST")[0]) == (
        "user alice on #%s ~* resetchannels -@all +get|x +select|0" % sha("pw").decode())
    c = login("alice")
    assert c.command("SELECT", "0") == Simple(b"OK")
    assert c.command("SELECT", "1") == e(noperm("select"))
    assert c.command("GET", "k") == e(noperm("get"))
    assert r.execute_command("ACL", "DRYRUN", "alice", "SELECT", "0") == b"OK"
    assert r.execute_command("ACL", "DRYRUN", "alice", "SELECT", "2") == (
        b"This user has no permissions to run the 'select' command")
    assert err(r, "ACL", "SETUSER", "alice", "-get|x") == modifier("-get|x", UNKNOWN)
    assert err(r, "ACL", "SETUSER", "alice", "+config|get|x") == modifier(
        "+config|get|x", "Allowing first-arg of a subcommand is not supported")
    for op in ("+config|", "+select|"):
        assert err(r, "ACL", "SETUSER", "alice", op) == modifier(op, SYNTAX)


def test_rules_are_case_insensitive_patterns_are_not(r):
    setuser(r, "alice", "ON", "+GET", "~K*", "&C*", "+@READ", "+Config|GET")
    user = getuser(r, "alice")
    assert user[b"flags"] == [b"on"]
    assert rules(user[b"commands"]) == "-@all +@read +config|get"
    assert user[b"keys"] == b"~K*"
    assert user[b"channels"] == b"&C*"


def test_setuser_errors(r):
    cases = [("foo", SYNTAX), ("%X~a", SYNTAX), ("%~a", SYNTAX), ("%RR~a", SYNTAX),
             ("+nosuchcmd", UNKNOWN), ("-nosuchcmd", UNKNOWN), ("+@nosuch", UNKNOWN),
             ("-@nosuch", UNKNOWN), ("+config|nosuch", UNKNOWN), ("+", UNKNOWN), ("-@", UNKNOWN),
             ("+|get", UNKNOWN)]
    for op, why in cases:
        assert err(r, "ACL", "SETUSER", "alice", op) == modifier(op, why)
    assert err(r, "ACL", "SETUSER") == "ERR wrong number of arguments for 'acl|setuser' command"
    for args in (("a b",), ("a b", "on")):
        assert err(r, "ACL", "SETUSER", *args) == (
            "ERR Usernames can't contain spaces or null characters")
    assert r.execute_command("ACL", "USERS") == [b"default"]


def test_failed_setuser_changes_nothing(r):
    assert err(r, "ACL", "SETUSER", "alice", "on", "+get", "bogus") == modifier("bogus", SYNTAX)
    assert r.execute_command("ACL", "GETUSER", "alice") is None
    setuser(r, "alice", "on", "~k")
    assert err(r, "ACL", "SETUSER", "alice", "off", "+set", "~x", "+nosuch") == modifier(
        "+nosuch", UNKNOWN)
    user = getuser(r, "alice")
    assert (user[b"flags"], user[b"commands"], user[b"keys"]) == ([b"on"], b"-@all", b"~k")


# ---- selectors ---------------------------------------------------------------------------------

def test_selectors_in_getuser_and_list(r):
    setuser(r, "alice", "on", "nopass", "~a*", "+get", "(~b* +set)", "(%R~c* &ch +@hash)")
    assert getuser(r, "alice")[b"selectors"] == [
        [b"commands", b"-@all +set", b"keys", b"~b*", b"channels", b""],
        [b"commands", b"-@all +@hash", b"keys", b"%R~c*", b"channels", b"&ch"]]
    assert r.execute_command("ACL", "LIST")[0] == (
        b"user alice on nopass ~a* resetchannels -@all +get (~b* resetchannels -@all +set) "
        b"(%R~c* resetchannels &ch -@all +@hash)")
    setuser(r, "alice", "clearselectors")
    assert getuser(r, "alice")[b"selectors"] == []
    assert r.execute_command("ACL", "LIST")[0] == (
        b"user alice on nopass ~a* resetchannels -@all +get")


def test_selector_split_across_arguments_and_empty(r):
    setuser(r, "alice", "(~b*", "+set)")
    setuser(r, "alice", "(", "~c*", "+get", ")")
    setuser(r, "alice", "()")
    assert getuser(r, "alice")[b"selectors"] == [
        [b"commands", b"-@all +set", b"keys", b"~b*", b"channels", b""],
        [b"commands", b"-@all +get", b"keys", b"~c*", b"channels", b""],
        [b"commands", b"-@all", b"keys", b"", b"channels", b""]]


def test_selector_errors(r):
    assert err(r, "ACL", "SETUSER", "alice", "(~x", "+get") == (
        "ERR Unmatched parenthesis in acl selector starting at '(~x'.")
    assert err(r, "ACL", "SETUSER", "alice", "~x", "+get)") == modifier("+get)", UNKNOWN)
    for op in ("(foo)", "(on)", "(>pw)", "(nopass)", "(reset)", "(clearselectors)"):
        assert err(r, "ACL", "SETUSER", "alice", op) == modifier(op, SYNTAX)
    assert err(r, "ACL", "SETUSER", "alice", "(+nosuch)") == modifier("(+nosuch)", UNKNOWN)
    assert r.execute_command("ACL", "GETUSER", "alice") is None


def test_a_selector_grants_what_the_root_denies(r, login):
    setuser(r, "alice", "on", ">pw", "~a*", "+get", "(~b* +set)")
    c = login("alice")
    assert c.command("SET", "b1", "x") == Simple(b"OK")
    assert c.command("GET", "a1") is None
    assert c.command("GET", "b1") == e(NOPERM_KEY)  # no selector has both get and b*
    assert c.command("SET", "a1", "x") == e(NOPERM_KEY)  # key denial beats command denial
    assert c.command("HSET", "a1", "f", "v") == e(noperm("hset"))
    assert [brief(x) for x in acl_log(r)] == [(1, "command", "toplevel", "hset", "alice"),
                                           (1, "key", "toplevel", "a1", "alice"),
                                           (1, "key", "toplevel", "b1", "alice")]


def test_selector_denial_names_the_most_relevant_key(r):
    setuser(r, "alice", "on", "nopass", "~a*", "+get", "(~b* +set)", "(%R~c* +@read)")
    dry = lambda *cmd: r.execute_command("ACL", "DRYRUN", "alice", *cmd)  # noqa: E731
    assert dry("MGET", "a1", "b1") == b"This user has no permissions to access the 'a1' key"
    assert dry("MGET", "c1", "b1") == b"This user has no permissions to access the 'b1' key"
    assert dry("MGET", "c1", "c2") == b"OK"
    assert dry("SET", "z1", "x") == b"This user has no permissions to access the 'z1' key"
    assert dry("HSET", "a1", "f", "v") == b"This user has no permissions to run the 'hset' command"
    # two key denials: the one of the later argument
    setuser(r, "bob", "on", "nopass", "~a*", "+mget", "(~b* +mget)")
    dry = lambda *cmd: r.execute_command("ACL", "DRYRUN", "bob", *cmd)  # noqa: E731
    assert dry("MGET", "a1", "b1") == b"This user has no permissions to access the 'b1' key"
    assert dry("MGET", "b1", "a1") == b"This user has no permissions to access the 'a1' key"
    assert dry("MGET", "a1", "a2", "b1", "b2") == (
        b"This user has no permissions to access the 'b1' key")
    # a channel denial beats a command denial
    setuser(r, "carol", "on", "nopass", "&c1", "+publish", "(~* &c2 +get)")
    assert r.execute_command("ACL", "DRYRUN", "carol", "PUBLISH", "c2", "x") == (
        b"This user has no permissions to access the 'c2' channel")


# ---- USERS, WHOAMI, DELUSER --------------------------------------------------------------------

def test_whoami(r, login):
    assert r.execute_command("ACL", "WHOAMI") == b"default"
    setuser(r, "alice", "on", ">pw", "+acl|whoami")
    assert login("alice").command("ACL", "WHOAMI") == b"alice"
    assert err(r, "ACL", "WHOAMI", "x") == "ERR wrong number of arguments for 'acl|whoami' command"


def test_deluser_counts_and_refuses_default(r):
    for name in ("alice", "bob"):
        setuser(r, name)
    assert r.execute_command("ACL", "DELUSER", "alice", "nosuch", "alice") == 1
    assert r.execute_command("ACL", "DELUSER", "nosuch") == 0
    assert err(r, "ACL", "DELUSER", "default") == "ERR The 'default' user cannot be removed"
    assert err(r, "ACL", "DELUSER", "bob", "default") == "ERR The 'default' user cannot be removed"
    assert r.execute_command("ACL", "USERS") == [b"bob", b"default"]  # bob kept
    assert err(r, "ACL", "DELUSER") == "ERR wrong number of arguments for 'acl|deluser' command"


def test_deluser_disconnects_the_users_clients(r, server, login):
    setuser(r, "alice", "on", ">pw", "+@all")
    setuser(r, "bob", "on", ">pw", "+@all")
    a1, a2, b = login("alice"), login("alice"), login("bob")
    assert r.execute_command("ACL", "DELUSER", "alice") == 1
    assert a1.is_closed()
    assert a2.is_closed()
    assert b.command("PING") == Simple(b"PONG")
    assert r.execute_command("PING") == b"PONG"


def test_deluser_of_its_own_user_replies_then_closes(r, login):
    setuser(r, "alice", "on", ">pw", "+@all")
    c = login("alice")
    assert c.command("ACL", "DELUSER", "alice") == 1
    assert c.is_closed()


def test_disabling_or_changing_a_user_keeps_its_clients(r, login):
    setuser(r, "alice", "on", ">pw", "+@all")
    c = login("alice")
    setuser(r, "alice", "off")
    assert c.command("PING") == Simple(b"PONG")
    setuser(r, "alice", "resetpass", "-@all", "+get")
    assert c.command("PING") == e(noperm("ping"))  # the new rules apply at once
    assert c.command("ACL", "WHOAMI") == e(noperm("acl|whoami"))


# ---- CAT, GENPASS, HELP, subcommand errors -----------------------------------------------------

def test_cat_lists_the_categories(r):
    cats = r.execute_command("ACL", "CAT")
    assert len(cats) == 21
    assert {c.decode() for c in cats} == CATEGORIES


def test_cat_of_a_category(r):
    members = lambda cat: set(r.execute_command("ACL", "CAT", cat))  # noqa: E731
    read, string, write = members("read"), members("string"), members("write")
    assert {b"get", b"mget", b"strlen", b"hget", b"keys", b"scan", b"lrange"} <= read
    assert {b"set", b"del", b"lpush"}.isdisjoint(read)
    assert {b"get", b"set", b"incr", b"append"} <= string
    assert {b"hget", b"lpush"}.isdisjoint(string)
    assert {b"set", b"del", b"incr", b"flushall"} <= write
    assert b"get" not in write
    dangerous = members("dangerous")
    assert {b"config|get", b"config|set", b"keys", b"flushall", b"info", b"acl|setuser",
            b"acl|log", b"client|kill", b"sort"} <= dangerous
    assert {b"config", b"acl", b"acl|whoami", b"acl|cat", b"get"}.isdisjoint(dangerous)
    assert {b"auth", b"hello", b"ping", b"select", b"client|setname"} <= members("connection")
    assert {b"multi", b"exec", b"watch"} <= members("transaction")
    assert {b"publish", b"subscribe", b"psubscribe"} <= members("pubsub")
    assert {b"eval", b"evalsha", b"script|load"} <= members("scripting")


def test_cat_errors(r):
    assert err(r, "ACL", "CAT", "nosuch") == "ERR Unknown category 'nosuch'"
    assert err(r, "ACL", "CAT", "read", "x") == (
        "ERR unknown subcommand or wrong number of arguments for 'CAT'. Try ACL HELP.")


def test_genpass(r):
    for bits, length in ((None, 64), (256, 64), (32, 8), (5, 2), (1, 1), (4096, 1024)):
        args = [] if bits is None else [bits]
        pw = r.execute_command("ACL", "GENPASS", *args)
        assert len(pw) == length and all(c in b"0123456789abcdef" for c in pw), pw
    assert r.execute_command("ACL", "GENPASS") != r.execute_command("ACL", "GENPASS")
    bad = ("ERR ACL GENPASS argument must be the number of bits for the output password, a "
           "positive number up to 4096")
    for bits in ("0", "-1", "4097"):
        assert err(r, "ACL", "GENPASS", bits) == bad
    assert err(r, "ACL", "GENPASS", "abc") == "ERR value is not an integer or out of range"
    assert err(r, "ACL", "GENPASS", "32", "x") == (
        "ERR unknown subcommand or wrong number of arguments for 'GENPASS'. Try ACL HELP.")


def test_help(server, r):
    with server.raw() as c:
        lines = c.command("ACL", "HELP")
    assert isinstance(lines, list) and len(lines) > 10
    assert all(isinstance(x, bytes) for x in lines)
    assert lines[0].startswith(b"ACL <subcommand>")


def test_acl_subcommand_errors(r):
    assert err(r, "ACL") == "ERR wrong number of arguments for 'acl' command"
    assert err(r, "ACL", "NOSUCH") == "ERR unknown subcommand 'NOSUCH'. Try ACL HELP."
    for sub in ("users", "list", "save", "load"):
        assert err(r, "ACL", sub.upper(), "x") == (
            "ERR wrong number of arguments for 'acl|%s' command" % sub)
    assert err(r, "ACL", "GETUSER") == "ERR wrong number of arguments for 'acl|getuser' command"
    assert err(r, "ACL", "GETUSER", "a", "b") == (
        "ERR wrong number of arguments for 'acl|getuser' command")


# ---- AUTH, HELLO, requirepass ------------------------------------------------------------------

def test_auth_with_user_and_password(r, server):
    setuser(r, "alice", "on", ">pw", "+@all")
    with server.raw() as c:
        assert c.command("AUTH", "alice", "pw") == Simple(b"OK")
        assert c.command("ACL", "WHOAMI") == b"alice"
        assert c.command("AUTH", "alice", "wrong") == e(WRONGPASS)
        assert c.command("ACL", "WHOAMI") == b"alice"  # a failed AUTH keeps the user
        assert c.command("AUTH", "nosuch", "pw") == e(WRONGPASS)
        assert c.command("AUTH", "default", "whatever") == Simple(b"OK")  # default is nopass
        assert c.command("ACL", "WHOAMI") == b"default"


def test_auth_of_a_disabled_user(r, server):
    setuser(r, "alice", "off", ">pw", "+@all")
    setuser(r, "bob", "off", "nopass", "+@all")
    with server.raw() as c:
        assert c.command("AUTH", "alice", "pw") == e(WRONGPASS)
        assert c.command("AUTH", "bob", "x") == e(WRONGPASS)
        assert c.command("ACL", "WHOAMI") == b"default"


def test_auth_with_password_only_is_the_default_user(r, server):
    with server.raw() as c:
        assert c.command("AUTH", "x") == e(DEFAULT_AUTH)  # default is nopass
    try:
        setuser(r, "default", ">dpw")
        with server.raw() as c:
            assert c.command("PING") == e("NOAUTH Authentication required.")
            assert c.command("AUTH", "wrong") == e(WRONGPASS)
            assert c.command("AUTH", "dpw") == Simple(b"OK")
            assert c.command("ACL", "WHOAMI") == b"default"
    finally:
        setuser(r, "default", "nopass")


def test_hello_auth(r, server):
    setuser(r, "alice", "on", ">pw", "+@all")
    setuser(r, "dis", "off", ">pw", "+@all")
    with server.raw() as c:
        assert c.command("HELLO", "2", "AUTH", "alice", "bad") == e(WRONGPASS)
        assert c.command("HELLO", "2", "AUTH", "dis", "pw") == e(WRONGPASS)
        assert c.command("ACL", "WHOAMI") == b"default"
        reply = c.command("HELLO", "3", "AUTH", "alice", "pw")
        assert isinstance(reply, dict) and reply[b"proto"] == 3
        assert c.command("ACL", "WHOAMI") == b"alice"
        assert c.command("HELLO", "3", "AUTH", "alice", "bad") == e(WRONGPASS)
        assert c.command("ACL", "WHOAMI") == b"alice"


def test_no_auth_commands_need_no_permission(r, server, login):
    setuser(r, "nothing", "on", ">pw")
    c = login("nothing")
    assert c.command("PING") == e(noperm("ping"))
    assert c.command("HELLO", "2")[:2] == [b"server", b"redis"]
    assert c.command("AUTH", "default", "x") == Simple(b"OK")
    assert c.command("ACL", "WHOAMI") == b"default"
    c2 = login("nothing")
    assert c2.command("QUIT") == Simple(b"OK")
    assert c2.is_closed()


def test_default_user_off_requires_auth(r, server):
    try:
        setuser(r, "default", "off")
        assert r.execute_command("PING") == b"PONG"  # an authenticated client carries on
        with server.raw() as c:
            assert c.command("PING") == e("NOAUTH Authentication required.")
            assert c.command("AUTH", "x") == e(DEFAULT_AUTH)  # still nopass
            assert c.command("AUTH", "default", "x") == e(WRONGPASS)
            setuser(r, "default", "on")
            assert c.command("PING") == Simple(b"PONG")  # nopass and on: no AUTH needed
    finally:
        setuser(r, "default", "on")


def test_requirepass_is_the_default_users_password(r, server):
    try:
        assert r.execute_command("CONFIG", "SET", "requirepass", "s3cret") == b"OK"
        assert getuser(r, "default")[b"flags"] == [b"on"]
        assert getuser(r, "default")[b"passwords"] == [sha("s3cret")]
        assert r.execute_command("ACL", "LIST") == [
            b"user default on #" + sha("s3cret") + b" ~* &* +@all"]
        with server.raw() as c:
            assert c.command("GET", "k") == e("NOAUTH Authentication required.")
            assert c.command("AUTH", "default", "s3cret") == Simple(b"OK")
        setuser(r, "default", ">other")
        assert getuser(r, "default")[b"passwords"] == [sha("s3cret"), sha("other")]
        assert r.execute_command("CONFIG", "GET", "requirepass") == [b"requirepass", b"s3cret"]
    finally:
        assert r.execute_command("CONFIG", "SET", "requirepass", "") == b"OK"
    assert getuser(r, "default")[b"flags"] == [b"on", b"nopass"]
    assert getuser(r, "default")[b"passwords"] == []
    assert r.execute_command("ACL", "LIST") == [DEFAULT_LINE]


def test_server_started_with_requirepass(make_server):
    s = make_server(["--requirepass", "pw"])
    with s.raw() as c:
        assert c.command("ACL", "WHOAMI") == e("NOAUTH Authentication required.")
        assert c.command("AUTH", "pw") == Simple(b"OK")
        assert c.command("ACL", "LIST") == [b"user default on #" + sha("pw") + b" ~* &* +@all"]


# ---- permission checks -------------------------------------------------------------------------

def test_denied_command_and_subcommand(r, login):
    setuser(r, "alice", "on", ">pw", "~*", "+@all", "-get", "-config|set")
    c = login("alice")
    assert c.command("GET", "k") == e(noperm("get"))
    assert c.command("get", "k") == e(noperm("get"))
    assert c.command("CONFIG", "SET", "maxmemory", "0") == e(noperm("config|set"))
    assert c.command("CONFIG", "GET", "maxmemory") == [b"maxmemory", b"0"]
    assert c.command("SET", "k", "v") == Simple(b"OK")
    # arity and unknown commands are checked first
    assert c.command("GET") == e("ERR wrong number of arguments for 'get' command")
    assert c.command("NOSUCH") == e("ERR unknown command 'NOSUCH', with args beginning with: ")


def test_read_and_write_key_patterns(r, login):
    r.execute_command("SET", "r1", "v")
    r.execute_command("SET", "w1", "v")
    setuser(r, "alice", "on", ">pw", "%R~r*", "%W~w*", "~b*", "+@all")
    c = login("alice")
    assert c.command("GET", "r1") == b"v"
    assert c.command("SET", "r1", "x") == e(NOPERM_KEY)
    assert c.command("DEL", "r1") == e(NOPERM_KEY)
    assert c.command("GET", "w1") == e(NOPERM_KEY)
    assert c.command("TTL", "w1") == e(NOPERM_KEY)
    assert c.command("SET", "w1", "x") == Simple(b"OK")
    assert c.command("APPEND", "w1", "y") == 2
    assert c.command("SETRANGE", "w1", "0", "z") == 2
    assert c.command("EXPIRE", "w1", "100") == 1
    assert c.command("INCR", "w1") == e(NOPERM_KEY)  # reads the value too
    # commands that neither read nor change the value need only a matching pattern
    assert c.command("STRLEN", "w1") == 2
    assert c.command("EXISTS", "w1", "r1") == 2
    assert c.command("STRLEN", "zz") == e(NOPERM_KEY)
    assert c.command("SET", "b1", "x") == Simple(b"OK")
    assert c.command("GET", "b1") == b"x"
    assert c.command("MSET", "b2", "1", "w2", "2", "r2", "3") == e(NOPERM_KEY)
    assert c.command("DEL", "w1") == 1


def test_copy_lmove_keys(r, login):
    r.execute_command("SET", "r1", "v")
    r.execute_command("SET", "w1", "v")
    r.execute_command("RPUSH", "rl", "a", "b")
    setuser(r, "alice", "on", ">pw", "%R~r*", "%W~w*", "+@all")
    c = login("alice")
    assert c.command("COPY", "r1", "w2") == 1
    assert c.command("COPY", "w1", "w3") == e(NOPERM_KEY)  # the source is read
    assert c.command("COPY", "r1", "r3") == e(NOPERM_KEY)  # the destination is written
    assert c.command("LMOVE", "rl", "wl", "LEFT", "RIGHT") == e(NOPERM_KEY)  # source written too
    assert r.execute_command("LRANGE", "rl", "0", "-1") == [b"a", b"b"]
    assert r.execute_command("GET", "w2") == b"v"


def test_sort_by_and_get_need_read_access_to_every_key(r, login):
    r.execute_command("RPUSH", "rl", "2", "1")
    setuser(r, "alice", "on", ">pw", "%R~r*", "%W~w*", "+@all")
    setuser(r, "bob", "on", ">pw", "%R~*", "+@all")
    a, b = login("alice"), login("bob")
    assert a.command("SORT", "rl") == [b"1", b"2"]
    assert a.command("SORT", "rl", "BY", "nosort") == [b"2", b"1"]
    assert a.command("SORT", "rl", "STORE", "w1") == 2
    assert a.command("SORT", "rl", "STORE", "r2") == e(NOPERM_KEY)
    assert a.command("SORT", "rl", "BY", "r_*") == e(
        "ERR BY option of SORT denied due to insufficient ACL permissions.")
    for pattern in ("r_*", "#"):
        assert a.command("SORT", "rl", "GET", pattern) == e(
            "ERR GET option of SORT denied due to insufficient ACL permissions.")
    assert b.command("SORT", "rl", "BY", "r_*", "GET", "r_*") == [None, None]
    assert [brief(x) for x in acl_log(r)] == [(1, "key", "toplevel", "r2", "alice")]


def test_keys_and_scan_are_not_filtered(r, login):
    for k in ("a1", "b1"):
        r.execute_command("SET", k, "v")
    setuser(r, "alice", "on", ">pw", "~a*", "+@all")
    c = login("alice")
    assert sorted(c.command("KEYS", "*")) == [b"a1", b"b1"]
    assert sorted(c.command("SCAN", "0")[1]) == [b"a1", b"b1"]


def test_new_user_cannot_publish_anywhere(r, login):
    setuser(r, "alice", "on", ">pw", "~*", "+@all")
    c = login("alice")
    assert c.command("PUBLISH", "ch", "x") == e(NOPERM_CHANNEL)
    assert c.command("SUBSCRIBE", "ch") == e(NOPERM_CHANNEL)


def test_channel_permissions(r, login):
    setuser(r, "alice", "on", ">pw", "&news.*", "&lit", "+@all")
    c = login("alice")
    assert c.command("PUBLISH", "news.a", "x") == 0
    assert c.command("PUBLISH", "lit", "x") == 0
    assert c.command("PUBLISH", "other", "x") == e(NOPERM_CHANNEL)
    assert c.command("SUBSCRIBE", "news.a", "other") == e(NOPERM_CHANNEL)
    assert c.command("PING") == Simple(b"PONG")  # nothing was subscribed
    assert c.command("SUBSCRIBE", "news.a", "lit") == [b"subscribe", b"news.a", 1]
    assert c.read_reply() == [b"subscribe", b"lit", 2]
    assert c.command("UNSUBSCRIBE", "other") == [b"unsubscribe", b"other", 2]
    d = login("alice")
    assert d.command("SPUBLISH", "other", "x") == e(NOPERM_CHANNEL)
    assert d.command("SSUBSCRIBE", "other") == e(NOPERM_CHANNEL)
    assert d.command("PUBSUB", "NUMSUB", "other") == [b"other", 0]


def test_psubscribe_patterns_must_match_literally(r, login):
    setuser(r, "alice", "on", ">pw", "&news.*", "&lit", "+@all")
    c = login("alice")
    assert c.command("PSUBSCRIBE", "news.*") == [b"psubscribe", b"news.*", 1]
    assert c.command("PSUBSCRIBE", "news.a*") == e(NOPERM_CHANNEL)
    assert c.command("PSUBSCRIBE", "lit") == [b"psubscribe", b"lit", 2]
    assert c.command("PSUBSCRIBE", "li*") == e(NOPERM_CHANNEL)
    assert r.execute_command("ACL", "DRYRUN", "alice", "PSUBSCRIBE", "news.*") == b"OK"
    assert r.execute_command("ACL", "DRYRUN", "alice", "PSUBSCRIBE", "news.a*") == (
        b"This user has no permissions to access the 'news.a*' channel")


def test_narrowing_channels_disconnects_subscribers(r, login):
    setuser(r, "alice", "on", ">pw", "&news.*", "&lit", "+@all")
    s, p, q = login("alice"), login("alice"), login("alice")
    assert s.command("SUBSCRIBE", "news.a") == [b"subscribe", b"news.a", 1]
    assert p.command("PSUBSCRIBE", "news.*") == [b"psubscribe", b"news.*", 1]
    assert q.command("SUBSCRIBE", "lit") == [b"subscribe", b"lit", 1]
    setuser(r, "alice", "resetchannels", "&news.a", "&lit")
    assert p.is_closed()  # its pattern is no longer allowed as such
    assert s.command("PING") == [b"pong", b""]
    setuser(r, "alice", "resetchannels", "&lit")
    assert s.is_closed()
    assert q.command("PING") == [b"pong", b""]
    assert acl_log(r) == []


def test_multi_refuses_at_queue_time(r, login):
    setuser(r, "alice", "on", ">pw", "~*", "&*", "+@all", "-get", "-config|set")
    c = login("alice")
    assert c.command("MULTI") == Simple(b"OK")
    assert c.command("SET", "a", "1") == Simple(b"QUEUED")
    assert c.command("GET", "a") == e(noperm("get"))
    assert c.command("CONFIG", "SET", "maxmemory", "0") == e(noperm("config|set"))
    assert c.command("EXEC") == e("EXECABORT Transaction discarded because of previous errors.")
    assert r.execute_command("EXISTS", "a") == 0
    assert [brief(x) for x in acl_log(r)] == [(1, "command", "multi", "config|set", "alice"),
                                           (1, "command", "multi", "get", "alice")]


def test_exec_checks_the_rules_again(r, login):
    setuser(r, "alice", "on", ">pw", "~*", "&*", "+@all")
    c = login("alice")
    assert c.command("MULTI") == Simple(b"OK")
    for cmd in (("SET", "a", "1"), ("GET", "a"), ("PUBLISH", "ch", "x"), ("GET", "zz")):
        assert c.command(*cmd) == Simple(b"QUEUED")
    setuser(r, "alice", "-get", "resetchannels")
    changed = ("NOPERM ACLs rules changed between the moment the transaction was accumulated "
               "and the EXEC call. This command is no longer allowed for the following reason: ")
    assert c.command("EXEC") == [
        Simple(b"OK"), e(changed + "no permission to execute the command or subcommand"),
        e(changed + "no permission to access one of the channels used as arguments"),
        e(changed + "no permission to execute the command or subcommand")]
    assert r.execute_command("GET", "a") == b"1"
    assert [brief(x) for x in acl_log(r)] == [(2, "command", "multi", "get", "alice"),
                                           (1, "channel", "multi", "ch", "alice")]


def test_script_calling_a_denied_command(r, login):
    r.execute_command("SET", "a", "v")
    setuser(r, "alice", "on", ">pw", "~*", "&*", "+@all", "-get")
    c = login("alice")
    body = "return redis.call('get','a')"
    denied = "ERR The user executing the script can't run this command or subcommand"
    assert c.command("EVAL", body, "0") == e(denied + script_suffix(body))
    assert c.command("EVAL", "return redis.pcall('get','a')", "0") == e(denied)
    assert c.command("EVAL", "return redis.call('set','a','2')", "0") == Simple(b"OK")
    assert c.command("MULTI") == Simple(b"OK")
    assert c.command("EVAL", body, "0") == Simple(b"QUEUED")
    assert c.command("EXEC") == [e(denied + script_suffix(body))]
    assert [brief(x) for x in acl_log(r)] == [(3, "command", "lua", "get", "alice")]


def test_script_touching_a_denied_key_or_channel(r, login):
    setuser(r, "alice", "on", ">pw", "~a*", "&c1", "+@all")
    c = login("alice")
    body = "return redis.call('get','zz')"
    assert c.command("EVAL", body, "0") == e(
        "ERR The user executing the script can't access at least one of the keys mentioned in "
        "the command arguments" + script_suffix(body))
    body = "return redis.call('publish','c2','x')"
    assert c.command("EVAL", body, "0") == e(
        "ERR The user executing the script can't publish to the channel mentioned in the "
        "command" + script_suffix(body))
    # a declared key is checked before the script runs
    assert c.command("EVAL", "return redis.call('get',KEYS[1])", "1", "zz") == e(NOPERM_KEY)
    assert c.command("EVAL", "return redis.call('get',KEYS[1])", "1", "a1") is None
    assert [brief(x) for x in acl_log(r)] == [(1, "key", "toplevel", "zz", "alice"),
                                           (1, "channel", "lua", "c2", "alice"),
                                           (1, "key", "lua", "zz", "alice")]


# ---- DRYRUN ------------------------------------------------------------------------------------

def test_dryrun(server, r):
    setuser(r, "alice", "on", "nopass", "~k*", "&ch*", "+@all", "-config|set", "-hset")
    with server.raw() as c:
        dry = lambda *cmd: c.command("ACL", "DRYRUN", "alice", *cmd)  # noqa: E731
        assert dry("GET", "k1") == Simple(b"OK")
        assert dry("CONFIG", "GET", "x") == Simple(b"OK")
        assert dry("PUBLISH", "ch1", "x") == Simple(b"OK")
        got = dry("HSET", "k1", "f", "v")
        assert got == b"This user has no permissions to run the 'hset' command"
        assert not isinstance(got, (Error, Simple))  # a bulk string, not an error
        assert dry("CONFIG", "SET", "a", "b") == (
            b"This user has no permissions to run the 'config|set' command")
        assert dry("GET", "x1") == b"This user has no permissions to access the 'x1' key"
        assert dry("MGET", "k1", "x2", "x3") == (
            b"This user has no permissions to access the 'x2' key")
        assert dry("PUBLISH", "zz", "x") == (
            b"This user has no permissions to access the 'zz' channel")
        assert dry("SUBSCRIBE", "ch1", "zz") == (
            b"This user has no permissions to access the 'zz' channel")
    assert acl_log(r) == []  # DRYRUN logs nothing


def test_dryrun_errors(r):
    setuser(r, "alice", "on", "nopass", "+@all")
    assert err(r, "ACL", "DRYRUN", "nobody", "GET", "a") == "ERR User 'nobody' not found"
    assert err(r, "ACL", "DRYRUN", "alice", "nosuch", "a") == "ERR Command 'nosuch' not found"
    assert err(r, "ACL", "DRYRUN", "alice", "GET") == (
        "ERR wrong number of arguments for 'get' command")
    assert err(r, "ACL", "DRYRUN", "alice", "CONFIG", "GET") == (
        "ERR wrong number of arguments for 'config|get' command")
    assert err(r, "ACL", "DRYRUN", "alice") == (
        "ERR wrong number of arguments for 'acl|dryrun' command")


# ---- ACL LOG -----------------------------------------------------------------------------------

def test_log_entry_layout(r, login):
    setuser(r, "alice", "on", ">pw", "~*", "+@all", "-get")
    c = login("alice")
    cid = c.command("CLIENT", "ID")
    assert c.command("GET", "k") == e(noperm("get"))
    raw = r.execute_command("ACL", "LOG")
    assert len(raw) == 1 and raw[0][::2] == FIELDS
    entry = dict(zip(raw[0][::2], raw[0][1::2]))
    assert brief(entry) == (1, "command", "toplevel", "get", "alice")
    age = entry[b"age-seconds"]
    assert isinstance(age, bytes) and 0 <= float(age) < 30  # a double as a bulk string
    info = entry[b"client-info"]
    assert info.startswith(b"id=%d " % cid)
    assert b" user=alice " in info


def test_log_key_channel_and_auth_entries(r, server, login):
    setuser(r, "alice", "on", ">pw", "~k*", "&ch", "+@all")
    c = login("alice")
    assert c.command("SET", "zz", "v") == e(NOPERM_KEY)
    assert c.command("PUBLISH", "other", "x") == e(NOPERM_CHANNEL)
    with server.raw() as d:
        assert d.command("AUTH", "alice", "wrong") == e(WRONGPASS)
        assert d.command("auth", "nosuch", "x") == e(WRONGPASS)
        assert d.command("HELLO", "2", "AUTH", "alice", "bad") == e(WRONGPASS)
        assert d.command("AUTH", "x") == e(DEFAULT_AUTH)  # not a failed pair: not logged
    entries = acl_log(r)
    assert [brief(x) for x in entries] == [(1, "auth", "toplevel", "HELLO", "alice"),
                                           (1, "auth", "toplevel", "auth", "nosuch"),
                                           (1, "auth", "toplevel", "AUTH", "alice"),
                                           (1, "channel", "toplevel", "other", "alice"),
                                           (1, "key", "toplevel", "zz", "alice")]
    assert b" user=default " in entries[0][b"client-info"]  # the client's user, not the tried one


def test_log_groups_identical_denials(r, login):
    setuser(r, "alice", "on", ">pw", "~k*", "+@all", "-get")
    c1, c2 = login("alice"), login("alice")
    id2 = c2.command("CLIENT", "ID")
    assert c1.command("GET", "k1") == e(noperm("get"))
    assert c1.command("GET", "k2") == e(noperm("get"))  # the object is the command: same entry
    assert c1.command("SET", "x1", "v") == e(NOPERM_KEY)
    assert c1.command("SET", "x2", "v") == e(NOPERM_KEY)
    assert c1.command("DEL", "x1") == e(NOPERM_KEY)
    assert c2.command("GET", "k3") == e(noperm("get"))
    entries = acl_log(r)
    # a bumped entry moves to the head of the log
    assert [brief(x) for x in entries] == [(3, "command", "toplevel", "get", "alice"),
                                           (2, "key", "toplevel", "x1", "alice"),
                                           (1, "key", "toplevel", "x2", "alice")]
    assert entries[0][b"client-info"].startswith(b"id=%d " % id2)  # refreshed by the latest


def test_log_count_and_reset(r, login):
    setuser(r, "alice", "on", ">pw", "-@all")
    c = login("alice")
    assert c.command("PING") == e(noperm("ping"))
    assert c.command("ECHO", "x") == e(noperm("echo"))
    assert c.command("GET", "k") == e(noperm("get"))
    assert [brief(x)[3] for x in acl_log(r)] == ["get", "echo", "ping"]
    assert [brief(x)[3] for x in acl_log(r, "1")] == ["get"]
    assert [brief(x)[3] for x in acl_log(r, "2")] == ["get", "echo"]
    assert [brief(x)[3] for x in acl_log(r, "10")] == ["get", "echo", "ping"]
    assert acl_log(r, "0") == []
    assert acl_log(r, "-1") == []
    assert r.execute_command("ACL", "LOG", "RESET") == b"OK"
    assert r.execute_command("ACL", "LOG") == []


def test_log_errors(r):
    assert err(r, "ACL", "LOG", "abc") == "ERR value is not an integer or out of range"
    for args in (("RESET", "x"), ("1", "2")):
        assert err(r, "ACL", "LOG", *args) == (
            "ERR unknown subcommand or wrong number of arguments for 'LOG'. Try ACL HELP.")


def test_log_in_resp3(server, r, login):
    setuser(r, "alice", "on", ">pw", "-@all")
    login("alice").command("PING")
    with server.raw() as c:
        c.command("HELLO", "3")
        [entry] = c.command("ACL", "LOG")
    assert list(entry) == FIELDS
    assert entry[b"count"] == 1 and entry[b"object"] == b"ping"
    assert isinstance(entry[b"age-seconds"], float)


# ---- CLIENT LIST / KILL USER -------------------------------------------------------------------

def test_client_list_shows_the_user(r, server, login):
    setuser(r, "alice", "on", ">pw", "+@all")
    c = login("alice")
    cid = c.command("CLIENT", "ID")
    assert client_lines(r)[cid][b"user"] == b"alice"
    assert b" user=alice " in c.command("CLIENT", "INFO")
    with server.raw() as d:
        did = d.command("CLIENT", "ID")
        assert client_lines(r)[did][b"user"] == b"default"


def test_client_kill_user(r, login):
    setuser(r, "alice", "on", ">pw", "+@all")
    c1, c2 = login("alice"), login("alice")
    assert r.execute_command("CLIENT", "KILL", "USER", "alice") == 2
    assert c1.is_closed() and c2.is_closed()
    assert r.execute_command("CLIENT", "KILL", "USER", "alice") == 0
    assert err(r, "CLIENT", "KILL", "USER", "nosuch") == "ERR No such user 'nosuch'"


# ---- aclfile -----------------------------------------------------------------------------------

ALICE = b"user alice on #" + sha("pw") + b" ~k* resetchannels -@all +get"
BOB = b"user bob off nopass resetchannels &ch -@all +@read"


@pytest.fixture
def aclfile(tmp_path):
    path = tmp_path / "users.acl"
    path.write_text("user alice on >pw ~k* +get\nuser bob off nopass &ch +@read\n")
    return path


@pytest.fixture
def acl_server(aclfile):
    s = start_server(["--aclfile", str(aclfile)])
    yield s
    s.cleanup()


def test_aclfile_is_loaded_at_startup(acl_server):
    c = acl_server.client()
    assert c.execute_command("ACL", "LIST") == [ALICE, BOB, DEFAULT_LINE]
    assert c.execute_command("ACL", "USERS") == [b"alice", b"bob", b"default"]
    with acl_server.raw() as a:
        assert a.command("AUTH", "alice", "pw") == Simple(b"OK")
        assert a.command("GET", "k1") is None
        assert a.command("GET", "x") == e(NOPERM_KEY)


def test_acl_save_writes_the_file(acl_server, aclfile):
    c = acl_server.client()
    setuser(c, "carol", "on", ">c", "~*", "+@all", "(~s* +set)")
    setuser(c, "bob", "&ch2")
    assert c.execute_command("ACL", "SAVE") == b"OK"
    assert aclfile.read_bytes() == b"".join(line + b"\n" for line in [
        ALICE, b"user bob off nopass resetchannels &ch &ch2 -@all +@read",
        b"user carol on #" + sha("c") + b" ~* resetchannels +@all (~s* resetchannels -@all +set)",
        DEFAULT_LINE])


def test_acl_load_rereads_the_file(acl_server, aclfile):
    c = acl_server.client()
    aclfile.write_text("user alice on >pw2 ~k* +get +set\n\nuser dave on nopass ~* +@all\r\n")
    assert c.execute_command("ACL", "LOAD") == b"OK"
    lines = c.execute_command("ACL", "LIST")
    assert [line_rules(x) for x in lines] == [
        "user alice on #%s ~k* resetchannels -@all +get +set" % sha("pw2").decode(),
        "user dave on nopass ~* resetchannels +@all", DEFAULT_LINE.decode()]


def test_acl_load_resets_a_default_user_missing_from_the_file(acl_server, aclfile):
    c = acl_server.client()
    setuser(c, "default", "resetkeys", "~x")
    assert c.execute_command("ACL", "LOAD") == b"OK"
    assert c.execute_command("ACL", "LIST") == [ALICE, BOB, DEFAULT_LINE]


@pytest.mark.parametrize("text, error", [
    ("user alice on >pw3\nuser eve on bogus\n", "{path}:2: Syntax error. "),
    ("user alice on +nosuch\n",
     "{path}:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. "),
    ("user alice on >pw3\nfoo eve on\n",
     "{path}:2 should start with user keyword followed by the username. "),
    ("# a comment\nuser alice on\n",
     "{path}:1 should start with user keyword followed by the username. "),
    ("user alice on >pw3\nuser\n",
     "{path}:2 should start with user keyword followed by the username. "),
    ("user alice on >pw3\nuser alice off\n", "WARNING: Duplicate user 'alice' found on line 2. "),
])
def test_acl_load_of_a_bad_file_keeps_the_users(acl_server, aclfile, text, error):
    c = acl_server.client()
    aclfile.write_text(text)
    assert err(c, "ACL", "LOAD") == "ERR " + error.format(path=aclfile) + LOAD_KEPT
    assert c.execute_command("ACL", "LIST") == [ALICE, BOB, DEFAULT_LINE]


def test_acl_load_of_a_missing_file(acl_server, aclfile):
    c = acl_server.client()
    aclfile.unlink()
    assert err(c, "ACL", "LOAD") == (
        "ERR Error loading ACLs, opening file '%s': No such file or directory" % aclfile)
    assert c.execute_command("ACL", "LIST") == [ALICE, BOB, DEFAULT_LINE]


def test_acl_load_disconnects_clients_of_loaded_users(acl_server):
    c = acl_server.client()
    with acl_server.raw() as a, acl_server.raw() as d:
        assert a.command("AUTH", "alice", "pw") == Simple(b"OK")
        assert d.command("PING") == Simple(b"PONG")
        assert c.execute_command("ACL", "LOAD") == b"OK"  # the same file: alice unchanged
        assert a.is_closed()
        assert d.command("PING") == Simple(b"PONG")  # default's clients stay


def test_acl_save_and_load_without_aclfile(r):
    assert err(r, "ACL", "SAVE") == NO_ACLFILE
    assert err(r, "ACL", "LOAD") == NO_ACLFILE


def test_acl_pubsub_default_allchannels(r):
    try:
        assert r.execute_command("CONFIG", "SET", "acl-pubsub-default", "allchannels") == b"OK"
        setuser(r, "pp")
        setuser(r, "pq", "reset", "(~a* +get)")
        assert r.execute_command("ACL", "LIST")[1:] == [
            b"user pp off &* -@all",
            b"user pq off sanitize-payload &* -@all (~a* &* -@all +get)"]
        setuser(r, "pp", "resetchannels", "&c")
        assert getuser(r, "pp")[b"channels"] == b"&c"
    finally:
        r.execute_command("CONFIG", "SET", "acl-pubsub-default", "resetchannels")
    setuser(r, "pr")
    assert getuser(r, "pr")[b"channels"] == b""
