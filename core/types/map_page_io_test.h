// MapPageIo: pages in a std::map for the unit tests of the paged structures
// (member_pages_test.cc, zset_pages_test.cc, list_pages_test.cc), with read and write counts
// for their cost bounds. Checks the `created` flag of every write against what the map holds.
// Keeps decoded tree nodes as the slot does (decoded_page.h: versions, dropped at any other
// write) unless keep_decoded is false, so the model tests run over both paths.
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/types/member_pages.h"

namespace slotkv {

class MapPageIo : public PageIo {
 public:
  Result<std::optional<std::string>> GetPage(uint64_t id, uint64_t index) override {
    ++reads;
    auto it = pages.find({id, index});
    if (it == pages.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  Status PutPage(uint64_t id, uint64_t index, std::string_view bytes, bool created,
                 std::unique_ptr<DecodedPage> decoded) override {
    CHECK(created == (pages.count({id, index}) == 0));
    pages[{id, index}] = std::string(bytes);
    ++writes;
    const uint64_t v = NewVersion(id, index);
    if (decoded && keep_decoded) {
      decoded->version = v;
      kept[{id, index}] = std::move(decoded);
    }
    return Status::OK();
  }
  Status DeletePage(uint64_t id, uint64_t index) override {
    pages.erase({id, index});
    NewVersion(id, index);
    return Status::OK();
  }
  std::unique_ptr<DecodedPage> TakeDecoded(uint64_t id, uint64_t index) override {
    auto it = kept.find({id, index});
    if (it == kept.end()) return nullptr;
    std::unique_ptr<DecodedPage> page = std::move(it->second);
    kept.erase(it);
    ++taken;
    return page;
  }
  void KeepDecoded(uint64_t id, uint64_t index, std::unique_ptr<DecodedPage> page) override {
    CHECK(page->version != 0);
    if (page->version == versions[{id, index}]) kept[{id, index}] = std::move(page);
  }

  std::map<std::pair<uint64_t, uint64_t>, std::string> pages;
  int reads = 0;
  int writes = 0;
  int taken = 0;  // loads TakeDecoded served
  bool keep_decoded = true;

 private:
  uint64_t NewVersion(uint64_t id, uint64_t index) {
    kept.erase({id, index});
    return versions[{id, index}] = ++last_version_;
  }

  std::map<std::pair<uint64_t, uint64_t>, std::unique_ptr<DecodedPage>> kept;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> versions;
  uint64_t last_version_ = 0;
};

}  // namespace slotkv
