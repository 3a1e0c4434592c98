//===--- ParameterLoops.cpp -----------------------------------------------===//

#include "analysis/ParameterLoops.h"
#include "analysis/ASTUtils.h"
#include "vocabulary/TensorMethods.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"

namespace clang::tidy::ddp {

namespace {
/// `c` when \p S is `c.size()` and `c` is a parameter collection, or a
/// local initialized from one; null otherwise.
const Expr *collectionOfSize(const Stmt *S) {
  const auto *Size = dyn_cast_or_null<CXXMemberCallExpr>(S);
  if (!Size || identifierName(Size->getMethodDecl()) != "size")
    return nullptr;
  const Expr *Object = stripObjectWrappers(Size->getImplicitObjectArgument());
  const Expr *Source = Object;
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Object))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
        Var && Var->hasLocalStorage() && Var->getInit())
      Source = stripObjectWrappers(Var->getInit());
  // `named_parameters().keys().size()`: a view of the collection.
  if (const auto *View = dyn_cast_or_null<CXXMemberCallExpr>(Source);
      View && tensors::isCollectionView(identifierName(View->getMethodDecl())))
    Source = stripObjectWrappers(View->getImplicitObjectArgument());
  const auto *Call = dyn_cast_or_null<CallExpr>(Source);
  return Call && training::parameterCollection(*Call) ? Object : nullptr;
}

/// `c` in `i < c.size()`, or in `i < n` with a local `n` initialized from
/// `c.size()`, when `c` is a parameter collection or a local initialized
/// from one; null otherwise.
const Expr *sizeBoundCollection(const Expr *Cond) {
  const Expr *Found = nullptr;
  containsWhere(Cond, [&](const Stmt *S) {
    Found = collectionOfSize(S);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S); !Found && Ref)
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && Var->hasLocalStorage() && Var->getInit())
        Found = collectionOfSize(stripObjectWrappers(Var->getInit()));
    return Found != nullptr;
  });
  return Found;
}

/// Whether \p S reads one of \p Vars, other than to ask whether it is
/// defined (`if (!p.defined()) continue;` skips nothing that could differ).
bool readsAny(const Stmt *S, llvm::ArrayRef<const Decl *> Vars) {
  if (!S)
    return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S);
      Member &&
      tensors::isDefinedQuery(identifierName(Member->getMethodDecl())))
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(
            stripObjectWrappers(Member->getImplicitObjectArgument()));
        Ref && llvm::is_contained(Vars, Ref->getDecl()))
      return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S);
      Ref && llvm::is_contained(Vars, Ref->getDecl()))
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return readsAny(Child, Vars); });
}

/// What one iteration of a parameter loop's body does as far as some target
/// statements go: runs one of them for sure, may end early without one
/// (a `continue` or `break` picked by a condition on the parameter), or
/// neither.
enum class Iteration { Neutral, Covered, Escapes };

/// Walks a parameter loop's body in evaluation order. A condition that reads
/// the loop's variables picks parameters, so its worse branch counts; one
/// that is the same for every parameter (`if (world_size == 1) continue;`)
/// is taken to go the same way for all of them, so its better branch
/// counts. Leaving the function (`return`, `throw`) ends the training
/// too, so it is not a skip.
class CoverageWalk {
public:
  CoverageWalk(llvm::function_ref<bool(const Stmt &)> IsTarget,
               llvm::ArrayRef<const Decl *> Vars)
      : IsTarget(IsTarget), Vars(Vars) {}

