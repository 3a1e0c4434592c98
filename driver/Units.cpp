//===--- Units.cpp - which translation units a run analyses ---------------===//

#include "Units.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace ddplint {

bool isGlob(StringRef Path) {
  return Path.find_first_of("*?[") != StringRef::npos;
}

namespace {

std::string absolute(StringRef Path) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

} // namespace

std::vector<Unit>
selectUnits(ArrayRef<std::string> Paths,
            const clang::tooling::CompilationDatabase *Database,
            std::vector<std::string> &Errors) {
  std::vector<std::string> Known;
  if (Database)
    for (const std::string &F : Database->getAllFiles())
      Known.push_back(absolute(F));
  // The database lists its files in hash order, which depends on the paths;
  // a run (and its progress and -v lines) goes through them in path order.
  std::sort(Known.begin(), Known.end());

  std::vector<Unit> Units;
  StringSet<> Seen;
  auto Add = [&](const std::string &F, const std::string &Named) {
    if (Seen.insert(F).second)
      Units.push_back({F, Named});
  };
  if (Paths.empty()) {
    for (const std::string &F : Known)
      Add(F, F);
    return Units;
  }

  SmallString<256> CWD;
  sys::fs::current_path(CWD);
  for (const std::string &P : Paths) {
    if (!isGlob(P)) {
      Add(absolute(P), P);
      continue;
    }
    if (!Database) {
      Errors.push_back("'" + P +
                       "' is a pattern, which needs a compile database "
                       "(-p <build dir>) to match against");
      continue;
    }
    Expected<GlobPattern> Pattern = GlobPattern::create(P);
    if (!Pattern) {
      Errors.push_back("invalid pattern '" + P +
                       "': " + toString(Pattern.takeError()));
      continue;
    }
    size_t Before = Units.size();
    for (const std::string &F : Known) {
      StringRef Rel = F;
      bool Under = Rel.consume_front(CWD) && Rel.consume_front("/");
      if (Pattern->match(F) || (Under && Pattern->match(Rel)))
        Add(F, F);
    }
    if (Units.size() == Before)
      Errors.push_back("no unit in the compile database matches '" + P + "'");
  }
  return Units;
}

bool parseShard(StringRef Spec, unsigned &Index, unsigned &Count) {
  auto [I, N] = Spec.split('/');
  return !I.getAsInteger(10, Index) && !N.getAsInteger(10, Count) &&
         Count >= 1 && Index >= 1 && Index <= Count;
}

std::vector<Unit> shardUnits(std::vector<Unit> Units, unsigned Index,
                             unsigned Count) {
  std::sort(Units.begin(), Units.end(),
            [](const Unit &A, const Unit &B) { return A.Path < B.Path; });
  std::vector<Unit> Mine;
  for (size_t K = Index - 1; K < Units.size(); K += Count)
    Mine.push_back(Units[K]);
  return Mine;
}

} // namespace ddplint
