// The dictionary helpers of fuzz_util.h, apart so that only the targets using them link
// slot/dictionaries.cc and zstd.
#include "core/base/coding.h"
#include "core/base/hash.h"
#include "slot/dictionaries.h"
#include "test/fuzz/fuzz_util.h"

namespace slotkv::fuzz {

std::string DictSample(int i) {
  static constexpr const char* kCities[] = {"Lisbon", "Oslo", "Quito", "Accra", "Hanoi", "Lima"};
  return "{\"id\":" + std::to_string(i) + ",\"name\":\"user-" + std::to_string(i % 97) +
         "\",\"email\":\"u" + std::to_string(i) + "@example.com\",\"city\":\"" + kCities[i % 6] +
         "\",\"score\":" + std::to_string(i * 37 % 1000) +
         ",\"active\":" + (i % 3 == 0 ? "false" : "true") + ",\"tags\":[\"t" +
         std::to_string(i % 5) + "\",\"t" + std::to_string(i % 7) + "\"]}";
}

std::unique_ptr<slot::Dictionaries> TrainedDictionaries(MemFs* fs) {
  slot::DictionariesOptions options;
  options.fs = fs;
  options.dir = kDictDir;
  options.first_train_samples = 300;
  options.dict_bytes = 8 << 10;
  {
    auto trainer = slot::Dictionaries::Open(options);
    FUZZ_CHECK_MSG(trainer.ok(), trainer.status().ToString());
    std::string stored;
    for (int i = 0; i < 300; ++i) (void)(*trainer)->Compress(kDictKey, DictSample(i), &stored);
    (*trainer)->WaitIdle();
  }
  FUZZ_CHECK(fs->Exists(std::string(kDictDir) + "/dict-1"));
  // Reopened, the group's dictionary is final: compressing samples nothing, trains nothing.
  auto loaded = slot::Dictionaries::Open(options);
  FUZZ_CHECK_MSG(loaded.ok(), loaded.status().ToString());
  return std::move(loaded).value();
}

void RepairDictFileChecksum(std::string* file) {
  if (file->size() < 8) return;
  const size_t body = file->size() - 8;
  EncodeFixed64(file->data() + body, KeyHash(std::string_view(*file).substr(0, body)));
}

}  // namespace slotkv::fuzz
