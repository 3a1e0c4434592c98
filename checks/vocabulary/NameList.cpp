//===--- NameList.cpp -----------------------------------------------------===//

#include "vocabulary/NameList.h"

#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::ddp {

std::vector<llvm::StringRef> splitList(llvm::StringRef Spec) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Spec.split(Parts, ';', -1, /*KeepEmpty=*/false);
  std::vector<llvm::StringRef> Out;
  for (llvm::StringRef P : Parts)
    if (!(P = P.trim()).empty())
      Out.push_back(P);
  return Out;
}

NameList::NameList(llvm::StringRef Spec) : Spec(Spec.str()) {
  for (llvm::StringRef Entry : splitList(Spec)) {
    bool Qualified = Entry.contains("::");
    Entry.consume_front("::");
    if (auto Pattern = llvm::GlobPattern::create(Entry))
      Entries.push_back({std::move(*Pattern), Qualified});
    else
      llvm::consumeError(Pattern.takeError());
  }
}

bool NameList::matchesName(llvm::StringRef Unqualified,
                           llvm::StringRef Qualified) const {
  for (const Entry &E : Entries)
    if (E.Pattern.match(E.Qualified ? Qualified : Unqualified))
      return true;
  return false;
}

bool NameList::matches(const NamedDecl &D) const {
  if (Entries.empty() || !D.getDeclName().isIdentifier())
    return false;
  return matchesName(D.getName(), D.getQualifiedNameAsString());
}

} // namespace clang::tidy::ddp
