#include "conf/config.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>

namespace slotkv::conf {
namespace {

TEST_CASE("defaults come from the table") {
  Config c;
  CHECK(c.Get("port") == "7379");
  CHECK(c.GetInt("databases") == 16);
  CHECK(c.Get("appendfsync") == "everysec");
  CHECK(c.Get("PORT") == "7379");  // names are case-insensitive
}

TEST_CASE("set checks types, bounds and choices") {
  Config c;
  CHECK(c.Set("port", "6380").ok());
  CHECK(c.GetInt("port") == 6380);
  CHECK(c.Set("port", "70000").IsInvalidArgument());
  CHECK(c.Set("port", "12x").IsInvalidArgument());
  CHECK(c.Set("appendfsync", "ALWAYS").ok());
  CHECK(c.Get("appendfsync") == "always");
  CHECK(c.Set("appendfsync", "sometimes").IsInvalidArgument());
  CHECK(c.Set("appendonly", "maybe").IsInvalidArgument());
  CHECK(c.Set("nosuchoption", "1").IsInvalidArgument());
}

TEST_CASE("memory values take Redis units") {
  CHECK(*ParseMemory("512mb") == 512ll << 20);
  CHECK(*ParseMemory("1gb") == 1ll << 30);
  CHECK(*ParseMemory("100k") == 100000);
  CHECK(*ParseMemory("7") == 7);
  CHECK(!ParseMemory("12q").ok());
  CHECK(!ParseMemory("").ok());
  Config c;
  CHECK(c.Set("proto-max-bulk-len", "2mb").ok());
  CHECK(c.Get("proto-max-bulk-len") == "2097152");
}

TEST_CASE("runtime set refuses immutable options") {
  Config c;
  CHECK(c.Set("maxclients", "5", /*runtime=*/true).ok());
  CHECK(c.Set("port", "1", /*runtime=*/true).IsNotSupported());
}

TEST_CASE("match takes glob patterns") {
  Config c;
  auto m = c.Match("max*");
  std::set<std::string> names;
  for (const auto& [name, value] : m) names.insert(name);
  CHECK(names == std::set<std::string>{"maxclients", "maxmemory", "maxmemory-cache",
                                       "maxmemory-policy", "maxmemory-clients",
                                       "maxmemory-samples", "maxmemory-eviction-tenacity"});
  CHECK(c.Match("port")[0].second == "7379");
  CHECK(c.Match("nomatch*").empty());
}

TEST_CASE("every default passes its own checks; an old name shows its option's default") {
  for (const OptionDef& def : Options()) {
    CAPTURE(def.name);
    Config c;
    CHECK(c.Set(def.name, def.default_value).ok());
    CHECK(c.Get(def.name) == def.default_value);  // defaults are stored as CONFIG GET shows them
    if (!def.alias_of.empty()) {
      REQUIRE(FindOption(def.alias_of) != nullptr);
      CHECK(FindOption(def.alias_of)->default_value == def.default_value);
      CHECK(FindOption(def.alias_of)->runtime == def.runtime);
    }
  }
}

TEST_CASE("an old name sets its option") {
  Config c;
  CHECK(c.Get("hash-max-ziplist-entries") == "512");
  REQUIRE(c.Set("hash-max-ziplist-entries", "7", true).ok());
  CHECK(c.Get("hash-max-listpack-entries") == "7");
  REQUIRE(c.Set("hash-max-listpack-value", "1kb", true).ok());
  CHECK(c.Get("hash-max-ziplist-value") == "1024");
}

// The message of a refused Set, past its "argument 'v' for 'name': " prefix.
std::string Why(Config& c, std::string_view name, std::string_view value) {
  Status st = c.Set(name, value, /*runtime=*/true);
  REQUIRE(st.IsInvalidArgument());
  std::string m(st.message());
  return m.substr(m.find("': ") + 3);
}

TEST_CASE("Redis's special grammars: memory or percent, flags, three scores") {
  Config c;
  for (auto [in, out] : std::vector<std::pair<std::string, std::string>>{
           {"10%", "10%"}, {"0%", "0"}, {"100%", "100%"}, {"1mb", "1048576"}, {"1k", "1000"}}) {
    CAPTURE(in);
    REQUIRE(c.Set("maxmemory-clients", in, true).ok());
    CHECK(c.Get("maxmemory-clients") == out);
  }
  CHECK(Why(c, "maxmemory-clients", "150%") ==
        "percentage argument must be less or equal to 100");
  for (const char* bad : {"-5%", "abc", "%", "-1", "1.5%"}) {
    CAPTURE(bad);
    CHECK(Why(c, "maxmemory-clients", bad) == "argument must be a memory or percent value");
  }

  for (auto [in, out] : std::vector<std::pair<std::string, std::string>>{
           {"nosave now", "nosave now"}, {"now nosave", "nosave now"}, {"SAVE", "save"},
           {"force save now", "save now force"}, {"default now", "now"}, {"default", "default"}}) {
    CAPTURE(in);
    REQUIRE(c.Set("shutdown-on-sigterm", in, true).ok());
    CHECK(c.Get("shutdown-on-sigterm") == out);
  }
  const std::string choices =
      "argument(s) must be one of the following: default, save, nosave, now, force";
  CHECK(Why(c, "shutdown-on-sigint", "") == choices);
  CHECK(Why(c, "shutdown-on-sigint", "now  force") == choices);  // two spaces: an empty word
  CHECK(Why(c, "shutdown-on-sigint", "later") == choices);
  CHECK(Why(c, "shutdown-on-sigint", "save nosave") ==
        "shutdown options SAVE and NOSAVE can't be used simultaneously");

  REQUIRE(c.Set("oom-score-adj", "relative", true).ok());
  CHECK(c.Get("oom-score-adj") == "yes");  // Redis shows relative by its first name
  REQUIRE(c.Set("oom-score-adj", "ABSOLUTE", true).ok());
  CHECK(c.Get("oom-score-adj") == "absolute");
  CHECK(Why(c, "oom-score-adj", "maybe") ==
        "argument(s) must be one of the following: no, yes, relative, absolute");

  REQUIRE(c.Set("oom-score-adj-values", "-2000 +5 2000", true).ok());
  CHECK(c.Get("oom-score-adj-values") == "-2000 5 2000");
  REQUIRE(c.Set("oom-score-adj-values", "1 2 ", true).ok());  // strtoll reads "" as 0
  CHECK(c.Get("oom-score-adj-values") == "1 2 0");
  CHECK(Why(c, "oom-score-adj-values", "1 2") == "wrong number of arguments");
  CHECK(Why(c, "oom-score-adj-values", " 1 2 3") == "wrong number of arguments");
  for (const char* bad : {"-2001 0 0", "1.5 2 3", "0x10 1 1", "a b c"}) {
    CAPTURE(bad);
    CHECK(Why(c, "oom-score-adj-values", bad) ==
          "Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
  }
}

TEST_CASE("Redis's special grammars: title template, hostname, file names, octal") {
  Config c;
  for (const char* good : {"{port} {tls-port} {config-file} {listen-addr}", "{{title}}",
                           "title}", "a b", "x{title}", "{port}"}) {
    CAPTURE(good);
    CHECK(c.Set("proc-title-template", good, true).ok());
    CHECK(c.Get("proc-title-template") == good);
  }
  // unknown variables, unclosed braces, or nothing but spaces once {title} is ""
  for (const char* bad : {"{title}", "x{title", "{}", " {title}", "{Title}", "{", "",
                          "{server-mode} {unixsocket}"}) {
    CAPTURE(bad);
    CHECK(Why(c, "proc-title-template", bad) ==
          "template format is invalid or contains unknown variables");
  }

  REQUIRE(c.Set("cluster-announce-hostname", "a-b.C9", true).ok());
  REQUIRE(c.Set("cluster-announce-hostname", "", true).ok());
  CHECK(Why(c, "cluster-announce-hostname", "a_b") ==
        "Hostnames may only contain alphanumeric characters, hyphens or dots");
  CHECK(Why(c, "cluster-announce-hostname", std::string(256, 'a')) ==
        "Hostnames must be less than 256 characters");

  // immutable ones: checked when the file or the arguments are read
  CHECK(c.Set("dbfilename", "").ok());
  CHECK(c.Set("dbfilename", "my.rdb").ok());
  CHECK(c.Set("dbfilename", "a/b").message().find("dbfilename can't be a path, just a filename") !=
        std::string::npos);
  CHECK(c.Set("dbfilename", "a\\b").IsInvalidArgument());
  CHECK(c.Set("appendfilename", "").message().find("appendfilename can't be empty") !=
        std::string::npos);
  CHECK(c.Set("appendfilename", "x/y").IsInvalidArgument());
  CHECK(c.Set("appenddirname", "x/y").message().find(
            "appenddirname can't be a path, just a dirname") != std::string::npos);
  CHECK(c.Set("dbfilename", "x.rdb", /*runtime=*/true).IsNotSupported());

  for (auto [in, out] : std::vector<std::pair<std::string, std::string>>{
           {"700", "700"}, {"0777", "777"}, {"0", "0"}, {"", "0"}, {"17", "17"}}) {
    CAPTURE(in);
    REQUIRE(c.Set("unixsocketperm", in).ok());
    CHECK(c.Get("unixsocketperm") == out);
  }
  CHECK(c.Set("unixsocketperm", "800").message().find(
            "argument couldn't be parsed as an octal number") != std::string::npos);
  CHECK(c.Set("unixsocketperm", "1000").message().find(
            "argument must be between 0 and 777 inclusive") != std::string::npos);
  CHECK(c.Set("unixsocketperm", "-1").IsInvalidArgument());
}

TEST_CASE("config lines split like redis.conf") {
  auto w = SplitConfigLine("  requirepass \"a b\\\"c\"  ");
  REQUIRE(w.ok());
  REQUIRE(w->size() == 2);
  CHECK((*w)[1] == "a b\"c");
  CHECK(!SplitConfigLine("x \"open").ok());
  CHECK(SplitConfigLine("   ")->empty());
}

std::string TempFile(const std::string& text) {
  char name[] = "/tmp/slotkv-conf-XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  FILE* f = fdopen(fd, "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return name;
}

TEST_CASE("a config file then arguments, later wins; errors name the line") {
  std::string path = TempFile("# comment\nport 7000\nappendfsync no\n");
  Config c;
  const char* argv[] = {"slotkv-server", path.c_str(), "--port", "7001"};
  REQUIRE(c.LoadArgs(4, argv).ok());
  CHECK(c.GetInt("port") == 7001);
  CHECK(c.Get("appendfsync") == "no");
  std::string bad = TempFile("port 1\nbogus 2\n");
  Config c2;
  Status st = c2.LoadFile(bad);
  CHECK(st.IsInvalidArgument());
  CHECK(std::string(st.message()).find(":2: unknown option 'bogus'") != std::string::npos);
  const char* argv2[] = {"slotkv-server", "--port"};
  CHECK(c2.LoadArgs(2, argv2).IsInvalidArgument());
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST_CASE("rewrite keeps the file's lines and adds changed options") {
  std::string path = TempFile("# mine\nport 7000\n");
  Config c;
  REQUIRE(c.LoadFile(path).ok());
  REQUIRE(c.Set("port", "7002").ok());
  REQUIRE(c.Set("requirepass", "s e").ok());
  REQUIRE(c.Rewrite().ok());
  Config again;
  REQUIRE(again.LoadFile(path).ok());
  CHECK(again.GetInt("port") == 7002);
  CHECK(again.Get("requirepass") == "s e");
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  CHECK(first == "# mine");
  Config none;
  CHECK(none.Rewrite().IsNotSupported());
  std::remove(path.c_str());
}

TEST_CASE("rewrite writes replicaof as Redis: bare words, no line for a master") {
  std::string path = TempFile("port 7000\nslaveof 10.0.0.1 6379\n");
  Config c;
  REQUIRE(c.LoadFile(path).ok());
  CHECK(c.Get("replicaof") == "10.0.0.1 6379");
  const auto text = [&] {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  REQUIRE(c.Set("replicaof", "127.0.0.1 7501").ok());
  REQUIRE(c.Rewrite().ok());
  CHECK(text() == "port 7000\nreplicaof 127.0.0.1 7501\n");
  Config again;
  REQUIRE(again.LoadFile(path).ok());
  CHECK(again.Get("replicaof") == "127.0.0.1 7501");
  REQUIRE(c.Set("replicaof", "").ok());  // REPLICAOF NO ONE
  REQUIRE(c.Rewrite().ok());
  CHECK(text().find("replicaof") == std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("string options refuse control bytes; rewrite round-trips every other value") {
  std::string path = TempFile("port 7000\n");
  Config c;
  REQUIRE(c.LoadFile(path).ok());
  for (const char* bad : {"a\nb", "pw\r\nFLUSHALL", "\x01", "tab\there", "del\x7f"}) {
    CAPTURE(bad);
    Status st = c.Set("requirepass", bad, /*runtime=*/true);
    CHECK(st.IsInvalidArgument());
    CHECK(std::string(st.message()) == "'requirepass' does not take control characters");
    CHECK(c.Get("requirepass") == "");
  }
  for (const std::string value :
       {"a b", "\"quoted\"", "back\\slash", "'single'", "#hash", " lead", "trail ", "",
        "\xc3\xbcnicode", "a\\\"b", "x\\n", "dir /etc", "\"\" \"\"", "\\"}) {
    CAPTURE(value);
    REQUIRE(c.Set("requirepass", value, /*runtime=*/true).ok());
    REQUIRE(c.Set("save", "900 1", /*runtime=*/true).ok());
    REQUIRE(c.Rewrite().ok());
    Config again;
    REQUIRE(again.LoadFile(path).ok());
    CHECK(again.Get("requirepass") == value);
    CHECK(again.Get("save") == "900 1");
    CHECK(again.Get("dir") == c.Get("dir"));
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace slotkv::conf

namespace slotkv::conf {
namespace {

TEST_CASE("client-output-buffer-limit merges classes and reads as Redis shows it") {
  Config c;
  CHECK(c.Get("client-output-buffer-limit") ==
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  CHECK(ClientOutputLimit(c.Get("client-output-buffer-limit"), "normal") == OutputLimit{});
  CHECK(ClientOutputLimit(c.Get("client-output-buffer-limit"), "pubsub") ==
        OutputLimit{32 << 20, 8 << 20, 60});
  REQUIRE(c.Set("client-output-buffer-limit", "normal 1mb 512kb 30", true).ok());
  CHECK(c.Get("client-output-buffer-limit") ==
        "normal 1048576 524288 30 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  CHECK(ClientOutputLimit(c.Get("client-output-buffer-limit"), "normal").hard == 1 << 20);
  REQUIRE(c.Set("client-output-buffer-limit", "replica 1 2 3").ok());
  CHECK(c.Get("client-output-buffer-limit").find("slave 1 2 3") != std::string::npos);
  CHECK(c.Set("client-output-buffer-limit", "normal 1 2").IsInvalidArgument());
  CHECK(c.Set("client-output-buffer-limit", "bogus 1 2 3").IsInvalidArgument());
  CHECK(c.Set("client-output-buffer-limit", "normal x 2 3").IsInvalidArgument());
  // unchanged
  CHECK(ClientOutputLimit(c.Get("client-output-buffer-limit"), "normal").hard == 1 << 20);
}

TEST_CASE("notify-keyspace-events reads its classes and shows them as Redis does") {
  Config c;
  CHECK(c.Get("notify-keyspace-events").empty());
  CHECK(*ParseNotifyClasses("") == 0u);
  CHECK(*ParseNotifyClasses("KEA") == (kNotifyKeyspace | kNotifyKeyevent | kNotifyAll));
  CHECK(*ParseNotifyClasses("El") == (kNotifyKeyevent | kNotifyList));
  CHECK((*ParseNotifyClasses("Am") & kNotifyKeyMiss) != 0);
  CHECK((*ParseNotifyClasses("A") & (kNotifyKeyMiss | kNotifyNew)) == 0);  // not part of A
  CHECK(ParseNotifyClasses("Kq").status().IsInvalidArgument());
  REQUIRE(c.Set("notify-keyspace-events", "KEA", true).ok());
  CHECK(c.Get("notify-keyspace-events") == "AKE");
  REQUIRE(c.Set("notify-keyspace-events", "Elg", true).ok());
  CHECK(c.Get("notify-keyspace-events") == "glE");
  REQUIRE(c.Set("notify-keyspace-events", "g$lshzxetdKn", true).ok());
  CHECK(c.Get("notify-keyspace-events") == "AKn");
  CHECK(c.Set("notify-keyspace-events", "xyz", true).IsInvalidArgument());
  CHECK(c.Get("notify-keyspace-events") == "AKn");  // unchanged
}

}  // namespace
}  // namespace slotkv::conf
