//===--- SdkFallback.cpp - declarations for SDKs the machine lacks --------===//

#include "SdkFallback.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/DirectoryLookup.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace clang;
using namespace llvm;

namespace ddplint {
namespace {

/// Where the build and an installation put the fallback headers, relative
/// to the directory of the ddplint executable.
constexpr llvm::StringLiteral RelativeToBinary = "../lib/ddplint/sdk-fallback";

/// Path made absolute against FS's working directory, without "." parts.
std::string absolute(StringRef Path, vfs::FileSystem &FS) {
  SmallString<256> P(Path);
  if (FS.makeAbsolute(P))
    return "";
  // Dots stay: "../" after a symbolic link is not its parent.
  sys::path::remove_dots(P, /*remove_dot_dot=*/false);
  return std::string(P);
}

} // namespace

std::string sdkFallbackDirectory(const char *Argv0) {
  std::string Self = sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&sdkFallbackDirectory));
  if (Self.empty())
    return "";
  SmallString<256> Dir(sys::path::parent_path(Self));
  sys::path::append(Dir, RelativeToBinary);
  sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  if (!sys::fs::is_directory(Dir)) {
    // Said once per process: the run goes on without the fallback.
    static bool Said = false;
    if (!Said)
      WithColor::warning(errs(), "ddplint")
          << "the fallback SDK headers are missing (no folder '" << Dir
          << "', installed beside this binary): units that include mpi.h, "
             "nccl.h or cuda_runtime.h need those SDKs installed\n";
    Said = true;
    return "";
  }
  return std::string(Dir);
}

std::vector<std::string> sdkFallbackArguments(StringRef Dir) {
  if (Dir.empty())
    return {};
  return {"-idirafter", Dir.str()};
}

bool isInSdkFallback(StringRef Path, StringRef Dir) {
  return !Dir.empty() && Path.size() > Dir.size() && Path.starts_with(Dir) &&
         sys::path::is_separator(Path[Dir.size()]);
}

void SdkFallbackRecorder::InclusionDirective(
    SourceLocation HashLoc, const Token &, StringRef FileName, bool IsAngled,
    CharSourceRange, OptionalFileEntryRef File, StringRef SearchPath,
    StringRef RelativePath, DDPLINT_INCLUSION_MODULE_PARAMETERS,
    SrcMgr::CharacteristicKind) {
  if (!File)
    return;
  vfs::FileSystem &FS =
      PP.getSourceManager().getFileManager().getVirtualFileSystem();
  if (absolute(SearchPath, FS) != Dir)
    return;
  std::string Name = RelativePath.empty() ? FileName.str() : RelativePath.str();
  if (!llvm::is_contained(Use.Names, Name)) {
    Use.Names.push_back(Name);
    recordSearchedPlaces(HashLoc, Name, IsAngled);
  }
  // The headers the fallback includes itself (nccl.h's cuda_runtime.h) are
  // part of what the user's include brought in; naming them is noise.
  SourceManager &SM = PP.getSourceManager();
  OptionalFileEntryRef Includer =
      SM.getFileEntryRefForID(SM.getFileID(SM.getExpansionLoc(HashLoc)));
  bool FromFallback =
      Includer && isInSdkFallback(absolute(Includer->getName(), FS), Dir);
  if (!FromFallback && !llvm::is_contained(Use.Headers, Name))
    Use.Headers.push_back(Name);
}

void SdkFallbackRecorder::recordSearchedPlaces(SourceLocation HashLoc,
                                               StringRef Name,
                                               bool IsAngled) {
  SourceManager &SM = PP.getSourceManager();
  vfs::FileSystem &FS = SM.getFileManager().getVirtualFileSystem();
  auto Tried = [&](StringRef Directory) {
    SmallString<256> Candidate(Directory);
    sys::path::append(Candidate, Name);
    std::string Path = absolute(Candidate, FS);
    if (!Path.empty())
      Use.Absent.push_back(std::move(Path));
  };
  // A quoted include is looked for beside its includer first.
  if (!IsAngled)
    if (OptionalFileEntryRef Includer =
            SM.getFileEntryRefForID(SM.getFileID(SM.getExpansionLoc(HashLoc))))
      Tried(Includer->getDir().getName());
  // Then the search directories in order (-iquote ones for a quoted
  // include only), up to the fallback itself.
  const HeaderSearch &Search = PP.getHeaderSearchInfo();
  for (const DirectoryLookup &D :
       make_range(IsAngled ? Search.angled_dir_begin()
                           : Search.search_dir_begin(),
                  Search.search_dir_end())) {
    OptionalDirectoryEntryRef Directory = D.getDirRef();
    if (!Directory)
      continue;
    if (absolute(Directory->getName(), FS) == Dir)
      break;
    Tried(Directory->getName());
  }
}

std::string describeSdkFallback(ArrayRef<std::string> Headers) {
  return join(Headers, ", ") + " not found; used ddplint's fallback "
                               "declarations";
}

} // namespace ddplint
