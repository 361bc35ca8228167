// RespParser: turns the bytes a client sends into requests (argument vectors) exactly as Redis
// 7.0 does (networking.c processMultibulkBuffer and processInlineBuffer, sds.c sdssplitargs):
// the same accepted forms, limits and error texts. Pure: bytes in, a request plus the number of
// bytes consumed out; no socket, no clock.
//
// Request grammar (the first byte of a request picks its form):
//   request   := multibulk | inline
//   multibulk := '*' count CR any { '$' len CR any bytes[len] any any }*count
//   inline    := line LF            (line: no LF; one CR right before the LF is dropped)
// count and len are decimal as Redis's string2ll reads them: an optional '-', no '+', no
// leading zero, no spaces, under 21 characters. A header line ("*<count>", "$<len>") ends at
// the first CR; the byte after that CR and the two bytes after a bulk's data are skipped
// unexamined (Redis does not check they are "\n" and "\r\n"). count <= 0 and an inline line
// with no arguments are empty requests: skipped, no reply. An inline line is split into
// arguments as sdssplitargs does: blanks separate, "double quotes" take \n \r \t \b \a \xHH and
// \<any> escapes, 'single quotes' take \' only, and a closing quote must be followed by a blank
// or the end of the line. Examples:
//   "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"  -> {"GET", "k"}
//   "SET k \"a b\\x41\"\r\n"           -> {"SET", "k", "a bA"}
//   "*0\r\n", "*-1\r\n", "\r\n"        -> nothing (skipped)
//
// Redis quirks kept on purpose, so slotkv answers byte for byte what Redis answers:
// - Redis finds a line's end with strchr, which stops at a NUL byte: a NUL in a header line or
//   an inline line hides the line's end, so the request waits for more bytes until more than
//   max_inline_len are buffered, then fails with the "too big" error of that line.
// - In "expected '$', got 'X'" X is the raw byte, except CR and LF, which Redis's error
//   formatting turns into a space.
// One rule differs, to make the outcome independent of how bytes are split across calls:
// Redis fails a line only when more than max_inline_len bytes are buffered without its end,
// so whether a longer line that does end passes depends on read sizes (a 70 KB inline line in
// one read passes, a 100 KB one does not). Here a line longer than max_inline_len always fails
// (bytes before its CR for a header line, before its LF for an inline line): what Redis does
// whenever the line arrives in pieces.
//
// Incremental contract. The caller owns a buffer of received, unconsumed bytes:
//   state = parser.Parse(buffer, &args, &consumed);  buffer.erase(0, consumed);
//   kCommand  -> run args, then call again: the buffer may hold more pipelined requests.
//   kNeedMore -> read more bytes, append them to the buffer, call again.
//   kError    -> reply "-" + error() + "\r\n" and close the connection.
// After kNeedMore everything is consumed except an incomplete header line or inline line, so at
// most max_inline_len + 1 bytes stay in the caller's buffer: complete arguments and the part of
// a bulk received so far live in the parser. A bulk is copied once, into a string reserved at
// its declared length (as Redis, which reserves it too: a client can make the parser reserve
// max_bulk_len bytes with one header; an unauthenticated client only 16 KB). The parser
// remembers how much of the bytes it left unconsumed it has scanned, so a line arriving a byte
// at a time is scanned once and a 100 MB bulk in 16 KB pieces costs O(100 MB).
// Splitting the bytes at any points gives the same requests and the same error.
//
// Thread rule: none; a parser belongs to one connection and is used by its owning worker.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace slotkv::net {

// Error texts, as Redis 7.0 sends them (the text after the leading '-', as in
// core/command/errors.h). "expected '$'" embeds a byte: see ExpectedDollarError.
inline constexpr std::string_view kErrInvalidMultibulkLength =
    "ERR Protocol error: invalid multibulk length";
inline constexpr std::string_view kErrInvalidBulkLength = "ERR Protocol error: invalid bulk length";
inline constexpr std::string_view kErrUnauthMultibulkLength =
    "ERR Protocol error: unauthenticated multibulk length";
inline constexpr std::string_view kErrUnauthBulkLength =
    "ERR Protocol error: unauthenticated bulk length";
inline constexpr std::string_view kErrTooBigMultibulkCount =
    "ERR Protocol error: too big mbulk count string";
inline constexpr std::string_view kErrTooBigBulkCount =
    "ERR Protocol error: too big bulk count string";
inline constexpr std::string_view kErrTooBigInline = "ERR Protocol error: too big inline request";
inline constexpr std::string_view kErrUnbalancedQuotes =
    "ERR Protocol error: unbalanced quotes in request";
// "ERR Protocol error: expected '$', got 'X'"; CR and LF print as a space.
std::string ExpectedDollarError(char got);

// Limits on what a client may send. Defaults are Redis 7.0's.
struct RespLimits {
  // proto-max-bulk-len: the longest bulk argument; a longer declared length is an invalid bulk
  // length, rejected before anything is reserved. Default: 512 MB.
  uint64_t max_bulk_len = 512ull << 20;
  // client-query-buffer-limit: see RespParser::OverQueryLimit. Default: 1 GB.
  uint64_t max_query_buffer = 1ull << 30;
  // PROTO_INLINE_MAX_SIZE: the longest inline line and the longest "*<count>" or "$<len>"
  // header line. Default: 64 KB.
  uint64_t max_inline_len = 64 << 10;
  // The most arguments a multibulk request may declare; more is an invalid multibulk length.
  // Redis 7.0 accepts up to INT_MAX and has no setting for it. The parser reserves room for at
  // most 1024 arguments up front, however many are declared.
  int64_t max_multibulk_len = 2147483647;
};

