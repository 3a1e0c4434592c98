//===--- Analysis.cpp - running the checks over translation units ---------===//

#include "Analysis.h"
#include "InactiveCode.h"
#include "SdkFallback.h"
#include "StdIncludes.h"
#include "SystemBodies.h"
#include "Vacuity.h"
#include "vocabulary/LLVMCompat.h"

#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Stack.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "ddp/DdpCheck.h"
#include "summary/FunctionSummaries.h"

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/thread.h"

#include <algorithm>
#include <tuple>

using namespace clang;
using namespace clang::tidy;

namespace ddplint {
namespace {

/// What the preprocessor and the consumer observe of one unit besides the
/// checks' diagnostics.
struct Observations {
  std::vector<std::string> *Files = nullptr; ///< When dependencies are asked.
  std::string SdkFallback;                   ///< Its directory, or "".
  SdkFallbackUse Fallback;
  std::vector<InactiveRegion> Inactive;
  VacuityFacts Vacuity;
  /// --system-headers: system headers are parsed and traversed in full.
  bool WholeUnit = false;
  const std::atomic<bool> *Cancelled = nullptr; ///< Analyser::setCancellation
  /// After the checks: the summaries of the unit's functions for the other
  /// units ("USR<TAB>encoding"), and the other units' summaries the checks
  /// asked for, as they got them.
  std::function<void(ASTContext &)> Summarise;
  std::vector<std::string> Summaries, Asked;
};

/// Forwards to clang-tidy's consumer, but first narrows the AST traversal to
/// the declarations that are not in system headers (whose function bodies
/// were not parsed: SystemBodies.h).
class UserCodeConsumer : public SystemBodySkipper {
public:
  UserCodeConsumer(std::unique_ptr<ASTConsumer> Checks,
                   std::vector<std::string> *Dependencies, unsigned &Functions,
                   Observations &Seen)
      : SystemBodySkipper(wrap(std::move(Checks))),
        Dependencies(Dependencies), Functions(Functions),
        WholeUnit(Seen.WholeUnit), Cancelled(Seen.Cancelled),
        Seen(Seen) {}

  void HandleTranslationUnit(ASTContext &Context) override {
    if (Cancelled && Cancelled->load())
      return; // stale: the matchers are most of what is left to do
    const SourceManager &SM = Context.getSourceManager();
    if (Dependencies)
      recordDependencies(SM);
    std::vector<Decl *> Scope;
    for (Decl *D : Context.getTranslationUnitDecl()->decls()) {
      SourceLocation Loc = D->getLocation();
      if (WholeUnit || Loc.isInvalid() ||
          !SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
        Scope.push_back(D);
    }
    if (!WholeUnit)
      Context.setTraversalScope(Scope);
    Functions += countFunctions(Scope);
    // The questions the checks ask of other units' summaries are recorded
    // on the thread that runs them: this one.
    ddp::ProjectFunctions::takeQuestions();
    MultiplexConsumer::HandleTranslationUnit(Context);
    for (const auto &[USR, Encoding] : ddp::ProjectFunctions::takeQuestions())
      Seen.Asked.push_back(USR + "\t" + Encoding);
    if (Seen.Summarise)
      Seen.Summarise(Context);
  }

private:
  /// Every file the unit read, by the absolute path the file manager used.
  void recordDependencies(const SourceManager &SM) {
    llvm::vfs::FileSystem &FS = SM.getFileManager().getVirtualFileSystem();
    for (auto I = SM.fileinfo_begin(), E = SM.fileinfo_end(); I != E; ++I) {
      SmallString<256> Path(compat::fileName(I->first));
      if (FS.makeAbsolute(Path))
        continue;
      // Dots stay: "../" after a symbolic link is not its parent.
      llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/false);
      Dependencies->push_back(std::string(Path));
    }
  }

  std::vector<std::string> *Dependencies;
  unsigned &Functions; ///< Whether the checks had anything to analyse.
  bool WholeUnit;
  const std::atomic<bool> *Cancelled;
  Observations &Seen;

