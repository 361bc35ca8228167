// Helpers of the libFuzzer targets in this folder and of their seed generator (seed_gen.cc):
// the checks that turn a broken invariant into a crash libFuzzer records, the layouts of the
// targets' inputs, and checksum repair, so that mutated bytes reach the parsers behind the
// checksums instead of stopping at them.
//
// Thread rule: none; each target calls these from libFuzzer's one thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/mem_fs.h"
#include "core/types/member_pages.h"

namespace slotkv::slot {
class Dictionaries;
}

namespace slotkv::fuzz {

// Prints where and what, then aborts: libFuzzer saves the input as a crash.
[[noreturn]] void Fail(const char* file, int line, const char* condition, std::string_view detail);

// ---- paged_root_fuzz input:  page_members:u8 root_len:u8 root { slot:u8 len:fixed16 page }
// The root of one paged collection (a hash or set, a sorted set, a list or a stream) and its
// pages: a slot with bit 7 set is tree node (slot & 0x7f), page kTreePageBit + that; with bit
// 6 set, node (slot & 0x0f) of a stream group's PEL tree (group (slot >> 4) & 1, by consumer
// when bit 5 is set: StreamPages::PelBase); else hashed page (slot & 0x3f). Later pages of the
// same slot replace earlier ones.
struct PagedInput {
  uint8_t page_members = 0;
  std::string root;
  std::map<uint64_t, std::string> pages;  // by page index
};
bool ParsePagedInput(std::string_view in, PagedInput* out);
// REQUIRES: root shorter than 256 bytes, pages of indexes ParsePagedInput can name.
std::string EncodePagedInput(const PagedInput& in);

// Pages of one collection (the id is not kept: one collection per input).
class OneCollectionIo : public PageIo {
 public:
  explicit OneCollectionIo(std::map<uint64_t, std::string> pages) : pages_(std::move(pages)) {}
  Result<std::optional<std::string>> GetPage(uint64_t, uint64_t index) override;
  Status PutPage(uint64_t, uint64_t index, std::string_view bytes, bool created,
                 std::unique_ptr<DecodedPage> decoded) override;
  Status DeletePage(uint64_t, uint64_t index) override;
  const std::map<uint64_t, std::string>& pages() const { return pages_; }

 private:
  std::map<uint64_t, std::string> pages_;
};

}  // namespace slotkv::fuzz

// An invariant of the code under test; unlike assert(), also on with NDEBUG.
#define FUZZ_CHECK(cond)                                              \
  do {                                                                \
    if (!(cond)) ::slotkv::fuzz::Fail(__FILE__, __LINE__, #cond, {}); \
  } while (0)
// The same with a detail string (e.g. a Status) printed after the condition.
#define FUZZ_CHECK_MSG(cond, detail)                                        \
  do {                                                                      \
    if (!(cond)) ::slotkv::fuzz::Fail(__FILE__, __LINE__, #cond, (detail)); \
  } while (0)

namespace slotkv::fuzz {

// ---- wal_log_fuzz input:  flags:u8 file { kWalFileSeparator file }  (at most kMaxWalFiles)
// The files become wal-000001.log, wal-000002.log... of one slot directory.
inline constexpr std::string_view kWalFileSeparator = "\n==wal-file==\n";
inline constexpr size_t kMaxWalFiles = 4;
// Flag: recompute each record's crc before replay (RepairWalChecksums).
inline constexpr uint8_t kRepairChecksums = 0x01;

std::vector<std::string> SplitWalFiles(std::string_view files);
std::string JoinWalFiles(uint8_t flags, const std::vector<std::string>& files);
// Walks the records of a WAL file from its start, rewriting each crc for the bytes its length
// field covers, up to the first length that runs past the end.
void RepairWalChecksums(std::string* file);

// ---- chunk_record_fuzz input:  flags:u8 region   (the records of a segment run)
// Rewrites the crc of each value record of a region, up to its zero padding or the first
// record that runs past the end.
void RepairChunkChecksums(std::string* region);

// ---- segment_table_fuzz input:  flags:u8 segment_shift:u8 meta_len:fixed16 meta ops
// Rewrites the crc of every 32-byte entry of segments.meta that is not all zero.
void RepairSegmentChecksums(std::string* meta);

// ---- bucket_page_fuzz input:  flags:u8 page   (zero-padded or cut to 4096 bytes)
// Rewrites the page checksum unless the page is all zero (which needs none).
void RepairPageChecksum(std::string* page);

// ---- dict_frame_fuzz input:  mode:u8 bytes  (see dict_frame_fuzz.cc)
inline constexpr const char* kDictDir = "/dicts";
// A key of the group that has the trained dictionary, and one of a group with none.
inline constexpr std::string_view kDictKey = "fz:user:1";
inline constexpr std::string_view kPlainKey = "plainkey";
// A generated JSON-like value, the same for the same i on every run.
std::string DictSample(int i);
// Dictionaries over *fs (dir kDictDir) after training dictionary 1 for kDictKey's group on
// DictSample values: what the server writes, and deterministic, so committed frames keep
// decoding. The file is fs's "/dicts/dict-1".
std::unique_ptr<slot::Dictionaries> TrainedDictionaries(MemFs* fs);
// Rewrites the XXH3 checksum at the end of a dict-<id> file (when long enough to hold one).
void RepairDictFileChecksum(std::string* file);

}  // namespace slotkv::fuzz
