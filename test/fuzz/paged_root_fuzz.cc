// Fuzz target: the paged collections (core/types/member_pages, zset_pages, list_pages,
// stream_pages, counted_tree): a root as a key holds it and the pages it names, as read back from a slot
// that may hold damaged bytes.
//
// Input: page_members:u8 root_len:u8 root { slot:u8 len:fixed16 page }  (fuzz_util.h)
//
// Checks: the root decoders and every operation on the structure they open (reads, a write of
// each kind, Finish) return a Status instead of crashing, looping or reading out of bounds
// (a damaged tree reaches a node twice, a count disagrees with the pages, a child number runs
// past the nodes); walks are bounded by what they are asked for; the root a structure hands
// back after a change always decodes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/types/list_pages.h"
#include "core/types/member_pages.h"
#include "core/types/stream_pages.h"
#include "core/types/zset_pages.h"
#include "test/fuzz/fuzz_util.h"

namespace slotkv::fuzz {
namespace {

constexpr int kWalkMax = 64;

void ExerciseList(const ListRoot& root, OneCollectionIo* io, uint32_t pm) {
  ListPages list(root, io, pm);
  const uint64_t n = list.size();
  for (const bool reverse : {false, true}) {
    if (n == 0) break;
    int seen = 0;
    Status st = list.Walk(reverse ? n - 1 : 0, reverse, [&](const std::string&) {
      return ++seen < kWalkMax;
    });
    FUZZ_CHECK(seen <= kWalkMax);
    if (!st.ok()) return;
  }
  if (n > 0 && !list.At(n / 2).ok()) return;
  if (!list.InsertAt(n / 2, "fuzz").ok()) return;
  if (!list.EraseAt(0).ok()) return;
  if (!list.Finish().ok()) return;
  FUZZ_CHECK(ListRoot::Decode(list.root().Encode()).ok());
}

void ExerciseZSet(const ZSetRoot& root, OneCollectionIo* io, uint32_t pm) {
  ZSetPages z(root, io, pm);
  if (!z.Score("m1").ok() || !z.Rank("m1").ok()) return;
  int seen = 0;
  Status st = z.Walk(0, false, [&](const ZSetPages::Entry&) { return ++seen < kWalkMax; });
  FUZZ_CHECK(seen <= kWalkMax);
  if (!st.ok()) return;
  if (!z.CountBefore([](const ZSetPages::Entry& e) { return e.score >= 0; }).ok()) return;
  if (!z.Set("m1", 1.5).ok() || !z.Remove("m2").ok() || !z.Finish().ok()) return;
  FUZZ_CHECK(ZSetRoot::Decode(z.root().Encode()).ok());
}

void ExerciseStream(StreamRoot root, OneCollectionIo* io, uint32_t pm) {
  StreamPages s(std::move(root), io, pm);
  for (const bool reverse : {false, true}) {
    int seen = 0;
    Status st = s.Walk(reverse ? StreamId::Max() : StreamId{}, reverse,
                       [&](const StreamPages::Entry&) { return ++seen < kWalkMax; });
    FUZZ_CHECK(seen <= kWalkMax);
    if (!st.ok()) return;
  }
  if (!s.Get(StreamId{1, 1}).ok() || !s.CountBelow(StreamId{5, 0}).ok()) return;
  if (!s.Erase(StreamId{1, 1}).ok()) return;
  if (s.size() > 0 && !s.EraseFirst().ok()) return;
  // Each group's PEL: reads bounded as asked, then a change of each kind.
  for (auto& [name, g] : s.meta().groups) {
    int seen = 0;
    const auto count = [&](const StreamId&, const StreamNack&) { return ++seen < kWalkMax; };
    if (!s.WalkPending(g, {}, false, count).ok()) return;
    if (!s.WalkPending(g, StreamId::Max(), true, count).ok()) return;
    FUZZ_CHECK(seen <= 2 * kWalkMax);
    if (!s.FindPending(g, StreamId{2, 0}).ok() || !s.Ack(g, StreamId{2, 0}).ok()) return;
    if (g.consumers.empty()) continue;
    const std::string consumer = g.consumers.begin()->first;
    seen = 0;
    if (!s.WalkOwned(g, consumer, {}, [&](const StreamId&) { return ++seen < kWalkMax; }).ok()) {
      return;
    }
    FUZZ_CHECK(seen <= kWalkMax);
    if (!s.SetPending(g, StreamId{3, 0}, consumer, 1, 1).ok()) return;
    if (g.consumers.size() > 1 && !s.DeleteConsumer(g, g.consumers.rbegin()->first).ok()) return;
  }
  if (!s.Append(StreamId::Max(), {"f", "v"}).ok() || !s.Finish().ok()) return;
  FUZZ_CHECK(StreamRoot::Decode(s.root().Encode()).ok());
}

void ExerciseHashed(const HashedRoot& root, OneCollectionIo* io, uint32_t pm) {
  MemberPages m(root, io, pm);
  if (!m.Get("f1").ok()) return;
  int seen = 0;
  if (!m.ForEachPage(0, [&](uint64_t, const HashValue&) { return ++seen < kWalkMax; }).ok()) {
    return;
  }
  FUZZ_CHECK(seen <= kWalkMax);
  if (!m.Set("f1", "v").ok() || !m.Delete("f2").ok() || !m.Finish().ok()) return;
  FUZZ_CHECK(HashedRoot::Decode(m.root().Encode()).ok());
}

}  // namespace
}  // namespace slotkv::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotkv;
  fuzz::PagedInput in;
  if (!fuzz::ParsePagedInput({reinterpret_cast<const char*>(data), size}, &in)) return 0;
  if (!IsPagedRoot(in.root) || in.root.size() < 2) return 0;
  const uint32_t pm = 1 + in.page_members % 16;
  fuzz::OneCollectionIo io(std::move(in.pages));
  switch (static_cast<uint8_t>(in.root[1])) {
    case kListKind: {
      Result<ListRoot> root = ListRoot::Decode(in.root);
      if (root.ok()) fuzz::ExerciseList(*root, &io, pm);
      break;
    }
    case kZSetKind: {
      Result<ZSetRoot> root = ZSetRoot::Decode(in.root);
      if (root.ok()) fuzz::ExerciseZSet(*root, &io, pm);
      break;
    }
    case kStreamKind: {
      Result<StreamRoot> root = StreamRoot::Decode(in.root);
      if (root.ok()) fuzz::ExerciseStream(std::move(*root), &io, pm);
      break;
    }
    default: {
      Result<HashedRoot> root = HashedRoot::Decode(in.root);
      if (root.ok()) fuzz::ExerciseHashed(*root, &io, pm);
      break;
    }
  }
  return 0;
}
