#include "conf/config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/base/ascii.h"
#include "core/base/fs.h"
#include "core/base/glob.h"

namespace slotkv::conf {
namespace {

using T = OptionType;
constexpr int64_t kGb = 1ll << 30;

// notify-keyspace-events' grammar (below): checked, and written as Redis writes it.
Result<std::string> ParseNotifyOption(std::string_view value, std::string_view current);
// latency-tracking-info-percentiles (below): checked, and written as Redis writes it.
Result<std::string> ParsePercentilesOption(std::string_view value, std::string_view current);

// The checks of Redis 7.0.15's own options of these grammars, with its error texts, so that a
// value Redis refuses is refused here too (the options change nothing in slotkv).

// The words of a multi-word value as Redis's CONFIG SET splits it: at every single space (two
// spaces make an empty word; "" has no word).
std::vector<std::string_view> SplitAtSpaces(std::string_view value) {
  std::vector<std::string_view> words;
  if (value.empty()) return words;
  for (size_t begin = 0;;) {
    const size_t end = value.find(' ', begin);
    words.push_back(value.substr(begin, end - begin));
    if (end == std::string_view::npos) return words;
    begin = end + 1;
  }
}

// maxmemory-clients: a memory value, or a percentage of maxmemory up to 100 ("10%").
Result<std::string> ParseMemoryOrPercent(std::string_view value, std::string_view) {
  if (!value.empty() && value.back() == '%') {
    int64_t pct = 0;
    const std::string_view digits = value.substr(0, value.size() - 1);
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pct);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || digits.empty() || pct < 0) {
      return Status::InvalidArgument("argument must be a memory or percent value");
    }
    if (pct > 100) {
      return Status::InvalidArgument("percentage argument must be less or equal to 100");
    }
    return pct == 0 ? std::string("0") : std::to_string(pct) + "%";  // Redis shows 0% as 0
  }
  Result<int64_t> bytes = ParseMemory(value);
  if (!bytes.ok() || *bytes < 0) {
    return Status::InvalidArgument("argument must be a memory or percent value");
  }
  return std::to_string(*bytes);
}

// shutdown-on-sigint / shutdown-on-sigterm: flags (default is none of them), shown in this
// order whatever order they came in.
Result<std::string> ParseShutdownFlags(std::string_view value, std::string_view) {
  static constexpr std::string_view kFlags[] = {"save", "nosave", "now", "force"};
  const std::vector<std::string_view> words = SplitAtSpaces(value);
  bool set[std::size(kFlags)] = {};
  for (std::string_view word : words) {
    const std::string w = AsciiLower(word);
    const auto* flag = std::find(std::begin(kFlags), std::end(kFlags), w);
    if (flag != std::end(kFlags)) {
      set[flag - std::begin(kFlags)] = true;
    } else if (w != "default") {
      return Status::InvalidArgument(
          "argument(s) must be one of the following: default, save, nosave, now, force");
    }
  }
  if (words.empty()) {
    return Status::InvalidArgument(
        "argument(s) must be one of the following: default, save, nosave, now, force");
  }
  if (set[0] && set[1]) {
    return Status::InvalidArgument(
        "shutdown options SAVE and NOSAVE can't be used simultaneously");
  }
  std::string out;
  for (size_t i = 0; i < std::size(kFlags); ++i) {
    if (!set[i]) continue;
    if (!out.empty()) out += ' ';
    out += kFlags[i];
  }
  return out.empty() ? std::string("default") : out;
}

// oom-score-adj: relative is another name of yes, and Redis shows it as yes.
Result<std::string> ParseOomScoreAdj(std::string_view value, std::string_view) {
  const std::string v = AsciiLower(value);
  if (v == "no" || v == "yes" || v == "absolute") return v;
  if (v == "relative") return std::string("yes");
  return Status::InvalidArgument(
      "argument(s) must be one of the following: no, yes, relative, absolute");
}

// oom-score-adj-values: three integers in [-2000, 2000] (strtoll's grammar: "+5", and an
// empty word reads as 0, as in Redis).
Result<std::string> ParseOomScoreValues(std::string_view value, std::string_view) {
  const std::vector<std::string_view> words = SplitAtSpaces(value);
  if (words.size() != 3) return Status::InvalidArgument("wrong number of arguments");
  std::string out;
  for (std::string_view word : words) {
    const std::string w(word);
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(w.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || n < -2000 || n > 2000) {
      return Status::InvalidArgument(
          "Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
    }
    if (!out.empty()) out += ' ';
    out += std::to_string(n);
  }
  return out;
}

// proc-title-template: Redis's template ({name} variables, "{{" a literal brace) must know
// every variable and expand to something besides spaces, the title being "". The variables
// that are empty in slotkv's case (no cluster or sentinel mode, no Unix socket) count as empty.
Result<std::string> ParseProcTitleTemplate(std::string_view value, std::string_view) {
  static constexpr std::pair<std::string_view, bool> kVariables[] = {
      {"title", false},     {"listen-addr", true}, {"server-mode", false}, {"port", true},
      {"tls-port", true},   {"unixsocket", false}, {"config-file", true}};
  auto invalid = [] {
    return Status::InvalidArgument("template format is invalid or contains unknown variables");
  };
  bool shows_something = false;
  for (size_t i = 0; i < value.size();) {
    if (value[i] != '{') {
      shows_something = shows_something || value[i] != ' ';
      ++i;
      continue;
    }
    if (i + 1 == value.size()) return invalid();
    if (value[i + 1] == '{') {
      shows_something = true;
      i += 2;
      continue;
    }
    const size_t close = value.find('}', i + 1);
    if (close == std::string_view::npos) return invalid();
    const std::string_view name = value.substr(i + 1, close - i - 1);
    const auto* var = std::find_if(std::begin(kVariables), std::end(kVariables),
                                   [&](const auto& v) { return v.first == name; });
    if (var == std::end(kVariables)) return invalid();
    shows_something = shows_something || var->second;
    i = close + 1;
  }
  if (!shows_something) return invalid();
  return std::string(value);
}

// cluster-announce-hostname: letters, digits, '-' and '.', shorter than 256 bytes.
Result<std::string> ParseHostname(std::string_view value, std::string_view) {
  if (value.size() >= 256) {
    return Status::InvalidArgument("Hostnames must be less than 256 characters");
  }
  for (char c : value) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') {
      return Status::InvalidArgument(
          "Hostnames may only contain alphanumeric characters, hyphens or dots");
    }
  }
  return std::string(value);
}

bool IsBaseName(std::string_view value) {
  return value.find_first_of("/\\") == std::string_view::npos;
}

Result<std::string> ParseDbFilename(std::string_view value, std::string_view) {
  if (!IsBaseName(value)) {
    return Status::InvalidArgument("dbfilename can't be a path, just a filename");
  }
  return std::string(value);
}

Result<std::string> ParseAppendFilename(std::string_view value, std::string_view) {
  if (value.empty()) return Status::InvalidArgument("appendfilename can't be empty");
  if (!IsBaseName(value)) {
    return Status::InvalidArgument("appendfilename can't be a path, just a filename");
  }
  return std::string(value);
}

Result<std::string> ParseAppendDirname(std::string_view value, std::string_view) {
  if (value.empty()) return Status::InvalidArgument("appenddirname can't be empty");
  if (!IsBaseName(value)) {
    return Status::InvalidArgument("appenddirname can't be a path, just a dirname");
  }
  return std::string(value);
}

// unixsocketperm: octal (strtoll base 8, "" reads as 0), 0 to 0777, shown in octal unprefixed.
Result<std::string> ParseOctalPerm(std::string_view value, std::string_view) {
  const std::string v(value);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 8);
  if (*end != '\0') {
    return Status::InvalidArgument("argument couldn't be parsed as an octal number");
  }
  if (errno == ERANGE || n < 0 || n > 0777) {
    return Status::InvalidArgument("argument must be between 0 and 777 inclusive");
  }
  std::ostringstream out;
  out << std::oct << n;
  return out.str();
}

