//===--- NameList.h - option values that name declarations ----------------===//
//
// The list options of the ddp checks (`WrapperTypes`, `OptimizerTypes`,
// `RankVariables`, ...) name declarations: `;`-separated entries, each an
// unqualified or a qualified name, globs allowed.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_NAMELIST_H
#define DDPLINT_CHECKS_VOCABULARY_NAMELIST_H

#include "clang/AST/Decl.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/GlobPattern.h"

#include <string>
#include <vector>

namespace clang::tidy::ddp {

/// The non-empty, trimmed entries of a `;`-separated option value.
std::vector<llvm::StringRef> splitList(llvm::StringRef Spec);

/// A `;`-separated list of declaration names. An entry containing `::` is
/// matched against the fully qualified name (a leading `::` is optional),
/// any other entry against the unqualified name; both may use glob
/// wildcards (`*DDP*`).
class NameList {
public:
  NameList() = default;
  explicit NameList(llvm::StringRef Spec);

  bool matches(const NamedDecl &D) const;
  bool matchesName(llvm::StringRef Unqualified,
                   llvm::StringRef Qualified) const;
  const std::string &spec() const { return Spec; }

private:
  struct Entry {
    llvm::GlobPattern Pattern;
    bool Qualified;
  };
  std::string Spec;
  std::vector<Entry> Entries;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_NAMELIST_H
