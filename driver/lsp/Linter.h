//===--- Linter.h - the server's analysis of one document ---------*- C++ -*-===//
//
// Analyses an editor's document as the command line would analyse the file,
// with three differences:
//   - the text is the editor's, saved or not;
//   - the compile command is found as clangd finds it: the
//     compile_commands.json or compile_flags.txt of --compile-commands-dir,
//     else the nearest one above the file; a file the database does not
//     list (a header) gets the command of its nearest listed neighbour, and
//     a file outside any database a plain C++17 command;
//   - the leading heavy includes are precompiled on first use and the PCH
//     is kept (in the cache directory, shared with the command line) for as
//     long as those include lines and the command stay the same, so a
//     re-analysis after an edit costs the user's code, not <torch/torch.h>.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_LSP_LINTER_H
#define DDPLINT_DRIVER_LSP_LINTER_H

#include "Finding.h"
#include "Preamble.h"
#include "lsp/Protocol.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringMap.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ddplint::lsp {

struct LinterOptions {
  std::string CompileCommandsDir; ///< "" to search above each file.
  std::string CacheDir;           ///< Where PCHs are kept; "" for none.
  std::string SdkFallback;        ///< SdkFallback.h's directory, or "".
};

class Linter {
public:
  explicit Linter(LinterOptions Options);

  /// Analyses Doc. Before a PCH is built (which takes as long as parsing
  /// its headers), Building is called with a line saying so.
  UnitResult lint(const Document &Doc,
                  const std::function<void(llvm::StringRef)> &Building,
                  const std::atomic<bool> *Cancelled = nullptr);

  /// Where Doc's compile command came from, for the log.
  std::string commandSource(const Document &Doc);

  /// Takes compile commands from Dir's database from now on.
  void setCompileCommandsDir(std::string Dir);

private:
  /// The compile database for File, loaded once per directory.
  const clang::tooling::CompilationDatabase &databaseFor(llvm::StringRef File,
                                                         std::string &Source);

  LinterOptions Options;
  std::optional<SharedPreambles> Preambles;
  llvm::StringMap<std::shared_ptr<clang::tooling::CompilationDatabase>>
      Databases;
  llvm::StringMap<std::string> Sources;
  std::unique_ptr<clang::tooling::CompilationDatabase> Fallback;
};

} // namespace ddplint::lsp

#endif // DDPLINT_DRIVER_LSP_LINTER_H