  Iteration walk(const Stmt *S, bool InLoop = false, bool InSwitch = false) {
    if (!S || isa<LambdaExpr>(S))
      return Iteration::Neutral;
    if (IsTarget(*S))
      return Iteration::Covered;
    if (isa<ContinueStmt>(S))
      return InLoop ? Iteration::Neutral : Iteration::Escapes;
    if (isa<BreakStmt>(S))
      return InLoop || InSwitch ? Iteration::Neutral : Iteration::Escapes;
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      Iteration First = sequence({If->getInit(), If->getConditionVariableDeclStmt(),
                                  If->getCond()},
                                 InLoop, InSwitch);
      if (First != Iteration::Neutral)
        return First;
      return branch(If->getCond(), walk(If->getThen(), InLoop, InSwitch),
                    walk(If->getElse(), InLoop, InSwitch));
    }
    if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(S)) {
      if (Iteration First = walk(Cond->getCond(), InLoop, InSwitch);
          First != Iteration::Neutral)
        return First;
      return branch(Cond->getCond(), walk(Cond->getTrueExpr(), InLoop, InSwitch),
                    walk(Cond->getFalseExpr(), InLoop, InSwitch));
    }
    if (const auto *Logical = dyn_cast<BinaryOperator>(S);
        Logical && Logical->isLogicalOp()) {
      if (Iteration First = walk(Logical->getLHS(), InLoop, InSwitch);
          First != Iteration::Neutral)
        return First;
      return branch(Logical->getLHS(), walk(Logical->getRHS(), InLoop, InSwitch),
                    Iteration::Neutral);
    }
    if (const auto *Switch = dyn_cast<SwitchStmt>(S)) {
      if (Iteration First = walk(Switch->getCond(), InLoop, InSwitch);
          First != Iteration::Neutral)
        return First;
      // Its cases may skip what any one of them does: only a `continue`
      // picked by the parameter counts.
      Iteration Body = walk(Switch->getBody(), InLoop, /*InSwitch=*/true);
      return Body == Iteration::Escapes && readsAny(Switch->getCond(), Vars)
                 ? Iteration::Escapes
                 : Iteration::Neutral;
    }
    if (const auto *Do = dyn_cast<DoStmt>(S))
      return walk(Do->getBody(), /*InLoop=*/true, false); // runs at least once
    if (isa<ForStmt, WhileStmt, CXXForRangeStmt>(S))
      return Iteration::Neutral; // may run zero times; its jumps stay in it
    llvm::SmallVector<const Stmt *, 8> Children(S->child_begin(), S->child_end());
    return sequence(Children, InLoop, InSwitch);
  }

private:
  Iteration sequence(llvm::ArrayRef<const Stmt *> Parts, bool InLoop,
                     bool InSwitch) {
    for (const Stmt *Part : Parts)
      if (Iteration R = walk(Part, InLoop, InSwitch); R != Iteration::Neutral)
        return R;
    return Iteration::Neutral;
  }

  Iteration branch(const Expr *Cond, Iteration Then, Iteration Else) const {
    if (Then == Else)
      return Then;
    auto Rank = [](Iteration I) {
      return I == Iteration::Escapes ? 0 : I == Iteration::Neutral ? 1 : 2;
    };
    bool Worse = readsAny(Cond, Vars);
    return (Rank(Then) < Rank(Else)) == Worse ? Then : Else;
  }

  llvm::function_ref<bool(const Stmt &)> IsTarget;
  llvm::ArrayRef<const Decl *> Vars;
};

/// The variables a parameter loop binds per iteration: the range loop's
/// variable (and its structured bindings), or the index loop's counter (the
/// integer its increment steps).
llvm::SmallVector<const Decl *, 4> iterationVariables(const Stmt &Loop) {
  llvm::SmallVector<const Decl *, 4> Vars;
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Loop)) {
    if (const VarDecl *Var = Range->getLoopVariable()) {
      Vars.push_back(Var);
      if (const auto *Decomposition = dyn_cast<DecompositionDecl>(Var))
        for (const BindingDecl *B : Decomposition->bindings())
          Vars.push_back(B);
    }
  } else if (const auto *For = dyn_cast<ForStmt>(&Loop)) {
    containsWhere(For->getInc(), [&](const Stmt *X) {
      const auto *Ref = dyn_cast<DeclRefExpr>(X);
      if (Ref && isa<VarDecl>(Ref->getDecl()) &&
          Ref->getType()->isIntegerType() &&
          !llvm::is_contained(Vars, Ref->getDecl()))
        Vars.push_back(Ref->getDecl());
      return false;
    });
  }
  return Vars;
}

/// Whether \p S works on this iteration's parameter: it reads the loop's
/// variables, or a local of the body initialised from them
/// (`std::vector<torch::Tensor> one{p.data()}; pg->broadcast(one)`).
bool concernsIteration(const Stmt &S, const Stmt &Body,
                       llvm::ArrayRef<const Decl *> Vars) {
  llvm::SmallVector<const Decl *, 8> Derived(Vars.begin(), Vars.end());
  containsWhere(&Body, [&](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D);
            Var && readsAny(Var->getInit(), Derived))
          Derived.push_back(Var);
    return false;
  });
  return readsAny(&S, Derived);
}

} // namespace

