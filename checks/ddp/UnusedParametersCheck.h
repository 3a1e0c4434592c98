//===--- UnusedParametersCheck.h - ddp-unused-parameters ------------------===//
//
// Finds a module wrapped by a data-parallel wrapper whose gradient hooks
// wait for every parameter, when the module registers submodules or
// parameters that its forward() never uses, or uses on some paths only:
// those parameters get no gradient, their bucket never fills, and backward
// hangs or the wrapper fails.
//
// docs/checks/ddp-unused-parameters.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_UNUSEDPARAMETERSCHECK_H
#define DDPLINT_CHECKS_UNUSEDPARAMETERSCHECK_H

#include "model/ModuleUsage.h"
#include "ddp/WrapperCheckBase.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <memory>

namespace clang::tidy::ddp {

class UnusedParametersCheck : public WrapperCheckBase {
public:
  UnusedParametersCheck(llvm::StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  void checkWrap(const Wrap &W, const FunctionDecl &Function,
                 const WrapperLife &Life, ASTContext &Context);
  /// Whether the wrapper's own code handles parameters without a gradient
  /// (`if (!p.grad().defined())`), in its class or a class it holds.
  bool toleratesMissingGradients(const CXXRecordDecl &Wrapper);
  /// Whether the wrap turns on an `UnusedParameterOptions` setting, at the
  /// wrap or on an options object handed to it.
  bool optionTolerates(const Wrap &W, const FunctionDecl &Function,
                       ASTContext &Context) const;
  /// Whether \p S sets the wrapper's unused-parameter option on:
  /// `o.find_unused_parameters = v`, `o.find_unused_parameters(v)`,
  /// `{.find_unused_parameters = v}`, with v not a constant false.
  bool turnsOnOption(const Stmt *S, ASTContext &Context) const;
  /// Drops the members frozen in \p Function before the wrap.
  void dropFrozenBeforeWrap(std::vector<RegisteredMember> &Members,
                            const Wrap &W, const FunctionDecl &Function,
                            const WrapperLife &Life, ASTContext &Context) const;
  void report(const Wrap &W, const CXXRecordDecl &Class,
              llvm::ArrayRef<const RegisteredMember *> Members,
              MemberUse Use);

  const NameList UnusedParameterOptions;
  std::unique_ptr<ModuleUsage> Usage;
  llvm::DenseMap<const CXXRecordDecl *, bool> Tolerant;
  llvm::DenseSet<std::pair<const CXXRecordDecl *, unsigned>> Reported;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_UNUSEDPARAMETERSCHECK_H
