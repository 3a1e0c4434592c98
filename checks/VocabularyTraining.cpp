//===--- VocabularyTraining.cpp - parameters, gradients and steps ---------===//
//
// A module's parameters and their gradients, loops over them, the
// backward pass, optimizer steps and their closures, and the hooks
// autograd runs during backward().
//
//===----------------------------------------------------------------------===//

#include "Vocabulary.h"
#include "VocabularyInternal.h"
#include "utils/AstWalk.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"

namespace clang::tidy::ddp {

//===----------------------------------------------------------------------===//
// Parameters and gradients
//===----------------------------------------------------------------------===//

std::optional<ParameterCollection>
Vocabulary::parameterCollection(const CallExpr &Call) {
  // In a template, on a module of dependent type (`model_->parameters()` in
  // `Trainer<Model>`): the name alone.
  llvm::StringRef Dependent = dependentMemberName(Call);
  if (Dependent == "parameters" && Call.getNumArgs() <= 1)
    return ParameterCollection::Parameters;
  if (Dependent == "named_parameters" && Call.getNumArgs() <= 1)
    return ParameterCollection::NamedParameters;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return std::nullopt;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() || !isModuleClass(*MD->getParent()))
    return std::nullopt;
  if (MD->getName() == "parameters")
    return ParameterCollection::Parameters;
  if (MD->getName() == "named_parameters")
    return ParameterCollection::NamedParameters;
  return std::nullopt;
}

bool Vocabulary::isGradAccess(const CallExpr &Call) {
  llvm::StringRef Dependent = dependentMemberName(Call);
  if ((Dependent == "grad" || Dependent == "mutable_grad") &&
      Call.getNumArgs() == 0)
    return true;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return false;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() ||
      (MD->getName() != "grad" && MD->getName() != "mutable_grad"))
    return false;
  return isSameOrDerivedFrom(*MD->getParent(), "at::TensorBase") ||
         isSameOrDerivedFrom(*MD->getParent(), "at::Tensor");
}

const VarDecl *Vocabulary::parameterLoopVariable(const CXXForRangeStmt &Loop) {
  const Expr *Range = stripObjectWrappers(Loop.getRangeInit());
  const auto *Call = dyn_cast_or_null<CallExpr>(Range);
  if (!Call || !parameterCollection(*Call))
    return nullptr;
  return Loop.getLoopVariable();
}

namespace {
/// `c` in `i < c.size()` when `c` is a parameter collection, or a local
/// initialized from one; null otherwise.
const Expr *sizeBoundCollection(const Expr *Cond) {
  const Expr *Found = nullptr;
  containsWhere(Cond, [&](const Stmt *S) {
    const auto *Size = dyn_cast<CXXMemberCallExpr>(S);
    if (!Size || identifierName(Size->getMethodDecl()) != "size")
      return false;
    const Expr *Object = stripObjectWrappers(Size->getImplicitObjectArgument());
    const Expr *Source = Object;
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Object))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && Var->hasLocalStorage() && Var->getInit())
        Source = stripObjectWrappers(Var->getInit());
    const auto *Call = dyn_cast_or_null<CallExpr>(Source);
    if (!Call || !Vocabulary::parameterCollection(*Call))
      return false;
    Found = Object;
    return true;
  });
  return Found;
}

/// Whether \p S reads one of \p Vars, other than to ask whether it is
/// defined (`if (!p.defined()) continue;` skips nothing that could differ).
bool readsAny(const Stmt *S, llvm::ArrayRef<const Decl *> Vars) {
  if (!S)
    return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S);
      Member && identifierName(Member->getMethodDecl()) == "defined")
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

ParameterLoop Vocabulary::enclosingParameterLoop(const Stmt &S,
                                                 ASTContext &Context) {
  DynTypedNode Child = DynTypedNode::create(S);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(Child);
    if (Parents.empty() || Parents[0].get<FunctionDecl>())
      return {};
    DynTypedNode Node = Parents[0];
    const Stmt *From = Child.get<Stmt>();
    if (const auto *Range = Node.get<CXXForRangeStmt>();
        Range && From == Range->getBody() && parameterLoopVariable(*Range))
      return {Range, Range->getRangeInit(), Range->getBody()};
    if (const auto *For = Node.get<ForStmt>();
        For && From == For->getBody() && For->getCond())
      if (const Expr *Collection = sizeBoundCollection(For->getCond()))
        return {For, Collection, For->getBody()};
    Child = Node;
  }
  return {};
}

