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

/// Headers whose parse dominates a LibTorch unit.
bool isHeavyInclude(StringRef Name) {
  return Name.startswith("torch/") || Name.startswith("ATen/") ||
         Name.startswith("c10/") || Name.startswith("c10d/");
}

/// Skips spaces and tabs from I; returns the new position.
size_t skipBlanks(StringRef Text, size_t I) {
  while (I < Text.size() && (Text[I] == ' ' || Text[I] == '\t'))
    ++I;
  return I;
}

/// The compile command of the unit, as the PCH must be built: the same
/// flags, no input file, no outputs, no dependency files, no -c.
std::vector<std::string> pchArguments(const tooling::CompileCommand &Command) {
  // The input file, however the command names it.
  auto IsInput = [&](StringRef Arg) {
    if (Arg.startswith("-"))
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
      if (!A.startswith(Flag))
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

} // namespace

namespace {

struct LeadingInclude {
  size_t Begin, End;  ///< The directive's line in the scanned text.
  std::string Line;   ///< As the shared header spells it.
  std::string Quoted; ///< For a quoted include, the file it names, if found.
  bool Heavy = false;
};

/// Finds the file a quoted include names: beside the including file, then
/// in the quote and user search directories, as the preprocessor would.
std::string resolveQuoted(StringRef Name, StringRef IncluderDirectory,
                          ArrayRef<std::string> SearchDirectories) {
  SmallString<256> Candidate(IncluderDirectory);
  sys::path::append(Candidate, Name);
  if (sys::fs::exists(Candidate))
    return std::string(Candidate);
  for (const std::string &Dir : SearchDirectories) {
    Candidate = Dir;
    sys::path::append(Candidate, Name);
    if (sys::fs::exists(Candidate))
      return std::string(Candidate);
  }
  return "";
}

/// The include directives a file starts with. Comments and blank lines may
/// sit between them; in a header, so may `#pragma once` and an include
/// guard's `#ifndef`/`#define` pair at the top. Anything else ends the run.
std::vector<LeadingInclude>
leadingIncludes(StringRef Text, StringRef Directory,
                ArrayRef<std::string> SearchDirectories, bool IsHeader) {
  std::vector<LeadingInclude> Includes;
  std::string Guard; // The macro an #ifndef at the top tests.
  size_t I = 0;
  while (I < Text.size()) {
    char C = Text[I];
    if (C == ' ' || C == '\t' || C == '\r' || C == '\n') {
      ++I;
      continue;
    }
    if (Text.substr(I).startswith("//")) {
      size_t End = Text.find('\n', I);
      if (End != StringRef::npos && End > I && Text[End - 1] == '\\')
        break; // A comment continued onto the next line: do not guess.
      I = End == StringRef::npos ? Text.size() : End;
      continue;
    }
    if (Text.substr(I).startswith("/*")) {
      size_t End = Text.find("*/", I + 2);
      if (End == StringRef::npos)
        break;
      I = End + 2;
      continue;
    }
    if (C != '#')
      break;
    size_t LineEnd = Text.find('\n', I);
    if (LineEnd == StringRef::npos)
      LineEnd = Text.size();
    StringRef Line = Text.slice(I, LineEnd).rtrim("\r");
    if (Line.endswith("\\"))
      break;
    StringRef Directive = Line.drop_front().ltrim(" \t");
    if (IsHeader && Includes.empty()) {
      SmallVector<StringRef, 3> Words;
      Directive.split(Words, ' ', -1, /*KeepEmpty=*/false);
      if (Words.size() == 2 && Words[0] == "pragma" && Words[1] == "once") {
        I = LineEnd;
        continue;
      }
      if (Words.size() == 2 && Words[0] == "ifndef" && Guard.empty()) {
        Guard = Words[1].str();
        I = LineEnd;
        continue;
      }
      if (Words.size() == 2 && Words[0] == "define" && Words[1] == Guard) {
        I = LineEnd;
        continue;
      }
      if (!Guard.empty() && Words.size() >= 1 && Words[0] != "include")
        break;
    }
    if (!Directive.consume_front("include"))
      break;
    Directive = Directive.ltrim(" \t");
    if (Directive.empty() || (Directive[0] != '<' && Directive[0] != '"'))
      break;
    char Closer = Directive[0] == '<' ? '>' : '"';
    size_t Close = Directive.find(Closer, 1);
    if (Close == StringRef::npos)
      break;
    StringRef Rest = Directive.drop_front(Close + 1).trim();
    if (!Rest.empty() && !Rest.startswith("//"))
      break;
    StringRef Name = Directive.slice(1, Close);
    LeadingInclude Inc{I, LineEnd, "#include " + Directive.take_front(Close + 1).str(),
                       "", false};
    if (Closer == '"') {
      // The shared header lives elsewhere, so it names the file by its
      // absolute path (and the key of the preamble follows).
      Inc.Quoted = resolveQuoted(Name, Directory, SearchDirectories);
      if (!Inc.Quoted.empty())
        Inc.Line = "#include \"" + Inc.Quoted + "\"";
    } else {
      Inc.Heavy = isHeavyInclude(Name);
    }
    Includes.push_back(std::move(Inc));
    I = LineEnd;
  }
  return Includes;
}

} // namespace

std::optional<PreambleSplit>
splitPreamble(StringRef Text, StringRef MainDirectory,
              ArrayRef<std::string> SearchDirectories) {
  std::vector<LeadingInclude> Includes =
      leadingIncludes(Text, MainDirectory, SearchDirectories, false);
  size_t LastHeavy = 0; // 1 + index into Includes
  for (size_t K = 0; K < Includes.size(); ++K)
    if (Includes[K].Heavy)
      LastHeavy = K + 1;

  PreambleSplit Split;
  Split.BlankedMain = Text.str();

  // "Related header first": the file starts with a project header that
  // itself starts with the heavy includes (after its include guard). Those
  // are then the first thing the unit preprocesses, so a PCH of just them
  // may stand in for them, shared with every unit that does the same; the
  // main file keeps its text, and the header's own includes find them
  // already included.
  std::vector<LeadingInclude> Chain = Includes;
  for (unsigned Depth = 0;
       Depth < 8 && !Chain.empty() && !Chain.front().Quoted.empty();
       ++Depth) {
    std::string Header = Chain.front().Quoted;
    auto Buffer = MemoryBuffer::getFile(Header);
    if (!Buffer)
      break;
    Chain = leadingIncludes((*Buffer)->getBuffer(),
                            sys::path::parent_path(Header), SearchDirectories,
                            /*IsHeader=*/true);
    size_t HeaderHeavy = 0;
    for (size_t K = 0; K < Chain.size(); ++K)
      if (Chain[K].Heavy)
        HeaderHeavy = K + 1;
    if (HeaderHeavy) {
      for (size_t K = 0; K < HeaderHeavy; ++K)
        Split.Header += Chain[K].Line + "\n";
      return Split;
    }
  }

  // The main file's own run, up to its last heavy include.
  if (!LastHeavy)
    return std::nullopt;
  for (size_t K = 0; K < LastHeavy; ++K) {
    const LeadingInclude &Inc = Includes[K];
    Split.Header += Inc.Line + "\n";
    for (size_t P = Inc.Begin; P < Inc.End; ++P)
      if (Split.BlankedMain[P] != '\r')
        Split.BlankedMain[P] = ' ';
  }
  return Split;
}

SharedPreambles::SharedPreambles(std::string CacheDir) {
  SmallString<256> D(CacheDir);
  sys::path::append(D, "preambles");
  Dir = std::string(D);
}

std::optional<std::string>
SharedPreambles::keyFor(StringRef File, const tooling::CompileCommand &Command,
                        PreambleSplit &Split) {
  auto Text = MemoryBuffer::getFile(File);
  if (!Text)
    return std::nullopt;
  std::optional<PreambleSplit> S = splitPreamble(
      (*Text)->getBuffer(), sys::path::parent_path(File),
      quoteSearchDirectories(Command));
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
  if (std::optional<std::string> Key = keyFor(File, Command, Split)) {
    std::lock_guard<std::mutex> Guard(Lock);
    ++Announced[*Key];
  }
}

std::optional<Analyser::PreambleUse>
SharedPreambles::get(StringRef File, const tooling::CompileCommand &Command,
                     std::vector<std::string> &Dependencies) {
  PreambleSplit Split;
  std::optional<std::string> MaybeKey = keyFor(File, Command, Split);
  if (!MaybeKey)
    return std::nullopt;
  const std::string &Key = *MaybeKey;

  SmallString<256> Base(Dir);
  sys::path::append(Base, Key);
  std::string HeaderPath = (Base + ".h").str();
  std::string PCHPath = (Base + ".pch").str();
  std::string DepsPath = (Base + ".deps.json").str();

  std::unique_lock<std::mutex> Guard(Lock);
  auto [It, New] = Entries.try_emplace(Key);
  Entry &E = It->second;
  if (!New) {
    // Wait while the first unit reads an existing PCH's dependency list;
    // while it compiles a new PCH, parse this unit in full instead: that
    // keeps this core busy, and costs about what the build has left to run.
    Done.wait(Guard, [&] { return E.S != Entry::Building; });
    if (E.S != Entry::Ready)
      return std::nullopt;
    ++Reused;
    Dependencies.insert(Dependencies.end(), E.Dependencies.begin(),
                        E.Dependencies.end());
    return Analyser::PreambleUse{E.PCH, std::move(Split.BlankedMain)};
  }
  // Building a PCH costs about one parse of its headers more than it saves
  // on the first unit: worth it when another unit of this run will reuse
  // it, or when an earlier run left it on disk.
  if (Announced[Key] < 2 && !sys::fs::exists(PCHPath)) {
    E.S = Entry::Failed;
    Done.notify_all();
    return std::nullopt;
  }
  Guard.unlock();

  // Built by an earlier run (or by a concurrent one) and still on disk: its
  // dependency list comes with it. Otherwise build it now.
  std::vector<std::string> Deps;
  bool Ok = false;
  if (auto Stored = MemoryBuffer::getFile(DepsPath);
      Stored && sys::fs::exists(PCHPath)) {
    llvm::Expected<json::Value> Parsed = json::parse((*Stored)->getBuffer());
    json::Path::Root Root;
    Ok = Parsed && fromJSON(*Parsed, Deps, Root);
    if (!Parsed)
      consumeError(Parsed.takeError());
  }
  bool Fresh = false;
  if (!Ok) {
    Guard.lock();
    E.S = Entry::Compiling;
    Done.notify_all();
    Guard.unlock();
    Deps.clear();
    Ok = !sys::fs::create_directories(Dir) &&
         (sys::fs::exists(HeaderPath) ||
          writeAtomically(HeaderPath, [&](raw_ostream &OS) {
            OS << Split.Header;
          }).empty()) &&
         buildPCH(HeaderPath, PCHPath, Command, Deps) &&
         writeAtomically(DepsPath, [&](raw_ostream &OS) {
           OS << json::Value(json::Array(Deps));
         }).empty();
    Fresh = Ok;
  }

  Guard.lock();
  E.S = Ok ? Entry::Ready : Entry::Failed;
  E.PCH = PCHPath;
  E.Dependencies = Deps;
  if (Fresh)
    ++Built;
  else if (Ok)
    ++Reused;
  Done.notify_all();
  if (!Ok)
    return std::nullopt;
  Dependencies.insert(Dependencies.end(), Deps.begin(), Deps.end());
  return Analyser::PreambleUse{PCHPath, std::move(Split.BlankedMain)};
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
