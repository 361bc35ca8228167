// The option table and the live configuration of a server.
//
// Every option slotkv knows is one row of the table in config.cc: name, type, default, whether
// CONFIG SET may change it while running, and a one-line doc (`slotkv-server --help` prints the
// table). Values come from the defaults, then the config file (redis.conf syntax: `name value`
// per line, `#` comments, quoted values), then `--name value` arguments. An unknown name or a
// bad value stops the start with a message naming it. Every parameter of Redis 7.0.15 is a row,
// at Redis's default and with its checks, so redis.conf files and tools that set them work; those
// that mean nothing to this engine (cluster, TLS, RDB/AOF files, encoding thresholds ...) are
// listed by CONFIG GET with no effect, and their doc says so.
//
// Thread rule: all methods may be called from any thread (a mutex guards the values).
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace slotkv::conf {

enum class OptionType { kInt, kBytes, kString, kEnum, kBool };

struct OptionDef {
  std::string_view name;
  OptionType type;
  std::string_view default_value;
  bool runtime = false;             // CONFIG SET may change it
  std::string_view doc;
  std::string_view choices = {};    // kEnum: "a|b|c"
  int64_t min = 0;                  // kInt/kBytes bounds
  int64_t max = INT64_MAX;
  bool no_effect = false;           // accepted for compatibility, changes nothing
  std::string_view alias_of = {};   // another name of that option (Redis's old names)
  // The value is bare words (replicaof host port): CONFIG REWRITE writes them unquoted, as
  // Redis does, and drops the line at the default value (a master has no replicaof line).
  bool words = false;
  // kString with a grammar of its own: checks value and returns the new normalized value,
  // given the current one (an option may take a partial value, as Redis's
  // client-output-buffer-limit takes some classes only).
  Result<std::string> (*parse)(std::string_view value, std::string_view current) = nullptr;
};

// Every option, in the order --help lists them.
std::span<const OptionDef> Options();
// The row named name (case-insensitive), or nullptr.
const OptionDef* FindOption(std::string_view name);

class Config {
 public:
  Config();  // every option at its default

  // Loads a config file then `--name value` pairs (argv[0] skipped; a first argument that does
  // not start with "--" names the config file, as redis-server takes it). InvalidArgument names
  // the option, line or argument at fault. `--help` is handled by the caller.
  Status LoadArgs(int argc, const char* const* argv);
  Status LoadFile(const std::string& path);

  // Sets name to value after checking it. InvalidArgument (unknown option or bad value) or, with
  // runtime=true, NotSupported for an option that cannot change while running.
  Status Set(std::string_view name, std::string_view value, bool runtime = false);
  // Lowers the largest value Set accepts for integer option name from now on (maxclients: what
  // the open files limit allows). REQUIRES: a known integer option.
  void Cap(std::string_view name, int64_t max);

  // The value as CONFIG GET shows it (sizes in bytes, booleans "yes"/"no").
  std::string Get(std::string_view name) const;
  int64_t GetInt(std::string_view name) const;
  bool GetBool(std::string_view name) const;
  // (name, value) of every option whose name matches the glob pattern, table order.
  std::vector<std::pair<std::string, std::string>> Match(std::string_view pattern) const;

  // The file loaded at start ("" when none).
  std::string file() const;
  // The file's `user <name> <rule>...` lines (ACL users declared in the config, core/acl),
  // each as its words after "user".
  std::vector<std::vector<std::string>> users() const;
  // Writes the current values back to file(): lines of options set away from their default
  // replace or follow the file's own lines (CONFIG REWRITE); user_lines, when given, replace
  // the file's user lines. NotSupported without a file.
  Status Rewrite(const std::vector<std::string>* user_lines = nullptr) const;

 private:
  size_t IndexOf(const OptionDef* def) const;
  mutable std::mutex mu_;
  std::vector<std::string> values_;  // [index in Options()], normalized
  std::vector<int64_t> caps_;         // [index in Options()], 0 = the option's own max
  std::string file_;
  std::vector<std::vector<std::string>> users_;
};

// Parses "512mb", "1gb", "100k", "42" as Redis does (k=1000, kb=1024, m, mb, g, gb).
Result<int64_t> ParseMemory(std::string_view s);
// client-output-buffer-limit's grammar: value (some classes) merged into current (all classes).
Result<std::string> ParseOutputLimits(std::string_view value, std::string_view current);
// One class of client-output-buffer-limit: a client past `hard` bytes of unsent replies, or past
// `soft` for `soft_seconds` in a row, is closed (0 = no such limit).
struct OutputLimit {
  int64_t hard = 0;
  int64_t soft = 0;
  int64_t soft_seconds = 0;
  bool operator==(const OutputLimit&) const = default;
};
// The limits of class ("normal", "pubsub", "slave") in a client-output-buffer-limit value.
OutputLimit ClientOutputLimit(std::string_view value, std::string_view client_class);

// notify-keyspace-events classes, as Redis's notify.c numbers them.
enum NotifyClass : uint32_t {
  kNotifyKeyspace = 1 << 0,  // K
  kNotifyKeyevent = 1 << 1,  // E
  kNotifyGeneric = 1 << 2,   // g
  kNotifyString = 1 << 3,    // $
  kNotifyList = 1 << 4,      // l
  kNotifySet = 1 << 5,       // s
  kNotifyHash = 1 << 6,      // h
  kNotifyZSet = 1 << 7,      // z
  kNotifyExpired = 1 << 8,   // x
  kNotifyEvicted = 1 << 9,   // e
  kNotifyStream = 1 << 10,   // t
  kNotifyKeyMiss = 1 << 11,  // m
  kNotifyModule = 1 << 12,   // d
  kNotifyNew = 1 << 13,      // n
  kNotifyAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet | kNotifyHash |
               kNotifyZSet | kNotifyExpired | kNotifyEvicted | kNotifyStream | kNotifyModule,  // A
};
// The classes of a notify-keyspace-events value; InvalidArgument for an unknown letter.
Result<uint32_t> ParseNotifyClasses(std::string_view value);

// latency-tracking-info-percentiles: space-separated numbers in [0, 100] (Redis's errors
// otherwise).
Result<std::vector<double>> ParsePercentiles(std::string_view value);
// A double as Redis's "%f" with trailing zeros and dot dropped: 99.9, 50, 0.
std::string TrimmedDouble(double v);
// The value as Redis shows it ("AKE", "glE"), with `n` when set (Redis 7.0 leaves it out,
// so its CONFIG GET loses the class; 7.2 shows it).
std::string NotifyClassesString(uint32_t classes);

// Splits one config line into words as redis.conf does (quotes, escapes). InvalidArgument on
// unbalanced quotes.
Result<std::vector<std::string>> SplitConfigLine(std::string_view line);

}  // namespace slotkv::conf
