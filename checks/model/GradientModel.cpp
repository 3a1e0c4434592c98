//===--- GradientModel.cpp ------------------------------------------------===//

#include "model/GradientModel.h"

#include "analysis/ParameterLoops.h"
#include "analysis/ASTUtils.h"
#include "vocabulary/UserNames.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

namespace {

// Fixpoints over the units converge in a few rounds on real code; the caps
// only bound pathological inputs.
constexpr unsigned MaxRounds = 8;

} // namespace

GradientModel::GradientModel(const Vocabulary &Vocab, ASTContext &Context,
                             std::vector<SourceRange> Skipped)
    : Vocab(Vocab), Context(Context), Graph(Context),
      Hidden(Context, Graph, std::move(Skipped)), Distributed(Vocab, Graph) {}

void GradientModel::build() {
  Graph.link();
  seedRoles();
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    for (const auto &U : units())
      Changed |= propagateRoles(*U);
    if (!Changed)
      break;
  }
  findGradientWork();
  findSyncingUnits();
  findHooks();
  Distributed.build();
}

//===----------------------------------------------------------------------===//
// Flow
//===----------------------------------------------------------------------===//

const Stmt *GradientModel::widen(const CodeUnit &U, const Stmt *S,
                                 llvm::ArrayRef<const Stmt *> Barriers) const {
  const Stmt *Current = S;
  while (const Stmt *P = U.Parent.lookup(Current)) {
    if (P == U.Body || llvm::any_of(Barriers, [&](const Stmt *B) {
          return B && U.contains(P, B);
        }))
      break;
    // Entered only on some ranks: the ranks that skip it are not covered;
    // entered only on some iterations (`if (++count == every)`,
    // `if (i % every == 0)`): the others are not either.
    const Expr *Condition = branchCondition(P);
    if (Condition && Condition != Current &&
        (Vocab.mentionsRank(Condition) || countsIterations(Condition)))
      break;
    Current = P;
  }
  return Current;
}

bool GradientModel::countsIterations(const Stmt *Condition) {
  if (!Condition || isa<LambdaExpr>(Condition))
    return false;
  if (const auto *Unary = dyn_cast<UnaryOperator>(Condition);
      Unary && Unary->isIncrementDecrementOp())
    return true;
  if (const auto *Binary = dyn_cast<BinaryOperator>(Condition);
      Binary && (Binary->getOpcode() == BO_Rem ||
                 Binary->isCompoundAssignmentOp()))
    return true;
  return llvm::any_of(Condition->children(), [](const Stmt *Child) {
    return countsIterations(Child);
  });
}

const Expr *GradientModel::branchCondition(const Stmt *P) {
  if (const auto *If = dyn_cast<IfStmt>(P))
    return If->getCond();
  if (const auto *Switch = dyn_cast<SwitchStmt>(P))
    return Switch->getCond();
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(P))
    return Cond->getCond();
  if (const auto *Binary = dyn_cast<BinaryOperator>(P);
      Binary && Binary->isLogicalOp())
    return Binary->getLHS();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Syncs
//===----------------------------------------------------------------------===//

void GradientModel::findGradientWork() {
  auto IsGradientCollective = [&](const CodeUnit &U, const Expr *E) {
    const auto *Call = dyn_cast_or_null<CallExpr>(
        E ? stripObjectWrappers(E) : nullptr);
    return Call && isGradientCollective(U, *Call);
  };
  for (unsigned Round = 0; Round < 2; ++Round)
    for (const auto &U : units())
      for (const Stmt *S : U->Stmts) {
        if (const auto *DS = dyn_cast<DeclStmt>(S)) {
          for (const Decl *D : DS->decls())
            if (const auto *Var = dyn_cast<VarDecl>(D))
              if (IsGradientCollective(*U, Var->getInit()))
                GradientWork.insert(Var);
        } else if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
          if (Binary->getOpcode() == BO_Assign &&
              IsGradientCollective(*U, Binary->getRHS()))
            if (const ValueDecl *D = rootDecl(Binary->getLHS()))
              GradientWork.insert(D);
        } else if (const auto *For = dyn_cast<CXXForRangeStmt>(S)) {
          if (GradientWork.contains(rootDecl(For->getRangeInit())))
            GradientWork.insert(For->getLoopVariable());
        } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
          const Expr *Target = nullptr, *Value = nullptr;
          if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
              Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
            Target = Op->getArg(0), Value = Op->getArg(1);
          else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
                   Member &&
                   flow::storesIntoObject(
                       identifierName(Call->getDirectCallee())) &&
                   Call->getNumArgs() >= 1)
            Target = Member->getImplicitObjectArgument(), Value = Call->getArg(0);
          if (Target && IsGradientCollective(*U, Value))
            if (const ValueDecl *D = rootDecl(Target))
              GradientWork.insert(D);
          // MPI_Iallreduce(..., &request).
          if (const Expr *Request = Vocab.requestArgument(*Call);
              Request && isGradientCollective(*U, *Call))
            if (const ValueDecl *D = handleDecl(Request))
              GradientWork.insert(D);
        }
      }
}

