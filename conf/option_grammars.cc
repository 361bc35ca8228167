// The grammars of options whose values are more than a number, a word or a choice: the checks
// and the shown form of each (option_grammars.h, and config.h's public parsers).
#include "conf/option_grammars.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/base/ascii.h"

namespace slotkv::conf {

namespace {

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

}  // namespace

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

namespace {

bool IsBaseName(std::string_view value) {
  return value.find_first_of("/\\") == std::string_view::npos;
}

}  // namespace

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

}  // namespace

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