// Until a client authenticates (when a password is required), Redis 7.0 caps what it may
// declare, so a stranger cannot make the server reserve much memory.
inline constexpr int64_t kUnauthMaxMultibulkLen = 10;
inline constexpr int64_t kUnauthMaxBulkLen = 16384;

// Parses a client's request stream; one parser per connection, holding the request being read.
class RespParser {
 public:
  enum class State {
    kCommand,   // *args holds one request
    kNeedMore,  // the input ended inside a request: call again with more bytes
    kError,     // protocol error: reply error() and close; sticky until Reset()
  };

  explicit RespParser(RespLimits limits = {});

  RespParser(const RespParser&) = delete;
  RespParser& operator=(const RespParser&) = delete;

  // Parses the next request from `input`, skipping empty requests before it.
  // kCommand: *args holds the request's arguments (its previous contents are dropped, its
  //   capacity reused) and *consumed the bytes up to the request's end; bytes after it are left
  //   for the next call.
  // kNeedMore: *consumed bytes were used (all of input but an incomplete header or inline
  //   line); the parser keeps the partial request. *args is untouched.
  // kError: error() holds the reply text; *consumed is the bytes used before the bad part.
  //   *args is untouched; every later call returns kError and consumes nothing.
  // REQUIRES: after kNeedMore, the next call's input starts with exactly the bytes that call
  // left unconsumed (more may follow); after kCommand, input starts at a request boundary.
  State Parse(std::string_view input, std::vector<std::string>* args, size_t* consumed);

  // The error reply text after kError (without the leading '-' and the CRLF); "" before.
  const std::string& error() const { return error_; }

  // Forgets the partial request and any error, e.g. before reusing the parser for another
  // connection. Limits and the authenticated flag stay.
  void Reset();

  // True when a client holding `buffered` unconsumed bytes exceeds client-query-buffer-limit;
  // the caller then closes the connection without a reply, as Redis does. The count includes
  // what the parser holds of the request being read: the part of a bulk already received and
  // every complete argument, each with kArgOverheadBytes (Redis counts only its query buffer,
  // so `*1000` then 512 MB bulks, or a million `$0`, grew without bound). The parser never
  // checks this itself.
  bool OverQueryLimit(size_t buffered) const;
  // Whether it holds nothing of a request (not even the scan of a line's start): the last call
  // ended at a request's end, so a new parser would take the next bytes the same way.
  bool AtRequestStart() const { return stage_ == Stage::kRequestStart && pending_.empty(); }
  // What an argument costs besides its bytes (a std::string in a vector).
  static constexpr uint64_t kArgOverheadBytes = 32;

  // New limits apply from the next header or line read; a bulk already being received keeps
  // its declared length.
  void set_limits(const RespLimits& limits) { limits_ = limits; }
  const RespLimits& limits() const { return limits_; }

  // Whether the client counts as authenticated for the unauthenticated caps above. The caller
  // sets false while a password is required and AUTH has not succeeded. Default: true.
  void set_authenticated(bool authenticated) { authenticated_ = authenticated; }
  bool authenticated() const { return authenticated_; }

  // Bytes the parser has looked at (scanned for a line's end, or copied into a bulk) since it
  // was made: lets tests check that nothing is scanned twice.
  uint64_t BytesExaminedForTest() const { return examined_; }

 private:
  enum class Stage : uint8_t {
    kRequestStart,  // before a request's first byte
    kInlineLine,    // inside an inline request's line
    kCountLine,     // inside "*<count>\r?"
    kLenLine,       // inside "$<len>\r?"
    kBulkData,      // inside a bulk's bytes
    kBulkTail,      // inside the two bytes after a bulk
    kError,
  };
  enum class LineEnd : uint8_t { kFound, kNeedMore, kTooBig };

  // Looks for `terminator` in `rest` (which starts at the line's first byte), resuming where
  // the previous look stopped. kFound sets *index to its position.
  LineEnd FindLineEnd(std::string_view rest, char terminator, size_t* index);
  // Act on a complete header line (without its CR). false: error_ holds the reply.
  bool StartMultibulk(std::string_view line);
  bool StartBulk(std::string_view line);
  // Hands pending_ to *args.
  State Complete(size_t pos, std::vector<std::string>* args, size_t* consumed);
  // Enters kError (error_ already set).
  State Fail(size_t pos, size_t* consumed);

  RespLimits limits_;
  bool authenticated_ = true;
  Stage stage_ = Stage::kRequestStart;
  std::string error_;
  // Arguments of the request being read; the last one is partial in kBulkData.
  std::vector<std::string> pending_;
  uint64_t finished_bytes_ = 0;  // complete arguments in pending_, with their overhead
  int64_t bulks_left_ = 0;  // bulks of the multibulk not yet complete
  uint64_t bulk_left_ = 0;  // kBulkData: bytes of the bulk not yet received
  uint8_t tail_left_ = 0;   // kBulkTail: bytes still to skip
  // In a line stage: the first scanned_ bytes of the unconsumed input hold neither the line's
  // end nor a NUL, or the byte at scanned_ is one of them.
  size_t scanned_ = 0;
  uint64_t examined_ = 0;
};

}  // namespace slotkv::net
