//===--- OptimizerStaleParametersCheck.cpp - ddp-optimizer-stale-parameters ===//

#include "ddp/OptimizerStaleParametersCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/Reachability.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

constexpr llvm::StringLiteral FunctionId = "function";

using DeclSet = llvm::SmallPtrSet<const ValueDecl *, 4>;

/// The two sides of `x = y`, built-in or overloaded (a holder's or a smart
/// pointer's assignment, or one left dependent in a template).
std::optional<std::pair<const Expr *, const Expr *>>
assignmentSides(const Stmt *S) {
  if (const auto *B = dyn_cast<BinaryOperator>(S))
    if (B->getOpcode() == BO_Assign)
      return std::make_pair(B->getLHS(), B->getRHS());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      return std::make_pair(Op->getArg(0), Op->getArg(1));
  return std::nullopt;
}

/// Whether \p S names one of \p Decls (as a variable, or a field of this).
bool mentionsAny(const Stmt *S, const DeclSet &Decls) {
  return containsWhere(S, [&](const Stmt *X) {
    const auto *E = dyn_cast<Expr>(X);
    const ValueDecl *D = E ? referencedDecl(E) : nullptr;
    return D && Decls.contains(D);
  });
}

/// An optimizer built from one module's parameters.
struct OptimizerBuild {
  const ValueDecl *Optimizer;
  const ValueDecl *Module;
  const Stmt *Site; // the declaration or the assignment
  SourceLocation Loc;
};

/// A place after which training may run another object than the module the
/// optimizer was built from: a reassignment of the module's holder, or a
/// `clone()` of it kept in a local (or a wrapper) of its own.
struct Replacement {
  const Stmt *Site;
  bool IsCopy;
  DeclSet Holders; // the variables that hold the other object
};

/// A place where the other object is trained: a call on it whose value
/// feeds a backward pass (a forward, a loss helper), or a training helper
/// handed both it and the optimizer; and the step that follows it.
struct Training {
  const CallExpr *Use;
  const CallExpr *Step;
};

/// What one function body does with optimizers, modules and their copies.
class TrainingFacts {
public:
  TrainingFacts(const Vocabulary &Vocab) : Vocab(Vocab) {}
  void collect(const Stmt *Body);

  std::vector<OptimizerBuild> Builds;
  /// Every statement that gives an optimizer variable a value or adds
  /// parameters to it.
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const Stmt *, 4>>
      OptimizerWrites;
  /// Assignments to variables other than optimizers, with their target.
  std::vector<std::pair<const ValueDecl *, const Stmt *>> Assignments;
  /// Where a local variable takes a value: its initializer or an assignment.
  std::vector<std::pair<const ValueDecl *, const Expr *>> Flows;
  std::vector<const DeclStmt *> Declarations;
  std::vector<const CallExpr *> Calls;
  std::vector<const Expr *> BackwardRoots;

private:
  void addValue(const ValueDecl *Target, const Expr *Value, const Stmt *Site,
                SourceLocation Loc);
  void addCall(const CallExpr &Call);

  const Vocabulary &Vocab;
};

void TrainingFacts::addValue(const ValueDecl *Target, const Expr *Value,
                             const Stmt *Site, SourceLocation Loc) {
  if (!Target)
    return;
  if (!Vocab.holdsOptimizer(*Target)) {
    if (Value)
      Flows.emplace_back(Target, Value);
    return;
  }
  OptimizerWrites[Target].push_back(Site);
  DeclSet Seen;
  forEachCall(Value, [&](const Expr *E) {
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call || !training::parameterCollection(*Call))
      return;
    const ValueDecl *Module = handleDecl(modules::memberCallObject(*Call));
    if (Module && Seen.insert(Module).second)
      Builds.push_back({Target, Module, Site, Loc});
  });
}

void TrainingFacts::addCall(const CallExpr &Call) {
  Calls.push_back(&Call);
  if (const Expr *Optimizer = Vocab.optimizerParameterAddition(Call))
    if (const ValueDecl *D = handleDecl(Optimizer))
      OptimizerWrites[D].push_back(&Call);
  if (const Expr *Root = training::backwardRoot(Call))
    BackwardRoots.push_back(Root);
}

void TrainingFacts::collect(const Stmt *Body) {
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      Declarations.push_back(DS);
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->getInit())
            addValue(V, V->getInit(), DS, V->getLocation());
      return;
    }
    if (auto Sides = assignmentSides(S)) {
      const ValueDecl *Target = handleDecl(Sides->first);
      if (Target && !Vocab.holdsOptimizer(*Target))
        Assignments.emplace_back(Target, S);
      addValue(Target, Sides->second, S, Sides->first->getBeginLoc());
    }
    if (const auto *Call = dyn_cast<CallExpr>(S))
      addCall(*Call);
  });
}

