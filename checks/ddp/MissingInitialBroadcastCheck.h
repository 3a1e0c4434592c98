//===--- MissingInitialBroadcastCheck.h - ddp-missing-initial-broadcast ---===//
//
// Finds hand-synced training whose replicas start from different random
// parameters: no common seed before the model is built, and no broadcast of
// the parameters (nor a checkpoint loaded on every rank) before the first
// optimizer step.
//
// docs/checks/ddp-missing-initial-broadcast.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_MISSINGINITIALBROADCASTCHECK_H
#define DDPLINT_CHECKS_MISSINGINITIALBROADCASTCHECK_H

#include "ddp/WrapperCheckBase.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::ddp {

class MissingInitialBroadcastCheck : public WrapperCheckBase {
public:
  using WrapperCheckBase::WrapperCheckBase;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:

  /// What a function does after building one model: its steps, seeds, and
  /// what gives every replica the same start.
  struct ModelEvents;
  /// The phases of check(): collect the events, decide whether a common
  /// seed came first, find the first step no start precedes, report.
  void collectEvents(const VarDecl &Model, const DeclStmt &Decl,
                     const Stmt &Body, const Reachability &Flow,
                     ASTContext &Context, ModelEvents &Events) const;
  void addStart(const CallExpr &Call, bool Broadcasts, const VarDecl &Model,
                const llvm::SmallPtrSetImpl<const ValueDecl *> &Related,
                ASTContext &Context, ModelEvents &Events) const;
  bool seededAlike(const DeclStmt &Decl, const Reachability &Flow,
                   ModelEvents &Events) const;
  void report(const VarDecl &Model, const CallExpr &FirstStep,
              const ModelEvents &Events);

  /// Models written from scratch, drawn from a generator seeded apart on
  /// each rank (MissingInitialBroadcastHomegrown.cpp): the draws of one
  /// function, what combines or equalises each model's replicas, report.
  struct HomegrownEvents;
  void checkHomegrown(const FunctionDecl &Function, ASTContext &Context);
  void collectHomegrownEvents(const VarDecl &Model, const Stmt &Body,
                              FunctionSummaries &Summaries,
                              HomegrownEvents &Events) const;
  void reportHomegrown(const VarDecl &Model, const Expr &Draw,
                       const Expr *Decisive, SeedValue Value,
                       const CallExpr &Combine, bool AtDeclaration);
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_MISSINGINITIALBROADCASTCHECK_H
