#include "conf/config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>

#include "core/base/ascii.h"
#include "core/base/fs.h"
#include "core/base/glob.h"

namespace slotkv::conf {
namespace {

using T = OptionType;

// Whether a config line declares an ACL user (`user <name> <rule>...`, redis.conf's form).
bool IsUserLine(const std::vector<std::string>& words) {
  return AsciiLower(words[0]) == "user";
}

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

Config::Config() : caps_(Options().size(), 0) {
  for (const OptionDef& def : Options()) values_.emplace_back(def.default_value);
}

void Config::Cap(std::string_view name, int64_t max) {
  const OptionDef* def = FindOption(name);
  std::lock_guard lock(mu_);
  caps_[IndexOf(def)] = max;
}

size_t Config::IndexOf(const OptionDef* def) const {
  return static_cast<size_t>(def - Options().data());
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
  for (const OptionDef& def : Options()) {
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
    if (IsUserLine(*words)) {
      std::lock_guard lock(mu_);
      users_.emplace_back(words->begin() + 1, words->end());
      continue;
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

std::vector<std::vector<std::string>> Config::users() const {
  std::lock_guard lock(mu_);
  return users_;
}

Status Config::Rewrite(const std::vector<std::string>* user_lines) const {
  std::string path = file();
  if (path.empty()) return Status::NotSupported("The server is running without a config file");
  std::vector<std::string> lines;
  std::vector<bool> written(Options().size(), false);
  size_t next_user = 0;  // user_lines go where the file's user lines were, the rest at the end
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
    if (user_lines != nullptr && IsUserLine(*words)) {
      line = next_user < user_lines->size() ? (*user_lines)[next_user++] : "";
      continue;
    }
    const OptionDef* def = FindOption((*words)[0]);
    if (!def) continue;
    line = written[IndexOf(def)] ? "" : render(*def);
    written[IndexOf(def)] = true;
  }
  for (const OptionDef& def : Options()) {
    if (written[IndexOf(&def)] || values_[IndexOf(&def)] == def.default_value) continue;
    lines.push_back(render(def));
  }
  if (user_lines != nullptr) {
    lines.insert(lines.end(), user_lines->begin() + static_cast<ptrdiff_t>(next_user),
                 user_lines->end());
  }
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  // A temporary file, synced, renamed over the old one, then the directory synced: a crash
  // leaves the old file or the new one, whole.
  return NewPosixFs()->WriteFileAtomic(path, text);
}

}  // namespace slotkv::conf
