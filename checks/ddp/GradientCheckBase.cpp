//===--- GradientCheckBase.cpp --------------------------------------------===//

#include "ddp/GradientCheckBase.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {
constexpr llvm::StringLiteral FunctionId = "function";

class SkippedRanges : public PPCallbacks {
public:
  explicit SkippedRanges(std::vector<SourceRange> &Out) : Out(Out) {}
  void SourceRangeSkipped(SourceRange Range, SourceLocation) override {
    Out.push_back(Range);
  }

private:
  std::vector<SourceRange> &Out;
};
} // namespace

void GradientCheckBase::registerPPCallbacks(const SourceManager &SM,
                                            Preprocessor *PP,
                                            Preprocessor *ModuleExpanderPP) {
  DdpCheck::registerPPCallbacks(SM, PP, ModuleExpanderPP);
  Skipped.clear();
  PP->addPPCallbacks(std::make_unique<SkippedRanges>(Skipped));
}

void GradientCheckBase::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(functionDecl(isDefinition(), unless(isImplicit()),
                                  unless(isExpansionInSystemHeader()))
                         .bind(FunctionId),
                     this);
}

void GradientCheckBase::check(const MatchFinder::MatchResult &Result) {
  Context = Result.Context;
  if (const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId))
    Functions.push_back(FD);
}

void GradientCheckBase::onStartOfTranslationUnit() {
  Context = nullptr;
  Functions.clear();
}

void GradientCheckBase::onEndOfTranslationUnit() {
  if (!Context || Functions.empty())
    return;
  GradientModel Model(Vocab, *Context, Skipped);
  for (const FunctionDecl *FD : Functions)
    Model.addFunction(*FD);
  Model.build();
  analyze(Model);
  Functions.clear();
}

std::string GradientCheckBase::calleeName(const CallExpr &Call) {
  llvm::StringRef Name = spelledCalleeName(Call);
  if (Name.empty())
    return "the call";
  return ("'" + Name + "'").str();
}

} // namespace clang::tidy::ddp
