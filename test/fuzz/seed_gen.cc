// slotkv_fuzz_seeds DIR: writes the seed corpus of every fuzz target to DIR/<target>/ (the
// committed one is test/fuzz/corpus): small valid inputs made by the real encoders and writers
// (Log over MemFs, EncodePage, AppendRecord, SegmentTable commits, Dictionaries), plus a few
// damaged on purpose (a torn WAL tail, zero fill, a bad checksum). Deterministic: running it
// again rewrites the same bytes.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "chunk/record.h"
#include "chunk/segment_table.h"
#include "chunk/value_ptr.h"
#include "conf/config.h"
#include "core/base/clock.h"
#include "core/base/coding.h"
#include "core/base/hash.h"
#include "core/base/mem_fs.h"
#include "core/types/hyperloglog.h"
#include "core/types/list_pages.h"
#include "core/types/member_pages.h"
#include "core/types/rdb_value.h"
#include "core/types/stream_pages.h"
#include "core/types/zset_pages.h"
#include "keybucket/page.h"
#include "slot/dictionaries.h"
#include "slot/value_delta.h"
#include "test/fuzz/fuzz_util.h"
#include "wal/log.h"

namespace slotkv::fuzz {
namespace {

using namespace std::string_literals;

std::filesystem::path root;

void Write(const std::string& target, const std::string& name, std::string_view bytes) {
  const std::filesystem::path dir = root / target;
  std::filesystem::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  FUZZ_CHECK(out.good());
}

// ---- resp_parser: flags:u8 cut:u8 stream
void RespSeeds() {
  auto seed = [](const std::string& name, uint8_t flags, std::string_view stream) {
    Write("resp_parser", name, std::string{static_cast<char>(flags), '\x80'} + std::string(stream));
  };
  seed("multibulk-get", 0, "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
  seed("inline-quotes", 0, "SET k \"a b\\x41\\n\" 'it\\'s'\r\n");
  seed("pipeline", 0,
       "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\nPING\r\n*0\r\n\r\n*-1\r\n"
       "*2\r\n$4\r\nECHO\r\n$0\r\n\r\nGET a\n*1\r\n$4\r\nPING\r\n");
  seed("binary-bulk", 0, "*2\r\n$4\r\nECHO\r\n$5\r\n\0\r\n\xff\x01\r\n"s);
  seed("small-limits", 0x01 | 0x02 | 0x04 | 0x20,
       "*2\r\n$3\r\nGET\r\n$12\r\nabcdefghijkl\r\n*9\r\n$1\r\na\r\n");
  seed("unauthenticated", 0x08, "*11\r\n$4\r\nAUTH\r\n$20000\r\nx\r\n");
  seed("protocol-error", 0, "*1\r\nX3\r\nGET\r\n");
  seed("unbalanced-quotes", 0, "SET \"k v\r\n");
  seed("nul-in-line", 0x01, "*1\0\r\n$1\r\na\r\n"s);
}

// ---- wal_log: flags:u8 file { separator file }, files written by wal::Log over MemFs
std::vector<std::string> WalFiles(uint64_t file_bytes, int units) {
  MemFs fs;
  FUZZ_CHECK(fs.CreateDirs("/w").ok());
  ManualClock clock;
  wal::Log::Options options;
  options.fs = &fs;
  options.dir = "/w";
  options.fsync = wal::FsyncPolicy::kAlways;
  options.file_bytes = file_bytes;
  options.clock = &clock;
  auto log = wal::Log::Open(options, nullptr);
  FUZZ_CHECK(log.ok());
  uint64_t seq = 1;
  for (int u = 0; u < units; ++u) {
    wal::Record put;
    put.kind = wal::RecordKind::kPut;
    put.type_tag = static_cast<uint8_t>(u % 5);
    put.expire_at_ms = u % 2 ? 1'700'000'000'000 + u : 0;
    put.key = "key:" + std::to_string(u);
    put.value = std::string(static_cast<size_t>(3 + u * 7 % 40), static_cast<char>('a' + u % 26));
    wal::Record del;
    del.kind = wal::RecordKind::kDelete;
    del.key = "key:" + std::to_string(u / 2);
    wal::Record group;
    group.kind = u % 2 ? wal::RecordKind::kGroupFlushed : wal::RecordKind::kGroupFlushing;
    group.group = static_cast<uint32_t>(u % 3);
    if (u % 3 == 0) {
      // A unit of three records (the more bit on the first two).
      (*log)->BeginUnit();
      for (wal::Record* r : {&put, &del, &group}) {
        r->seq = seq++;
        FUZZ_CHECK((*log)->Append(*r).ok());
      }
      (*log)->EndUnit();
    } else {
      put.seq = seq++;
      FUZZ_CHECK((*log)->Append(put).ok());
    }
    FUZZ_CHECK((*log)->Commit().ok());
  }
  const uint32_t newest = (*log)->current_file_no();
  std::vector<std::string> files;
  for (uint32_t n = (*log)->oldest_file_no(); n <= newest; ++n) {
    char name[32];
    std::snprintf(name, sizeof(name), "/w/wal-%06u.log", n);
    auto bytes = fs.ReadFile(name);
    FUZZ_CHECK(bytes.ok());
    files.push_back(*bytes);
  }
  return files;
}

void WalSeeds() {
  const std::vector<std::string> one = WalFiles(1 << 20, 6);
  Write("wal_log", "one-file", JoinWalFiles(0, one));
  Write("wal_log", "one-file-repair", JoinWalFiles(kRepairChecksums, one));
  const std::vector<std::string> three = WalFiles(150, 9);
  Write("wal_log", "three-files", JoinWalFiles(0, three));
  std::vector<std::string> torn = three;
  torn.back().resize(torn.back().size() - 5);
  Write("wal_log", "torn-tail", JoinWalFiles(0, torn));
  std::vector<std::string> zero = one;
  zero.back().append(64, '\0');
  Write("wal_log", "zero-fill", JoinWalFiles(0, zero));
  std::vector<std::string> flipped = one;
  flipped.back()[20] ^= 0x40;  // a bad record with whole ones after it: Corruption
  Write("wal_log", "flipped-byte", JoinWalFiles(0, flipped));
  Write("wal_log", "empty", JoinWalFiles(0, {""}));
}

// ---- bucket_page: flags:u8 page
void PageSeeds() {
  std::vector<keybucket::Cell> cells;
  for (int i = 0; i < 12; ++i) {
    keybucket::Cell c;
    c.key = "user:" + std::to_string(i);
    c.hash = KeyHash(c.key);
    c.seq = 1000 + static_cast<uint64_t>(i) * 977;
    c.expire_at_ms = i % 3 == 0 ? 0 : (i % 3 == 1 ? 1'700'000'000'000 : -5);
    c.type_tag = static_cast<uint8_t>(i % 5);
    c.is_pointer = i % 4 == 3;
    if (c.is_pointer) {
      chunk::EncodeValuePtr({.segment = static_cast<uint32_t>(i), .offset = 40, .length = 300},
                            &c.payload);
    } else {
      c.payload = std::string(static_cast<size_t>(i * 3), 'v');
    }
    cells.push_back(c);
  }
  std::string page(keybucket::kPageSize, '\0');
  FUZZ_CHECK(keybucket::EncodePage(cells, page.data()).ok());
  // The zero tail of a page says nothing: seeds stop where the cells end.
  const size_t used = DecodeFixed16(page.data() + 7);
  Write("bucket_page", "twelve-cells", std::string(1, '\0') + page.substr(0, used));
  Write("bucket_page", "twelve-cells-repair", std::string(1, '\1') + page.substr(0, used));
  cells.resize(1);
  FUZZ_CHECK(keybucket::EncodePage(cells, page.data()).ok());
  Write("bucket_page", "one-cell", std::string(1, '\0') + page.substr(0, 40));
  Write("bucket_page", "empty", std::string(1, '\0'));
}

// ---- chunk_record: flags:u8 region
void ChunkSeeds() {
  std::string region;
  chunk::AppendRecord(KeyHash("a"), "short value", &region);
  chunk::AppendRecord(KeyHash("b"), std::string(300, 'x'), &region);
  chunk::AppendRecord(0, "", &region);
  std::string ptr;
  chunk::EncodeValuePtr({.kind = chunk::ValuePtr::Kind::kBigFile, .big_id = 12345}, &ptr);
  chunk::AppendRecord(KeyHash("c"), ptr, &region);
  Write("chunk_record", "records", std::string(1, '\0') + region);
  Write("chunk_record", "records-padded", std::string(1, '\1') + region + std::string(20, '\0'));
  std::string segment_ptr;
  chunk::EncodeValuePtr({.segment = 300, .offset = 17, .length = 42}, &segment_ptr);
  Write("chunk_record", "value-ptr", std::string(1, '\0') + segment_ptr);
}

// ---- segment_table: flags:u8 segment_shift:u8 meta_len:fixed16 meta ops
std::string SegmentMeta() {
  chunk::SegmentTable table(64 << 10);
  FUZZ_CHECK(table.Load("").ok());
  for (uint32_t g = 0; g < 3; ++g) {
    for (uint32_t n = 1; n <= 3; ++n) {
      const uint32_t head = table.Allocate(g, n);
      table.AddLive(head, 1000 * n + g);
      table.SetFill(head, 2000 * n + g);
    }
  }
  uint64_t requested = 0;
  table.RequestFree(4);
  table.ClearFresh();
  (void)table.TakeFrees(&requested);
  std::string meta;
  for (const auto& [offset, bytes] : table.DirtyWrites(false)) {
    if (meta.size() < offset + bytes.size()) meta.resize(offset + bytes.size(), '\0');
    meta.replace(offset, bytes.size(), bytes);
  }
  return meta;
}

void SegmentSeeds() {
  const std::string meta = SegmentMeta();
  auto seed = [](const std::string& name, uint8_t flags, std::string_view meta,
                 std::string_view ops) {
    std::string in{static_cast<char>(flags), 4};  // 64 KiB segments
    PutFixed16(&in, static_cast<uint16_t>(meta.size()));
    Write("segment_table", name, in + std::string(meta) + std::string(ops));
  };
  seed("runs", 0, meta, "");
  // Allocate, AddLive, SetFill, ReleaseLive, RequestFree, Reopen, SyncData, Commit.
  seed("runs-ops", 1, meta,
       "\x00\x01\x02\x00"
       "\x01\x00\x03\x04"
       "\x02\x00\x05\x06"
       "\x03\x01\x10\x00"
       "\x04\x02\x00\x00"
       "\x06\x00\x01\x01"
       "\x07\x00\x00\x00"
       "\x08\x00\x00\x00"s);
  std::string torn = meta;
  torn.resize(torn.size() - 40);  // a run cut short and a partial entry
  seed("torn-run", 0, torn, "");
  seed("empty", 0, "",
       "\x00\x01\x01\x01"
       "\x08\x00\x00\x00"s);
}

// ---- config: the file's bytes
void ConfigSeeds() {
  Write("config", "typical",
        "# slotkv.conf\n"
        "bind 127.0.0.1 ::1\n"
        "port 7379\n"
        "dir \"/var/lib/slot kv\"\n"
        "appendfsync always\n"
        "maxmemory-cache 2gb\n"
        "requirepass 'it\\'s secret'\n"
        "client-output-buffer-limit pubsub 32mb 8mb 60 replica 1gb 0 0\n"
        "notify-keyspace-events Kgx\n"
        "lua-time-limit 100\n"
        "protected-mode no\n"
        "\n"
        "   # indented comment\r\n"
        "slots 64\n");
  // Every option at its default, so that mutations start from every name.
  std::string every;
  for (const conf::OptionDef& def : conf::Options()) {
    every += std::string(def.name) + " \"" + std::string(def.default_value) + "\"\n";
  }
  Write("config", "every-option", every);
  Write("config", "overrides", "port 1\nport 2\ndatabases 3\nstorage memory\ntimeout 0\n");
  Write("config", "bad-value", "port 70000\n");
}

// ---- acl_rules: ACL SETUSER rules, a line each
void AclSeeds() {
  Write("acl_rules", "typical", "on >pw ~k* %R~r* %W~w* &ch* +@read -get +config|get\n");
  Write("acl_rules", "selectors", "reset on nopass (~a* +set) (%R~b* &c +@all -@dangerous)\n"
                                  "clearselectors +@all -config|set allkeys\n");
  Write("acl_rules", "first-args", "-@all +select|0 +select|1 +get|x\n+select\n");
}

// ---- dict_frame: mode:u8 bytes
void DictSeeds() {
  MemFs fs;
  std::unique_ptr<slot::Dictionaries> dicts = TrainedDictionaries(&fs);
  std::string stored;
  FUZZ_CHECK(dicts->Compress(kDictKey, DictSample(7) + DictSample(8), &stored));
  Write("dict_frame", "frame-dict-1", std::string(1, '\0') + stored);
  std::string big;
  for (int i = 0; i < 6; ++i) big += DictSample(i);
  FUZZ_CHECK(dicts->Compress(kPlainKey, big, &stored));  // no dictionary: plain zstd, id 0
  Write("dict_frame", "frame-plain", std::string(1, '\0') + stored);
  Write("dict_frame", "round-trip", std::string(1, '\1') + DictSample(3) + DictSample(4));
  auto file = fs.ReadFile(std::string(kDictDir) + "/dict-1");
  FUZZ_CHECK(file.ok());
  Write("dict_frame", "dict-file", std::string(1, '\2') + *file);
  Write("dict_frame", "dict-file-repair", std::string(1, '\5') + file->substr(0, 600));
}

// ---- paged_root: a list, a sorted set, a hash and a stream of a few pages each (ids fixed: the bytes
// stay the same on every run), plus a list whose root was cut.
void PagedSeeds() {
  constexpr uint32_t kPm = 3;
  auto write = [](const std::string& name, std::string root, const OneCollectionIo& io) {
    PagedInput in;
    in.page_members = kPm;
    in.root = std::move(root);
    in.pages = io.pages();
    Write("paged_root", name, EncodePagedInput(in));
  };
  OneCollectionIo list_io({});
  ListRoot list_root;
  list_root.id = 42;
  ListPages list(list_root, &list_io, kPm);
  for (int i = 0; i < 20; ++i) {
    FUZZ_CHECK(list.InsertAt(list.size() / 2, "e" + std::to_string(i)).ok());
  }
  FUZZ_CHECK(list.Finish().ok());
  write("list", list.root().Encode(), list_io);
  std::string cut = list.root().Encode();
  cut.resize(cut.size() - 2);
  write("list-cut-root", cut, list_io);

  OneCollectionIo zset_io({});
  ZSetRoot zset_root;
  zset_root.index.id = 43;
  ZSetPages zset(zset_root, &zset_io, kPm);
  for (int i = 0; i < 16; ++i) FUZZ_CHECK(zset.Set("m" + std::to_string(i), i % 5 - 2).ok());
  FUZZ_CHECK(zset.Finish().ok());
  write("zset", zset.root().Encode(), zset_io);

  OneCollectionIo hash_io({});
  HashedRoot hash_root;
  hash_root.id = 44;
  MemberPages hash(hash_root, &hash_io, kPm);
  for (int i = 0; i < 12; ++i) FUZZ_CHECK(hash.Set("f" + std::to_string(i), "v").ok());
  FUZZ_CHECK(hash.Finish().ok());
  write("hash", hash.root().Encode(), hash_io);

  OneCollectionIo stream_io({});
  StreamRoot stream_root;
  stream_root.id = 45;
  StreamPages stream(stream_root, &stream_io, kPm);
  for (uint64_t i = 1; i <= 14; ++i) FUZZ_CHECK(stream.Append({i, 0}, {"f", "v"}).ok());
  stream.meta().last_id = {14, 0};
  for (const char* name : {"g", "h"}) {
    StreamGroup g;
    FUZZ_CHECK(stream.NumberGroup(&g).ok());
    g.Consumer("c", 1);
    g.Consumer("d", 1);
    StreamGroup& added = stream.meta().groups.emplace(name, g).first->second;
    for (uint64_t i = 1; i <= 8; ++i) {
      FUZZ_CHECK(stream.SetPending(added, {i, 0}, i % 3 == 0 ? "d" : "c", 1, i).ok());
    }
  }
  FUZZ_CHECK(stream.Finish().ok());
  write("stream", stream.root().Encode(), stream_io);
}

// ---- value_delta: a page-like base with a real delta of an insertion, and with its next
// version (EncodeDelta's side).
void DeltaSeeds() {
  std::string base(1, '\x10');
  for (int i = 0; i < 16; ++i) base += "member:" + std::to_string(100 + i) + ";";
  std::string next = base;
  next[0] = '\x11';
  next.insert(40, "member:555;");
  std::string delta;
  FUZZ_CHECK(slot::EncodeDelta(base, next, &delta));
  auto input = [&base](const std::string& other) {
    std::string in;
    PutFixed16(&in, static_cast<uint16_t>(base.size()));
    return in + base + other;
  };
  Write("value_delta", "insert-delta", input(delta));
  Write("value_delta", "insert-next", input(next));
}

// ---- rdb_object: what DUMP writes of each type, and Redis 7.0's compact forms (its DUMP bytes
// of a quicklist of one listpack, an intset, a hash and a sorted set listpack, trailers cut).
std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

void RdbSeeds() {
  ListValue list;
  list.PushBack("a");
  list.PushBack("-5000");
  SetValue set;
  set.Add("x");
  HashValue hash;
  hash.Set("f", "v");
  ZSetValue zset;
  zset.Set("m", 1.5);
  Write("rdb_object", "string", rdb::DumpString("hello"));
  Write("rdb_object", "list", rdb::DumpList(list));
  Write("rdb_object", "set", rdb::DumpSet(set));
  Write("rdb_object", "hash", rdb::DumpHash(hash));
  Write("rdb_object", "zset", rdb::DumpZSet(zset));
  Write("rdb_object", "quicklist-listpack",
        Unhex("12010214140000000400816102826262030c01f178ec03ff"));
  Write("rdb_object", "intset", Unhex("0b0e0200000003000000010002002c01"));
  Write("rdb_object", "hash-listpack", Unhex("1012120000000400816602817602816e020701ff"));
  Write("rdb_object", "zset-listpack", Unhex("111414000000040081610283312e35048162020201ff"));
  Write("rdb_object", "hash-ziplist", Unhex("0d161600000013000000040000016603017603016e03f8ff"));
  StreamValue stream;
  stream.entries[{1, 1}] = {"f", "v"};
  stream.entries[{3, 1}] = {"f", "12", "g", "x"};
  stream.meta.last_id = {3, 1};
  stream.meta.entries_added = 3;
  stream.meta.groups["g"].Consumer("c", 5);
  stream.meta.groups["g"].SetPending({1, 1}, "c", 5, 2);
  Write("rdb_object", "stream", rdb::DumpStream(stream));
  // Redis 7.0.15's: 1-1, 2-1 (deleted), 3-1; group g, consumer c owning 1-1; LZF listpack.
  Write("rdb_object", "stream-redis",
        Unhex("13011000000000000000010000000000000001c3383d073d00000018000201400007816602000102"
        "0100200103817602044012200a000240170981770281670281780208200f4022040c010401ff0203"
        "010101020103010167010181ffffffffffffffff01000000000000000100000000000000018f1d92"
        "50a2010000010101638f1d9250a20100000100000000000000010000000000000001"));
}

// ---- hll: an empty value, a sparse one and a dense one, with a few elements to add.
void HllSeeds() {
  auto input = [](uint16_t sparse_max, const std::string& value, std::string_view elements) {
    std::string in;
    PutFixed16(&in, sparse_max);
    PutFixed16(&in, static_cast<uint16_t>(value.size()));
    return in + value + std::string(elements);
  };
  std::string sparse = hll::Empty();
  std::string dense = hll::Empty();
  for (int i = 0; i < 50; ++i) {
    FUZZ_CHECK(hll::Add(&sparse, "e" + std::to_string(i), hll::kDefaultSparseMaxBytes).ok());
    FUZZ_CHECK(hll::Add(&dense, "e" + std::to_string(i), 0).ok());
  }
  Write("hll", "empty", input(3000, hll::Empty(), "a\nb\nc"));
  Write("hll", "sparse", input(3000, sparse, "x\ny"));
  Write("hll", "sparse-small-max", input(60, sparse, "x\ny\nz"));
  Write("hll", "dense", input(3000, dense, "x"));
}

}  // namespace
}  // namespace slotkv::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR   (writes DIR/<target>/<seed>)\n", argv[0]);
    return 2;
  }
  slotkv::fuzz::root = argv[1];
  slotkv::fuzz::RespSeeds();
  slotkv::fuzz::WalSeeds();
  slotkv::fuzz::PageSeeds();
  slotkv::fuzz::ChunkSeeds();
  slotkv::fuzz::SegmentSeeds();
  slotkv::fuzz::ConfigSeeds();
  slotkv::fuzz::DictSeeds();
  slotkv::fuzz::PagedSeeds();
  slotkv::fuzz::DeltaSeeds();
  slotkv::fuzz::RdbSeeds();
  slotkv::fuzz::HllSeeds();
  slotkv::fuzz::AclSeeds();
  return 0;
}
