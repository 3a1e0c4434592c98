//===--- Preamble.cpp - one precompiled header for many units -------------===//

#include "Preamble.h"

#include "AtomicWrite.h"
#include "SystemBodies.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;
using namespace llvm;

namespace ddplint {
namespace {

/// The compile command of the unit, as the PCH must be built: the same
/// flags, no input file, no outputs, no dependency files, no -c.
std::vector<std::string> pchArguments(const tooling::CompileCommand &Command) {
  // The input file, however the command names it.
  auto IsInput = [&](StringRef Arg) {
    if (Arg.starts_with("-"))
      return false;
    SmallString<256> Abs(Arg);
    if (sys::path::is_relative(Abs)) {
      Abs = Command.Directory;
      sys::path::append(Abs, Arg);
    }
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    SmallString<256> File(Command.Filename);
    if (sys::path::is_relative(File)) {
      File = Command.Directory;
      sys::path::append(File, Command.Filename);
    }
    sys::path::remove_dots(File, /*remove_dot_dot=*/true);
    return Abs == File;
  };
  tooling::CommandLineArguments Args;
  for (size_t I = 0; I < Command.CommandLine.size(); ++I) {
    const std::string &Arg = Command.CommandLine[I];
    if ((I > 0 && IsInput(Arg)) || Arg == "-c" || Arg == "-S" ||
        Arg == "-E" || Arg == "-fsyntax-only")
      continue;
    Args.push_back(Arg);
  }
  for (const auto &Adjust : {tooling::getClangStripOutputAdjuster(),
                             tooling::getClangStripDependencyFileAdjuster(),
                             tooling::getStripPluginsAdjuster()})
    Args = Adjust(Args, Command.Filename);
  return Args;
}

/// Every file the preprocessor reads, system headers included.
class AllDependencies : public DependencyCollector {
  bool needSystemDependencies() override { return true; }
};

/// Generates the PCH with the system headers' function bodies skipped, as
/// the analysis skips them.
class GenerateSkippingPCH : public GeneratePCHAction {
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef InFile) override {
    std::vector<std::unique_ptr<ASTConsumer>> Consumers;
    Consumers.push_back(GeneratePCHAction::CreateASTConsumer(CI, InFile));
    if (!Consumers.back())
      return nullptr;
    return std::make_unique<SystemBodySkipper>(std::move(Consumers));
  }
};

/// Builds a PCH with the analysis's preprocessor setup (the static
/// analyzer's predefines), so the PCH and the unit agree on every macro.
class BuildPCH : public tooling::ToolAction {
public:
  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    Invocation->getPreprocessorOpts().SetUpStaticAnalyzer = true;
    SystemBodySkipper::enable(*Invocation);
    CompilerInstance Compiler(std::move(PCHContainerOps));
    Compiler.setInvocation(std::move(Invocation));
    Compiler.setFileManager(Files);
    Compiler.createDiagnostics(DiagConsumer, /*ShouldOwnClient=*/false);
    Compiler.createSourceManager(*Files);
    Compiler.addDependencyCollector(Collector);
    GenerateSkippingPCH Action;
    bool Ok = Compiler.ExecuteAction(Action) &&
              !Compiler.getDiagnostics().hasErrorOccurred();
    Files->clearStatCache();
    return Ok;
  }

  std::shared_ptr<AllDependencies> Collector =
      std::make_shared<AllDependencies>();
};

bool buildPCH(StringRef Header, StringRef PCH,
              const tooling::CompileCommand &Command,
              std::vector<std::string> &Dependencies) {
  std::vector<std::string> Args = pchArguments(Command);
  // Instantiating the headers' pending templates once, in the PCH, spares
  // every unit that work: a LibTorch unit's own parse drops from about 3.5 s
  // to 1.7 s on top of the PCH (docs/performance.md).
  Args.insert(Args.end(), {"-fpch-instantiate-templates", "-x", "c++-header",
                           Header.str(), "-o", PCH.str()});

  IntrusiveRefCntPtr<vfs::FileSystem> FS = vfs::createPhysicalFileSystem();
  if (FS->setCurrentWorkingDirectory(Command.Directory))
    return false;
  auto Files = makeIntrusiveRefCnt<FileManager>(FileSystemOptions(), FS);
  BuildPCH Action;
  // A header that does not build only means no shared preamble: the units
  // report their own errors when they are analysed.
  IgnoringDiagConsumer Quiet;
  tooling::ToolInvocation Invocation(Args, &Action, Files.get(),
                                     std::make_shared<PCHContainerOperations>());
  Invocation.setDiagnosticConsumer(&Quiet);
  if (!Invocation.run())
    return false;
  for (StringRef Dep : Action.Collector->getDependencies()) {
    SmallString<256> Path(Dep);
    if (FS->makeAbsolute(Path))
      continue;
    sys::path::remove_dots(Path, /*remove_dot_dot=*/false);
    Dependencies.push_back(std::string(Path));
  }
  return sys::fs::exists(PCH);
}

