#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/command/command_test_util.h"

namespace slotkv::command {
namespace {

// The text of a bulk reply ("$N\r\n<text>\r\n").
std::string Body(const std::string& reply) {
  REQUIRE(reply.size() >= 5);
  REQUIRE(reply[0] == '$');
  size_t eol = reply.find("\r\n");
  return reply.substr(eol + 2, reply.size() - eol - 4);
}

bool Has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::string Arity(std::string_view name) {
  return "-ERR wrong number of arguments for '" + std::string(name) + "' command\r\n";
}

std::string Bulk(std::string_view s) {
  return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}

// ---- DBSIZE FLUSHDB FLUSHALL ---------------------------------------------------------------

TEST_CASE("DBSIZE counts the keys of the selected database") {
  CommandFixture f;
  for (int i = 0; i < 20; ++i) f.Run({"SET", "k" + std::to_string(i), "v"});
  CHECK(f.Run({"DBSIZE"}) == ":20\r\n");
  CHECK(f.Run({"SELECT", "1"}) == "+OK\r\n");
  CHECK(f.Run({"DBSIZE"}) == ":0\r\n");
  CHECK(f.Run({"DBSIZE", "x"}) == Arity("dbsize"));
}

TEST_CASE("FLUSHDB empties one database, FLUSHALL every one") {
  CommandFixture f;
  f.Run({"SET", "a", "1"});
  f.Run({"SELECT", "1"});
  f.Run({"SET", "b", "1"});
  CHECK(f.Run({"FLUSHDB", "SYNC"}) == "+OK\r\n");
  CHECK(f.Run({"DBSIZE"}) == ":0\r\n");
  f.Run({"SELECT", "0"});
  CHECK(f.Run({"DBSIZE"}) == ":1\r\n");
  CHECK(f.Run({"FLUSHALL", "NOW"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"FLUSHALL"}) == "+OK\r\n");
  CHECK(f.Run({"DBSIZE"}) == ":0\r\n");
}

// ---- INFO ----------------------------------------------------------------------------------

TEST_CASE("INFO default lists the main sections in Redis order") {
  CommandFixture f;
  std::string text = Body(f.Run({"INFO"}));
  CHECK(text.rfind("# Server\r\nredis_version:7.0.15\r\n", 0) == 0);
  size_t last = 0;
  for (std::string_view title : {"Server", "Clients", "Memory", "Persistence", "Stats",
                                 "Replication", "CPU", "Modules", "Cluster", "Keyspace"}) {
    size_t at = text.find("# " + std::string(title) + "\r\n");
    REQUIRE(at != std::string::npos);
    CHECK(at >= last);
    if (at > 0) CHECK(text.substr(at - 4, 4) == "\r\n\r\n");  // a blank line before each
    last = at;
  }
  CHECK_FALSE(Has(text, "# Commandstats"));
  CHECK(text.substr(text.size() - 2) == "\r\n");
  CHECK(Body(f.Run({"INFO", "default"})).size() > 100);
}

TEST_CASE("INFO all and everything add commandstats") {
  CommandFixture f;
  CHECK(Has(Body(f.Run({"INFO", "all"})), "\r\n# Commandstats\r\n"));
  CHECK(Has(Body(f.Run({"INFO", "EVERYTHING"})), "\r\n# Commandstats\r\n"));
}

TEST_CASE("INFO with several sections keeps Redis's order, unknown ones are ignored") {
  CommandFixture f;
  CHECK(Body(f.Run({"INFO", "cluster", "CLIENTS", "nosuch"})) ==
        "# Clients\r\nconnected_clients:1\r\ncluster_connections:0\r\nmaxclients:10000\r\n"
        "client_recent_max_input_buffer:0\r\nclient_recent_max_output_buffer:0\r\n"
        "blocked_clients:0\r\ntracking_clients:0\r\nclients_in_timeout_table:0\r\n"
        "\r\n# Cluster\r\ncluster_enabled:0\r\n");
  CHECK(f.Run({"INFO", "nosuch"}) == "$0\r\n\r\n");
}

TEST_CASE("INFO is a verbatim string in RESP3") {
  CommandFixture f;
  f.Run({"HELLO", "3"});
  CHECK(f.Run({"INFO", "cluster"}) == "=34\r\ntxt:# Cluster\r\ncluster_enabled:0\r\n\r\n");
}

TEST_CASE("INFO server: versions, run id, uptime from the server clock") {
  CommandFixture f;
  f.clock().AdvanceMs(2 * 86400 * 1000 + 5000);
  std::string text = Body(f.Run({"INFO", "server"}));
  CHECK(Has(text, "\r\nslotkv_version:" SLOTKV_VERSION "\r\n"));
  CHECK(Has(text, "\r\nredis_mode:standalone\r\n"));
  CHECK(Has(text, "\r\nrun_id:" + std::string(40, 'a') + "\r\n"));
  CHECK(Has(text, "\r\nprocess_id:" + std::to_string(getpid()) + "\r\n"));
  CHECK(Has(text, "\r\narch_bits:64\r\n"));
  CHECK(Has(text, "\r\nuptime_in_seconds:172805\r\n"));
  CHECK(Has(text, "\r\nuptime_in_days:2\r\n"));
  CHECK(Has(text, "\r\nhz:10\r\n"));
  CHECK(Has(text, "\r\nserver_time_usec:1700172805000000\r\n"));
  CHECK(Has(text, "\r\nconfig_file:\r\n"));
}

TEST_CASE("INFO memory reports the process RSS") {
  CommandFixture f;
  std::string text = Body(f.Run({"INFO", "memory"}));
  size_t at = text.find("\r\nused_memory:");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoll(text.substr(at + 14)) > 0);
  CHECK(Has(text, "\r\nused_memory_human:"));
  CHECK(Has(text, "\r\nmaxmemory:0\r\nmaxmemory_human:0B\r\nmaxmemory_policy:noeviction\r\n"));
  CHECK(Has(text, "\r\nmem_allocator:"));
}

TEST_CASE("INFO keyspace counts the keys of each database that has some") {
  CommandFixture f;
  CHECK(Body(f.Run({"INFO", "keyspace"})) == "# Keyspace\r\n");
  for (int i = 0; i < 30; ++i) f.Run({"SET", "k" + std::to_string(i), "v"});
  f.Run({"SELECT", "3"});
  f.Run({"SET", "x", "v"});
  CHECK(Body(f.Run({"INFO", "keyspace"})) ==
        "# Keyspace\r\ndb0:keys=30,expires=0,avg_ttl=0\r\ndb3:keys=1,expires=0,avg_ttl=0\r\n");
}

TEST_CASE("INFO stats sums the counters of every worker") {
  CommandFixture f;
  f.Run({"SET", "a", "1"});  // slots on both workers: keys a..d spread over them
  f.Run({"SET", "b", "1"});
  f.Run({"GET", "a"});
  f.Run({"GET", "b"});
  f.Run({"GET", "c"});
  f.Run({"GET", "d"});
  f.Run({"SET", "a", "1", "EX", "0"});  // an error reply
  std::string text = Body(f.Run({"INFO", "stats"}));
  CHECK(Has(text, "\r\nkeyspace_hits:2\r\nkeyspace_misses:2\r\n"));
  CHECK(Has(text, "\r\ntotal_commands_processed:7\r\n"));
  CHECK(Has(text, "\r\ntotal_error_replies:1\r\n"));
  CHECK(Has(text, "\r\nexpired_keys:0\r\n"));
}

TEST_CASE("INFO commandstats counts calls and failures; CONFIG RESETSTAT clears them") {
  CommandFixture f;
  f.Run({"SET", "a", "1"});
  f.Run({"SET", "b", "1"});
  f.Run({"SET", "b", "1", "EX", "0"});
  f.Run({"GET", "a"});
  std::string text = Body(f.Run({"INFO", "commandstats"}));
  CHECK(text.rfind("# Commandstats\r\n", 0) == 0);
  CHECK(Has(text, "\r\ncmdstat_set:calls=3,usec="));
  CHECK(Has(text, ",rejected_calls=0,failed_calls=1\r\n"));
  CHECK(Has(text, "\r\ncmdstat_get:calls=1,usec="));
  CHECK_FALSE(Has(text, "cmdstat_del"));
  CHECK(f.Run({"CONFIG", "RESETSTAT"}) == "+OK\r\n");
  CHECK(Body(f.Run({"INFO", "commandstats"})) == "# Commandstats\r\n");
  CHECK(Has(Body(f.Run({"INFO", "stats"})), "\r\ntotal_commands_processed:0\r\n"));
}

TEST_CASE("INFO persistence: unsaved writes, SAVE and LASTSAVE") {
  CommandFixture f;
  CHECK(f.Run({"LASTSAVE"}) == ":0\r\n");
  f.Run({"SET", "a", "1"});
  f.Run({"SET", "b", "2"});
  std::string text = Body(f.Run({"INFO", "persistence"}));
  CHECK(text.rfind("# Persistence\r\nloading:0\r\n", 0) == 0);
  CHECK(Has(text,
            "\r\nrdb_changes_since_last_save:2\r\nrdb_bgsave_in_progress:0\r\n"
            "rdb_last_save_time:0\r\nrdb_last_bgsave_status:ok\r\n"
            "rdb_last_bgsave_time_sec:-1\r\nrdb_current_bgsave_time_sec:-1\r\nrdb_saves:0\r\n"));
  f.clock().AdvanceMs(5000);
  CHECK(f.Run({"SAVE"}) == "+OK\r\n");
  CHECK(f.Run({"LASTSAVE"}) == ":1700000005\r\n");
  text = Body(f.Run({"INFO", "persistence"}));
  CHECK(Has(text, "\r\nrdb_changes_since_last_save:0\r\n"));
  CHECK(Has(text, "\r\nrdb_last_save_time:1700000005\r\n"));
  CHECK(Has(text, "\r\nrdb_saves:1\r\n"));
  CHECK(f.Run({"GET", "b"}) == "$1\r\n2\r\n");
  CHECK(f.Run({"SAVE", "x"}) == Arity("save"));
  CHECK(f.Run({"LASTSAVE", "x"}) == Arity("lastsave"));
}

TEST_CASE("INFO replication: a master without replicas") {
  CommandFixture f;
  std::string text = Body(f.Run({"INFO", "replication"}));
  CHECK(text.rfind("# Replication\r\nrole:master\r\nconnected_slaves:0\r\n", 0) == 0);
  CHECK(Has(text, "\r\nmaster_replid:" + std::string(40, 'a') + "\r\n"));
  CHECK(Has(text, "\r\nmaster_repl_offset:0\r\n"));
}

// ---- TIME SHUTDOWN -------------------------------------------------------------------------

TEST_CASE("TIME replies seconds and microseconds as bulk strings") {
  CommandFixture f;
  CHECK(f.Run({"TIME"}) == "*2\r\n$10\r\n1700000000\r\n$1\r\n0\r\n");
  f.clock().AdvanceMs(1234);
  CHECK(f.Run({"TIME"}) == "*2\r\n$10\r\n1700000001\r\n$6\r\n234000\r\n");
  CHECK(f.Run({"TIME", "x"}) == Arity("time"));
}

TEST_CASE("SHUTDOWN asks the server to stop and closes without a reply") {
  CommandFixture f;
  int calls = 0;
  f.state().shutdown = [&] { ++calls; };
  CHECK(f.Run({"SHUTDOWN", "ABORT"}) == "-ERR No shutdown in progress.\r\n");
  CHECK(f.Run({"SHUTDOWN", "ABORT", "NOW"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"SHUTDOWN", "NOSAVE", "SAVE"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"SHUTDOWN", "LATER"}) == "-ERR syntax error\r\n");
  CHECK(calls == 0);
  CHECK_FALSE(f.client().close_after_reply);
  CHECK(f.Run({"SHUTDOWN", "nosave", "now", "force"}) == "");
  CHECK(calls == 1);
  CHECK(f.client().close_after_reply);
}

// ---- CONFIG --------------------------------------------------------------------------------

TEST_CASE("CONFIG GET: exact names, globs, several patterns, each option once") {
  CommandFixture f;
  CHECK(f.Run({"CONFIG", "GET", "maxclients"}) == "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n");
  CHECK(f.Run({"CONFIG", "GET", "SLOWLOG-*"}) ==
        "*4\r\n$23\r\nslowlog-log-slower-than\r\n$5\r\n10000\r\n"
        "$15\r\nslowlog-max-len\r\n$3\r\n128\r\n");
  CHECK(f.Run({"CONFIG", "GET", "hz", "h?", "nosuch"}) == "*2\r\n$2\r\nhz\r\n$2\r\n10\r\n");
  CHECK(f.Run({"CONFIG", "GET", "nosuch"}) == "*0\r\n");
  CHECK(f.Run({"CONFIG", "GET"}) == Arity("config|get"));
  f.Run({"HELLO", "3"});
  CHECK(f.Run({"CONFIG", "GET", "hz"}) == "%1\r\n$2\r\nhz\r\n$2\r\n10\r\n");
}

TEST_CASE("CONFIG SET then GET, several at once, live copies refreshed") {
  CommandFixture f;
  CHECK(f.Run({"CONFIG", "SET", "slowlog-max-len", "200"}) == "+OK\r\n");
  CHECK(f.Run({"CONFIG", "GET", "slowlog-max-len"}) ==
        "*2\r\n$15\r\nslowlog-max-len\r\n$3\r\n200\r\n");
  CHECK(f.Run({"CONFIG", "SET", "SLOWLOG-MAX-LEN", "300", "maxclients", "50", "maxmemory",
               "1mb"}) == "+OK\r\n");
  CHECK(f.state().slowlog_max_len == 300);
  CHECK(f.state().maxclients == 50);
  CHECK(f.Run({"CONFIG", "GET", "maxmemory"}) == "*2\r\n$9\r\nmaxmemory\r\n$7\r\n1048576\r\n");
}

TEST_CASE("CONFIG SET errors are Redis 7.0's") {
  CommandFixture f;
  auto failed = [](std::string_view arg, std::string_view why) {
    return "-ERR CONFIG SET failed (possibly related to argument '" + std::string(arg) + "') - " +
           std::string(why) + "\r\n";
  };
  CHECK(f.Run({"CONFIG", "SET", "foo", "bar"}) ==
        "-ERR Unknown option or number of arguments for CONFIG SET - 'foo'\r\n");
  CHECK(f.Run({"CONFIG", "SET", "port", "7000"}) == failed("port", "can't set immutable config"));
  CHECK(f.Run({"CONFIG", "SET", "maxclients", "abc"}) ==
        failed("maxclients", "argument couldn't be parsed into an integer"));
  CHECK(f.Run({"CONFIG", "SET", "maxmemory", "abc"}) ==
        failed("maxmemory", "argument must be a memory value"));
  CHECK(f.Run({"CONFIG", "SET", "appendonly", "maybe"}) ==
        failed("appendonly", "argument must be 'yes' or 'no'"));
  CHECK(f.Run({"CONFIG", "SET", "loglevel", "loud"}) ==
        failed("loglevel",
               "argument(s) must be one of the following: debug, verbose, notice, warning"));
  CHECK(f.Run({"CONFIG", "SET", "slowlog-max-len", "-1"}) ==
        failed("slowlog-max-len", "argument must be between 0 and 9223372036854775807 inclusive"));
  CHECK(f.Run({"CONFIG", "SET", "hz", "1", "HZ", "2"}) == failed("HZ", "duplicate parameter"));
  // The first problem with a name wins, as in Redis.
  CHECK(f.Run({"CONFIG", "SET", "databases", "1", "foo", "2"}) ==
        failed("databases", "can't set immutable config"));
  CHECK(f.Run({"CONFIG", "SET", "foo", "1", "databases", "2"}) ==
        "-ERR Unknown option or number of arguments for CONFIG SET - 'foo'\r\n");
  CHECK(f.Run({"CONFIG", "SET", "hz", "1", "x"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"CONFIG", "SET", "hz"}) == Arity("config|set"));
}

TEST_CASE("CONFIG SET applies all or nothing") {
  CommandFixture f;
  CHECK(f.Run({"CONFIG", "SET", "slowlog-max-len", "999", "hz", "20", "maxclients", "x"}) ==
        "-ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't "
        "be parsed into an integer\r\n");
  CHECK(f.Run({"CONFIG", "GET", "slowlog-max-len"}) ==
        "*2\r\n$15\r\nslowlog-max-len\r\n$3\r\n128\r\n");
  CHECK(f.Run({"CONFIG", "GET", "hz"}) == "*2\r\n$2\r\nhz\r\n$2\r\n10\r\n");
}

TEST_CASE("CONFIG REWRITE needs a config file, and then writes the changed options") {
  CommandFixture f;
  CHECK(f.Run({"CONFIG", "REWRITE"}) == "-ERR The server is running without a config file\r\n");
  char name[] = "/tmp/slotkv-server-test-XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, "hz 15\n", 6) == 6);
  close(fd);
  REQUIRE(f.config().LoadFile(name).ok());
  CHECK(f.Run({"CONFIG", "SET", "hz", "25", "slowlog-max-len", "7"}) == "+OK\r\n");
  CHECK(f.Run({"CONFIG", "REWRITE"}) == "+OK\r\n");
  std::ifstream in(name);
  std::stringstream text;
  text << in.rdbuf();
  // Without an aclfile the users are kept as `user` lines too, as Redis.
  CHECK(text.str() == "hz 25\nslowlog-max-len 7\nuser default on nopass ~* &* +@all\n");
  std::remove(name);
  CHECK(f.Run({"CONFIG", "REWRITE", "x"}) == Arity("config|rewrite"));
}

TEST_CASE("CONFIG HELP, unknown subcommands and arity") {
  CommandFixture f;
  std::string help = f.Run({"CONFIG", "HELP"});
  CHECK(help.rfind("*11\r\n+CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n",
                   0) == 0);
  CHECK(f.Run({"CONFIG", "FOO"}) == "-ERR unknown subcommand 'FOO'. Try CONFIG HELP.\r\n");
  CHECK(f.Run({"CONFIG"}) == Arity("config"));
  CHECK(f.Run({"CONFIG", "RESETSTAT", "x"}) == Arity("config|resetstat"));
  CHECK(f.Run({"CONFIG", "HELP", "x"}) == Arity("config|help"));
}

// ---- SLOWLOG -------------------------------------------------------------------------------

TEST_CASE("SLOWLOG GET replies Redis's entry layout, newest first") {
  CommandFixture f;
  f.state().slowlog->Add({"SET", "k", "v"}, 15, 1700000000, "127.0.0.1:5", "app", 128);
  f.state().slowlog->Add({"GET", "k"}, 7, 1700000001, "127.0.0.1:6", "", 128);
  CHECK(f.Run({"SLOWLOG", "LEN"}) == ":2\r\n");
  CHECK(f.Run({"SLOWLOG", "GET"}) ==
        "*2\r\n"
        "*6\r\n:1\r\n:1700000001\r\n:7\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
        "$11\r\n127.0.0.1:6\r\n$0\r\n\r\n"
        "*6\r\n:0\r\n:1700000000\r\n:15\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
        "$11\r\n127.0.0.1:5\r\n$3\r\napp\r\n");
  CHECK(f.Run({"SLOWLOG", "GET", "1"}).rfind("*1\r\n*6\r\n:1\r\n", 0) == 0);
  CHECK(f.Run({"SLOWLOG", "GET", "0"}) == "*0\r\n");
  CHECK(f.Run({"SLOWLOG", "GET", "-1"}).rfind("*2\r\n", 0) == 0);
  CHECK(f.Run({"SLOWLOG", "RESET"}) == "+OK\r\n");
  CHECK(f.Run({"SLOWLOG", "LEN"}) == ":0\r\n");
  CHECK(f.Run({"SLOWLOG", "GET"}) == "*0\r\n");
}

TEST_CASE("SLOWLOG records commands when slowlog-log-slower-than is 0") {
  CommandFixture f;
  CHECK(f.Run({"CONFIG", "SET", "slowlog-log-slower-than", "0"}) == "+OK\r\n");
  f.Run({"SET", "k", "v"});
  f.Run({"GET", "k"});
  CHECK(f.Run({"SLOWLOG", "LEN"}) == ":2\r\n");
  std::string got = f.Run({"SLOWLOG", "GET"});
  CHECK(got.rfind("*2\r\n*6\r\n:1\r\n:1700000000\r\n:", 0) == 0);
  CHECK(Has(got, "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n$11\r\n127.0.0.1:1\r\n"));
  CHECK(Has(got, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$11\r\n127.0.0.1:1\r\n"));
  CHECK(f.Run({"CONFIG", "SET", "slowlog-log-slower-than", "-1"}) == "+OK\r\n");
  f.Run({"SLOWLOG", "RESET"});
  f.Run({"SET", "k", "v"});
  CHECK(f.Run({"SLOWLOG", "LEN"}) == ":0\r\n");
}

TEST_CASE("CONFIG RESETSTAT also empties SLOWLOG") {
  CommandFixture f;
  f.state().slowlog->Add({"PING"}, 1, 1, "a", "", 128);
  CHECK(f.Run({"CONFIG", "RESETSTAT"}) == "+OK\r\n");
  CHECK(f.Run({"SLOWLOG", "LEN"}) == ":0\r\n");
}

TEST_CASE("SLOWLOG errors and HELP") {
  CommandFixture f;
  CHECK(f.Run({"SLOWLOG", "GET", "-2"}) == "-ERR count should be greater than or equal to -1\r\n");
  CHECK(f.Run({"SLOWLOG", "GET", "x"}) == "-ERR count should be greater than or equal to -1\r\n");
  CHECK(f.Run({"SLOWLOG", "GET", "1", "2"}) == Arity("slowlog|get"));
  CHECK(f.Run({"SLOWLOG", "LEN", "x"}) == Arity("slowlog|len"));
  CHECK(f.Run({"SLOWLOG", "Reset", "x"}) == Arity("slowlog|reset"));
  CHECK(f.Run({"SLOWLOG"}) == Arity("slowlog"));
  CHECK(f.Run({"SLOWLOG", "FOO"}) == "-ERR unknown subcommand 'FOO'. Try SLOWLOG HELP.\r\n");
  CHECK(f.Run({"SLOWLOG", "HELP"})
            .rfind("*12\r\n+SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
                   "+GET [<count>]\r\n",
                   0) == 0);
}

// ---- COMMAND -------------------------------------------------------------------------------

TEST_CASE("COMMAND INFO get is the Redis 7.0 layout") {
  CommandFixture f;
  CHECK(f.Run({"COMMAND", "INFO", "get"}) ==
        "*1\r\n*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n"
        "*3\r\n+@read\r\n+@string\r\n+@fast\r\n*0\r\n*0\r\n*0\r\n");
  CHECK(f.Run({"COMMAND", "INFO", "LASTSAVE", "nosuch"}) ==
        "*2\r\n*10\r\n$8\r\nlastsave\r\n:1\r\n*3\r\n+loading\r\n+stale\r\n+fast\r\n:0\r\n:0\r\n"
        ":0\r\n*3\r\n+@admin\r\n+@fast\r\n+@dangerous\r\n*0\r\n*0\r\n*0\r\n$-1\r\n");
}

TEST_CASE("COMMAND INFO in RESP3 uses sets and nulls") {
  CommandFixture f;
  f.Run({"HELLO", "3"});
  CHECK(f.Run({"COMMAND", "INFO", "get", "nosuch"}) ==
        "*2\r\n*10\r\n$3\r\nget\r\n:2\r\n~2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n"
        "~3\r\n+@read\r\n+@string\r\n+@fast\r\n~0\r\n~0\r\n~0\r\n_\r\n");
}

TEST_CASE("COMMAND, COMMAND COUNT, COMMAND INFO and COMMAND LIST cover the same rows") {
  CommandFixture f;
  const std::string count = std::to_string(f.state().table->size());
  CHECK(f.Run({"COMMAND", "COUNT"}) == ":" + count + "\r\n");
  CHECK(f.Run({"COMMAND"}).rfind("*" + count + "\r\n*10\r\n", 0) == 0);
  CHECK(f.Run({"COMMAND"}) == f.Run({"COMMAND", "INFO"}));
  // LIST names the subcommand rows too ("config|get"), as Redis 7.0.
  const std::string all = std::to_string(f.state().table->id_count());
  CHECK(f.Run({"COMMAND", "LIST"}).rfind("*" + all + "\r\n", 0) == 0);
  CHECK(f.Run({"COMMAND", "COUNT", "x"}) == Arity("command|count"));
}

TEST_CASE("COMMAND LIST FILTERBY") {
  CommandFixture f;
  CHECK(f.Run({"COMMAND", "LIST", "FILTERBY", "PATTERN", "conf*"}) ==
        "*6\r\n$6\r\nconfig\r\n$10\r\nconfig|get\r\n$11\r\nconfig|help\r\n"
        "$16\r\nconfig|resetstat\r\n$14\r\nconfig|rewrite\r\n$10\r\nconfig|set\r\n");
  CHECK(f.Run({"COMMAND", "LIST", "FILTERBY", "PATTERN", "LASTSAV?"}) ==
        "*1\r\n$8\r\nlastsave\r\n");
  std::string admin = f.Run({"COMMAND", "LIST", "FILTERBY", "ACLCAT", "ADMIN"});
  CHECK(Has(admin, Bulk("save")));
  CHECK_FALSE(Has(admin, Bulk("get")));
  CHECK(f.Run({"COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch"}) == "*0\r\n");
  CHECK(f.Run({"COMMAND", "LIST", "FILTERBY", "MODULE", "m"}) == "*0\r\n");
  CHECK(f.Run({"COMMAND", "LIST", "FILTERBY", "FOO", "x"}) == "-ERR syntax error\r\n");
  CHECK(f.Run({"COMMAND", "LIST", "x"}) == "-ERR syntax error\r\n");
}

TEST_CASE("COMMAND DOCS gives summary, since and group") {
  CommandFixture f;
  CHECK(f.Run({"COMMAND", "DOCS", "lastsave", "nosuch"}) ==
        "*2\r\n$8\r\nlastsave\r\n*6\r\n$7\r\nsummary\r\n" +
            Bulk("Returns the Unix timestamp of the last successful save to disk.") +
            "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nserver\r\n");
  CHECK(f.Run({"COMMAND", "DOCS", "nosuch"}) == "*0\r\n");
  CHECK(f.Run({"COMMAND", "DOCS"})
            .rfind("*" + std::to_string(2 * f.state().table->size()) + "\r\n", 0) == 0);
  f.Run({"HELLO", "3"});
  CHECK(f.Run({"COMMAND", "DOCS", "nosuch"}) == "%0\r\n");
  CHECK(f.Run({"COMMAND", "DOCS", "time"}).rfind("%1\r\n$4\r\ntime\r\n%3\r\n", 0) == 0);
}

TEST_CASE("COMMAND GETKEYS picks keys by first, last and step") {
  CommandFixture f;
  CHECK(f.Run({"COMMAND", "GETKEYS", "GET", "a"}) == "*1\r\n$1\r\na\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "del", "a", "b", "c"}) ==
        "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "nosuch", "a"}) == "-ERR Invalid command specified\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "get", "a", "b"}) ==
        "-ERR Invalid number of arguments specified for command\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "ping", "x"}) == "-ERR The command has no key arguments\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "get"}) == Arity("command|getkeys"));
}

