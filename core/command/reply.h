// Reply: builds the RESP2 or RESP3 bytes of one command's reply into a string. Pure: no sockets.
// Handlers say what they mean (a map, a double, a null) and the builder writes it in the
// protocol the client chose with HELLO: a map is a flat array in RESP2, a double a bulk string.
//
// Thread rule: one Reply is written by one thread at a time (the thread running its command).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace slotkv::command {

// The error line "-msg\r\n" with any CR or LF in msg made a space, so that no message (one
// that quotes the client's bytes, as an unknown command's does) can split a reply.
std::string ErrorLine(std::string_view msg);

class Reply {
 public:
  explicit Reply(int protocol = 2) : protocol_(protocol) {}

  int protocol() const { return protocol_; }
  // The bytes written so far; the caller moves them out when the command is done.
  std::string& buffer() { return out_; }
  // Errors written so far (for the errorstats of INFO and per-command error counters), and
  // the code of the first (ErrorCode; empty when none).
  int errors() const { return errors_; }
  const std::string& error_code() const { return error_code_; }

  void Ok() { SimpleString("OK"); }
  void SimpleString(std::string_view s);
  // msg is the text after '-', e.g. "ERR syntax error" or "WRONGTYPE Operation against ...".
  // CR and LF in msg become spaces, so a reply can never be split by a message.
  void Error(std::string_view msg);
  void Integer(int64_t v);
  void Bulk(std::string_view s);
  // Null bulk ("$-1" in RESP2, "_" in RESP3).
  void Null();
  // Null array ("*-1" in RESP2, "_" in RESP3), as BLPOP's timeout or EXEC abort reply.
  void NullArray();
  void Array(size_t n);
  // A map of n pairs: "%n" in RESP3, an array of 2n elements in RESP2.
  void Map(size_t n);
  // A set of n members: "~n" in RESP3, an array in RESP2.
  void Set(size_t n);
  // An out-of-band push of n elements (Pub/Sub messages and confirmations): ">n" in RESP3, an
  // array in RESP2.
  void Push(size_t n);
  // A double: ",<v>" in RESP3, a bulk string of FormatDouble(v) in RESP2.
  void Double(double v);
  // A double already written as text (Redis's addReplyHumanLongDouble: FormatLongDouble), in
  // the same types as Double.
  void FormattedDouble(std::string_view text);
  // A boolean: "#t"/"#f" in RESP3, the integer 1/0 in RESP2.
  void Bool(bool v);
  // A big number given as its digits: "(<digits>" in RESP3, a bulk string in RESP2.
  void BigNumber(std::string_view digits);
  // The header of an attribute map of n pairs before a reply: "|n" in RESP3. REQUIRES: RESP3
  // (RESP2 has no attributes: the caller leaves them out).
  void Attribute(size_t n);
  // Verbatim text ("=<n>\r\ntxt:..." in RESP3, a bulk string in RESP2), as INFO replies.
  void Verbatim(std::string_view text);
  // A HELP reply: an array with one status line per entry.
  void Help(std::span<const std::string_view> lines);

 private:
  void Header(char type, int64_t n);
  std::string out_;
  int protocol_;
  int errors_ = 0;
  std::string error_code_;
};

// The code INFO errorstats counts an error under, as Redis's afterErrorReply takes it: the
// message's first word when a space ends it within 32 bytes of the '-', else "ERR". msg is the
// text after '-'.
std::string_view ErrorCode(std::string_view msg);

}  // namespace slotkv::command