// clang-format off
constexpr OptionDef kOptions[] = {
  {.name = "bind", .type = T::kString, .default_value = "127.0.0.1",
   .doc = "address the RESP port listens on"},
  {.name = "protected-mode", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "with no requirepass, refuse clients not from 127.0.0.1 or ::1 (as Redis)"},
  {.name = "port", .type = T::kInt, .default_value = "7379",
   .doc = "RESP port", .min = 0, .max = 65535},
  {.name = "http-port", .type = T::kInt, .default_value = "7380",
   .doc = "HTTP admin API and /metrics port; 0 = no HTTP server", .min = 0, .max = 65535},
  {.name = "http-bind", .type = T::kString, .default_value = "127.0.0.1",
   .doc = "address the HTTP port listens on (apart from bind: the admin API stays local)"},
  {.name = "metrics-auth", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "with requirepass set, /metrics needs HTTP Basic auth too"},
  {.name = "dir", .type = T::kString, .default_value = "./data",
   .doc = "data directory (created when missing)"},
  {.name = "storage", .type = T::kEnum, .default_value = "disk",
   .doc = "disk, or memory: the same engine without files (data gone on restart)",
   .choices = "disk|memory"},
  {.name = "workers", .type = T::kInt, .default_value = "0",
   .doc = "network worker threads; 0 = one per CPU core", .min = 0, .max = 256},
  {.name = "slots", .type = T::kInt, .default_value = "16",
   .doc = "engine slots (power of two); fixed when the data dir is created", .min = 1,
   .max = 16384},
  {.name = "databases", .type = T::kInt, .default_value = "16",
   .doc = "number of databases (SELECT 0..databases-1)", .min = 1, .max = 1024},
  {.name = "appendfsync", .type = T::kEnum, .default_value = "everysec", .runtime = true,
   .doc = "WAL fsync: always (before the reply), everysec, no (the OS decides)",
   .choices = "everysec|always|no"},
  {.name = "io-uring", .type = T::kBool, .default_value = "yes",
   .doc = "reads that miss the OS page cache go through a per-worker io_uring while the worker "
          "serves other requests (falls back to waiting reads, with one log line, where the "
          "kernel refuses io_uring)"},
  {.name = "wal-io-uring-writes", .type = T::kBool, .default_value = "no",
   .doc = "a turn's WAL writes go through the worker's io_uring too, replies leaving from the "
          "completion (no stall if the page cache throttles writes; on ext4 the kernel hands "
          "them to a thread: ~20% fewer SETs/s, see docs/server.md); needs io-uring yes"},
  {.name = "key-estimate", .type = T::kInt, .default_value = "16000000",
   .doc = "expected keys per database, sizes the bucket files of a new slot", .min = 1024},
  {.name = "wal-max-bytes", .type = T::kBytes, .default_value = "268435456",
   .doc = "unpersisted WAL per database, split evenly over its slots (a slot may borrow "
          "what the others leave unused, up to 4 shares); past its limit a slot persists the "
          "groups holding its oldest log file (bounds replay time, WAL disk and the memory "
          "of the group maps, at the cost of smaller, costlier flushes)",
   .min = 16 << 20, .max = 1024 * kGb},
  {.name = "maxmemory-cache", .type = T::kBytes, .default_value = "268435456", .runtime = true,
   .doc = "memory for the caches of all slots and their maps of unpersisted writes together",
   .min = 1 << 20, .max = 1024 * kGb},
  {.name = "compress-min-bytes", .type = T::kInt, .default_value = "64", .runtime = true,
   .doc = "values at least this long are zstd-compressed (dictionaries trained per key "
          "prefix group); 0 = no compression", .min = 0, .max = 1 << 30},
  {.name = "compress-max-bytes", .type = T::kBytes, .default_value = "1048576", .runtime = true,
   .doc = "values longer than this are stored raw (compressing them would hold the worker "
          "long); 0 = no upper bound", .min = 0, .max = 1 << 30},
  {.name = "compress-group-chars", .type = T::kInt, .default_value = "8",
   .doc = "a key without ':' or '.' belongs to the group of its first N bytes", .min = 1,
   .max = 2048},
  {.name = "requirepass", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "password of the default user; empty = no AUTH needed"},
  {.name = "maxclients", .type = T::kInt, .default_value = "10000", .runtime = true,
   .doc = "connections beyond this are refused with an error", .min = 1, .max = 1000000},
  {.name = "proto-max-bulk-len", .type = T::kBytes, .default_value = "536870912",
   .runtime = true, .doc = "largest bulk string a request may carry", .min = 1 << 20,
   .max = 4 * kGb},
  {.name = "client-query-buffer-limit", .type = T::kBytes, .default_value = "1073741824",
   .runtime = true, .doc = "largest request input kept per client (its finished arguments too)",
   .min = 1 << 20, .max = 4 * kGb},
  {.name = "client-output-buffer-limit", .type = T::kString,
   .default_value = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
   .runtime = true,
   .doc = "<class> <hard> <soft> <seconds>... as Redis: a client whose unsent replies pass "
          "its class's hard limit, or the soft one for its seconds, is closed (0 = none); "
          "classes normal, pubsub (subscribers), slave (a replica's link); a client that does "
          "not read its replies is not read either",
   .parse = ParseOutputLimits},
  {.name = "slowlog-log-slower-than", .type = T::kInt, .default_value = "10000",
   .runtime = true, .doc = "microseconds; commands slower than this enter SLOWLOG (-1 = off)",
   .min = -1},
  {.name = "slowlog-max-len", .type = T::kInt, .default_value = "128", .runtime = true,
   .doc = "SLOWLOG entries kept", .min = 0},
  {.name = "hz", .type = T::kInt, .default_value = "10", .runtime = true,
   .doc = "active expiry steps per second per worker", .min = 1, .max = 500},
  {.name = "paged-collection-threshold", .type = T::kInt, .default_value = "512",
   .runtime = true,
   .doc = "a hash or set with more members is stored as a root plus pages of members",
   .min = 1, .max = INT32_MAX},
  {.name = "paged-page-members", .type = T::kInt, .default_value = "64", .runtime = true,
   .doc = "most members per page of a paged hash or set (fewer when members are long: pages "
          "aim at 1 kB), entries per node of a paged sorted set or list",
   .min = 1,
   .max = 65536},
  {.name = "paged-copy-batch-bytes", .type = T::kBytes, .default_value = "1048576",
   .runtime = true,
   .doc = "RENAME, COPY and MOVE of a paged collection copy this many bytes of pages per "
          "turn of a worker (other clients are served between turns)",
   .min = 4096, .max = 1024 * kGb},
  {.name = "loglevel", .type = T::kEnum, .default_value = "notice", .runtime = true,
   .doc = "log verbosity", .choices = "debug|verbose|notice|warning"},
  {.name = "logfile", .type = T::kString, .default_value = "",
   .doc = "log file; empty = standard error"},
  // Accepted because tools and redis.conf files set them; they change nothing in slotkv.
  {.name = "save", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: data is persisted continuously (SAVE persists every WAL group)",
   .no_effect = true},
  {.name = "appendonly", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: the WAL is always on", .no_effect = true},
  {.name = "maxmemory", .type = T::kBytes, .default_value = "0", .runtime = true,
   .doc = "no effect: data lives on disk", .no_effect = true},
  {.name = "maxmemory-policy", .type = T::kEnum, .default_value = "noeviction",
   .runtime = true, .doc = "no effect: nothing is evicted",
   .choices = "volatile-lru|volatile-lfu|volatile-random|volatile-ttl|allkeys-lru|allkeys-lfu|"
              "allkeys-random|noeviction",
   .no_effect = true},
  {.name = "timeout", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "close a client idle this many seconds (not subscribers or blocked ones); 0 = never",
   .min = 0, .max = INT32_MAX},
  {.name = "tcp-keepalive", .type = T::kInt, .default_value = "300", .runtime = true,
   .doc = "no effect", .max = INT32_MAX, .no_effect = true},
  {.name = "hll-sparse-max-bytes", .type = T::kBytes, .default_value = "3000", .runtime = true,
   .doc = "a HyperLogLog value stays sparse up to this many bytes", .min = 0,
   .max = 1024 * kGb},
  // Redis 7.0.15's encoding thresholds, at its defaults and bounds (the *-value ones are memory
  // values); the ziplist names are its old names of the listpack ones. OBJECT ENCODING follows
  // these defaults (core/command/key_commands.cc), not the values set.
  {.name = "hash-max-listpack-entries", .type = T::kInt, .default_value = "512",
   .runtime = true, .doc = "no effect: encoding threshold of Redis", .no_effect = true},
  {.name = "hash-max-listpack-value", .type = T::kBytes, .default_value = "64", .runtime = true,
   .doc = "no effect: encoding threshold of Redis", .no_effect = true},
  {.name = "hash-max-ziplist-entries", .type = T::kInt, .default_value = "512",
   .runtime = true, .doc = "old name of hash-max-listpack-entries", .no_effect = true,
   .alias_of = "hash-max-listpack-entries"},
  {.name = "hash-max-ziplist-value", .type = T::kBytes, .default_value = "64", .runtime = true,
   .doc = "old name of hash-max-listpack-value", .no_effect = true,
   .alias_of = "hash-max-listpack-value"},
  {.name = "list-max-listpack-size", .type = T::kInt, .default_value = "-2", .runtime = true,
   .doc = "no effect: encoding threshold of Redis", .min = INT32_MIN, .max = INT32_MAX,
   .no_effect = true},
  {.name = "list-max-ziplist-size", .type = T::kInt, .default_value = "-2", .runtime = true,
   .doc = "old name of list-max-listpack-size", .min = INT32_MIN, .max = INT32_MAX,
   .no_effect = true, .alias_of = "list-max-listpack-size"},
  {.name = "list-compress-depth", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "no effect: encoding setting of Redis", .max = INT32_MAX, .no_effect = true},
  {.name = "set-max-intset-entries", .type = T::kInt, .default_value = "512", .runtime = true,
   .doc = "no effect: encoding threshold of Redis", .no_effect = true},
  // Redis 7.2's (7.0 has no such option); kept for the tools that set it.
  {.name = "set-max-listpack-entries", .type = T::kInt, .default_value = "128",
   .runtime = true, .doc = "no effect: encoding threshold of Redis", .no_effect = true},
  {.name = "zset-max-listpack-entries", .type = T::kInt, .default_value = "128",
   .runtime = true, .doc = "no effect: encoding threshold of Redis", .no_effect = true},
  {.name = "zset-max-listpack-value", .type = T::kBytes, .default_value = "64", .runtime = true,
   .doc = "no effect: encoding threshold of Redis", .no_effect = true},
  {.name = "zset-max-ziplist-entries", .type = T::kInt, .default_value = "128",
   .runtime = true, .doc = "old name of zset-max-listpack-entries", .no_effect = true,
   .alias_of = "zset-max-listpack-entries"},
  {.name = "zset-max-ziplist-value", .type = T::kBytes, .default_value = "64", .runtime = true,
   .doc = "old name of zset-max-listpack-value", .no_effect = true,
   .alias_of = "zset-max-listpack-value"},
  {.name = "activerehashing", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect", .no_effect = true},
  {.name = "notify-keyspace-events", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "keyspace notification classes, Redis's letters (K E g $ l s h z x e t m d n A)",
   .parse = ParseNotifyOption},
  {.name = "latency-monitor-threshold", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "ms: events at least this long enter LATENCY LATEST / HISTORY (0: off)"},
  {.name = "latency-tracking", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "keep per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats)"},
  {.name = "latency-tracking-info-percentiles", .type = T::kString,
   .default_value = "50 99 99.9", .runtime = true,
   .doc = "the percentiles INFO latencystats prints, each in [0, 100]",
   .parse = ParsePercentilesOption},
  {.name = "busy-reply-threshold", .type = T::kInt, .default_value = "5000", .runtime = true,
   .doc = "ms a script runs before other clients get -BUSY and SCRIPT KILL may stop it "
          "(0: never)"},
  {.name = "lua-time-limit", .type = T::kInt, .default_value = "5000", .runtime = true,
   .doc = "old name of busy-reply-threshold", .alias_of = "busy-reply-threshold"},
  {.name = "replicaof", .type = T::kString, .default_value = "",
   .doc = "<host> <port>: start as a replica of that master (REPLICAOF sets the role "
          "while running and keeps it in dir/replication.state, read at start when this is "
          "empty)",
   .words = true},
  {.name = "slaveof", .type = T::kString, .default_value = "", .doc = "old name of replicaof",
   .alias_of = "replicaof"},
  {.name = "zookeeper-connect", .type = T::kString, .default_value = "",
   .doc = "host:port,... of ZooKeeper: the nodes elect a controller there, which fails the "
          "master over; empty: no ZooKeeper (roles by REPLICAOF, or Sentinel)"},
  {.name = "zookeeper-root", .type = T::kString, .default_value = "/slotkv/mymaster",
   .doc = "the cluster's znode; its last part is the master's name for Sentinel clients"},
  {.name = "zookeeper-session-timeout-ms", .type = T::kInt, .default_value = "10000",
   .doc = "ZooKeeper session timeout asked for; a master out of touch for 2/3 of it stops "
          "taking writes", .min = 100, .max = 600000},
  {.name = "failover-down-after-ms", .type = T::kInt, .default_value = "5000",
   .doc = "how long the master's znode must be gone (after its session expired) before "
          "the controller promotes a replica", .max = 3600000},
  {.name = "sentinel-port", .type = T::kInt, .default_value = "0",
   .doc = "ZooKeeper mode: a second RESP port for Sentinel clients (SENTINEL ...); 0: port + "
          "20000 (26379 for 6379)", .max = 65535},
  {.name = "masterauth", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "password a replica gives its master (AUTH)"},
  {.name = "masteruser", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "user a replica gives its master with masterauth (AUTH user password)"},
  {.name = "replica-read-only", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "a replica refuses its clients' writes with -READONLY"},
  {.name = "slave-read-only", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "old name of replica-read-only", .alias_of = "replica-read-only"},
  {.name = "replica-priority", .type = T::kInt, .default_value = "100", .runtime = true,
   .doc = "shown to Sentinel (slave_priority): lower is promoted first, 0 never", .min = 0,
   .max = INT32_MAX},
  {.name = "slave-priority", .type = T::kInt, .default_value = "100", .runtime = true,
   .doc = "old name of replica-priority", .alias_of = "replica-priority"},
  {.name = "replica-announce-ip", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "address a replica tells its master to list (INFO replication, ROLE)"},
  {.name = "slave-announce-ip", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "old name of replica-announce-ip", .alias_of = "replica-announce-ip"},
  {.name = "replica-announce-port", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "port a replica tells its master to list (0: its own port)", .max = 65535},
  {.name = "slave-announce-port", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "old name of replica-announce-port", .max = 65535, .alias_of = "replica-announce-port"},
  {.name = "replica-serve-stale-data", .type = T::kBool, .default_value = "yes",
   .runtime = true,
   .doc = "a replica whose link is down (or still syncing) answers reads; no: -MASTERDOWN"},
  {.name = "slave-serve-stale-data", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "old name of replica-serve-stale-data", .alias_of = "replica-serve-stale-data"},
  {.name = "min-replicas-to-write", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "a master refuses writes (-NOREPLICAS) with fewer replicas acknowledging within "
          "min-replicas-max-lag seconds (0: never)", .max = INT32_MAX},
  {.name = "min-slaves-to-write", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "old name of min-replicas-to-write", .max = INT32_MAX,
   .alias_of = "min-replicas-to-write"},
  {.name = "min-replicas-max-lag", .type = T::kInt, .default_value = "10", .runtime = true,
   .doc = "seconds since a replica's last acknowledgement for it to count as good",
   .max = INT32_MAX},
  {.name = "min-slaves-max-lag", .type = T::kInt, .default_value = "10", .runtime = true,
   .doc = "old name of min-replicas-max-lag", .max = INT32_MAX,
   .alias_of = "min-replicas-max-lag"},
  {.name = "repl-backlog-size", .type = T::kBytes, .default_value = "1048576", .runtime = true,
   .doc = "bytes of committed writes the streams (databases of slots) keep for replicas "
          "that reconnect (CONTINUE instead of a full sync of a stream), shared by them",
   .min = 16384},
  {.name = "repl-sync-max-bytes-per-sec", .type = T::kBytes, .default_value = "0",
   .runtime = true,
   .doc = "a master's full syncs send at most this many bytes of keys and values a second, "
          "over all replicas and streams (0: as fast as the replicas take them)"},
  {.name = "repl-timeout", .type = T::kInt, .default_value = "60", .runtime = true,
   .doc = "seconds of silence after which a replication link is dropped", .min = 1,
   .max = INT32_MAX},
  {.name = "repl-ping-replica-period", .type = T::kInt, .default_value = "10", .runtime = true,
   .doc = "seconds between a master's pings to its replicas", .min = 1, .max = INT32_MAX},
  {.name = "repl-ping-slave-period", .type = T::kInt, .default_value = "10", .runtime = true,
   .doc = "old name of repl-ping-replica-period", .min = 1, .max = INT32_MAX,
   .alias_of = "repl-ping-replica-period"},

  // The rest of what Redis 7.0.15 lists in CONFIG GET *, at its defaults, with its types,
  // bounds and choices (a value Redis refuses is refused), and immutable where Redis's are:
  // redis.conf files and tools set them, and a client that reads one back gets Redis's answer.
  // None changes anything in slotkv; each doc says why.

  // Cluster mode.
  {.name = "cluster-enabled", .type = T::kBool, .default_value = "no",
   .doc = "no effect: slotkv has no cluster mode", .no_effect = true},
  {.name = "cluster-config-file", .type = T::kString, .default_value = "nodes.conf",
   .doc = "no effect: slotkv has no cluster mode", .no_effect = true},
  {.name = "cluster-port", .type = T::kInt, .default_value = "0",
   .doc = "no effect: slotkv has no cluster mode", .max = 65535, .no_effect = true},
  {.name = "cluster-node-timeout", .type = T::kInt, .default_value = "15000", .runtime = true,
   .doc = "no effect: slotkv has no cluster mode", .no_effect = true},
  {.name = "cluster-announce-ip", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: slotkv has no cluster mode", .no_effect = true},
  {.name = "cluster-announce-hostname", .type = T::kString, .default_value = "",
   .runtime = true, .doc = "no effect: slotkv has no cluster mode", .no_effect = true,
   .parse = ParseHostname},
  {.name = "cluster-announce-port", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "no effect: slotkv has no cluster mode", .max = 65535, .no_effect = true},
  {.name = "cluster-announce-bus-port", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "no effect: slotkv has no cluster mode", .max = 65535, .no_effect = true},
  {.name = "cluster-announce-tls-port", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "no effect: slotkv has no cluster mode", .max = 65535, .no_effect = true},
  {.name = "cluster-preferred-endpoint-type", .type = T::kEnum, .default_value = "ip",
   .runtime = true, .doc = "no effect: slotkv has no cluster mode",
   .choices = "ip|hostname|unknown-endpoint", .no_effect = true},
  {.name = "cluster-require-full-coverage", .type = T::kBool, .default_value = "yes",
   .runtime = true, .doc = "no effect: slotkv has no cluster mode", .no_effect = true},
  {.name = "cluster-allow-reads-when-down", .type = T::kBool, .default_value = "no",
   .runtime = true, .doc = "no effect: slotkv has no cluster mode", .no_effect = true},
  {.name = "cluster-allow-pubsubshard-when-down", .type = T::kBool, .default_value = "yes",
   .runtime = true, .doc = "no effect: slotkv has no cluster mode", .no_effect = true},
  {.name = "cluster-allow-replica-migration", .type = T::kBool, .default_value = "yes",
   .runtime = true, .doc = "no effect: slotkv has no cluster mode", .no_effect = true},
  {.name = "cluster-migration-barrier", .type = T::kInt, .default_value = "1", .runtime = true,
   .doc = "no effect: slotkv has no cluster mode", .max = INT32_MAX, .no_effect = true},
  {.name = "cluster-replica-no-failover", .type = T::kBool, .default_value = "no",
   .runtime = true, .doc = "no effect: slotkv has no cluster mode", .no_effect = true},
  {.name = "cluster-slave-no-failover", .type = T::kBool, .default_value = "no",
   .runtime = true, .doc = "old name of cluster-replica-no-failover", .no_effect = true,
   .alias_of = "cluster-replica-no-failover"},
  {.name = "cluster-replica-validity-factor", .type = T::kInt, .default_value = "10",
   .runtime = true, .doc = "no effect: slotkv has no cluster mode", .max = INT32_MAX,
   .no_effect = true},
  {.name = "cluster-slave-validity-factor", .type = T::kInt, .default_value = "10",
   .runtime = true, .doc = "old name of cluster-replica-validity-factor", .max = INT32_MAX,
   .no_effect = true, .alias_of = "cluster-replica-validity-factor"},
  {.name = "cluster-link-sendbuf-limit", .type = T::kBytes, .default_value = "0",
   .runtime = true, .doc = "no effect: slotkv has no cluster mode", .no_effect = true},

  // TLS.
  {.name = "tls-port", .type = T::kInt, .default_value = "0", .runtime = true,
   .doc = "no effect: no TLS listener", .max = 65535, .no_effect = true},
  {.name = "tls-cert-file", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-key-file", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-key-file-pass", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-client-cert-file", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-client-key-file", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-client-key-file-pass", .type = T::kString, .default_value = "",
   .runtime = true, .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-dh-params-file", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-ca-cert-file", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-ca-cert-dir", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-protocols", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-ciphers", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-ciphersuites", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-prefer-server-ciphers", .type = T::kBool, .default_value = "no",
   .runtime = true, .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-session-caching", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-session-cache-size", .type = T::kInt, .default_value = "20480",
   .runtime = true, .doc = "no effect: no TLS listener", .max = INT32_MAX, .no_effect = true},
  {.name = "tls-session-cache-timeout", .type = T::kInt, .default_value = "300",
   .runtime = true, .doc = "no effect: no TLS listener", .max = INT32_MAX, .no_effect = true},
  {.name = "tls-auth-clients", .type = T::kEnum, .default_value = "yes", .runtime = true,
   .doc = "no effect: no TLS listener", .choices = "no|yes|optional", .no_effect = true},
  {.name = "tls-cluster", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},
  {.name = "tls-replication", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: no TLS listener", .no_effect = true},

  // RDB snapshots: slotkv persists continuously and never forks a child to write a file.
  {.name = "dbfilename", .type = T::kString, .default_value = "dump.rdb",
   .doc = "no effect: no fork/RDB child (Redis refuses CONFIG SET of it too, as a protected "
          "config)", .no_effect = true, .parse = ParseDbFilename},
  {.name = "rdbcompression", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: no fork/RDB child", .no_effect = true},
  {.name = "rdbchecksum", .type = T::kBool, .default_value = "yes",
   .doc = "no effect: no fork/RDB child", .no_effect = true},
  {.name = "rdb-del-sync-files", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: no fork/RDB child", .no_effect = true},
  {.name = "rdb-save-incremental-fsync", .type = T::kBool, .default_value = "yes",
   .runtime = true, .doc = "no effect: no fork/RDB child", .no_effect = true},
  {.name = "stop-writes-on-bgsave-error", .type = T::kBool, .default_value = "yes",
   .runtime = true, .doc = "no effect: no fork/RDB child", .no_effect = true},
  {.name = "bgsave_cpulist", .type = T::kString, .default_value = "",
   .doc = "no effect: no fork/RDB child", .no_effect = true},
  {.name = "aof_rewrite_cpulist", .type = T::kString, .default_value = "",
   .doc = "no effect: no fork/AOF rewrite child", .no_effect = true},

  // The append-only file: slotkv's log is its WAL (appendonly, appendfsync).
  {.name = "appendfilename", .type = T::kString, .default_value = "appendonly.aof",
   .doc = "no effect: no AOF (the WAL is slotkv's log)", .no_effect = true,
   .parse = ParseAppendFilename},
  {.name = "appenddirname", .type = T::kString, .default_value = "appendonlydir",
   .doc = "no effect: no AOF (the WAL is slotkv's log)", .no_effect = true,
   .parse = ParseAppendDirname},
  {.name = "auto-aof-rewrite-percentage", .type = T::kInt, .default_value = "100",
   .runtime = true, .doc = "no effect: no AOF (the WAL is slotkv's log)", .max = INT32_MAX,
   .no_effect = true},
  {.name = "auto-aof-rewrite-min-size", .type = T::kBytes, .default_value = "67108864",
   .runtime = true, .doc = "no effect: no AOF (the WAL is slotkv's log)", .no_effect = true},
  {.name = "no-appendfsync-on-rewrite", .type = T::kBool, .default_value = "no",
   .runtime = true, .doc = "no effect: no AOF (the WAL is slotkv's log)", .no_effect = true},
  {.name = "aof-rewrite-incremental-fsync", .type = T::kBool, .default_value = "yes",
   .runtime = true, .doc = "no effect: no AOF (the WAL is slotkv's log)", .no_effect = true},
  {.name = "aof-load-truncated", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: no AOF (the WAL is slotkv's log)", .no_effect = true},
  {.name = "aof-use-rdb-preamble", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: no AOF (the WAL is slotkv's log)", .no_effect = true},
  {.name = "aof-timestamp-enabled", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: no AOF (the WAL is slotkv's log)", .no_effect = true},
  {.name = "aof-disable-auto-gc", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: no AOF (the WAL is slotkv's log)", .no_effect = true},

  // ACL.
  {.name = "aclfile", .type = T::kString, .default_value = "",
   .doc = "no effect: no ACL yet (only the default user)", .no_effect = true},
  {.name = "acllog-max-len", .type = T::kInt, .default_value = "128", .runtime = true,
   .doc = "no effect: no ACL yet (only the default user)", .no_effect = true},
  {.name = "acl-pubsub-default", .type = T::kEnum, .default_value = "resetchannels",
   .runtime = true, .doc = "no effect: no ACL yet (only the default user)",
   .choices = "allchannels|resetchannels", .no_effect = true},

  // Eviction and memory management.
  {.name = "maxmemory-clients", .type = T::kString, .default_value = "0", .runtime = true,
   .doc = "no effect: no client is evicted (a memory value or a percentage of maxmemory)",
   .no_effect = true, .parse = ParseMemoryOrPercent},
  {.name = "maxmemory-samples", .type = T::kInt, .default_value = "5", .runtime = true,
   .doc = "no effect: nothing is evicted", .min = 1, .max = INT32_MAX, .no_effect = true},
  {.name = "maxmemory-eviction-tenacity", .type = T::kInt, .default_value = "10",
   .runtime = true, .doc = "no effect: nothing is evicted", .max = 100, .no_effect = true},
  {.name = "lfu-log-factor", .type = T::kInt, .default_value = "10", .runtime = true,
   .doc = "no effect: nothing is evicted (no LFU counters)", .max = INT32_MAX,
   .no_effect = true},
  {.name = "lfu-decay-time", .type = T::kInt, .default_value = "1", .runtime = true,
   .doc = "no effect: nothing is evicted (no LFU counters)", .max = INT32_MAX,
   .no_effect = true},
  {.name = "replica-ignore-maxmemory", .type = T::kBool, .default_value = "yes",
   .runtime = true, .doc = "no effect: nothing is evicted", .no_effect = true},
  {.name = "slave-ignore-maxmemory", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "old name of replica-ignore-maxmemory", .no_effect = true,
   .alias_of = "replica-ignore-maxmemory"},
  {.name = "activedefrag", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: no active defragmentation", .no_effect = true},
  {.name = "active-defrag-ignore-bytes", .type = T::kBytes, .default_value = "104857600",
   .runtime = true, .doc = "no effect: no active defragmentation", .min = 1,
   .no_effect = true},
  {.name = "active-defrag-threshold-lower", .type = T::kInt, .default_value = "10",
   .runtime = true, .doc = "no effect: no active defragmentation", .max = 1000,
   .no_effect = true},
  {.name = "active-defrag-threshold-upper", .type = T::kInt, .default_value = "100",
   .runtime = true, .doc = "no effect: no active defragmentation", .max = 1000,
   .no_effect = true},
  {.name = "active-defrag-cycle-min", .type = T::kInt, .default_value = "1", .runtime = true,
   .doc = "no effect: no active defragmentation", .min = 1, .max = 99, .no_effect = true},
  {.name = "active-defrag-cycle-max", .type = T::kInt, .default_value = "25", .runtime = true,
   .doc = "no effect: no active defragmentation", .min = 1, .max = 99, .no_effect = true},
  {.name = "active-defrag-max-scan-fields", .type = T::kInt, .default_value = "1000",
   .runtime = true, .doc = "no effect: no active defragmentation", .min = 1,
   .no_effect = true},
  {.name = "jemalloc-bg-thread", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: jemalloc's settings are built in (core/base/malloc_conf.cc)",
   .no_effect = true},
  // A large collection is always freed in the background (its pages), a small one at once.
  {.name = "lazyfree-lazy-eviction", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: nothing is evicted", .no_effect = true},
  {.name = "lazyfree-lazy-expire", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: large collections are always freed in the background",
   .no_effect = true},
  {.name = "lazyfree-lazy-server-del", .type = T::kBool, .default_value = "no",
   .runtime = true, .doc = "no effect: large collections are always freed in the background",
   .no_effect = true},
  {.name = "lazyfree-lazy-user-del", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: large collections are always freed in the background",
   .no_effect = true},
  {.name = "lazyfree-lazy-user-flush", .type = T::kBool, .default_value = "no",
   .runtime = true, .doc = "no effect: large collections are always freed in the background",
   .no_effect = true},

  // Replication: slotkv's replicas sync per slot stream, keys and values, no RDB file
  // (docs/server.md, "Replication").
  {.name = "repl-diskless-sync", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: a full sync sends keys, never an RDB file", .no_effect = true},
  {.name = "repl-diskless-sync-delay", .type = T::kInt, .default_value = "5", .runtime = true,
   .doc = "no effect: a full sync sends keys, never an RDB file", .max = INT32_MAX,
   .no_effect = true},
  {.name = "repl-diskless-sync-max-replicas", .type = T::kInt, .default_value = "0",
   .runtime = true, .doc = "no effect: a full sync sends keys, never an RDB file",
   .max = INT32_MAX, .no_effect = true},
  {.name = "repl-diskless-load", .type = T::kEnum, .default_value = "disabled",
   .runtime = true, .doc = "no effect: a full sync sends keys, never an RDB file",
   .choices = "disabled|on-empty-db|swapdb", .no_effect = true},
  {.name = "repl-backlog-ttl", .type = T::kInt, .default_value = "3600", .runtime = true,
   .doc = "no effect: a backlog per slot stream, sized by repl-backlog-size",
   .no_effect = true},
  {.name = "repl-disable-tcp-nodelay", .type = T::kBool, .default_value = "no",
   .runtime = true, .doc = "no effect: replication links keep TCP_NODELAY",
   .no_effect = true},
  {.name = "replica-lazy-flush", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "no effect: a full sync fills a staging slot, then swaps it in", .no_effect = true},
  {.name = "slave-lazy-flush", .type = T::kBool, .default_value = "no", .runtime = true,
   .doc = "old name of replica-lazy-flush", .no_effect = true,
   .alias_of = "replica-lazy-flush"},
  {.name = "replica-announced", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: a replica is always announced to Sentinel", .no_effect = true},
  {.name = "replica-ignore-disk-write-errors", .type = T::kBool, .default_value = "no",
   .runtime = true, .doc = "no effect: a replica writes no RDB or AOF file",
   .no_effect = true},
  {.name = "propagation-error-behavior", .type = T::kEnum, .default_value = "ignore",
   .runtime = true, .doc = "no effect: replication applies writes, not commands",
   .choices = "ignore|panic|panic-on-replicas", .no_effect = true},

  // The process: slotkv-server runs in the foreground and logs to logfile or standard error.
  {.name = "daemonize", .type = T::kBool, .default_value = "no",
   .doc = "no effect: slotkv-server stays in the foreground", .no_effect = true},
  {.name = "supervised", .type = T::kEnum, .default_value = "no",
   .doc = "no effect: no upstart or systemd notification", .choices = "upstart|systemd|auto|no",
   .no_effect = true},
  {.name = "pidfile", .type = T::kString, .default_value = "",
   .doc = "no effect: no pid file", .no_effect = true},
  {.name = "syslog-enabled", .type = T::kBool, .default_value = "no",
   .doc = "no effect: no syslog (logfile)", .no_effect = true},
  {.name = "syslog-ident", .type = T::kString, .default_value = "redis",
   .doc = "no effect: no syslog (logfile)", .no_effect = true},
  {.name = "syslog-facility", .type = T::kEnum, .default_value = "local0",
   .doc = "no effect: no syslog (logfile)",
   .choices = "user|local0|local1|local2|local3|local4|local5|local6|local7",
   .no_effect = true},
  {.name = "always-show-logo", .type = T::kBool, .default_value = "no",
   .doc = "no effect: no logo", .no_effect = true},
  {.name = "set-proc-title", .type = T::kBool, .default_value = "yes",
   .doc = "no effect: the process title is left as it is", .no_effect = true},
  {.name = "proc-title-template", .type = T::kString,
   .default_value = "{title} {listen-addr} {server-mode}", .runtime = true,
   .doc = "no effect: the process title is left as it is", .no_effect = true,
   .parse = ParseProcTitleTemplate},
  {.name = "crash-log-enabled", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: no crash report", .no_effect = true},
  {.name = "crash-memcheck-enabled", .type = T::kBool, .default_value = "yes",
   .runtime = true, .doc = "no effect: no crash report", .no_effect = true},
  {.name = "disable-thp", .type = T::kBool, .default_value = "yes",
   .doc = "no effect: transparent huge pages are left as the system sets them",
   .no_effect = true},
  {.name = "oom-score-adj", .type = T::kEnum, .default_value = "no", .runtime = true,
   .doc = "no effect: oom_score_adj is left as it is", .choices = "no|yes|relative|absolute",
   .no_effect = true, .parse = ParseOomScoreAdj},
  {.name = "oom-score-adj-values", .type = T::kString, .default_value = "0 200 800",
   .runtime = true, .doc = "no effect: oom_score_adj is left as it is", .no_effect = true,
   .parse = ParseOomScoreValues},
  {.name = "server_cpulist", .type = T::kString, .default_value = "",
   .doc = "no effect: no CPU affinity", .no_effect = true},
  {.name = "bio_cpulist", .type = T::kString, .default_value = "",
   .doc = "no effect: no CPU affinity", .no_effect = true},
  {.name = "ignore-warnings", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: slotkv logs none of Redis's start warnings", .no_effect = true},
  {.name = "shutdown-on-sigint", .type = T::kString, .default_value = "default",
   .runtime = true, .doc = "no effect: SIGINT persists every slot and exits, as SHUTDOWN",
   .no_effect = true, .parse = ParseShutdownFlags},
  {.name = "shutdown-on-sigterm", .type = T::kString, .default_value = "default",
   .runtime = true, .doc = "no effect: SIGTERM persists every slot and exits, as SHUTDOWN",
   .no_effect = true, .parse = ParseShutdownFlags},
  {.name = "shutdown-timeout", .type = T::kInt, .default_value = "10", .runtime = true,
   .doc = "no effect: SHUTDOWN never waits for replicas", .max = INT32_MAX,
   .no_effect = true},
  {.name = "enable-protected-configs", .type = T::kEnum, .default_value = "no",
   .doc = "no effect: dir and dbfilename are immutable", .choices = "no|yes|local",
   .no_effect = true},
  {.name = "enable-debug-command", .type = T::kEnum, .default_value = "no",
   .doc = "no effect: no DEBUG command", .choices = "no|yes|local", .no_effect = true},
  {.name = "enable-module-command", .type = T::kEnum, .default_value = "no",
   .doc = "no effect: no modules", .choices = "no|yes|local", .no_effect = true},

  // Networking.
  {.name = "unixsocket", .type = T::kString, .default_value = "",
   .doc = "no effect: no Unix socket listener", .no_effect = true},
  {.name = "unixsocketperm", .type = T::kString, .default_value = "0",
   .doc = "no effect: no Unix socket listener (octal, as Redis reads it)", .no_effect = true,
   .parse = ParseOctalPerm},
  {.name = "tcp-backlog", .type = T::kInt, .default_value = "511",
   .doc = "no effect: the listen backlog is 511", .max = INT32_MAX, .no_effect = true},
  {.name = "bind-source-addr", .type = T::kString, .default_value = "", .runtime = true,
   .doc = "no effect: outgoing connections are not bound", .no_effect = true},
  {.name = "socket-mark-id", .type = T::kInt, .default_value = "0",
   .doc = "no effect: sockets are not marked", .max = UINT32_MAX, .no_effect = true},
  {.name = "io-threads", .type = T::kInt, .default_value = "1",
   .doc = "no effect: see workers", .min = 1, .max = 128, .no_effect = true},
  {.name = "io-threads-do-reads", .type = T::kBool, .default_value = "no",
   .doc = "no effect: see workers", .no_effect = true},

  // The rest.
  {.name = "dynamic-hz", .type = T::kBool, .default_value = "yes", .runtime = true,
   .doc = "no effect: hz stays as set", .no_effect = true},
  {.name = "active-expire-effort", .type = T::kInt, .default_value = "1", .runtime = true,
   .doc = "no effect: active expiry walks the buckets flagged as holding TTLs",
   .min = 1, .max = 10, .no_effect = true},
  {.name = "stream-node-max-bytes", .type = T::kBytes, .default_value = "4096",
   .runtime = true, .doc = "no effect: encoding setting of Redis (no streams yet)",
   .no_effect = true},
  {.name = "stream-node-max-entries", .type = T::kInt, .default_value = "100",
   .runtime = true, .doc = "no effect: encoding setting of Redis (no streams yet)",
   .no_effect = true},
  {.name = "tracking-table-max-keys", .type = T::kInt, .default_value = "1000000",
   .runtime = true, .doc = "no effect: no client-side caching (CLIENT TRACKING)",
   .no_effect = true},
  {.name = "sanitize-dump-payload", .type = T::kEnum, .default_value = "no", .runtime = true,
   .doc = "no effect: RESTORE decodes every payload whole (a bad one is refused)",
   .choices = "no|yes|clients", .no_effect = true},
};
// clang-format on


// Checks value against def and returns its normalized form.
Result<std::string> Normalize(const OptionDef& def, std::string_view value) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("argument '" + std::string(value) + "' for '" +
                                   std::string(def.name) + "': " + std::string(why));
  };
  switch (def.type) {
    case T::kString:
      return std::string(value);
    case T::kBool: {
      std::string v = AsciiLower(value);
      if (v != "yes" && v != "no") return bad("argument must be 'yes' or 'no'");
      return v;
    }
    case T::kEnum: {
      std::string v = AsciiLower(value);
      std::string_view choices = def.choices;
      while (!choices.empty()) {
        size_t bar = choices.find('|');
        if (choices.substr(0, bar) == v) return v;
        if (bar == std::string_view::npos) break;
        choices.remove_prefix(bar + 1);
      }
      return bad("argument(s) must be one of the following: " +
                 std::string(def.choices.begin(), def.choices.end()));
    }
    case T::kInt:
    case T::kBytes: {
      int64_t n = 0;
      if (def.type == T::kBytes) {
        // Redis reads memory values unsigned: "-1" is no memory value.
        Result<int64_t> parsed = ParseMemory(value);
        if (!parsed.ok() || *parsed < 0) return bad("argument must be a memory value");
        n = *parsed;
      } else {
        auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || ptr != value.data() + value.size() || value.empty()) {
          return bad("argument couldn't be parsed into an integer");
        }
      }
      if (n < def.min || n > def.max) {
        return bad("argument must be between " + std::to_string(def.min) + " and " +
                   std::to_string(def.max) + " inclusive");
      }
      return std::to_string(n);
    }
  }
  return bad("unknown type");
}

}  // namespace

// client-output-buffer-limit: groups of "<class> <hard> <soft> <seconds>" (class normal, slave
// or replica, pubsub; sizes as memory values), merged into the current value class by class,
// shown as Redis 7.0 shows it: "normal 0 0 0 slave 268435456 67108864 60 pubsub ...".
Result<std::string> ParseOutputLimits(std::string_view value, std::string_view current) {
  static constexpr std::string_view kClasses[] = {"normal", "slave", "pubsub"};
  int64_t limits[3][3] = {};
  auto apply = [&](std::string_view text) -> Status {
    Result<std::vector<std::string>> words = SplitConfigLine(text);
    if (!words.ok() || words->size() % 4 != 0) {
      return Status::InvalidArgument("Wrong number of arguments in buffer limit configuration.");
    }
    for (size_t i = 0; i < words->size(); i += 4) {
      std::string cls = AsciiLower((*words)[i]);
      if (cls == "replica") cls = "slave";
      size_t c = 0;
      while (c < 3 && kClasses[c] != cls) ++c;
      if (c == 3) {
        return Status::InvalidArgument("Invalid client class specified in buffer limit "
                                       "configuration.");
      }
      for (size_t k = 0; k < 3; ++k) {
        Result<int64_t> n = ParseMemory((*words)[i + 1 + k]);
        if (!n.ok() || *n < 0) {
          return Status::InvalidArgument("Error in hard, soft or soft_seconds setting in buffer "
                                         "limit configuration.");
        }
        limits[c][k] = *n;
      }
    }
    return Status::OK();
  };
  SLOTKV_RETURN_IF_ERROR(apply(current));
  SLOTKV_RETURN_IF_ERROR(apply(value));
  std::string out;
  for (size_t c = 0; c < 3; ++c) {
    if (!out.empty()) out += ' ';
    out += std::string(kClasses[c]) + " " + std::to_string(limits[c][0]) + " " +
           std::to_string(limits[c][1]) + " " + std::to_string(limits[c][2]);
  }
  return out;
}

namespace {

constexpr std::pair<char, uint32_t> kNotifyLetters[] = {
    {'g', kNotifyGeneric}, {'$', kNotifyString}, {'l', kNotifyList},   {'s', kNotifySet},
    {'h', kNotifyHash},    {'z', kNotifyZSet},   {'x', kNotifyExpired}, {'e', kNotifyEvicted},
    {'t', kNotifyStream},  {'d', kNotifyModule}, {'K', kNotifyKeyspace}, {'E', kNotifyKeyevent},
    {'m', kNotifyKeyMiss}, {'n', kNotifyNew}};

Result<std::string> ParseNotifyOption(std::string_view value, std::string_view) {
  SLOTKV_ASSIGN_OR_RETURN(uint32_t classes, ParseNotifyClasses(value));
  return NotifyClassesString(classes);
}

Result<std::string> ParsePercentilesOption(std::string_view value, std::string_view) {
  SLOTKV_ASSIGN_OR_RETURN(std::vector<double> percentiles, ParsePercentiles(value));
  std::string out;
  for (double p : percentiles) {
    if (!out.empty()) out.push_back(' ');
    out += TrimmedDouble(p);
  }
  return out;
}

}  // namespace

Result<uint32_t> ParseNotifyClasses(std::string_view value) {
  uint32_t classes = 0;
  for (char c : value) {
    if (c == 'A') {
      classes |= kNotifyAll;
      continue;
    }
    bool known = false;
    for (const auto& [letter, bit] : kNotifyLetters) {
      if (letter == c) {
        classes |= bit;
        known = true;
      }
    }
    if (!known) {
      return Status::InvalidArgument("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
    }
  }
  return classes;
}

std::string NotifyClassesString(uint32_t classes) {
  std::string out;
  if ((classes & kNotifyAll) == kNotifyAll) out += 'A';
  for (const auto& [letter, bit] : kNotifyLetters) {
    const bool in_all = (bit & kNotifyAll) != 0;
    if ((classes & bit) && !(in_all && (classes & kNotifyAll) == kNotifyAll)) out += letter;
  }
  return out;
}

OutputLimit ClientOutputLimit(std::string_view value, std::string_view client_class) {
  Result<std::vector<std::string>> words = SplitConfigLine(value);
  OutputLimit limit;
  if (!words.ok()) return limit;
  for (size_t i = 0; i + 3 < words->size(); i += 4) {
    if ((*words)[i] != client_class) continue;
    Result<int64_t> hard = ParseMemory((*words)[i + 1]);
    Result<int64_t> soft = ParseMemory((*words)[i + 2]);
    limit.hard = hard.ok() ? *hard : 0;
    limit.soft = soft.ok() ? *soft : 0;
    limit.soft_seconds = std::atoll((*words)[i + 3].c_str());
    break;
  }
  return limit;
}

std::span<const OptionDef> Options() { return kOptions; }

const OptionDef* FindOption(std::string_view name) {
  std::string lower = AsciiLower(name);
  for (const OptionDef& def : kOptions) {
    if (def.name == lower) return def.alias_of.empty() ? &def : FindOption(def.alias_of);
  }
  return nullptr;
}

Result<int64_t> ParseMemory(std::string_view s) {
  std::string v = AsciiLower(s);
  size_t digits = 0;
  if (!v.empty() && v[0] == '-') digits = 1;
  while (digits < v.size() && std::isdigit(static_cast<unsigned char>(v[digits]))) ++digits;
  std::string_view unit = std::string_view(v).substr(digits);
  int64_t mul = 1;
  if (unit == "") mul = 1;
  else if (unit == "b") mul = 1;
  else if (unit == "k") mul = 1000;
  else if (unit == "kb") mul = 1024;
  else if (unit == "m") mul = 1000 * 1000;
  else if (unit == "mb") mul = 1024 * 1024;
  else if (unit == "g") mul = 1000ll * 1000 * 1000;
  else if (unit == "gb") mul = 1ll << 30;
  else return Status::InvalidArgument("bad memory unit");
  int64_t n = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + digits, n);
  if (ec != std::errc() || ptr != v.data() + digits || digits == 0) {
    return Status::InvalidArgument("bad memory value");
  }
  if (n > INT64_MAX / mul || n < INT64_MIN / mul) return Status::InvalidArgument("overflow");
  return n * mul;
}

Result<std::vector<std::string>> SplitConfigLine(std::string_view line) {
  std::vector<std::string> words;
  size_t i = 0;
  while (true) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i == line.size()) return words;
    std::string word;
    if (line[i] == '"' || line[i] == '\'') {
      char quote = line[i++];
      bool closed = false;
      while (i < line.size()) {
        char c = line[i++];
        if (c == '\\' && i < line.size() && quote == '"') {
          char e = line[i++];
          word.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e);
        } else if (c == '\\' && i < line.size() && line[i] == '\'') {
          word.push_back(line[i++]);
        } else if (c == quote) {
          closed = true;
          break;
        } else {
          word.push_back(c);
        }
      }
      if (!closed || (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))) {
        return Status::InvalidArgument("unbalanced quotes in configuration line");
      }
    } else {
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) {
        word.push_back(line[i++]);
      }
    }
    words.push_back(std::move(word));
  }
}

Config::Config() : caps_(std::size(kOptions), 0) {
  for (const OptionDef& def : kOptions) values_.emplace_back(def.default_value);
}

void Config::Cap(std::string_view name, int64_t max) {
  const OptionDef* def = FindOption(name);
  std::lock_guard lock(mu_);
  caps_[IndexOf(def)] = max;
}

size_t Config::IndexOf(const OptionDef* def) const {
  return static_cast<size_t>(def - kOptions);
}

Status Config::Set(std::string_view name, std::string_view value, bool runtime) {
  const OptionDef* def = FindOption(name);
  if (!def) return Status::InvalidArgument("unknown option '" + std::string(name) + "'");
  if (runtime && !def->runtime) {
    return Status::NotSupported("can't set immutable config '" + std::string(def->name) + "'");
  }
  // A string option never holds control bytes: nothing a client sets can break a line of the
  // file CONFIG REWRITE writes, or of a log or reply that shows the value.
  if (def->type == T::kString &&
      std::any_of(value.begin(), value.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      })) {
    return Status::InvalidArgument("'" + std::string(def->name) +
                                   "' does not take control characters");
  }
  std::lock_guard lock(mu_);
  std::string& current = values_[IndexOf(def)];
  OptionDef capped = *def;
  if (const int64_t cap = caps_[IndexOf(def)]; cap > 0) capped.max = std::min(def->max, cap);
  Result<std::string> normalized =
      def->parse ? def->parse(value, current) : Normalize(capped, value);
  if (!normalized.ok()) {
    if (!def->parse) return normalized.status();
    return Status::InvalidArgument("argument '" + std::string(value) + "' for '" +
                                   std::string(def->name) + "': " +
                                   std::string(normalized.status().message()));
  }
  current = std::move(*normalized);
  return Status::OK();
}

std::string Config::Get(std::string_view name) const {
  const OptionDef* def = FindOption(name);
  if (!def) return "";
  std::lock_guard lock(mu_);
  return values_[IndexOf(def)];
}

int64_t Config::GetInt(std::string_view name) const {
  std::string v = Get(name);
  int64_t n = 0;
  (void)std::from_chars(v.data(), v.data() + v.size(), n);  // normalized by Set: always valid
  return n;
}

bool Config::GetBool(std::string_view name) const { return Get(name) == "yes"; }

std::vector<std::pair<std::string, std::string>> Config::Match(std::string_view pattern) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::lock_guard lock(mu_);
  for (const OptionDef& def : kOptions) {
    if (GlobMatch(pattern, def.name, /*nocase=*/true)) {
      const OptionDef* value_of = def.alias_of.empty() ? &def : FindOption(def.alias_of);
      out.emplace_back(std::string(def.name), values_[IndexOf(value_of)]);
    }
  }
  return out;
}

std::string Config::file() const {
  std::lock_guard lock(mu_);
  return file_;
}

Status Config::LoadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument("cannot open config file '" + path + "'");
  {
    std::lock_guard lock(mu_);
    file_ = path;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    auto where = [&] { return path + ":" + std::to_string(number) + ": "; };
    Result<std::vector<std::string>> words = SplitConfigLine(line);
    if (!words.ok()) return Status::InvalidArgument(where() + std::string(words.status().message()));
    if (words->empty() || (*words)[0][0] == '#') continue;
    if (words->size() < 2) {
      return Status::InvalidArgument(where() + "option '" + (*words)[0] + "' needs a value");
    }
    std::string value = (*words)[1];
    for (size_t i = 2; i < words->size(); ++i) value += " " + (*words)[i];
    Status st = Set((*words)[0], value);
    if (!st.ok()) return Status::InvalidArgument(where() + std::string(st.message()));
  }
  return Status::OK();
}

Status Config::LoadArgs(int argc, const char* const* argv) {
  int i = 1;
  if (i < argc && std::string_view(argv[i]).rfind("--", 0) != 0) {
    SLOTKV_RETURN_IF_ERROR(LoadFile(argv[i]));
    ++i;
  }
  for (; i < argc; i += 2) {
    std::string_view arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      return Status::InvalidArgument("expected --option, got '" + std::string(arg) + "'");
    }
    if (i + 1 >= argc) {
      return Status::InvalidArgument("option '" + std::string(arg) + "' needs a value");
    }
    SLOTKV_RETURN_IF_ERROR(Set(arg.substr(2), argv[i + 1]));
  }
  return Status::OK();
}

Status Config::Rewrite() const {
  std::string path = file();
  if (path.empty()) return Status::NotSupported("The server is running without a config file");
  std::vector<std::string> lines;
  std::vector<bool> written(std::size(kOptions), false);
  {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
  }
  std::lock_guard lock(mu_);
  auto render = [&](const OptionDef& def) {
    const std::string& v = values_[IndexOf(&def)];
    if (def.words && v == def.default_value) return std::string();
    const char* special = def.words ? "\t\"'\\" : " \t\"'\\";
    bool plain = !v.empty() && v.find_first_of(special) == std::string::npos;
    if (plain) return std::string(def.name) + " " + v;
    std::string quoted = "\"";
    for (char c : v) {
      if (c == '"' || c == '\\') quoted.push_back('\\');
      quoted.push_back(c);
    }
    return std::string(def.name) + " " + quoted + "\"";
  };
  for (std::string& line : lines) {
    Result<std::vector<std::string>> words = SplitConfigLine(line);
    if (!words.ok() || words->empty() || (*words)[0][0] == '#') continue;
    const OptionDef* def = FindOption((*words)[0]);
    if (!def) continue;
    line = written[IndexOf(def)] ? "" : render(*def);
    written[IndexOf(def)] = true;
  }
  for (const OptionDef& def : kOptions) {
    if (written[IndexOf(&def)] || values_[IndexOf(&def)] == def.default_value) continue;
    lines.push_back(render(def));
  }
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  // A temporary file, synced, renamed over the old one, then the directory synced: a crash
  // leaves the old file or the new one, whole.
  return NewPosixFs()->WriteFileAtomic(path, text);
}

Result<std::vector<double>> ParsePercentiles(std::string_view value) {
  std::vector<double> out;
  for (size_t begin = 0; begin < value.size();) {
    const size_t end = std::min(value.find(' ', begin), value.size());
    const std::string word(value.substr(begin, end - begin));
    begin = end + 1;
    if (word.empty()) continue;
    char* stop = nullptr;
    const double p = std::strtod(word.c_str(), &stop);
    if (*stop != '\0' || std::isnan(p)) {
      return Status::InvalidArgument("Invalid latency-tracking-info-percentiles parameters");
    }
    if (p < 0 || p > 100) {
      return Status::InvalidArgument(
          "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
    }
    out.push_back(p);
  }
  return out;
}

std::string TrimmedDouble(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace slotkv::conf