bool GradientModel::waitsOnGradientWork(const CallExpr &Call) const {
  if (!collectives::isWaitCall(Call))
    return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    if (GradientWork.contains(rootDecl(Member->getImplicitObjectArgument())))
      return true;
  return llvm::any_of(Call.arguments(), [&](const Expr *Arg) {
    return GradientWork.contains(handleDecl(Arg));
  });
}

std::optional<CollectiveInfo>
GradientModel::collectiveOf(const CodeUnit &U, const CallExpr &Call) const {
  if (std::optional<CollectiveInfo> Info = Vocab.classifyCollective(Call))
    return Info;
  // An instantiated template is analysed in its instantiations.
  const FunctionDecl *Callee = nullptr;
  return U.Reported ? collectives::classifyUnresolvedCollective(Call, Callee)
                    : std::nullopt;
}

bool GradientModel::looksLikeCommunicator(const CXXRecordDecl *RD) {
  return usernames::namedLikeCommunicator(identifierName(RD));
}

bool GradientModel::looksLikeSync(llvm::StringRef Name) {
  return usernames::namedLikeSync(Name);
}

bool GradientModel::isOpaqueUserFunction(const FunctionDecl *FD) const {
  return FD && !unitOf(FD) && !flow::isLibraryFunction(*FD);
}

bool GradientModel::isOpaqueSync(const CodeUnit &U, const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!isOpaqueUserFunction(FD) || Vocab.classifyCollective(Call))
    return false;
  auto IsCommunicator = [&](const Expr *Arg) {
    return collectives::isCommunicatorType(Arg->getType()) ||
           Vocab.wrapperClassOfHandle(Arg->getType());
  };
  auto IsModel = [&](const Expr *Arg) {
    return (role(U, Arg) & (GradientRole | ParameterRole)) ||
           modules::moduleClassOfHandle(Arg->getType()) ||
           Vocab.wrapperClassOfHandle(Arg->getType());
  };
  // Handed a communicator (or a wrapper) and, in another argument, the
  // parameters, their gradients or a module: `sync(pg, model->parameters())`.
  for (unsigned I = 0, N = Call.getNumArgs(); I < N; ++I)
    if (IsCommunicator(Call.getArg(I)))
      for (unsigned J = 0; J < N; ++J)
        if (J != I && IsModel(Call.getArg(J)))
          return true;
  // Named like a collective and handed the model or its gradients:
  // `fw::allreduce(grads)`, `strategy->sync(model)`; or a communicator's
  // method handed gradients: `comm.sum(p.mutable_grad())`.
  if (looksLikeSync(identifierName(FD)) &&
      llvm::any_of(Call.arguments(), IsModel))
    return true;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return MD && looksLikeCommunicator(MD->getParent()) &&
         llvm::any_of(Call.arguments(), [&](const Expr *Arg) {
           return role(U, Arg) & GradientRole;
         });
}

bool GradientModel::isGradientSync(const CodeUnit &U, const CallExpr &Call,
                                   bool Guesses) const {
  if (isGradientCollective(U, Call) || waitsOnGradientWork(Call))
    return true;
  const FunctionDecl *FD = Call.getDirectCallee();
  if (FD ? Vocab.isGradientSyncFunction(*FD)
         : Vocab.isGradientSyncName(spelledCalleeName(Call)))
    return true;
  // A virtual call syncs when an override defined here does.
  if (FD && llvm::any_of(Graph.overriders(*FD), [&](const CodeUnit *Override) {
        return Syncing.contains(Override);
      }))
    return true;
  if (const CodeUnit *Callee = calleeUnit(Call))
    return Syncing.contains(Callee);
  return Guesses && isOpaqueSync(U, Call);
}

bool GradientModel::isStep(const CodeUnit &U, const CallExpr &Call) const {
  if (Vocab.isOptimizerStep(Call))
    return true;
  const Expr *Target = nullptr;
  llvm::ArrayRef<const Expr *> Values;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    if (!flow::updatesInPlace(identifierName(Member->getMethodDecl())))
      return false;
    Target = Member->getImplicitObjectArgument();
    Values = llvm::ArrayRef(Call.getArgs(), Call.getNumArgs());
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    if (!Op->isAssignmentOp() || Op->getNumArgs() != 2)
      return false;
    Target = Op->getArg(0);
    Values = llvm::ArrayRef(Call.getArgs() + 1, 1);
  } else {
    return false;
  }
  return role(U, Target) == ParameterRole &&
         llvm::any_of(Values, [&](const Expr *Value) {
           return role(U, Value) & GradientRole;
         });
}

bool GradientModel::isParameterSync(const CodeUnit &U,
                                    const CallExpr &Call) const {
  if (const CodeUnit *Callee = calleeUnit(Call))
    if (ParameterSyncing.contains(Callee))
      return true;
  // Parameters exchanged with another rank, one send or receive per
  // parameter (elastic averaging, gossip): the replicas are pulled together
  // by their parameters, not by their gradients.
  if (Vocab.isPointToPoint(Call))
    return enclosingParameterLoop(Call, Context).Loop != nullptr;
  std::optional<CollectiveInfo> Info = Vocab.classifyCollective(Call);
  if (!Info || (Info->Kind != CollectiveKind::AllReduce &&
                Info->Kind != CollectiveKind::Broadcast))
    return false;
  unsigned Roles = NoRole;
  for (const Expr *Arg : Call.arguments())
    Roles |= role(U, Arg);
  return (Roles & ParameterRole) && !(Roles & GradientRole);
}

