//===--- Server.h - ddplint as a language server ------------------*- C++ -*-===//
//
// `ddplint lsp`: a Language Server Protocol server on stdin/stdout that an
// editor runs beside clangd. It publishes the checks' findings as
// diagnostics when a document is opened or saved, and after edits once
// typing pauses; it answers textDocument/codeAction with the checks'
// fix-its. Nothing else: completion, hover and the compiler's own
// diagnostics stay clangd's.
//
// Two threads. The reader (the caller of run()) handles every message at
// once: it records documents and their versions, and answers requests. The
// worker analyses the documents whose analysis is due, one at a time, and
// publishes a result only when the document is still at the version it
// analysed: an edit that arrives meanwhile makes the analysis stale (it
// skips its checks once the parse is done, and its result is dropped), and
// the newer text is analysed instead. A code action asked for a version not yet
// analysed waits for that analysis (and can be cancelled meanwhile).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_LSP_SERVER_H
#define DDPLINT_DRIVER_LSP_SERVER_H

#include "Output.h"
#include "lsp/Linter.h"
#include "lsp/Protocol.h"
#include "lsp/Transport.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ddplint::lsp {

struct ServerOptions {
  LinterOptions Lint;
  OutputOptions Output;
  /// How long typing must pause before an edited document is analysed.
  std::chrono::milliseconds Debounce{300};
};

class Server {
public:
  Server(Transport &T, ServerOptions Options);
  ~Server();

  /// Serves until `exit` or the end of the input; returns the exit code
  /// (0 after a `shutdown` request, 1 otherwise, as the protocol asks).
  int run();

private:
  using Clock = std::chrono::steady_clock;

  struct DocumentState {
    Document Doc;
    std::optional<Clock::time_point> Due; ///< When to analyse, if at all.
    int64_t Analysed = -1;                ///< The version analysed last.
    std::vector<Finding> Findings;        ///< Of that version.
    bool Logged = false; ///< Its compile command's source was logged.
  };
  /// A code action for a version not analysed yet.
  struct Waiting {
    llvm::json::Value Id;
    std::string URI;
    llvm::json::Value Range;
  };

  // The reader.
  void handle(const llvm::json::Object &Message);
  void onRequest(llvm::StringRef Method, llvm::json::Value Id,
                 const llvm::json::Object &Params);
  void onNotification(llvm::StringRef Method,
                      const llvm::json::Object &Params);
  llvm::json::Object initialize(const llvm::json::Object &Params);
  void codeAction(llvm::json::Value Id, const llvm::json::Object &Params);
  void cancel(const llvm::json::Value &Id);
  void didOpen(const llvm::json::Object &Params);
  void didChange(const llvm::json::Object &Params);
  void didSave(const llvm::json::Object &Params);
  void didClose(const llvm::json::Object &Params);
  /// Under the lock: the document URI is to be analysed after Delay.
  void schedule(DocumentState &D, Clock::duration Delay);

  // The worker.
  void work();
  /// Under the lock: the document whose analysis is due first, or null;
  /// Next receives when the next one falls due.
  DocumentState *nextDue(std::optional<Clock::time_point> &Next);
  void analyse(std::unique_lock<std::mutex> &Lock, DocumentState &D);
  void publish(const Document &Doc, const UnitResult &R);
  /// Under the lock: answers the code actions waiting for URI.
  void answerWaiting(const std::string &URI);
  void progress(llvm::StringRef Kind, llvm::StringRef Message);

  Transport &T;
  ServerOptions Options;
  Linter Lint;

  std::mutex Lock;
  std::condition_variable Wake;
  std::map<std::string, DocumentState> Documents;
  std::vector<Waiting> WaitingActions;
  bool Initialized = false, ShutDown = false, Stopping = false;
  bool Busy = false;           ///< The worker is analysing.
  std::string Analysing;       ///< The URI it analyses.
  /// Set when the document being analysed changes or closes: the analysis
  /// then skips its checks, and its result is dropped.
  std::atomic<bool> Stale{false};
  bool ClientProgress = false; ///< The client takes work-done progress.
  unsigned ProgressTokens = 0, RequestIds = 0;
  std::thread Worker;
};

} // namespace ddplint::lsp

#endif // DDPLINT_DRIVER_LSP_SERVER_H