ParameterLoop enclosingParameterLoop(const Stmt &S, ASTContext &Context) {
  ParameterLoop Found;
  enclosingWhere(S, Context, [&](const DynTypedNode &Node,
                                 const DynTypedNode &Child) {
    const Stmt *From = Child.get<Stmt>();
    if (const auto *Range = Node.get<CXXForRangeStmt>();
        Range && From == Range->getBody() &&
        training::parameterLoopVariable(*Range))
      Found = {Range, Range->getRangeInit(), Range->getBody()};
    if (const auto *For = Node.get<ForStmt>();
        For && From == For->getBody() && For->getCond())
      if (const Expr *Collection = sizeBoundCollection(For->getCond()))
        Found = {For, Collection, For->getBody()};
    return Found.Loop != nullptr;
  });
  return Found;
}

bool skipsSomeParameters(const ParameterLoop &Loop, const Stmt &S,
                         llvm::function_ref<bool(const Stmt &)> AlsoCovers) {
  if (!Loop.Loop)
    return false;
  llvm::SmallVector<const Decl *, 4> Vars = iterationVariables(*Loop.Loop);
  auto IsTarget = [&](const Stmt &N) {
    return &N == &S || (AlsoCovers && AlsoCovers(N));
  };
  CoverageWalk Walk(IsTarget, Vars);
  return Walk.walk(Loop.Body) != Iteration::Covered &&
         concernsIteration(S, *Loop.Body, Vars);
}

namespace {

/// The variable a loop advances: a range-for's element, the counter or
/// iterator a `for` declares or assigns in its init, the pointer a `while`
/// walks along a list.
const VarDecl *advancedVariable(const Stmt &Loop) {
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Loop))
    return Range->getLoopVariable();
  // `while (layer) { ...; layer = layer->next; }`: a walk along a list of
  // the project's own layers advances the pointer it reads from.
  // The step is a statement of the body itself, not of a loop inside it,
  // and the condition tests the pointer.
  if (const auto *While = dyn_cast<WhileStmt>(&Loop)) {
    const auto *Block = dyn_cast_or_null<CompoundStmt>(While->getBody());
    if (!Block)
      return nullptr;
    for (const Stmt *S : Block->body()) {
      const auto *Assign = dyn_cast<BinaryOperator>(S);
      if (!Assign || Assign->getOpcode() != BO_Assign)
        continue;
      const auto *Var = dyn_cast_or_null<VarDecl>(referencedDecl(Assign->getLHS()));
      const auto *Next =
          dyn_cast<MemberExpr>(Assign->getRHS()->IgnoreParenImpCasts());
      if (Var && Var->getType()->isPointerType() && Next && Next->isArrow() &&
          referencedDecl(Next->getBase()) == Var &&
          mentions(While->getCond(), Var))
        return Var;
    }
    return nullptr;
  }
  const auto *For = dyn_cast<ForStmt>(&Loop);
  if (!For || !For->getInit())
    return nullptr;
  if (const auto *Decl = dyn_cast<DeclStmt>(For->getInit()))
    return Decl->isSingleDecl() ? dyn_cast<VarDecl>(Decl->getSingleDecl())
                                : nullptr;
  if (const auto *Assign = dyn_cast<BinaryOperator>(For->getInit());
      Assign && Assign->getOpcode() == BO_Assign)
    return dyn_cast_or_null<VarDecl>(referencedDecl(Assign->getLHS()));
  return nullptr;
}

/// The name an access spells: a variable, a member, a method called, the
/// container a subscript reads.
llvm::StringRef accessName(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return identifierName(Ref->getDecl());
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return identifierName(Member->getMemberDecl());
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E))
    return identifierName(Call->getMethodDecl());
  // `param->getGrad()` on an object of dependent type in a template.
  if (const auto *Dependent = dyn_cast<CXXDependentScopeMemberExpr>(E))
    if (const IdentifierInfo *Name = Dependent->getMember().getAsIdentifierInfo())
      return Name->getName();
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (isa<CXXDependentScopeMemberExpr>(Call->getCallee()->IgnoreImpCasts()))
      return accessName(Call->getCallee());
  if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
    return accessName(Subscript->getBase());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() > 0)
    return accessName(Op->getArg(0));
  return "";
}

class IterationTensor {
public:
  IterationTensor(const VarDecl &Var, const Stmt &Body)
      : Var(Var), Body(Body) {}

