// MapPageIo: pages in a std::map for the unit tests of the paged structures
// (member_pages_test.cc, zset_pages_test.cc), with read and write counts for their cost
// bounds. Checks the `created` flag of every write against what the map holds.
#pragma once

#include <doctest/doctest.h>

#include <map>
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
  Status PutPage(uint64_t id, uint64_t index, std::string_view bytes, bool created) override {
    CHECK(created == (pages.count({id, index}) == 0));
    pages[{id, index}] = std::string(bytes);
    ++writes;
    return Status::OK();
  }
  Status DeletePage(uint64_t id, uint64_t index) override {
    pages.erase({id, index});
    return Status::OK();
  }

  std::map<std::pair<uint64_t, uint64_t>, std::string> pages;
  int reads = 0;
  int writes = 0;
};

}  // namespace slotkv
