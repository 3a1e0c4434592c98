//===--- Transport.h - JSON-RPC over a byte stream ----------------*- C++ -*-===//
//
// The Language Server Protocol's base protocol: each message is a header
// ("Content-Length: N", other header fields ignored) and a blank line, then N
// bytes of JSON. Reading happens on one thread; writing may happen from any
// thread and is serialised, so messages never interleave.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_LSP_TRANSPORT_H
#define DDPLINT_DRIVER_LSP_TRANSPORT_H

#include "llvm/Support/JSON.h"

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace ddplint::lsp {

/// JSON-RPC's error codes, as the protocol names them.
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestCancelled = -32800,
  InvalidRequestAfterShutdown = -32600,
};

class Transport {
public:
  Transport(std::FILE *In, std::FILE *Out) : In(In), Out(Out) {}

  /// The next message, or None at the end of the input (or when it breaks
  /// off mid-message). A body that is not JSON comes back as a string
  /// holding the parse error, for the caller to answer with ParseError.
  std::optional<llvm::json::Value> read();

  void notify(llvm::StringRef Method, llvm::json::Value Params);
  void request(llvm::json::Value Id, llvm::StringRef Method,
               llvm::json::Value Params);
  void reply(llvm::json::Value Id, llvm::json::Value Result);
  void replyError(llvm::json::Value Id, ErrorCode Code,
                  llvm::StringRef Message);

private:
  void send(llvm::json::Object Message);

  std::FILE *In, *Out;
  std::mutex Writing;
};

} // namespace ddplint::lsp

#endif // DDPLINT_DRIVER_LSP_TRANSPORT_H