/// Whether \p Call works on one of \p Holders: as its object (`m->forward`,
/// `m(x)`, `m_->forward` left dependent), or as an argument (a loss helper
/// or a training helper handed the module).
bool callUses(const CallExpr &Call, const DeclSet &Holders) {
  auto Held = [&](const Expr *E) {
    const ValueDecl *D = E ? handleDecl(E) : nullptr;
    return D && Holders.contains(D);
  };
  if (Held(modules::memberCallObject(Call)) || Held(Call.getCallee()))
    return true;
  return llvm::any_of(Call.arguments(), Held);
}

/// The decisions on one function: which builds are stale when training runs.
class StaleParameters {
public:
  StaleParameters(const TrainingFacts &Facts, const Reachability &Flow,
                  const Vocabulary &Vocab)
      : Facts(Facts), Flow(Flow), Vocab(Vocab) {}

  /// The replacements of \p Build's module, in source order.
  std::vector<Replacement> replacements(const OptimizerBuild &Build) const;
  /// Where the other object is trained with \p Build's optimizer after
  /// \p R, without the optimizer being rebuilt or given parameters between.
  std::optional<Training> trainedAfter(const OptimizerBuild &Build,
                                       const Replacement &R) const;

private:
  /// The locals that hold what \p Seeds hold: copies and wrappers built from
  /// them (module or wrapper handles, or of a type still dependent),
  /// declared where \p From reaches.
  void addHandlesBuiltFrom(DeclSet &Holders, const Stmt *From) const;
  bool feedsBackward(const CallExpr &Call) const;
  bool isStepOf(const CallExpr &Call, const ValueDecl *Optimizer) const;

  const TrainingFacts &Facts;
  const Reachability &Flow;
  const Vocabulary &Vocab;
};

void StaleParameters::addHandlesBuiltFrom(DeclSet &Holders,
                                          const Stmt *From) const {
  auto IsHandle = [&](const ValueDecl *D) {
    QualType T = D->getType();
    return T->isDependentType() || T->isUndeducedType() ||
           modules::moduleClassOfHandle(T) || Vocab.wrapperClassOfHandle(T);
  };
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const DeclStmt *DS : Facts.Declarations)
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || !V->getInit() || Holders.contains(V) || !IsHandle(V) ||
            !mentionsAny(V->getInit(), Holders) || !Flow.reachable(From, DS))
          continue;
        Holders.insert(V);
        Changed = true;
      }
  }
}

std::vector<Replacement>
StaleParameters::replacements(const OptimizerBuild &Build) const {
  std::vector<Replacement> Out;
  for (const auto &[Target, Site] : Facts.Assignments) {
    if (Target != Build.Module || !Flow.reachable(Build.Site, Site))
      continue;
    Replacement R{Site, false, {}};
    R.Holders.insert(Target);
    addHandlesBuiltFrom(R.Holders, Site);
    Out.push_back(std::move(R));
  }
  for (const CallExpr *Call : Facts.Calls) {
    const Expr *Source = modules::moduleCopySource(*Call);
    if (!Source || handleDecl(Source) != Build.Module)
      continue;
    // The variables the copy is kept in; a copy assigned back to the module
    // itself is a reassignment, found above.
    Replacement R{Call, true, {}};
    for (const auto &[Target, Value] : Facts.Flows)
      if (Target != Build.Module && contains(Value, Call) &&
          (isa<VarDecl>(Target) || isa<FieldDecl>(Target)))
        R.Holders.insert(Target);
    if (R.Holders.empty())
      continue;
    addHandlesBuiltFrom(R.Holders, Call);
    Out.push_back(std::move(R));
  }
  llvm::sort(Out, [](const Replacement &A, const Replacement &B) {
    return A.Site->getBeginLoc() < B.Site->getBeginLoc();
  });
  return Out;
}

bool StaleParameters::feedsBackward(const CallExpr &Call) const {
  llvm::SmallPtrSet<const ValueDecl *, 8> Tainted;
  auto Mentions = [&](const Stmt *S) {
    return containsWhere(S, [&](const Stmt *X) {
      if (X == &Call)
        return true;
      const auto *E = dyn_cast<Expr>(X);
      const ValueDecl *D = E ? referencedDecl(E) : nullptr;
      return D && Tainted.contains(D);
    });
  };
  // Values computed from the call, transitively (a loss from its output).
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const auto &[Target, Value] : Facts.Flows)
      if (!Tainted.contains(Target) && Mentions(Value))
        Changed |= Tainted.insert(Target).second;
  }
  return llvm::any_of(Facts.BackwardRoots, Mentions);
}

