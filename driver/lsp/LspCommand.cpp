//===--- LspCommand.cpp - `ddplint lsp` -----------------------------------===//

#include "Cache.h"
#include "Output.h"
#include "SdkFallback.h"
#include "Subcommands.h"
#include "lsp/Server.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"

#include <cstdio>

using namespace llvm;

namespace ddplint {
namespace {

cl::SubCommand LspCommand(
    "lsp", "Serve the checks' findings to an editor over the Language "
           "Server Protocol (stdin/stdout), beside clangd");

cl::opt<std::string> CompileCommandsDir("compile-commands-dir", cl::desc(R"(
Directory of the compile_commands.json (or
compile_flags.txt) to use for every file.
Default: the nearest one above each file, as
clangd finds it.)"),
                                        cl::value_desc("dir"),
                                        cl::sub(LspCommand));

cl::opt<std::string> LspCacheDir("cache-dir", cl::desc(R"(
Where the precompiled preambles are kept (shared
with the command line's). Default:
$DDPLINT_CACHE_DIR, else $XDG_CACHE_HOME/ddplint,
else ~/.cache/ddplint.)"),
                                 cl::value_desc("dir"), cl::sub(LspCommand));

cl::opt<bool> LspNoPreamble("no-preamble", cl::desc(R"(
Parse every document's headers on every
analysis instead of precompiling them once.)"),
                            cl::sub(LspCommand));

cl::opt<unsigned> DebounceMs("debounce-ms", cl::desc(R"(
How long typing must pause before an edited
document is analysed (default 300).)"),
                             cl::value_desc("ms"), cl::init(300),
                             cl::sub(LspCommand));

} // namespace

std::optional<int> runLspCommand(const char *Argv0) {
  if (!LspCommand)
    return std::nullopt;
  lsp::ServerOptions Options;
  Options.Output = outputOptionsFromCommandLine();
  Options.Debounce = std::chrono::milliseconds(DebounceMs);
  Options.Lint.SdkFallback = sdkFallbackDirectory(Argv0);
  if (!CompileCommandsDir.empty()) {
    SmallString<256> Dir(CompileCommandsDir);
    sys::fs::make_absolute(Dir);
    Options.Lint.CompileCommandsDir = std::string(Dir);
  }
  if (!LspNoPreamble) {
    SmallString<256> Dir(LspCacheDir.empty() ? FindingsCache::defaultDirectory()
                                             : LspCacheDir);
    if (!Dir.empty() && !sys::fs::make_absolute(Dir))
      Options.Lint.CacheDir = std::string(Dir);
  }
  lsp::Transport T(stdin, stdout);
  lsp::Server S(T, std::move(Options));
  return S.run();
}

} // namespace ddplint
