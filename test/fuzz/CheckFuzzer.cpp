//===--- CheckFuzzer.cpp - every ddp check over mutated programs ----------===//
//
// A libFuzzer target: each input is the text of a C++ file, analysed by
// every ddp-* check through the driver's own runner, in process. Mutated
// training programs are mostly broken code, which is what the checks meet in
// an editor: half-typed statements, recovery expressions, missing
// declarations. A crash, an abort, a sanitizer report or a hang is a
// failure; findings and compile errors are not.
//
// The environment variable DDPLINT_FUZZ_HEADERS picks what an input is
// parsed against:
//  - `mock` (the default): the mock LibTorch headers (test/Inputs) and the
//    fallback SDK declarations;
//  - `torch`: the real LibTorch 1.13 headers. Every input is then appended
//    to a fixed prefix that includes <torch/torch.h> and c10d's
//    ProcessGroupGloo.hpp. The prefix is compiled once per process into a
//    precompiled header by the driver's shared-preamble code
//    (driver/Preamble.h), and each input is parsed on top of it, exactly as
//    ddplint parses a unit whose leading includes it shares.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Preamble.h"

#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace clang;
using namespace llvm;

namespace {

constexpr const char *InputPath = "/ddplint-fuzz/input.cpp";

/// What a LibTorch data-parallel program starts with: the real-header
/// campaign's fixed prefix, precompiled once.
constexpr const char *TorchPrefix =
    "#include <torch/torch.h>\n"
    "#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>\n";

/// How every input of this process is analysed.
struct Setup {
  std::unique_ptr<tooling::FixedCompilationDatabase> Compilations;
  /// The fallback SDK headers, appended last as the driver appends them.
  std::string SdkFallback;
  /// Real headers only: the PCH of the prefix, and the prefix blanked out
  /// (same lines), which each input is appended to.
  std::optional<ddplint::Analyser::PreambleUse> Preamble;
  /// Real headers only: the directory the PCH lives in, removed at exit.
  std::string ScratchDir;
};

Setup *TheSetup = nullptr;

std::unique_ptr<tidy::ClangTidyOptionsProvider> allDdpChecks() {
  tidy::ClangTidyOptions Defaults = tidy::ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,ddp-*";
  return std::make_unique<tidy::DefaultOptionsProvider>(
      tidy::ClangTidyGlobalOptions(), Defaults);
}

IntrusiveRefCntPtr<vfs::OverlayFileSystem> realFileSystem() {
  return makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::getRealFileSystem());
}

void removeScratchDir() {
  if (TheSetup && !TheSetup->ScratchDir.empty())
    sys::fs::remove_directories(TheSetup->ScratchDir);
}

[[noreturn]] void fail(const Twine &Message) {
  errs() << "ddplint-fuzz: " << Message << "\n";
  std::exit(1);
}

/// Builds the PCH of TorchPrefix with the command every input is analysed
/// with, through the driver's shared preambles: the prefix is written to a
/// file in a scratch directory and announced as shared, as if two units of
/// a project began with it.
void precompileTorchPrefix(Setup &S) {
  SmallString<128> Dir;
  if (sys::fs::createUniqueDirectory("ddplint-fuzz", Dir))
    fail("cannot create a scratch directory for the precompiled prefix");
  S.ScratchDir = std::string(Dir);
  std::atexit(removeScratchDir);
  SmallString<128> Prefix(Dir);
  sys::path::append(Prefix, "prefix.cpp");
  {
    std::error_code EC;
    raw_fd_ostream OS(Prefix, EC);
    if (EC)
      fail("cannot write " + Prefix + ": " + EC.message());
    OS << TorchPrefix;
  }

  ddplint::Analyser Analysis(allDdpChecks(), realFileSystem(), S.SdkFallback);
  std::optional<tooling::CompileCommand> Command =
      Analysis.command(*S.Compilations, Prefix);
  if (!Command)
    fail("no compile command for the prefix");
  ddplint::SharedPreambles Preambles(S.ScratchDir);
  Preambles.expect(Prefix, *Command);
  Preambles.expect(Prefix, *Command);
  std::vector<std::string> Dependencies;
  S.Preamble = Preambles.get(Prefix, *Command, Dependencies);
  if (!S.Preamble)
    fail(Twine("the real LibTorch headers do not precompile with -isystem ") +
         DDPLINT_TORCH_HEADERS + " (LibTorch 1.13, libtorch-dev)");
}

Setup *makeSetup() {
  auto *S = new Setup;
  const char *Headers = std::getenv("DDPLINT_FUZZ_HEADERS");
  StringRef Mode = Headers ? Headers : "mock";
  std::vector<std::string> Args{"-std=c++17"};
  if (Mode == "mock") {
    Args.insert(Args.end(), {"-isystem", DDPLINT_MOCK_HEADERS, "-isystem",
                             DDPLINT_SDK_HEADERS});
  } else if (Mode == "torch") {
    Args.insert(Args.end(),
                {"-DUSE_C10D_GLOO", "-isystem", DDPLINT_TORCH_HEADERS});
    S->SdkFallback = DDPLINT_SDK_HEADERS;
  } else {
    fail("DDPLINT_FUZZ_HEADERS is '" + Mode + "'; use mock or torch");
  }
  Args.insert(Args.end(), {"-I", DDPLINT_CHECKER_HEADERS});
  S->Compilations =
      std::make_unique<tooling::FixedCompilationDatabase>(".", Args);
  if (Mode == "torch")
    precompileTorchPrefix(*S);
  return S;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  TheSetup = makeSetup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const Setup &S = *TheSetup;
  std::optional<ddplint::Analyser::PreambleUse> Use = S.Preamble;
  std::string Text = Use ? Use->MainFileText : std::string();
  Text.append(reinterpret_cast<const char *>(Data), Size);
  if (Use)
    Use->MainFileText = Text;

  // The input lives in memory only; the headers come from the disk.
  auto Memory = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  Memory->addFile(InputPath, 0,
                  MemoryBuffer::getMemBufferCopy(Text, InputPath));
  IntrusiveRefCntPtr<vfs::OverlayFileSystem> FS = realFileSystem();
  FS->pushOverlay(Memory);

  // A fresh analyser per input, so that no state carries from one to the
  // next and a crash reproduces from its input alone.
  ddplint::Analyser Analysis(allDdpChecks(), FS, S.SdkFallback);
  Analysis.run(*S.Compilations, InputPath, nullptr, Use ? &*Use : nullptr);
  return 0;
}