void GradientModel::findSyncingUnits() {
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    for (const auto &U : units()) {
      // With broken code around, a collective's buffers may have lost their
      // roles: any reducing or gathering collective counts.
      auto Syncs = [&](const CallExpr *Call) {
        if (isGradientSync(*U, *Call))
          return true;
        std::optional<CollectiveInfo> Info = Vocab.classifyCollective(*Call);
        return !U->Broken.empty() && Info &&
               Info->Kind != CollectiveKind::Barrier;
      };
      if (!Syncing.contains(U.get()) && llvm::any_of(U->Calls, Syncs)) {
        Syncing.insert(U.get());
        Changed = true;
      }
      if (!ParameterSyncing.contains(U.get()) &&
          llvm::any_of(U->Calls, [&](const CallExpr *Call) {
            return isParameterSync(*U, *Call);
          })) {
        ParameterSyncing.insert(U.get());
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
}

//===----------------------------------------------------------------------===//
// Hooks and wrappers
//===----------------------------------------------------------------------===//

bool GradientModel::inWrapper(const CodeUnit &U) const {
  for (const DeclContext *DC = memberOf(U); DC; DC = DC->getParent())
    if (const auto *RD = dyn_cast<CXXRecordDecl>(DC))
      if (Vocab.isWrapperClass(*RD) ||
          (RD->getTemplateInstantiationPattern() &&
           Vocab.isWrapperClass(*RD->getTemplateInstantiationPattern())))
        return true;
  return false;
}

void GradientModel::findHooks() {
  // Custom autograd functions whose backward all-reduces (a model's
  // gradient-sync layer).
  llvm::SmallVector<const CXXRecordDecl *, 2> SyncingFunctions;
  for (const auto &U : units())
    if (training::isCustomFunctionBackward(*U->Function) &&
        Syncing.contains(U.get()))
      SyncingFunctions.push_back(cast<CXXMethodDecl>(U->Function)->getParent());
  auto AppliesSyncingFunction = [&](const FunctionDecl *FD) {
    // `AllreduceGradient::apply(x)`: a static member of such a function.
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
    return MD && MD->isStatic() &&
           llvm::any_of(SyncingFunctions, [&](const CXXRecordDecl *RD) {
             return RD == MD->getParent() || RD->isDerivedFrom(MD->getParent());
           });
  };
  for (const auto &U : units()) {
    if (inWrapper(*U))
      continue; // armed by the wrapper's forward: see armsSync
    auto Installs = [&](const CallExpr *Call) {
      if (const Expr *Callback = training::gradientHookCallback(*Call))
        if (llvm::any_of(callableUnits(Callback), [&](const CodeUnit *Hook) {
              return Syncing.contains(Hook);
            }))
          return true;
      // `install_allreduce_hooks(model, pg)`, defined in another file.
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && !unitOf(FD) && nameContainsAny(identifierName(FD), {"hook"}) &&
          isGradientSync(*U, *Call))
        return true;
      return AppliesSyncingFunction(FD);
    };
    if (llvm::any_of(U->Calls, Installs))
      HookInstallers.insert(U.get());
  }
}

bool GradientModel::needsExplicitSync(const CXXRecordDecl &Wrapper) const {
  if (auto It = ExplicitSync.find(&Wrapper); It != ExplicitSync.end())
    return It->second;
  // A public method (other than forward) that syncs, in the class or in the
  // template it was instantiated from: `synchronize_gradients()`.
  auto IsSyncMethod = [&](const CXXMethodDecl *M) {
    if (M->getAccess() != AS_public || isa<CXXConstructorDecl>(M) ||
        isa<CXXDestructorDecl>(M) || M->isOverloadedOperator() ||
        modules::isForwardMethodName(identifierName(M)))
      return false;
    const CodeUnit *U = unitOf(M);
    return (U && Syncing.contains(U)) || Vocab.isGradientSyncFunction(*M);
  };
  bool Explicit = false;
  for (const CXXRecordDecl *RD : {&Wrapper, Wrapper.getTemplateInstantiationPattern()})
    if (RD && RD->hasDefinition())
      Explicit |= llvm::any_of(RD->getDefinition()->methods(), IsSyncMethod);
  ExplicitSync[&Wrapper] = Explicit;
  return Explicit;
}

bool GradientModel::armsSync(const CallExpr &Call) const {
  const Expr *Receiver = Vocab.forwardReceiver(Call);
  if (!Receiver)
    return false;
  const CXXRecordDecl *Wrapper = Vocab.wrapperClassOfHandle(Receiver->getType());
  return Wrapper && !needsExplicitSync(*Wrapper);
}

} // namespace clang::tidy::ddp
