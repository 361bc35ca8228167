#include "slot/seq_file.h"

#include <cstring>
#include <string_view>
#include <utility>

#include "core/base/coding.h"
#include "core/base/hash.h"
#include "core/base/io_ring.h"

namespace slotkv::slot {
namespace {

constexpr char kMagic[] = "SKQ3";
constexpr size_t kCopyBytes = 32;

struct Copy {
  bool valid = false;
  uint64_t gen = 0;
  SeqFile::Values values;
};

Copy DecodeCopy(std::string_view bytes) {
  Copy c;
  if (bytes.size() < kCopyBytes || bytes.compare(0, 4, kMagic) != 0 ||
      Checksum(bytes.substr(0, 28)) != DecodeFixed32(bytes.data() + 28)) {
    return c;
  }
  c.valid = true;
  c.gen = DecodeFixed64(bytes.data() + 4);
  c.values.limit = DecodeFixed64(bytes.data() + 12);
  c.values.floor = DecodeFixed64(bytes.data() + 20);
  return c;
}

// Versions 1 and 2: limit:fixed64 [floor:fixed64] crc32:fixed32.
bool DecodeOld(std::string_view data, SeqFile::Values* v) {
  if (data.size() != 12 && data.size() != 20) return false;
  const size_t body = data.size() - 4;
  if (Checksum(data.substr(0, body)) != DecodeFixed32(data.data() + body)) return false;
  v->limit = DecodeFixed64(data.data());
  v->floor = body == 16 ? DecodeFixed64(data.data() + 8) : 0;
  return true;
}

}  // namespace

std::string SeqFile::EncodeCopy(uint64_t gen, const Values& v) {
  std::string out(kMagic, 4);
  PutFixed64(&out, gen);
  PutFixed64(&out, v.limit);
  PutFixed64(&out, v.floor);
  PutFixed32(&out, Checksum(out));
  return out;
}

Result<std::unique_ptr<SeqFile>> SeqFile::Open(Fs* fs, const std::string& path) {
  Values values;
  uint64_t gen = 2;
  int copy = 0;
  bool rewrite = true;
  if (fs->Exists(path)) {
    SLOTKV_ASSIGN_OR_RETURN(std::string data, fs->ReadFile(path));
    if (data.size() == kFileBytes) {
      const Copy a = DecodeCopy(std::string_view(data).substr(0, kCopyBytes));
      const Copy b = DecodeCopy(std::string_view(data).substr(kCopyOffset, kCopyBytes));
      if (!a.valid && !b.valid) return Status::Corruption(path + ": damaged sequence file");
      const bool take_b = b.valid && (!a.valid || b.gen > a.gen);
      const Copy& c = take_b ? b : a;
      values = c.values;
      gen = c.gen;
      copy = take_b ? 1 : 0;
      rewrite = false;
    } else if (!DecodeOld(data, &values)) {
      return Status::Corruption(path + ": damaged sequence file");
    }
  }
  if (rewrite) {
    // Both copies hold the values: copy 0 (gen 2) is the durable one.
    std::string image = EncodeCopy(2, values);
    image.resize(kCopyOffset, '\0');
    image += EncodeCopy(1, values);
    image.resize(kFileBytes, '\0');
    SLOTKV_RETURN_IF_ERROR(fs->WriteFileAtomic(path, image));
  }
  SLOTKV_ASSIGN_OR_RETURN(std::unique_ptr<File> file, fs->Open(path));
  return std::unique_ptr<SeqFile>(new SeqFile(std::move(file), values, gen, copy));
}

SeqFile::SeqFile(std::unique_ptr<File> file, Values values, uint64_t gen, int copy)
    : file_(std::move(file)),
      durable_(values),
      wanted_(values),
      gen_(gen),
      durable_copy_(copy),
      self_(std::make_shared<SeqFile*>(this)) {}

SeqFile::~SeqFile() { *self_ = nullptr; }

bool SeqFile::async() const {
  return IoRing::Current() != nullptr && file_->NativeHandle() >= 0;
}

void SeqFile::Raise(const Values& v) {
  wanted_.limit = std::max(wanted_.limit, v.limit);
  wanted_.floor = std::max(wanted_.floor, v.floor);
}

void SeqFile::Landed(const Round& r) {
  durable_ = r.values;
  gen_ = r.gen;
  durable_copy_ = r.copy;
}

Status SeqFile::Write() {
  if (round_) {
    // The copy in flight was written in full before its fsync started: an fdatasync here
    // covers it too, and the other copy may then take the next values.
    SLOTKV_RETURN_IF_ERROR(file_->Sync());
    Landed(*round_);
    round_->landed = true;
  }
  std::shared_ptr<Round> landed = std::move(round_);
  if (!(wanted_ == durable_)) {
    const int copy = 1 - durable_copy_;
    SLOTKV_RETURN_IF_ERROR(file_->Write(copy * kCopyOffset, EncodeCopy(gen_ + 1, wanted_)));
    SLOTKV_RETURN_IF_ERROR(file_->Sync());
    durable_ = wanted_;
    ++gen_;
    durable_copy_ = copy;
  }
  // What waited for a later round is durable now too: answered with the landed round.
  if (landed) {
    for (Done& d : next_) landed->waiting.push_back(std::move(d));
    next_.clear();
  }
  return Status::OK();
}

void SeqFile::WriteThen(std::function<void(const Status&)> done) {
  if (!async()) {
    done(Write());
    return;
  }
  if (round_) {
    (wanted_ == round_->values ? round_->waiting : next_).push_back(std::move(done));
    return;
  }
  if (wanted_ == durable_) {
    done(Status::OK());
    return;
  }
  std::vector<Done> waiting;
  waiting.push_back(std::move(done));
  StartRound(std::move(waiting));
}

void SeqFile::StartRound(std::vector<Done> waiting) {
  auto r = std::make_shared<Round>();
  r->owner = self_;
  r->values = wanted_;
  r->gen = gen_ + 1;
  r->copy = 1 - durable_copy_;
  Status st = file_->Write(r->copy * kCopyOffset, EncodeCopy(r->gen, r->values));
  if (!st.ok()) {
    for (Done& d : waiting) d(st);
    return;
  }
  r->waiting = std::move(waiting);
  round_ = r;
  file_->RingSync(*IoRing::Current(), [r](int error) { OnSynced(r, error); });
}

void SeqFile::OnSynced(const std::shared_ptr<Round>& r, int error) {
  SeqFile* f = *r->owner;
  if (f == nullptr) return;  // gone: nobody left to answer
  Status st = r->landed || error == 0
                  ? Status::OK()
                  : Status::IOError(std::string("slot.seq: fdatasync: ") + std::strerror(error));
  std::vector<Done> waiting = std::move(r->waiting);
  if (f->round_ == r) {
    f->round_.reset();
    if (st.ok()) f->Landed(*r);
    std::vector<Done> next = std::move(f->next_);
    f->next_.clear();
    if (!next.empty()) {
      if (st.ok() && !(f->wanted_ == f->durable_) && f->async()) {
        f->StartRound(std::move(next));
      } else {
        // Already durable (or failed): the round's answer is theirs.
        for (Done& d : next) waiting.push_back(std::move(d));
      }
    }
  }
  // Last: a waiter may write again, or close the slot that owns f.
  for (Done& d : waiting) d(st);
}

}  // namespace slotkv::slot
