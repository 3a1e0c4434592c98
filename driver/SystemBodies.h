//===--- SystemBodies.h - not parsing what cannot produce a finding -------===//
//
// No check reports inside a system header, and no check reads the body of a
// function declared in one: the vocabulary names LibTorch, c10d, MPI and NCCL
// entry points by their declarations. Parsing those bodies (and instantiating
// them for every template argument the unit uses) is most of a LibTorch
// unit's time, so the driver skips them, both when it analyses a unit and
// when it builds a shared preamble. Sema still parses the bodies it needs to
// type-check the rest (constexpr functions, deduced return types).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_SYSTEMBODIES_H
#define DDPLINT_DRIVER_SYSTEMBODIES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/MultiplexConsumer.h"

namespace ddplint {

/// A consumer that lets the parser skip the function bodies of system
/// headers and keeps every other body.
class SystemBodySkipper : public clang::MultiplexConsumer {
public:
  using clang::MultiplexConsumer::MultiplexConsumer;

  bool shouldSkipFunctionBody(clang::Decl *D) override {
    const clang::SourceManager &SM = D->getASTContext().getSourceManager();
    return SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation()));
  }

  /// Turns skipping on for \p Invocation; the consumer decides which.
  static void enable(clang::CompilerInvocation &Invocation) {
    Invocation.getFrontendOpts().SkipFunctionBodies = true;
  }
};

} // namespace ddplint

#endif