bool StaleParameters::isStepOf(const CallExpr &Call,
                               const ValueDecl *Optimizer) const {
  if (Vocab.isOptimizerStep(Call))
    return handleDecl(modules::memberCallObject(Call)) == Optimizer;
  // A training helper of the project handed the optimizer.
  if (isa<CXXMemberCallExpr>(Call) || isa<CXXOperatorCallExpr>(Call))
    return false;
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (Callee && inSystemHeader(*Callee))
    return false;
  return llvm::any_of(Call.arguments(), [&](const Expr *Arg) {
    return handleDecl(Arg) == Optimizer;
  });
}

std::optional<Training>
StaleParameters::trainedAfter(const OptimizerBuild &Build,
                              const Replacement &R) const {
  // What would hand the optimizer the new parameters: a rebuild, or a
  // parameter group. Rebuilding from the module copied does not.
  llvm::SmallVector<const Stmt *, 4> Avoid;
  for (const Stmt *Write : Facts.OptimizerWrites.lookup(Build.Optimizer))
    if (!R.IsCopy ||
        llvm::none_of(Facts.Builds, [&](const OptimizerBuild &B) {
          return B.Site == Write && B.Module == Build.Module;
        }))
      Avoid.push_back(Write);

  for (const CallExpr *Step : Facts.Calls) {
    if (!isStepOf(*Step, Build.Optimizer) ||
        !Flow.reachable(R.Site, Step, Avoid))
      continue;
    if (callUses(*Step, R.Holders))
      return Training{Step, Step};
    for (const CallExpr *Use : Facts.Calls)
      if (callUses(*Use, R.Holders) && Flow.reachable(R.Site, Use, Avoid) &&
          Flow.reachable(Use, Step, Avoid) && feedsBackward(*Use))
        return Training{Use, Step};
    // A step whose closure runs the forward and backward passes.
    if (const auto *Closure = dyn_cast_or_null<LambdaExpr>(
            Vocab.optimizerStepClosure(*Step))) {
      const CallExpr *Found = nullptr;
      containsWhere(Closure->getBody(), [&](const Stmt *X) {
        const auto *Call = dyn_cast<CallExpr>(X);
        if (Call && callUses(*Call, R.Holders))
          Found = Call;
        return Found != nullptr;
      });
      if (Found)
        return Training{Found, Step};
    }
  }
  return std::nullopt;
}

} // namespace

void OptimizerStaleParametersCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      functionDecl(isDefinition(), unless(isExpansionInSystemHeader()),
                   hasBody(hasDescendant(
                       callExpr(matchers::isParameterCollection()))))
          .bind(FunctionId),
      this);
}

void OptimizerStaleParametersCheck::check(
    const MatchFinder::MatchResult &Result) {
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  // A pattern whose body was instantiated is checked in its instantiations.
  if (!Function || !Function->getBody() || isInstantiatedPattern(*Function))
    return;
  checkFunction(*Function, *Result.Context);
}

void OptimizerStaleParametersCheck::checkFunction(const FunctionDecl &Function,
                                                  ASTContext &Context) {
  TrainingFacts Facts(Vocab);
  Facts.collect(Function.getBody());
  if (Facts.Builds.empty())
    return;
  Reachability Flow(&Function, Function.getBody(), Context);
  StaleParameters Decide(Facts, Flow, Vocab);

  for (const OptimizerBuild &Build : Facts.Builds) {
    for (const Replacement &R : Decide.replacements(Build)) {
      std::optional<Training> Trained = Decide.trainedAfter(Build, R);
      if (!Trained)
        continue;
      diag(Build.Loc,
           "optimizer %0 holds the parameters of %1, but training runs "
           "%select{a new module assigned to %1|a copy of %1}2: the "
           "optimizer updates the old parameters and the trained model "
           "never changes; %select{build the optimizer after the "
           "replacement, or load into %1 in place instead of replacing "
           "it|build the optimizer after the copy, from the copy's "
           "parameters}2")
          << Build.Optimizer << Build.Module << R.IsCopy;
      diag(R.Site->getBeginLoc(),
           "%select{%0 is replaced here|%0 is copied here}1",
           DiagnosticIDs::Note)
          << Build.Module << R.IsCopy;
      diag(Trained->Use->getBeginLoc(),
           "%select{the new module in %0|the copy of %0}1 is trained here",
           DiagnosticIDs::Note)
          << Build.Module << R.IsCopy;
      break;
    }
  }
}

} // namespace clang::tidy::ddp