  static std::vector<std::unique_ptr<ASTConsumer>>
  wrap(std::unique_ptr<ASTConsumer> C) {
    std::vector<std::unique_ptr<ASTConsumer>> V;
    V.push_back(std::move(C));
    return V;
  }
};

class CheckAction : public ASTFrontendAction {
public:
  CheckAction(ClangTidyASTConsumerFactory &Factory, Observations &Seen)
      : Factory(Factory), Seen(Seen) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &Compiler,
                                                 StringRef File) override {
    Preprocessor &PP = Compiler.getPreprocessor();
    PP.addPPCallbacks(std::make_unique<InactiveCodeCollector>(
        Compiler.getSourceManager(), Seen.Inactive));
    if (!Seen.SdkFallback.empty())
      PP.addPPCallbacks(std::make_unique<SdkFallbackRecorder>(
          PP, Seen.SdkFallback, Seen.Fallback));
    return std::make_unique<UserCodeConsumer>(
        Factory.createASTConsumer(Compiler, File), Seen.Files,
        Seen.Vacuity.Functions, Seen);
  }

private:
  ClangTidyASTConsumerFactory &Factory;
  Observations &Seen;
};

class CheckActionFactory : public tooling::FrontendActionFactory {
public:
  CheckActionFactory(ClangTidyContext &Context,
                     IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
                     Observations &Seen, std::string PCH)
      : Factory(Context, std::move(BaseFS)), Seen(Seen), PCH(std::move(PCH)) {}

  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<CheckAction>(Factory, Seen);
  }

  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    // Code may test __clang_analyzer__ to hide itself from linters, as it
    // does under clang-tidy.
    Invocation->getPreprocessorOpts().SetUpStaticAnalyzer = true;
    if (!Seen.WholeUnit)
      SystemBodySkipper::enable(*Invocation);
    // The shared preamble stands in for the leading includes the main file's
    // text no longer shows, as -include-pch would.
    if (!PCH.empty())
      Invocation->getPreprocessorOpts().ImplicitPCHInclude = PCH;
    // The findings are printed by the driver; no "N warnings generated.".
    Invocation->getDiagnosticOpts().ShowCarets = false;
    return FrontendActionFactory::runInvocation(Invocation, Files,
                                                PCHContainerOps, DiagConsumer);
  }

private:
  ClangTidyASTConsumerFactory Factory;
  Observations &Seen;
  std::string PCH;
};

/// ExtraArgs / ExtraArgsBefore from .clang-tidy files, as in clang-tidy.
tooling::CommandLineArguments
withConfiguredArguments(ClangTidyContext &Context,
                        const tooling::CommandLineArguments &Args,
                        StringRef Filename) {
  ClangTidyOptions Opts = Context.getOptionsForFile(Filename);
  tooling::CommandLineArguments Adjusted = Args;
  if (Opts.ExtraArgsBefore) {
    auto I = Adjusted.begin();
    if (I != Adjusted.end() && !StringRef(*I).starts_with("-"))
      ++I; // after the compiler's name
    Adjusted.insert(I, Opts.ExtraArgsBefore->begin(),
                    Opts.ExtraArgsBefore->end());
  }
  if (Opts.ExtraArgs)
    Adjusted.insert(Adjusted.end(), Opts.ExtraArgs->begin(),
                    Opts.ExtraArgs->end());
  return Adjusted;
}

} // namespace

std::optional<tooling::CompileCommand>
Analyser::command(const tooling::CompilationDatabase &Compilations,
                  StringRef File) {
  std::vector<tooling::CompileCommand> Commands =
      Compilations.getCompileCommands(File);
  if (Commands.empty())
    return std::nullopt;
  tooling::CompileCommand C = std::move(Commands.front());
  SmallString<256> Directory(C.Directory);
  if (!llvm::sys::fs::make_absolute(Directory)) {
    llvm::sys::path::remove_dots(Directory, /*remove_dot_dot=*/true);
    C.Directory = std::string(Directory);
  }
  C.CommandLine = withConfiguredArguments(*Context, C.CommandLine, File);
  C.CommandLine = tooling::getInsertArgumentAdjuster(
      sdkFallbackArguments(SdkFallback),
      tooling::ArgumentInsertPosition::END)(C.CommandLine, File);
  return C;
}

