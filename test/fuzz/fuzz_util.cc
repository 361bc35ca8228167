#include "test/fuzz/fuzz_util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "chunk/record.h"
#include "core/base/coding.h"
#include "core/base/hash.h"
#include "core/types/counted_tree.h"
#include "core/types/stream_pages.h"

namespace slotkv::fuzz {

void Fail(const char* file, int line, const char* condition, std::string_view detail) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %s", file, line, condition);
  if (!detail.empty())
    std::fprintf(stderr, " (%.*s)", static_cast<int>(detail.size()), detail.data());
  std::fprintf(stderr, "\n");
  std::abort();
}

std::vector<std::string> SplitWalFiles(std::string_view files) {
  std::vector<std::string> out;
  while (out.size() + 1 < kMaxWalFiles) {
    const size_t sep = files.find(kWalFileSeparator);
    if (sep == std::string_view::npos) break;
    out.emplace_back(files.substr(0, sep));
    files.remove_prefix(sep + kWalFileSeparator.size());
  }
  out.emplace_back(files);
  return out;
}

std::string JoinWalFiles(uint8_t flags, const std::vector<std::string>& files) {
  std::string out(1, static_cast<char>(flags));
  for (size_t i = 0; i < files.size(); ++i) {
    if (i > 0) out += kWalFileSeparator;
    out += files[i];
  }
  return out;
}

void RepairWalChecksums(std::string* file) {
  constexpr size_t kHeader = 8;
  size_t off = 0;
  while (off + kHeader <= file->size()) {
    const std::string_view header(file->data() + off, kHeader);
    // Zero fill stays zero fill: replay treats it apart from records.
    if (chunk::IsAllZero(header)) break;
    const uint32_t length = DecodeFixed32(header.data() + 4);
    if (length > file->size() - off - kHeader) break;
    EncodeFixed32(file->data() + off,
                  Checksum(std::string_view(*file).substr(off + 4, 4 + size_t{length})));
    off += kHeader + length;
  }
}

void RepairChunkChecksums(std::string* region) {
  size_t pos = 0;
  while (pos < region->size()) {
    std::string_view rest = std::string_view(*region).substr(pos);
    if (chunk::IsAllZero(rest) || rest.size() < 4) break;
    std::string_view body = rest.substr(4);
    uint64_t hash = 0;
    std::string_view value;
    if (!GetFixed64(&body, &hash) || !GetLengthPrefixed(&body, &value)) break;
    const size_t len = rest.size() - body.size();
    EncodeFixed32(region->data() + pos, Checksum(rest.substr(4, len - 4)));
    pos += len;
  }
}

void RepairSegmentChecksums(std::string* meta) {
  constexpr size_t kEntry = 32;
  for (size_t off = 0; off + kEntry <= meta->size(); off += kEntry) {
    const std::string_view entry(meta->data() + off, kEntry);
    if (chunk::IsAllZero(entry)) continue;
    EncodeFixed32(meta->data() + off, Checksum(entry.substr(4)));
  }
}

void RepairPageChecksum(std::string* page) {
  if (page->size() < 4 || chunk::IsAllZero(*page)) return;
  EncodeFixed32(page->data(), Checksum(std::string_view(*page).substr(4)));
}

bool ParsePagedInput(std::string_view in, PagedInput* out) {
  if (in.size() < 2) return false;
  out->page_members = static_cast<uint8_t>(in[0]);
  const auto root_len = static_cast<uint8_t>(in[1]);
  in.remove_prefix(2);
  if (in.size() < root_len) return false;
  out->root.assign(in.substr(0, root_len));
  in.remove_prefix(root_len);
  while (in.size() >= 3) {
    const auto slot = static_cast<uint8_t>(in[0]);
    const size_t len = static_cast<uint8_t>(in[1]) | (size_t{static_cast<uint8_t>(in[2])} << 8);
    in.remove_prefix(3);
    if (in.size() < len) break;
    uint64_t index = slot & 0x3f;  // a hashed page
    if (slot & 0x80) {
      index = kTreePageBit + (slot & 0x7f);
    } else if (slot & 0x40) {  // a stream group's PEL node: owned:1 group:1 node:4
      index = StreamPages::PelBase((slot >> 4) & 1, (slot & 0x20) != 0) + (slot & 0x0f);
    }
    out->pages[index] = std::string(in.substr(0, len));
    in.remove_prefix(len);
  }
  return true;
}

std::string EncodePagedInput(const PagedInput& in) {
  FUZZ_CHECK(in.root.size() < 256);
  std::string out;
  out.push_back(static_cast<char>(in.page_members));
  out.push_back(static_cast<char>(in.root.size()));
  out += in.root;
  for (const auto& [index, bytes] : in.pages) {
    uint64_t slot = index;
    if (index >= kTreePageBit) {
      FUZZ_CHECK(index - kTreePageBit < 0x80);
      slot = 0x80 | (index - kTreePageBit);
    } else if (index >= StreamPages::PelBase(0, false)) {
      const uint64_t tree = (index - StreamPages::PelBase(0, false)) / StreamPages::kPelNodes;
      const uint64_t n = index - StreamPages::PelBase(tree / 2, tree % 2 != 0);
      FUZZ_CHECK(tree < 4 && n < 0x10);
      slot = 0x40 | (tree % 2) << 5 | (tree / 2) << 4 | n;
    }
    FUZZ_CHECK(slot < 0x100 && (slot >= 0x40 || index < 0x40) && bytes.size() < 0x10000);
    out.push_back(static_cast<char>(slot));
    out.push_back(static_cast<char>(bytes.size() & 0xff));
    out.push_back(static_cast<char>(bytes.size() >> 8));
    out += bytes;
  }
  return out;
}

Result<std::optional<std::string>> OneCollectionIo::GetPage(uint64_t, uint64_t index) {
  auto it = pages_.find(index);
  if (it == pages_.end()) return std::optional<std::string>();
  return std::optional<std::string>(it->second);
}

Status OneCollectionIo::PutPage(uint64_t, uint64_t index, std::string_view bytes, bool,
                                std::unique_ptr<DecodedPage>) {
  pages_[index] = std::string(bytes);
  return Status::OK();
}

Status OneCollectionIo::DeletePage(uint64_t, uint64_t index) {
  pages_.erase(index);
  return Status::OK();
}

}  // namespace slotkv::fuzz
