//===--- Linter.cpp - the server's analysis of one document ---------------===//

#include "lsp/Linter.h"

#include "Analysis.h"
#include "CompileDatabase.h"
#include "Configuration.h"
#include "SdkFallback.h"
#include "Summaries.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace llvm;
using namespace clang;

namespace ddplint::lsp {

Linter::Linter(LinterOptions O) : Options(std::move(O)) {
  if (!Options.CacheDir.empty()) {
    Preambles.emplace(Options.CacheDir, /*Sharers=*/0);
  }
  // Outside any database: C++17, as a LibTorch program needs at least.
  Fallback = std::make_unique<tooling::FixedCompilationDatabase>(
      ".", std::vector<std::string>{"-xc++", "-std=c++17"});
}

const tooling::CompilationDatabase &Linter::databaseFor(StringRef File,
                                                        std::string &Source) {
  // As clangd finds it: in the file's folder or one above, or in a build/
  // folder inside one of them.
  std::string Dir = Options.CompileCommandsDir.empty()
                        ? compileDatabaseFolder(File)
                        : Options.CompileCommandsDir;
  auto [It, New] = Databases.try_emplace(Dir);
  if (New) {
    std::string Why = "none in the file's folder, one above it, or a build/ "
                      "folder of either";
    std::unique_ptr<tooling::CompilationDatabase> DB =
        Dir.empty()
            ? nullptr
            : tooling::CompilationDatabase::autoDetectFromDirectory(Dir, Why);
    if (DB) {
      // What the other units' functions do, as the last whole-project run
      // summarised them: the units of this database, not every project
      // the cache has seen.
      if (!Options.CacheDir.empty())
        loadSummaries(Options.CacheDir, DB->getAllFiles());
      It->second = tooling::inferMissingCompileCommands(std::move(DB));
      Sources[Dir] = "the compile database in " + Dir;
    } else {
      Sources[Dir] = "no compile database (" + Why +
                     "); parsing as C++17 with no other flags";
    }
  }
  Source = Sources[Dir];
  if (It->second && !It->second->getCompileCommands(File).empty())
    return *It->second;
  return *Fallback;
}

void Linter::setCompileCommandsDir(std::string Dir) {
  Options.CompileCommandsDir = std::move(Dir);
  Databases.clear();
  Sources.clear();
}

std::string Linter::commandSource(const Document &Doc) {
  std::string Source;
  databaseFor(Doc.Path, Source);
  return Source;
}

UnitResult Linter::lint(const Document &Doc,
                        const std::function<void(StringRef)> &Building,
                        const std::atomic<bool> *Cancelled) {
  std::string Source;
  const tooling::CompilationDatabase &DB = databaseFor(Doc.Path, Source);
  // A fresh configuration each time: an edited .clang-tidy counts at once.
  auto FS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(
      vfs::getRealFileSystem());
  bool Failed = false;
  auto Provider = createOptionsProvider(FS, Failed);
  if (!Provider) {
    UnitResult R;
    R.File = Doc.Path;
    R.ToolError = "the configuration cannot be used";
    return R;
  }
  Analyser Analysis(std::move(Provider), FS, Options.SdkFallback);
  Analysis.setCancellation(Cancelled);

  // The editor's text, with the shared PCH standing in for its heavy
  // include lines when there is one.
  Analyser::PreambleUse Use{"", Doc.Text};
  std::optional<tooling::CompileCommand> Command =
      Analysis.command(DB, Doc.Path);
  if (Preambles && Command) {
    if (Preambles->wouldBuild(Doc.Path, *Command, StringRef(Doc.Text)))
      Building("building the preamble of " +
               sys::path::filename(Doc.Path).str());
    std::vector<std::string> Shared;
    if (auto P = Preambles->get(Doc.Path, *Command, Shared,
                                StringRef(Doc.Text)))
      Use = std::move(*P);
  }
  UnitResult R = Analysis.run(DB, Doc.Path, nullptr, &Use);
  if (!Use.PCH.empty() && preambleRefused(R, Use.PCH)) {
    Preambles->discard(Use.PCH);
    Analyser::PreambleUse Plain{"", Doc.Text};
    R = Analysis.run(DB, Doc.Path, nullptr, &Plain);
  }
  // The document's own functions as edited, for the documents that call
  // them (in memory: the cache keeps what was saved and analysed by -p).
  publishSummaries(R, nullptr);
  return R;
}

} // namespace ddplint::lsp
