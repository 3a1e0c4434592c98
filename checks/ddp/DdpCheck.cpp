//===--- DdpCheck.cpp -----------------------------------------------------===//

#include "ddp/DdpCheck.h"

#include "clang/Basic/DiagnosticLex.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>

namespace clang::tidy::ddp {

namespace {

/// The summaries each translation unit's checks share, by AST (per thread:
/// the driver analyses one unit per thread at a time).
thread_local llvm::DenseMap<const ASTContext *, std::weak_ptr<FunctionSummaries>>
    SharedSummaries;

/// ddplint's SDK fallback headers beside the plugin this code was loaded
/// from (lib/ddplint/sdk-fallback next to lib/ddplint-plugin.so); "" in
/// the driver, which adds them to the command itself (and leaves them out
/// under --no-sdk-fallback), and when they are missing.
std::string pluginSdkFallback() {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&pluginSdkFallback), &Info) ||
      !Info.dli_fname || !llvm::StringRef(Info.dli_fname).ends_with(".so"))
    return "";
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Info.dli_fname));
  llvm::sys::path::append(Dir, "ddplint", "sdk-fallback");
  return llvm::sys::fs::is_directory(Dir) ? std::string(Dir) : "";
}

/// Appends Dir to PP's search path, after every directory of the command
/// and the system's (as the driver's -idirafter does): a header found
/// nowhere else is found there, an installed SDK always wins.
void appendSearchDirectory(Preprocessor &PP, llvm::StringRef Dir) {
  HeaderSearch &Search = PP.getHeaderSearchInfo();
  for (auto It = Search.search_dir_begin(), E = Search.search_dir_end();
       It != E; ++It)
    if (It->getDirRef() && It->getDirRef()->getName() == Dir)
      return; // one check of the unit added it already
  if (auto Entry = PP.getFileManager().getOptionalDirectoryRef(Dir))
    Search.AddSystemSearchPath(
        DirectoryLookup(*Entry, SrcMgr::C_System, /*isFramework=*/false));
}

} // namespace

void DdpCheck::registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                                   Preprocessor *) {
  DiagnosticsEngine &Diags = PP->getDiagnostics();
  Diags.setSeverity(diag::err_pp_file_not_found, diag::Severity::Error,
                    SourceLocation());
  // Likewise a header that exists but cannot be opened (a symbolic link
  // loop, no permission).
  Diags.setSeverity(diag::err_cannot_open_file, diag::Severity::Error,
                    SourceLocation());
  Diags.setErrorLimit(0);
  // Through clang-tidy, the same fallback SDK headers as the driver's.
  static const std::string Fallback = pluginSdkFallback();
  if (!Fallback.empty())
    appendSearchDirectory(*PP, Fallback);
}

DdpCheck::DdpCheck(llvm::StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context), Vocab(Options),
      SummaryFolder(Options.getLocalOrGlobal("SummaryFolder", "")) {
  if (!SummaryFolder.empty())
    ProjectFunctions::instance().loadFolder(SummaryFolder);
}

void DdpCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Vocab.storeOptions(Options, Opts);
  Options.store(Opts, "SummaryFolder", SummaryFolder);
}

std::shared_ptr<FunctionSummaries>
DdpCheck::sharedSummaries(const ASTContext &Context) {
  auto It = SharedSummaries.find(&Context);
  if (It == SharedSummaries.end())
    return nullptr;
  std::shared_ptr<FunctionSummaries> Shared = It->second.lock();
  return Shared && &Shared->context() == &Context ? Shared : nullptr;
}

FunctionSummaries &DdpCheck::summaries(ASTContext &Context) {
  if (Summaries && &Summaries->context() == &Context)
    return *Summaries;
  std::weak_ptr<FunctionSummaries> &Slot = SharedSummaries[&Context];
  Summaries = Slot.lock();
  if (!Summaries || &Summaries->context() != &Context) {
    Summaries = std::make_shared<FunctionSummaries>(Vocab, Context);
    Slot = Summaries;
  }
  return *Summaries;
}

} // namespace clang::tidy::ddp