/// The directories a quoted include is searched in after the including
/// file's own: -iquote, then -I, absolute.
std::vector<std::string>
quoteSearchDirectories(const tooling::CompileCommand &Command) {
  std::vector<std::string> Quote, User;
  const std::vector<std::string> &Args = Command.CommandLine;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    std::vector<std::string> *Into = nullptr;
    StringRef Dir;
    for (auto [Flag, List] : {std::pair{StringRef("-iquote"), &Quote},
                              std::pair{StringRef("-I"), &User}}) {
      if (!A.starts_with(Flag))
        continue;
      Into = List;
      Dir = A.drop_front(Flag.size());
      if (Dir.empty() && I + 1 < Args.size())
        Dir = Args[++I];
      break;
    }
    if (!Into || Dir.empty())
      continue;
    SmallString<256> Abs(Dir);
    if (sys::path::is_relative(Abs)) {
      Abs = Command.Directory;
      sys::path::append(Abs, Dir);
    }
    Into->push_back(std::string(Abs));
  }
  Quote.insert(Quote.end(), User.begin(), User.end());
  return Quote;
}

/// The files of one shared preamble in the cache: the header of its include
/// lines, the PCH, and the list of files the PCH was built from.
struct PreambleFiles {
  std::string Header, PCH, Deps;
};

PreambleFiles filesOf(StringRef Dir, StringRef Key) {
  SmallString<256> Base(Dir);
  sys::path::append(Base, Key);
  return {(Base + ".h").str(), (Base + ".pch").str(),
          (Base + ".deps.json").str()};
}

/// The dependency list of a PCH on disk into Deps; false when there is no
/// PCH, or no list to use.
bool readStoredDependencies(const PreambleFiles &Files,
                            std::vector<std::string> &Deps) {
  auto Stored = MemoryBuffer::getFile(Files.Deps);
  if (!Stored || !sys::fs::exists(Files.PCH))
    return false;
  Expected<json::Value> Parsed = json::parse((*Stored)->getBuffer());
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return false;
  }
  json::Path::Root Root;
  return fromJSON(*Parsed, Deps, Root);
}

/// Writes the shared header (unless there already), builds its PCH under
/// Command and stores the list of files it was built from (Deps). False
/// when a step fails.
bool buildAndStore(StringRef Dir, StringRef Header, const PreambleFiles &Files,
                   const tooling::CompileCommand &Command,
                   std::vector<std::string> &Deps) {
  if (sys::fs::create_directories(Dir))
    return false;
  if (!sys::fs::exists(Files.Header) &&
      !writeAtomically(Files.Header, [&](raw_ostream &OS) {
         OS << Header;
       }).empty())
    return false;
  if (!buildPCH(Files.Header, Files.PCH, Command, Deps))
    return false;
  return writeAtomically(Files.Deps, [&](raw_ostream &OS) {
           OS << json::Value(json::Array(Deps));
         }).empty();
}

} // namespace

bool preambleRefused(const UnitResult &R, StringRef PCH) {
  StringRef Header = PCH.drop_back(4); // ".pch"
  for (const Finding &E : R.CompileErrors) {
    StringRef M = E.Message;
    if (M.contains("precompiled header") || M.contains("PCH file") ||
        M.contains(PCH) || StringRef(E.Where.File).starts_with(Header))
      return true;
  }
  return false;
}

SharedPreambles::SharedPreambles(std::string CacheDir, unsigned Sharers)
    : Sharers(Sharers) {
  SmallString<256> D(CacheDir);
  sys::path::append(D, "preambles");
  Dir = std::string(D);
}

std::optional<std::string>
SharedPreambles::keyFor(StringRef File, const tooling::CompileCommand &Command,
                        PreambleSplit &Split, std::optional<StringRef> Text) {
  std::unique_ptr<MemoryBuffer> OnDisk;
  if (!Text) {
    auto Read = MemoryBuffer::getFile(File);
    if (!Read)
      return std::nullopt;
    OnDisk = std::move(*Read);
    Text = OnDisk->getBuffer();
  }
  std::optional<PreambleSplit> S = splitPreamble(
      *Text, sys::path::parent_path(File), quoteSearchDirectories(Command));
  if (!S)
    return std::nullopt;
  Split = std::move(*S);

  SHA256 Hash;
  for (StringRef Part :
       {StringRef("ddplint-preamble/3"), StringRef(DDPLINT_VERSION),
        StringRef(LLVM_VERSION_STRING), StringRef(Split.Header),
        StringRef(Command.Directory)}) {
    Hash.update(Part);
    Hash.update(StringRef("\0", 1));
  }
  for (const std::string &Arg : pchArguments(Command)) {
    Hash.update(Arg);
    Hash.update(StringRef("\0", 1));
  }
  return toHex(Hash.final(), /*LowerCase=*/true).substr(0, 32);
}

