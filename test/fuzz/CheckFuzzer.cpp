//===--- CheckFuzzer.cpp - every ddp check over mutated programs ----------===//
//
// A libFuzzer target: each input is the text of a C++ file, parsed against
// the mock LibTorch headers and analysed by every ddp-* check through the
// driver's own runner, in process. Mutated training programs are mostly
// broken code, which is what the checks meet in an editor: half-typed
// statements, recovery expressions, missing declarations. A crash, an
// abort or a hang is a failure; findings and compile errors are not.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"

#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

using namespace clang;
using namespace llvm;

namespace {

constexpr const char *InputPath = "/ddplint-fuzz/input.cpp";

std::unique_ptr<tidy::ClangTidyOptionsProvider> allDdpChecks() {
  tidy::ClangTidyOptions Defaults = tidy::ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,ddp-*";
  return std::make_unique<tidy::DefaultOptionsProvider>(
      tidy::ClangTidyGlobalOptions(), Defaults);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const tooling::FixedCompilationDatabase Compilations(
      ".", std::vector<std::string>{"-std=c++17", "-isystem",
                                    DDPLINT_MOCK_HEADERS, "-isystem",
                                    DDPLINT_SDK_HEADERS, "-I",
                                    DDPLINT_CHECKER_HEADERS});
  // The input lives in memory only; the headers come from the disk.
  auto Memory = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  Memory->addFile(InputPath, 0,
                  MemoryBuffer::getMemBufferCopy(
                      StringRef(reinterpret_cast<const char *>(Data), Size),
                      InputPath));
  auto FS = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::getRealFileSystem());
  FS->pushOverlay(Memory);

  // A fresh analyser per input, so that no state carries from one to the
  // next and a crash reproduces from its input alone.
  ddplint::Analyser Analysis(allDdpChecks(), FS);
  Analysis.run(Compilations, InputPath);
  return 0;
}
