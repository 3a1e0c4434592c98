//===--- SdkFallback.h - declarations for SDKs the machine lacks --*- C++ -*-===//
//
// A CPU machine that lints distributed code often has no <nccl.h>,
// <cuda_runtime.h>, <mpi.h> or <boost/mpi.hpp>. clang then drops every
// function whose signature names ncclComm_t, and turns
// `ncclResult_t r = ncclAllReduce(...)` into an invalid declaration without
// its initializer: the checks never see the collective.
//
// ddplint ships minimal declarations of those APIs (sdk-fallback/ in the
// source tree, copied to lib/ddplint/sdk-fallback beside the driver) and
// appends `-idirafter <that directory>` to every compile command, after
// everything else: the fallback is found only when no directory of the
// command, and no system directory, has the real header, so it never
// shadows an installed SDK.
//
// A unit that used a fallback header says so (-v, SARIF, JSON), and its
// cache entry remembers every place the real header was looked for: when
// one appears there, the entry is stale.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_SDKFALLBACK_H
#define DDPLINT_DRIVER_SDKFALLBACK_H

#include "vocabulary/LLVMCompat.h"

#include "clang/Lex/PPCallbacks.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace clang {
class Preprocessor;
} // namespace clang

namespace ddplint {

/// The fallback directory of this ddplint executable (Argv0 and any
/// function of it locate it), or "" when it is missing (a ddplint copied
/// without its lib/ directory).
std::string sdkFallbackDirectory(const char *Argv0);

/// The compile-command arguments that make Dir the last place headers are
/// looked for; none when Dir is empty.
std::vector<std::string> sdkFallbackArguments(llvm::StringRef Dir);

/// Whether Path (absolute) lies in the fallback directory Dir.
bool isInSdkFallback(llvm::StringRef Path, llvm::StringRef Dir);

/// What a unit took from the fallback directory.
struct SdkFallbackUse {
  /// Each fallback header the unit's own code (or a real header) included,
  /// as it was included ("nccl.h", "boost/mpi.hpp"), in the order first
  /// included.
  std::vector<std::string> Headers;
  /// Every fallback header used, those the fallback includes itself too.
  std::vector<std::string> Names;
  /// Absolute paths where the preprocessor looked for those headers before
  /// reaching the fallback, all missing at the time: a real header that
  /// later appears at one of them changes the unit.
  std::vector<std::string> Absent;
};

/// Records every #include the fallback directory Dir answered, in Use.
class SdkFallbackRecorder : public clang::PPCallbacks {
public:
  SdkFallbackRecorder(clang::Preprocessor &PP, std::string Dir,
                      SdkFallbackUse &Use)
      : PP(PP), Dir(std::move(Dir)), Use(Use) {}

  void InclusionDirective(clang::SourceLocation HashLoc,
                          const clang::Token &IncludeTok,
                          llvm::StringRef FileName, bool IsAngled,
                          clang::CharSourceRange FilenameRange,
                          clang::OptionalFileEntryRef File,
                          llvm::StringRef SearchPath,
                          llvm::StringRef RelativePath,
                          DDPLINT_INCLUSION_MODULE_PARAMETERS,
                          clang::SrcMgr::CharacteristicKind FileType) override;

private:
  /// The places the preprocessor tried for Name before the fallback.
  void recordSearchedPlaces(clang::SourceLocation HashLoc,
                            llvm::StringRef Name, bool IsAngled);

  clang::Preprocessor &PP;
  std::string Dir;
  SdkFallbackUse &Use;
};

/// "nccl.h, cuda_runtime.h not found; used ddplint's fallback declarations"
std::string describeSdkFallback(llvm::ArrayRef<std::string> Headers);

} // namespace ddplint

#endif // DDPLINT_DRIVER_SDKFALLBACK_H