  /// \p S reads the loop's variable, directly or through locals of the
  /// body computed from it.
  bool dependsOnVariable(const Stmt *S, unsigned Depth = 0) const {
    if (!S || Depth > 6 || isa<LambdaExpr>(S))
      return false;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
      if (Ref->getDecl() == &Var)
        return true;
      const auto *Local = bodyLocal(Ref);
      return Local && dependsOnVariable(Local->getInit(), Depth + 1);
    }
    return llvm::any_of(S->children(), [&](const Stmt *Child) {
      return dependsOnVariable(Child, Depth);
    });
  }

  /// \p S holds an access whose name \p Names accepts (gradients or
  /// parameters) that depends on the variable, or a local of the body
  /// computed from one.
  bool carriesNamed(const Stmt *S, bool (*Names)(llvm::StringRef),
                    unsigned Depth = 0) const {
    if (!S || Depth > 6 || isa<LambdaExpr>(S))
      return false;
    if (const auto *E = dyn_cast<Expr>(S)) {
      llvm::StringRef Name = accessName(E);
      if (!Name.empty() && Names(Name) && dependsOnVariable(E))
        return true;
      if (const auto *Local = bodyLocal(dyn_cast<DeclRefExpr>(
              E->IgnoreParenImpCasts())))
        return carriesNamed(Local->getInit(), Names, Depth + 1) ||
               llvm::any_of(valuesWrittenInto(*Local), [&](const Expr *V) {
                 return carriesNamed(V, Names, Depth + 1);
               });
    }
    return llvm::any_of(S->children(), [&](const Stmt *Child) {
      return carriesNamed(Child, Names, Depth);
    });
  }

private:
  /// A local declared in the loop's body.
  const VarDecl *bodyLocal(const DeclRefExpr *Ref) const {
    const auto *Local = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Local || !Local->hasLocalStorage() || Local == &Var)
      return nullptr;
    return declaredWithin(*Local, Body) ? Local : nullptr;
  }

  /// What the body writes into \p Local after declaring it: `v = x`,
  /// `v[0] = x`, `v.push_back(x)` (a one-tensor list filled per parameter).
  llvm::SmallVector<const Expr *, 2> valuesWrittenInto(const VarDecl &Local) const {
    auto IsLocal = [&](const Expr *E) {
      if (const Expr *Base = subscriptBase(E))
        E = Base;
      const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      return Ref && Ref->getDecl() == &Local;
    };
    llvm::SmallVector<const Expr *, 2> Values;
    forEachStmt(&Body, [&](const Stmt *S) {
      if (const auto *Assign = dyn_cast<BinaryOperator>(S);
          Assign && Assign->getOpcode() == BO_Assign && IsLocal(Assign->getLHS()))
        Values.push_back(Assign->getRHS());
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
          Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
          IsLocal(Op->getArg(0)))
        Values.push_back(Op->getArg(1));
      if (const auto *Append = dyn_cast<CXXMemberCallExpr>(S);
          Append && Append->getNumArgs() == 1 &&
          llvm::is_contained({llvm::StringRef("push_back"), llvm::StringRef("emplace_back")},
                             identifierName(Append->getMethodDecl())) &&
          IsLocal(Append->getImplicitObjectArgument()))
        Values.push_back(Append->getArg(0));
    });
    return Values;
  }

  const VarDecl &Var;
  const Stmt &Body;
};

} // namespace

namespace {

/// Whether \p E carries the iteration's tensor, counting accesses whose
/// name \p Names accepts.
bool carriesIterationNamed(const Stmt &Loop, const Expr &E,
                           bool (*Names)(llvm::StringRef)) {
  const VarDecl *Var = advancedVariable(Loop);
  const Stmt *Body = isa<ForStmt>(Loop) ? cast<ForStmt>(Loop).getBody()
                     : isa<CXXForRangeStmt>(Loop)
                         ? cast<CXXForRangeStmt>(Loop).getBody()
                     : isa<WhileStmt>(Loop) ? cast<WhileStmt>(Loop).getBody()
                                            : nullptr;
  if (!Var || !Body)
    return false;
  IterationTensor Iteration(*Var, *Body);
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Loop))
    if (modules::namesGradients(accessName(Range->getRangeInit())) &&
        Iteration.dependsOnVariable(&E))
      return true;
  return Iteration.carriesNamed(&E, Names);
}

} // namespace

bool carriesIterationTensor(const Stmt &Loop, const Expr &E) {
  return carriesIterationNamed(Loop, E, &modules::namesSyncedTensor);
}

bool carriesIterationGradient(const Stmt &Loop, const Expr &E) {
  return carriesIterationNamed(Loop, E, &modules::namesGradients);
}

} // namespace clang::tidy::ddp
