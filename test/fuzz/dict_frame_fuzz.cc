// Fuzz target: slot/dictionaries: Decompress of a stored compressed value (varint dictionary
// id, varint size, a magicless zstd frame) and the loading of dict-<id> files.
//
// Input:  mode:u8 bytes
//   mode % 3 == 0: bytes are a stored value: Decompress it with dictionary 1 (trained at start
//                  on generated JSON, fuzz_util.cc) and plain zstd (id 0) present.
//   mode % 3 == 1: bytes are a value: Compress it under a key of the trained group, then
//                  Decompress; cut or flip the stored form and Decompress again.
//   mode % 3 == 2: bytes are a dict-<id> file (its checksum rewritten when mode bit 2 is set):
//                  open Dictionaries over it, and if it loads, round-trip a value through it.
//
// Checks: what Decompress accepts has the size the header declares; what Compress stores
// decompresses to the value; a damaged stored form fails or decodes to a value of the declared
// size, never crashes; a dictionary file either loads or is Corruption naming it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/base/coding.h"
#include "core/base/mem_fs.h"
#include "slot/dictionaries.h"
#include "test/fuzz/fuzz_util.h"

namespace slotkv::slot {
namespace {

Dictionaries& Trained() {
  static MemFs* fs = new MemFs();
  static Dictionaries* dicts = fuzz::TrainedDictionaries(fs).release();
  return *dicts;
}

// Decompress, checked against the size the stored form declares.
Status CheckedDecompress(const Dictionaries& dicts, std::string_view stored, std::string* out) {
  const Status s = dicts.Decompress(stored, out);
  if (!s.ok()) {
    FUZZ_CHECK_MSG(s.IsCorruption(), s.ToString());
    return s;
  }
  std::string_view header = stored;
  uint32_t id = 0;
  uint64_t size = 0;
  FUZZ_CHECK(GetVarint32(&header, &id) && GetVarint64(&header, &size));
  FUZZ_CHECK(out->size() == size);
  return s;
}

void RoundTrip(Dictionaries& dicts, std::string_view key, std::string_view value) {
  std::string stored;
  if (!dicts.Compress(key, value, &stored)) return;
  FUZZ_CHECK(stored.size() < value.size());
  std::string out;
  const Status s = CheckedDecompress(dicts, stored, &out);
  FUZZ_CHECK_MSG(s.ok(), s.ToString());
  FUZZ_CHECK(out == value);
  // Damaged stored forms: cut short, and one byte flipped.
  std::string damaged = stored.substr(0, stored.size() - 1);
  (void)CheckedDecompress(dicts, damaged, &out);
  damaged = stored;
  damaged[value.size() % damaged.size()] ^= static_cast<char>(0x5a);
  (void)CheckedDecompress(dicts, damaged, &out);
}

void LoadDictFile(std::string file, bool repair) {
  if (repair) fuzz::RepairDictFileChecksum(&file);
  MemFs fs;
  FUZZ_CHECK(fs.CreateDirs(fuzz::kDictDir).ok());
  auto f = fs.Open(std::string(fuzz::kDictDir) + "/dict-7");
  FUZZ_CHECK(f.ok() && (*f)->Append(file).ok());
  f->reset();
  DictionariesOptions options;
  options.fs = &fs;
  options.dir = fuzz::kDictDir;
  auto dicts = Dictionaries::Open(options);
  if (!dicts.ok()) {
    FUZZ_CHECK_MSG(dicts.status().IsCorruption(), dicts.status().ToString());
    return;
  }
  for (const Dictionaries::DictStats& d : (*dicts)->Stats()) {
    if (d.id == 0) continue;
    // Its group's values now compress with it (or stay raw) and come back.
    RoundTrip(**dicts, d.group + ":k", fuzz::DictSample(1) + fuzz::DictSample(2));
  }
}

}  // namespace
}  // namespace slotkv::slot

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)slotkv::slot::Trained();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotkv::slot;
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (mode % 3) {
    case 0: {
      std::string out;
      (void)CheckedDecompress(Trained(), bytes, &out);
      break;
    }
    case 1:
      RoundTrip(Trained(), slotkv::fuzz::kDictKey, bytes);
      break;
    case 2:
      LoadDictFile(std::string(bytes), (mode & 0x04) != 0);
      break;
  }
  return 0;
}