// Replies and flags are redis-server 7.0.15's.
TEST_CASE("COMMAND GETKEYS of movable keys; flags movablekeys, allow_busy, no_mandatory_keys") {
  CommandFixture f;
  CHECK(f.Run({"COMMAND", "GETKEYS", "zunionstore", "d", "2", "a", "b"}) ==
        "*3\r\n$1\r\nd\r\n$1\r\na\r\n$1\r\nb\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "zunion", "0", "a"}) ==
        "-ERR Invalid arguments specified for command\r\n");
  CHECK(f.Run({"COMMAND", "GETKEYS", "eval", "return 1", "0"}) == "*0\r\n");
  auto flags = [&](const char* name) {
    std::string info = f.Run({"COMMAND", "INFO", name});
    const size_t at = info.find("\r\n*", info.find(name));  // the flags after the arity
    return info.substr(at + 2, info.find(":", at) - at - 2);
  };
  CHECK(flags("sort") == "*3\r\n+write\r\n+denyoom\r\n+movablekeys\r\n");
  CHECK(flags("publish") == "*4\r\n+pubsub\r\n+loading\r\n+stale\r\n+fast\r\n");
  CHECK(flags("multi") ==
        "*5\r\n+noscript\r\n+loading\r\n+stale\r\n+fast\r\n+allow_busy\r\n");
  CHECK(flags("eval") ==
        "*4\r\n+noscript\r\n+skip_monitor\r\n+no_mandatory_keys\r\n+movablekeys\r\n");
  CHECK(flags("client") == "*0\r\n");  // a container shows none, as in Redis
}

TEST_CASE("COMMAND HELP and unknown subcommands") {
  CommandFixture f;
  CHECK(f.Run({"COMMAND", "HELP"})
            .rfind("*21\r\n+COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n",
                   0) == 0);
  CHECK(f.Run({"COMMAND", "FOO"}) == "-ERR unknown subcommand 'FOO'. Try COMMAND HELP.\r\n");
  CHECK(f.Run({"COMMAND", "HELP", "x"}) == Arity("command|help"));
}

}  // namespace
}  // namespace slotkv::command