void SharedPreambles::expect(StringRef File,
                             const tooling::CompileCommand &Command) {
  PreambleSplit Split;
  if (std::optional<std::string> Key =
          keyFor(File, Command, Split, std::nullopt)) {
    std::lock_guard<std::mutex> Guard(Lock);
    ++Announced[*Key];
  }
}

std::optional<Analyser::PreambleUse>
SharedPreambles::get(StringRef File, const tooling::CompileCommand &Command,
                     std::vector<std::string> &Dependencies,
                     std::optional<StringRef> Text) {
  PreambleSplit Split;
  std::optional<std::string> Key = keyFor(File, Command, Split, Text);
  if (!Key)
    return std::nullopt;
  PreambleFiles Files = filesOf(Dir, *Key);

  std::unique_lock<std::mutex> Guard(Lock);
  auto [It, New] = Entries.try_emplace(*Key);
  Entry &E = It->second;
  if (!New)
    return reuse(E, Guard, std::move(Split.BlankedMain), Dependencies);
  // Building a PCH costs about one parse of its headers more than it saves
  // on the first unit: worth it when another unit of this run will reuse
  // it, or when an earlier run left it on disk.
  if (Announced[*Key] < Sharers && !sys::fs::exists(Files.PCH)) {
    E.S = Entry::Failed;
    Done.notify_all();
    return std::nullopt;
  }
  Guard.unlock();

  // Built by an earlier run (or by a concurrent one) and still on disk: its
  // dependency list comes with it. Otherwise build it now.
  std::vector<std::string> Deps;
  bool Ok = readStoredDependencies(Files, Deps);
  bool Fresh = false;
  if (!Ok) {
    setState(E, Entry::Compiling);
    Deps.clear();
    Ok = Fresh = buildAndStore(Dir, Split.Header, Files, Command, Deps);
  }
  publish(E, Ok, Fresh, Files.PCH, Deps);
  if (!Ok)
    return std::nullopt;
  Dependencies.insert(Dependencies.end(), Deps.begin(), Deps.end());
  return Analyser::PreambleUse{Files.PCH, std::move(Split.BlankedMain)};
}

bool SharedPreambles::wouldBuild(StringRef File,
                                 const tooling::CompileCommand &Command,
                                 std::optional<StringRef> Text) {
  PreambleSplit Split;
  std::optional<std::string> Key = keyFor(File, Command, Split, Text);
  if (!Key)
    return false;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    if (Entries.count(*Key) || Announced[*Key] < Sharers)
      return false;
  }
  return !sys::fs::exists(filesOf(Dir, *Key).PCH);
}

std::optional<Analyser::PreambleUse>
SharedPreambles::reuse(Entry &E, std::unique_lock<std::mutex> &Guard,
                       std::string BlankedMain,
                       std::vector<std::string> &Dependencies) {
  // Wait while the first unit reads an existing PCH's dependency list;
  // while it compiles a new PCH, parse this unit in full instead: that
  // keeps this core busy, and costs about what the build has left to run.
  Done.wait(Guard, [&] { return E.S != Entry::Building; });
  if (E.S != Entry::Ready)
    return std::nullopt;
  ++Reused;
  Dependencies.insert(Dependencies.end(), E.Dependencies.begin(),
                      E.Dependencies.end());
  return Analyser::PreambleUse{E.PCH, std::move(BlankedMain)};
}

void SharedPreambles::setState(Entry &E, Entry::State S) {
  std::lock_guard<std::mutex> Guard(Lock);
  E.S = S;
  Done.notify_all();
}

void SharedPreambles::publish(Entry &E, bool Ok, bool Fresh,
                              const std::string &PCH,
                              const std::vector<std::string> &Deps) {
  std::lock_guard<std::mutex> Guard(Lock);
  E.S = Ok ? Entry::Ready : Entry::Failed;
  E.PCH = PCH;
  E.Dependencies = Deps;
  if (Fresh)
    ++Built;
  else if (Ok)
    ++Reused;
  Done.notify_all();
}

void SharedPreambles::discard(const std::string &PCH) {
  std::lock_guard<std::mutex> Guard(Lock);
  for (auto &[Key, E] : Entries)
    if (E.PCH == PCH)
      E.S = Entry::Failed;
  sys::fs::remove(PCH);
  sys::fs::remove(StringRef(PCH).drop_back(4).str() + ".deps.json");
}

} // namespace ddplint
