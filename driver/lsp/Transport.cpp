//===--- Transport.cpp - JSON-RPC over a byte stream ----------------------===//

#include "lsp/Transport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ddplint::lsp {

namespace {

/// One header line without its line break; None at the end of the input.
std::optional<std::string> readLine(std::FILE *In) {
  std::string Line;
  for (int C; (C = std::fgetc(In)) != EOF;) {
    if (C == '\n') {
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      return Line;
    }
    Line += char(C);
  }
  return std::nullopt;
}

} // namespace

std::optional<json::Value> Transport::read() {
  // The header: fields up to a blank line; only Content-Length matters.
  std::optional<size_t> Length;
  for (;;) {
    std::optional<std::string> Line = readLine(In);
    if (!Line)
      return std::nullopt;
    if (Line->empty()) {
      if (Length)
        break;
      continue; // blank lines before a header are skipped
    }
    StringRef Field(*Line);
    if (Field.consume_front_insensitive("content-length:")) {
      size_t N = 0;
      if (!Field.trim().getAsInteger(10, N))
        Length = N;
    }
  }
  std::string Body(*Length, '\0');
  if (*Length && std::fread(Body.data(), 1, *Length, In) != *Length)
    return std::nullopt;
  Expected<json::Value> Parsed = json::parse(Body);
  if (!Parsed)
    return json::Value(toString(Parsed.takeError()));
  return std::move(*Parsed);
}

void Transport::send(json::Object Message) {
  Message["jsonrpc"] = "2.0";
  std::string Body;
  raw_string_ostream OS(Body);
  OS << json::Value(std::move(Message));
  OS.flush();
  std::lock_guard<std::mutex> Guard(Writing);
  std::fprintf(Out, "Content-Length: %zu\r\n\r\n", Body.size());
  std::fwrite(Body.data(), 1, Body.size(), Out);
  std::fflush(Out);
}

void Transport::notify(StringRef Method, json::Value Params) {
  send(json::Object{{"method", Method}, {"params", std::move(Params)}});
}

void Transport::request(json::Value Id, StringRef Method, json::Value Params) {
  send(json::Object{
      {"id", std::move(Id)}, {"method", Method}, {"params", std::move(Params)}});
}

void Transport::reply(json::Value Id, json::Value Result) {
  send(json::Object{{"id", std::move(Id)}, {"result", std::move(Result)}});
}

void Transport::replyError(json::Value Id, ErrorCode Code, StringRef Message) {
  send(json::Object{
      {"id", std::move(Id)},
      {"error", json::Object{{"code", int(Code)}, {"message", Message}}}});
}

} // namespace ddplint::lsp
