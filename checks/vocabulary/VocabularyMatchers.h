//===--- VocabularyMatchers.h - AST matchers over the vocabulary ----------===//
//
// Custom AST matchers that wrap the vocabulary's classifiers, so that a
// matcher and a classifier can never disagree. Included at the end of
// Vocabulary.h; checks include that.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARYMATCHERS_H
#define DDPLINT_CHECKS_VOCABULARYMATCHERS_H

#include "vocabulary/Vocabulary.h"

#include "clang/ASTMatchers/ASTMatchers.h"

namespace clang::tidy::ddp {
namespace matchers {

using namespace clang::ast_matchers;

AST_MATCHER_P(CallExpr, isCollective, const Vocabulary *, Vocab) {
  return Vocab->classifyCollective(Node).has_value();
}
AST_MATCHER_P(CallExpr, isRankQuery, const Vocabulary *, Vocab) {
  return Vocab->returnsRank(Node) || Vocab->rankOutputArgument(Node);
}
AST_MATCHER_P(CallExpr, isForwardPass, const Vocabulary *, Vocab) {
  return Vocab->forwardReceiver(Node) != nullptr;
}
AST_MATCHER(CallExpr, isParameterCollection) {
  return training::parameterCollection(Node).has_value();
}
AST_MATCHER(CallExpr, isGradAccess) { return training::isGradAccess(Node); }
AST_MATCHER(CallExpr, isBackward) {
  return training::backwardRoot(Node) != nullptr;
}
AST_MATCHER_P(CallExpr, isOptimizerStep, const Vocabulary *, Vocab) {
  return Vocab->isOptimizerStep(Node);
}
AST_MATCHER_P(CXXRecordDecl, isWrapper, const Vocabulary *, Vocab) {
  return Vocab->isWrapperClass(Node);
}
AST_MATCHER(CallExpr, isUnresolvedDataLoaderFactory) {
  return loaders::isUnresolvedDataLoaderFactory(Node);
}
AST_MATCHER(CXXRecordDecl, isDistributedSampler) {
  return loaders::isDistributedSampler(Node);
}
AST_MATCHER_P(CXXRecordDecl, isShufflingSampler, const Vocabulary *, Vocab) {
  return Vocab->isShufflingSampler(Node);
}
AST_MATCHER(FunctionDecl, isDataLoaderFactory) {
  return loaders::isDataLoaderFactory(Node);
}
/// A type whose values are data loaders over a sampler matching InnerMatcher.
AST_MATCHER_P(QualType, isDataLoaderOver,
              ast_matchers::internal::Matcher<CXXRecordDecl>, InnerMatcher) {
  const CXXRecordDecl *Sampler = loaders::samplerOfLoaderType(Node);
  return Sampler && InnerMatcher.matches(*Sampler, Finder, Builder);
}

} // namespace matchers
} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARYMATCHERS_H
