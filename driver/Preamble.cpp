//===--- Preamble.cpp - one precompiled header for many units -------------===//

#include "Preamble.h"

#include "AtomicWrite.h"

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

/// Builds a PCH with the analysis's preprocessor setup (the static
/// analyzer's predefines), so the PCH and the unit agree on every macro.
class BuildPCH : public tooling::ToolAction {
public:
  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    Invocation->getPreprocessorOpts().SetUpStaticAnalyzer = true;
    CompilerInstance Compiler(std::move(PCHContainerOps));
    Compiler.setInvocation(std::move(Invocation));
    Compiler.setFileManager(Files);
    Compiler.createDiagnostics(DiagConsumer, /*ShouldOwnClient=*/false);
    Compiler.createSourceManager(*Files);
    Compiler.addDependencyCollector(Collector);
    GeneratePCHAction Action;
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
  Args.insert(Args.end(), {"-x", "c++-header", Header.str(), "-o", PCH.str()});

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

} // namespace

std::optional<PreambleSplit> splitPreamble(StringRef Text,
                                          StringRef MainDirectory) {
  struct Include {
    size_t Begin, End;
    std::string Line; ///< As the shared header spells it.
  };
  std::vector<Include> Includes;
  size_t LastHeavy = 0; // 1 + index into Includes
  size_t I = 0;
  while (I < Text.size()) {
    char C = Text[I];
    if (C == ' ' || C == '\t' || C == '\r' || C == '\n') {
      ++I;
    } else if (Text.substr(I).startswith("//")) {
      size_t End = Text.find('\n', I);
      if (End != StringRef::npos && End > I && Text[End - 1] == '\\')
        break; // A comment continued onto the next line: do not guess.
      I = End == StringRef::npos ? Text.size() : End;
    } else if (Text.substr(I).startswith("/*")) {
      size_t End = Text.find("*/", I + 2);
      if (End == StringRef::npos)
        break;
      I = End + 2;
    } else if (C == '#') {
      size_t LineEnd = Text.find('\n', I);
      if (LineEnd == StringRef::npos)
        LineEnd = Text.size();
      StringRef Line = Text.slice(I, LineEnd).rtrim("\r");
      if (Line.endswith("\\"))
        break;
      size_t J = skipBlanks(Text, I + 1);
      if (!Text.substr(J).startswith("include"))
        break;
      J = skipBlanks(Text, J + 7);
      if (J >= LineEnd || (Text[J] != '<' && Text[J] != '"'))
        break;
      char Closer = Text[J] == '<' ? '>' : '"';
      size_t Close = Text.find(Closer, J + 1);
      if (Close == StringRef::npos || Close > LineEnd)
        break;
      StringRef Rest = Text.slice(Close + 1, LineEnd).trim();
      if (!Rest.empty() && !Rest.startswith("//"))
        break;
      StringRef Name = Text.slice(J + 1, Close);
      std::string Spelled = "#include " + Text.slice(J, Close + 1).str();
      if (Closer == '"') {
        // A quoted include is looked up next to the including file first;
        // the shared header lives elsewhere, so it names that file by its
        // absolute path (and the key of the preamble follows).
        SmallString<256> Beside(MainDirectory);
        sys::path::append(Beside, Name);
        if (sys::fs::exists(Beside))
          Spelled = "#include \"" + std::string(Beside) + "\"";
      } else if (isHeavyInclude(Name)) {
        LastHeavy = Includes.size() + 1;
      }
      Includes.push_back({I, LineEnd, Spelled});
      I = LineEnd;
    } else {
      break;
    }
  }
  if (LastHeavy == 0)
    return std::nullopt;

  PreambleSplit Split;
  Split.BlankedMain = Text.str();
  for (size_t K = 0; K < LastHeavy; ++K) {
    const Include &Inc = Includes[K];
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
  std::optional<PreambleSplit> S =
      splitPreamble((*Text)->getBuffer(), sys::path::parent_path(File));
  if (!S)
    return std::nullopt;
  Split = std::move(*S);

  SHA256 Hash;
  for (StringRef Part :
       {StringRef("ddplint-preamble/1"), StringRef(DDPLINT_VERSION),
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
  PreambleSplit SplitStorage;
  std::optional<std::string> MaybeKey = keyFor(File, Command, SplitStorage);
  if (!MaybeKey)
    return std::nullopt;
  const std::string &Key = *MaybeKey;
  PreambleSplit *Split = &SplitStorage;

  SmallString<256> Base(Dir);
  sys::path::append(Base, Key);
  std::string HeaderPath = (Base + ".h").str();
  std::string PCHPath = (Base + ".pch").str();
  std::string DepsPath = (Base + ".deps.json").str();

  std::unique_lock<std::mutex> Guard(Lock);
  auto [It, New] = Entries.try_emplace(Key);
  Entry &E = It->second;
  if (!New) {
    Done.wait(Guard, [&] { return E.S != Entry::Building; });
    if (E.S != Entry::Ready)
      return std::nullopt;
    ++Reused;
    Dependencies.insert(Dependencies.end(), E.Dependencies.begin(),
                        E.Dependencies.end());
    return Analyser::PreambleUse{E.PCH, std::move(Split->BlankedMain)};
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
    Deps.clear();
    Ok = !sys::fs::create_directories(Dir) &&
         (sys::fs::exists(HeaderPath) ||
          writeAtomically(HeaderPath, [&](raw_ostream &OS) {
            OS << Split->Header;
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
  return Analyser::PreambleUse{PCHPath, std::move(Split->BlankedMain)};
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
