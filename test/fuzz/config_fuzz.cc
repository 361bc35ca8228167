// Fuzz target: conf/config: a config file through Config::LoadFile (SplitConfigLine, the option
// table, ParseMemory, ParseOutputLimits, ParseNotifyClasses...), then CONFIG REWRITE's round
// trip. The file is a real one (LoadFile and Rewrite use the OS), in /dev/shm when there is one.
//
// Input: the file's bytes.
//
// Checks: a file that loads rewrites (Config::Rewrite) to a file that loads to the same values
// (every option through Match("*")), and rewriting that one changes nothing (a fixed point);
// every word of every line that parses as a memory value parses the same written back; a
// client-output-buffer-limit or notify-keyspace-events value that loads reads back the same
// through ClientOutputLimit / ParseNotifyClasses.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "conf/config.h"
#include "test/fuzz/fuzz_util.h"

namespace slotkv::conf {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteAll(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  FUZZ_CHECK(out.good());
}

// A directory of this process for the config file, made once and removed at exit (not after
// a crash: the file is then the input's, for a look).
const std::string& Dir() {
  static const std::string dir = [] {
    std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    if (const char* tmp = std::getenv("SLOTKV_FUZZ_TMPDIR")) base = tmp;
    std::string pattern = base + "/slotkv-config-fuzz-XXXXXX";
    FUZZ_CHECK(mkdtemp(pattern.data()) != nullptr);
    return pattern;
  }();
  static const bool cleanup = std::atexit([] {
                                std::error_code ignored;
                                std::filesystem::remove_all(dir, ignored);
                              }) == 0;
  (void)cleanup;
  return dir;
}

void CheckWords(std::string_view text) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    Result<std::vector<std::string>> words = SplitConfigLine(text.substr(start, end - start));
    start = end + 1;
    if (!words.ok()) continue;
    for (const std::string& word : *words) {
      Result<int64_t> n = ParseMemory(word);
      if (!n.ok()) continue;
      Result<int64_t> again = ParseMemory(std::to_string(*n));
      FUZZ_CHECK(again.ok() && *again == *n);
    }
  }
}

void CheckParsedValues(const Config& config) {
  const std::string limits = config.Get("client-output-buffer-limit");
  Result<std::string> normalized = ParseOutputLimits(limits, limits);
  FUZZ_CHECK_MSG(normalized.ok() && *normalized == limits, limits);
  Result<std::vector<std::string>> words = SplitConfigLine(limits);
  FUZZ_CHECK(words.ok() && words->size() == 12);
  for (size_t i = 0; i < 12; i += 4) {
    const OutputLimit limit = ClientOutputLimit(limits, (*words)[i]);
    FUZZ_CHECK(std::to_string(limit.hard) == (*words)[i + 1]);
    FUZZ_CHECK(std::to_string(limit.soft) == (*words)[i + 2]);
    FUZZ_CHECK(std::to_string(limit.soft_seconds) == (*words)[i + 3]);
  }
  const std::string notify = config.Get("notify-keyspace-events");
  Result<uint32_t> classes = ParseNotifyClasses(notify);
  FUZZ_CHECK_MSG(classes.ok() && NotifyClassesString(*classes) == notify, notify);
}

}  // namespace
}  // namespace slotkv::conf

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotkv::conf;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckWords(text);

  const std::string path = Dir() + "/slotkv.conf";
  WriteAll(path, text);
  Config config;
  const slotkv::Status loaded = config.LoadFile(path);
  if (!loaded.ok()) {
    FUZZ_CHECK_MSG(loaded.IsInvalidArgument(), loaded.ToString());
    return 0;
  }
  CheckParsedValues(config);
  const slotkv::Status rewritten = config.Rewrite();
  FUZZ_CHECK_MSG(rewritten.ok(), rewritten.ToString());
  const std::string once = ReadAll(path);

  Config again;
  const slotkv::Status reloaded = again.LoadFile(path);
  FUZZ_CHECK_MSG(reloaded.ok(), reloaded.ToString() + " after rewriting to:\n" + once);
  FUZZ_CHECK(again.Match("*") == config.Match("*"));
  FUZZ_CHECK(again.Rewrite().ok());
  FUZZ_CHECK_MSG(ReadAll(path) == once, once);
  return 0;
}
