#include "core/command/reply.h"

#include <charconv>

#include "core/base/number.h"

namespace slotkv::command {

void Reply::Header(char type, int64_t n) {
  char buf[24];
  out_.push_back(type);
  char* end = std::to_chars(buf, buf + sizeof buf, n).ptr;
  out_.append(buf, end);
  out_.append("\r\n");
}

void Reply::SimpleString(std::string_view s) {
  out_.push_back('+');
  out_.append(s);
  out_.append("\r\n");
}

namespace {

void AppendErrorLine(std::string* out, std::string_view msg) {
  out->push_back('-');
  const size_t start = out->size();
  out->append(msg);
  for (size_t i = start; i < out->size(); ++i) {
    if ((*out)[i] == '\r' || (*out)[i] == '\n') (*out)[i] = ' ';
  }
  out->append("\r\n");
}

}  // namespace

std::string ErrorLine(std::string_view msg) {
  std::string line;
  AppendErrorLine(&line, msg);
  return line;
}

void Reply::Error(std::string_view msg) {
  if (errors_++ == 0) error_code_ = ErrorCode(msg);
  AppendErrorLine(&out_, msg);
}

std::string_view ErrorCode(std::string_view msg) {
  const size_t space = msg.substr(0, 31).find(' ');
  return space == std::string_view::npos ? std::string_view("ERR") : msg.substr(0, space);
}

void Reply::Integer(int64_t v) { Header(':', v); }

void Reply::Bulk(std::string_view s) {
  Header('$', static_cast<int64_t>(s.size()));
  out_.append(s);
  out_.append("\r\n");
}

void Reply::Null() { out_.append(protocol_ == 3 ? "_\r\n" : "$-1\r\n"); }

void Reply::NullArray() { out_.append(protocol_ == 3 ? "_\r\n" : "*-1\r\n"); }

void Reply::Array(size_t n) { Header('*', static_cast<int64_t>(n)); }

void Reply::Map(size_t n) {
  if (protocol_ == 3) {
    Header('%', static_cast<int64_t>(n));
  } else {
    Header('*', static_cast<int64_t>(2 * n));
  }
}

void Reply::Set(size_t n) { Header(protocol_ == 3 ? '~' : '*', static_cast<int64_t>(n)); }

void Reply::Push(size_t n) { Header(protocol_ == 3 ? '>' : '*', static_cast<int64_t>(n)); }

void Reply::Double(double v) { FormattedDouble(FormatDouble(v)); }

void Reply::FormattedDouble(std::string_view text) {
  if (protocol_ == 3) {
    out_.push_back(',');
    out_.append(text);
    out_.append("\r\n");
  } else {
    Bulk(text);
  }
}

void Reply::Bool(bool v) {
  if (protocol_ == 3) {
    out_.append(v ? "#t\r\n" : "#f\r\n");
  } else {
    Integer(v ? 1 : 0);
  }
}

void Reply::BigNumber(std::string_view digits) {
  if (protocol_ != 3) {
    Bulk(digits);
    return;
  }
  out_.push_back('(');
  out_.append(digits);
  out_.append("\r\n");
}

void Reply::Attribute(size_t n) { Header('|', static_cast<int64_t>(n)); }

void Reply::Verbatim(std::string_view text) {
  if (protocol_ == 3) {
    Header('=', static_cast<int64_t>(text.size() + 4));
    out_.append("txt:");
    out_.append(text);
    out_.append("\r\n");
  } else {
    Bulk(text);
  }
}

void Reply::Help(std::span<const std::string_view> lines) {
  Array(lines.size());
  for (std::string_view line : lines) SimpleString(line);
}

}  // namespace slotkv::command