Analyser::Analyser(std::unique_ptr<ClangTidyOptionsProvider> Options,
                   IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
                   std::string SdkFallback)
    : Context(std::make_unique<ClangTidyContext>(std::move(Options))),
      DiagIDs(new DiagnosticIDs()), BaseFS(std::move(BaseFS)),
      SdkFallback(std::move(SdkFallback)) {}

Analyser::~Analyser() = default;

namespace {

/// ClangTool aborts the whole process when a command's directory is
/// missing; a stale compile database must cost this unit, not the run.
std::string missingDirectory(const tooling::CompilationDatabase &Compilations,
                             StringRef File) {
  for (const tooling::CompileCommand &Command :
       Compilations.getCompileCommands(File))
    if (!Command.Directory.empty() &&
        !llvm::sys::fs::is_directory(Command.Directory))
      return "cannot analyse '" + File.str() +
             "': its compile command's directory '" + Command.Directory +
             "' does not exist";
  return "";
}

/// Moves what the preprocessor saw into the unit's result. A unit the
/// database compiles twice is seen twice: each region is kept once.
void keepObservations(Observations &Seen, UnitResult &Result,
                      Analyser::Inputs *Dependencies) {
  Result.SdkFallbacks = std::move(Seen.Fallback.Headers);
  std::vector<InactiveRegion> &Regions = Seen.Inactive;
  auto Key = [](const InactiveRegion &R) { return std::tie(R.File, R.Line); };
  std::stable_sort(Regions.begin(), Regions.end(),
                   [&](const auto &A, const auto &B) { return Key(A) < Key(B); });
  Regions.erase(std::unique(Regions.begin(), Regions.end(),
                            [&](const auto &A, const auto &B) {
                              return Key(A) == Key(B);
                            }),
                Regions.end());
  Result.Inactive = std::move(Regions);
  if (Dependencies)
    Dependencies->Absent = std::move(Seen.Fallback.Absent);
}

/// The adjustments of every compile command: the configured arguments,
/// no plugins, and the SDK fallback's directory.
void appendAdjusters(tooling::ClangTool &Tool, ClangTidyContext &Context,
                     StringRef SdkFallback, ArrayRef<std::string> ForcedIncludes) {
  Tool.appendArgumentsAdjuster(
      [&Context](const tooling::CommandLineArguments &Args,
                 StringRef Filename) {
        return withConfiguredArguments(Context, Args, Filename);
      });
  Tool.appendArgumentsAdjuster(tooling::getStripPluginsAdjuster());
  // Last of all, so that every directory of the command, the configured
  // ones included, is searched before the fallback.
  Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
      sdkFallbackArguments(SdkFallback), tooling::ArgumentInsertPosition::END));
  if (!ForcedIncludes.empty())
    Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        forcedIncludeArguments(ForcedIncludes),
        tooling::ArgumentInsertPosition::END));
}

/// Generated code can nest an expression tens of thousands deep. clang's
/// parser moves to a fresh stack when its own runs low, but only on a
/// thread whose stack bottom it knows, and the matchers and the checks'
/// AST walks recurse as deep: runs the unit on a thread with a large stack
/// (reserved, not committed), as clang runs its compiler jobs.
void runOnLargeStack(tooling::ClangTool &Tool,
                     tooling::FrontendActionFactory &Factory) {
  constexpr unsigned StackSize = 512u << 20;
  llvm::thread Worker(std::optional<unsigned>(StackSize), [&] {
    noteBottomOfStack();
    Tool.run(&Factory);
  });
  Worker.join();
}

/// The summaries of the unit's externally visible functions, one
/// "USR<TAB>effects" line each: the checks' own when they made some, else
/// the unit's, computed here.
void exportSummaries(ClangTidyContext &Context, ASTContext &AST,
                     std::vector<std::string> &Lines) {
  std::shared_ptr<ddp::FunctionSummaries> Summaries =
      ddp::DdpCheck::sharedSummaries(AST);
  ClangTidyCheck::OptionsView View("ddp", Context.getOptions().CheckOptions,
                                   &Context);
  ddp::Vocabulary Vocab(View);
  if (!Summaries)
    Summaries = std::make_shared<ddp::FunctionSummaries>(Vocab, AST);
  for (const auto &[USR, Effects] : Summaries->exported())
    Lines.push_back(USR + "\t" + Effects.encode());
}

} // namespace

