//===--- Summaries.cpp - function summaries across units -----------------===//

#include "Summaries.h"

#include "AtomicWrite.h"
#include "Cache.h"

#include "vocabulary/ProjectFunctions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;
using clang::tidy::ddp::FunctionEffects;
using clang::tidy::ddp::ProjectFunctions;

namespace ddplint {

namespace {

std::string summaryFolder(StringRef CacheDir) {
  SmallString<256> Dir(CacheDir);
  sys::path::append(Dir, "summaries");
  return std::string(Dir);
}

std::string summaryFolder(const FindingsCache &Cache) {
  return summaryFolder(Cache.directory());
}

std::string summaryFile(StringRef CacheDir, StringRef Unit) {
  SmallString<256> Path(summaryFolder(CacheDir));
  sys::path::append(Path, utohexstr(xxHash64(Unit)) +
                              ".summaries");
  return std::string(Path);
}

std::string summaryFile(const FindingsCache &Cache, StringRef Unit) {
  return summaryFile(Cache.directory(), Unit);
}

} // namespace

size_t loadSummaries(const FindingsCache &Cache, ArrayRef<std::string> Units) {
  return loadSummaries(Cache.directory(), Units);
}

size_t loadSummaries(StringRef CacheDir, ArrayRef<std::string> Units) {
  std::vector<std::string> Files;
  for (const std::string &Unit : Units)
    Files.push_back(summaryFile(CacheDir, Unit));
  return ProjectFunctions::instance().loadFiles(Files);
}

void publishSummaries(const UnitResult &R, const FindingsCache *Cache) {
  std::vector<std::pair<std::string, FunctionEffects>> Unit;
  std::string Text;
  for (const std::string &Line : R.Summaries) {
    auto [USR, Encoding] = StringRef(Line).split('\t');
    if (std::optional<FunctionEffects> E = FunctionEffects::decode(Encoding)) {
      Unit.emplace_back(USR.str(), *E);
      Text += Line + "\n";
    }
  }
  ProjectFunctions::instance().add(Unit);
  if (!Cache || R.File.empty())
    return;
  std::string Path = summaryFile(*Cache, R.File);
  if (auto Old = MemoryBuffer::getFile(Path); Old && (*Old)->getBuffer() == Text)
    return;
  if (Text.empty() && !sys::fs::exists(Path))
    return;
  sys::fs::create_directories(summaryFolder(*Cache));
  // A failure (a read-only cache) costs the next run these summaries only.
  (void)writeAtomically(Path, [&](raw_ostream &OS) { OS << Text; });
}

std::string changedSummary(const UnitResult &R) {
  for (const std::string &Line : R.AskedSummaries) {
    auto [USR, Encoding] = StringRef(Line).split('\t');
    if (ProjectFunctions::instance().encodingOf(USR) != Encoding)
      return "the summary of a function it calls, defined in another unit, "
             "changed";
  }
  return "";
}

} // namespace ddplint