bool Vocabulary::skipsSomeParameters(
    const ParameterLoop &Loop, const Stmt &S,
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

const VarDecl *Vocabulary::parameterTensorVariable(const Expr *E) {
  E = stripObjectWrappers(E);
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    if (MD && MD->getDeclName().isIdentifier() && MD->getName() == "value")
      E = stripObjectWrappers(Member->getImplicitObjectArgument());
  }
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Training steps
//===----------------------------------------------------------------------===//

const Expr *Vocabulary::backwardRoot(const CallExpr &Call) {
  if (dependentMemberName(Call) == "backward")
    return memberCallObject(Call);
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() || FD->getName() != "backward")
    return nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXRecordDecl *Class = Member->getMethodDecl()->getParent();
    if (isSameOrDerivedFrom(*Class, "at::TensorBase") ||
        isSameOrDerivedFrom(*Class, "at::Tensor"))
      return Member->getImplicitObjectArgument();
    return nullptr;
  }
  if (qualifiedName(*FD) == "torch::autograd::backward" && Call.getNumArgs() >= 1)
    return Call.getArg(0);
  return nullptr;
}

bool Vocabulary::isOptimizerClass(const CXXRecordDecl &RD) const {
  return matchesSelfOrBase(OptimizerTypes, RD);
}

bool Vocabulary::isOptimizerStep(const CallExpr &Call) const {
  // `opt_.step()` on an optimizer whose class is a template parameter: the
  // object's name says it is one.
  if (dependentMemberName(Call) == "step") {
    const ValueDecl *Object = handleDecl(memberCallObject(Call));
    std::string Name = identifierName(Object).lower();
    llvm::StringRef Trimmed = llvm::StringRef(Name).trim('_');
    return Trimmed.contains("optim") || Trimmed == "opt";
  }
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member)
    return false;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  return MD && MD->getDeclName().isIdentifier() && MD->getName() == "step" &&
         isOptimizerClass(*MD->getParent());
}

const Expr *Vocabulary::optimizerStepClosure(const CallExpr &Call) const {
  if (!isOptimizerStep(Call) || Call.getNumArgs() < 1 ||
      isa<CXXDefaultArgExpr>(Call.getArg(0)))
    return nullptr;
  const Expr *E = Call.getArg(0);
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripObjectWrappers(E);
    if (isa<CXXNullPtrLiteralExpr>(E) || isa<GNUNullExpr>(E))
      return nullptr;
    // std::function's converting constructor, from a lambda or a variable.
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
      if (Ctor->getNumArgs() != 1)
        return E;
      E = Ctor->getArg(0);
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (VD->hasLocalStorage() && VD->getInit()) {
          E = VD->getInit();
          continue;
        }
    return E;
  }
  return E;
}

//===----------------------------------------------------------------------===//
// Gradient hooks
//===----------------------------------------------------------------------===//

const Expr *Vocabulary::gradientHookCallback(const CallExpr &Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member || Call.getNumArgs() < 1)
    return nullptr;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier())
    return nullptr;
  llvm::StringRef Name = MD->getName();
  const CXXRecordDecl &Class = *MD->getParent();
  bool TensorHook = Name == "register_hook" &&
                    (isSameOrDerivedFrom(Class, "at::TensorBase") ||
                     isSameOrDerivedFrom(Class, "at::Tensor"));
  bool NodeHook = (Name == "add_post_hook" || Name == "add_pre_hook") &&
                  isSameOrDerivedFrom(Class, "torch::autograd::Node");
  return TensorHook || NodeHook ? stripObjectWrappers(Call.getArg(0)) : nullptr;
}

bool Vocabulary::isCustomFunctionBackward(const FunctionDecl &FD) {
  const auto *MD = dyn_cast<CXXMethodDecl>(&FD);
  return MD && MD->isStatic() && MD->getDeclName().isIdentifier() &&
         MD->getName() == "backward" &&
         findSpecialization(MD->getParent(), "torch::autograd::Function");
}

} // namespace clang::tidy::ddp