UnitResult Analyser::run(const tooling::CompilationDatabase &Compilations,
                         llvm::StringRef File, Inputs *Dependencies,
                         const PreambleUse *Preamble) {
  UnitResult Result = runOnce(Compilations, File, Dependencies, Preamble, {});
  // Standard names the unit never includes: once more with their headers,
  // and a second time for what those headers' templates then miss.
  std::vector<std::string> Added;
  for (unsigned Round = 0; Round < 2 && Result.ToolError.empty(); ++Round) {
    std::vector<std::string> Missing = missingStandardHeaders(Result.CompileErrors);
    llvm::erase_if(Missing, [&](const std::string &H) {
      return llvm::is_contained(Added, H);
    });
    if (Missing.empty())
      break;
    Added.insert(Added.end(), Missing.begin(), Missing.end());
    Inputs Again;
    Result = runOnce(Compilations, File, Dependencies ? &Again : nullptr,
                     Preamble, Added);
    Result.AddedIncludes = Added;
    if (Dependencies)
      *Dependencies = std::move(Again);
  }
  return Result;
}

UnitResult Analyser::runOnce(const tooling::CompilationDatabase &Compilations,
                             llvm::StringRef File, Inputs *Dependencies,
                             const PreambleUse *Preamble,
                             ArrayRef<std::string> ForcedIncludes) {
  ClangTidyContext &Context = *this->Context;
  UnitResult Result;
  Result.File = File.str();
  Result.ToolError = missingDirectory(Compilations, File);
  if (!Result.ToolError.empty())
    return Result;
  tooling::ClangTool Tool(Compilations, {Result.File},
                          std::make_shared<PCHContainerOperations>(), BaseFS);
  appendAdjusters(Tool, Context, SdkFallback, ForcedIncludes);

  ClangTidyDiagnosticConsumer DiagConsumer(Context, nullptr,
                                           /*RemoveIncompatibleErrors=*/true,
                                           /*GetFixesFromNotes=*/false);
  DiagnosticsEngine Diags(DiagIDs, new DiagnosticOptions(),
                          &DiagConsumer, /*ShouldOwnClient=*/false);
  Context.setDiagnosticsEngine(&Diags);
  Observations Seen;
  // Clang's own diagnostics pass through the recorder first, which notes
  // those that leave the analysis vacuous.
  VacuityRecorder Recorder(DiagConsumer, Seen.Vacuity);
  Tool.setDiagnosticConsumer(&Recorder);
  Tool.setPrintErrorMessage(false);

  if (Preamble)
    Tool.mapVirtualFile(Result.File, Preamble->MainFileText);
  Seen.Files = Dependencies ? &Dependencies->Files : nullptr;
  Seen.SdkFallback = SdkFallback;
  Seen.WholeUnit = Context.getOptionsForFile(File).SystemHeaders.value_or(false);
  Seen.Cancelled = Cancelled;
  Seen.Summarise = [&](ASTContext &AST) {
    exportSummaries(Context, AST, Seen.Summaries);
  };
  CheckActionFactory Factory(Context, BaseFS, Seen,
                             Preamble ? Preamble->PCH : std::string());
  // A unit that does not compile still yields what the checks found; its
  // errors come back as clang-diagnostic-error findings.
  runOnLargeStack(Tool, Factory);

  LineTable Lines;
  for (const ClangTidyError &E : DiagConsumer.take()) {
    Finding F = toFinding(E, Lines);
    (F.isCompileError() ? Result.CompileErrors : Result.Findings)
        .push_back(std::move(F));
  }
  Result.Vacuous = vacuityCause(Seen.Vacuity, Result);
  keepObservations(Seen, Result, Dependencies);
  Result.Summaries = std::move(Seen.Summaries);
  Result.AskedSummaries = std::move(Seen.Asked);
  return Result;
}

} // namespace ddplint
