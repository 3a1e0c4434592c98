//===--- GradientModel.cpp ------------------------------------------------===//

#include "GradientModel.h"
#include "utils/ASTUtils.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp {

namespace {

// Fixpoints over the units converge in a few rounds on real code; the caps
// only bound pathological inputs.
constexpr unsigned MaxRounds = 8;

/// A function of LibTorch, the standard library or boost: never a
/// hand-written gradient sync.
bool isLibraryFunction(const FunctionDecl &FD) {
  const NamespaceDecl *Outermost = nullptr;
  for (const DeclContext *DC = FD.getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Outermost = NS;
  return Outermost && llvm::StringSwitch<bool>(identifierName(Outermost))
                          .Cases("std", "torch", "at", "c10", "c10d", "boost",
                                 true)
                          .Default(false);
}

} // namespace

//===----------------------------------------------------------------------===//
// CodeUnit
//===----------------------------------------------------------------------===//

bool CodeUnit::contains(const Stmt *Outer, const Stmt *Inner) const {
  for (const Stmt *S = Inner; S; S = Parent.lookup(S))
    if (S == Outer)
      return true;
  return false;
}

const Stmt *CodeUnit::commonAncestor(const Stmt *A, const Stmt *B) const {
  for (const Stmt *S = A; S; S = Parent.lookup(S))
    if (contains(S, B))
      return S;
  return Body;
}

//===----------------------------------------------------------------------===//
// Collecting units
//===----------------------------------------------------------------------===//

GradientModel::GradientModel(const Vocabulary &Vocab, ASTContext &Context,
                             std::vector<SourceRange> Skipped)
    : Vocab(Vocab), Context(Context), Skipped(std::move(Skipped)) {}

void GradientModel::addFunction(const FunctionDecl &Declaration) {
  const FunctionDecl *FD = Declaration.getDefinition();
  // A lambda's body is a unit of the function it is written in.
  if (!FD || !FD->getBody() || ByFunction.count(FD) ||
      (isa<CXXMethodDecl>(FD) && cast<CXXMethodDecl>(FD)->getParent()->isLambda()))
    return;
  auto U = std::make_unique<CodeUnit>();
  U->Function = FD;
  U->Body = FD->getBody();
  U->Reported = !isInstantiatedPattern(*FD);
  CodeUnit &Ref = *U;
  Units.push_back(std::move(U));
  ByFunction[FD] = &Ref;
  collect(Ref, Ref.Body, nullptr);
}

void GradientModel::collect(CodeUnit &U, const Stmt *S, const Stmt *Parent) {
  if (!S)
    return;
  U.Stmts.push_back(S);
  if (Parent)
    U.Parent[S] = Parent;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    U.Calls.push_back(Call);
  if (const auto *E = dyn_cast<Expr>(S); E && E->containsErrors()) {
    const auto *Outer = dyn_cast_or_null<Expr>(Parent);
    if (!Outer || !Outer->containsErrors())
      U.Broken.push_back(S);
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    // Init-captures run here; the body is a unit of its own, run later.
    for (const Expr *Init : Lambda->capture_inits())
      collect(U, Init, S);
    if (ByLambda.count(Lambda) || !Lambda->getBody())
      return;
    auto Inner = std::make_unique<CodeUnit>();
    Inner->Function = Lambda->getCallOperator();
    Inner->Body = Lambda->getBody();
    Inner->Enclosing = &U;
    Inner->Reported = U.Reported;
    CodeUnit &Ref = *Inner;
    Units.push_back(std::move(Inner));
    ByLambda[Lambda] = &Ref;
    ByFunction[Ref.Function] = &Ref;
    collect(Ref, Ref.Body, nullptr);
    return;
  }
  for (const Stmt *Child : S->children())
    collect(U, Child, S);
}

const CodeUnit *GradientModel::unitOf(const FunctionDecl *FD) const {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *Def = FD->getDefinition())
    if (CodeUnit *U = ByFunction.lookup(Def))
      return U;
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    if (const FunctionDecl *Def = Pattern->getDefinition())
      return ByFunction.lookup(Def);
  return nullptr;
}

const CodeUnit *GradientModel::unitOf(const LambdaExpr *Lambda) const {
  return ByLambda.lookup(Lambda);
}

const CodeUnit *GradientModel::calleeUnit(const CallExpr &Call) const {
  return unitOf(Call.getDirectCallee());
}

llvm::ArrayRef<CallSite> GradientModel::callers(const CodeUnit &U) const {
  auto It = Callers.find(&U);
  if (It == Callers.end())
    return {};
  return It->second;
}

llvm::SmallVector<const CodeUnit *, 2>
GradientModel::callableUnits(const Expr *Callable) const {
  llvm::SmallVector<const CodeUnit *, 2> Out;
  const Expr *E = Callable;
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripObjectWrappers(E);
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
        Ctor && Ctor->getNumArgs() == 1) {
      E = Ctor->getArg(0); // std::function, a converting unique_ptr
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *Var = dyn_cast<VarDecl>(DRE->getDecl());
          Var && Var->hasLocalStorage() && Var->getInit()) {
        E = Var->getInit();
        continue;
      }
      if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
        if (const CodeUnit *U = unitOf(FD))
          Out.push_back(U);
      return Out;
    }
    break;
  }
  if (!E)
    return Out;
  if (const auto *Lambda = dyn_cast<LambdaExpr>(E)) {
    if (const CodeUnit *U = unitOf(Lambda))
      Out.push_back(U);
    return Out;
  }
  // A hook object (`std::make_unique<Hook>(this)`, `new Hook`): its
  // operator(), from the class or the template it was instantiated from.
  const CXXRecordDecl *RD = pointeeRecord(E->getType());
  for (const CXXRecordDecl *Class : {RD, RD ? RD->getTemplateInstantiationPattern() : nullptr})
    if (Out.empty() && Class && Class->hasDefinition())
      for (const CXXMethodDecl *M : Class->getDefinition()->methods())
        if (M->getOverloadedOperator() == OO_Call)
          if (const CodeUnit *U = unitOf(M))
            Out.push_back(U);
  // A library hook class wrapping a lambda:
  // `std::make_unique<LambdaPostHook>([&](auto &grads, auto &) {...})`.
  if (Out.empty()) {
    llvm::ArrayRef<const Expr *> Args;
    if (const auto *Call = dyn_cast<CallExpr>(E))
      Args = llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
    else if (const auto *New = dyn_cast<CXXNewExpr>(E))
      if (const CXXConstructExpr *Ctor = New->getConstructExpr())
        Args = llvm::ArrayRef(Ctor->getArgs(), Ctor->getNumArgs());
    for (const Expr *Arg : Args) {
      const Expr *Stripped = stripObjectWrappers(Arg);
      if (isa<LambdaExpr>(Stripped) || isa<CXXConstructExpr>(Stripped))
        Out.append(callableUnits(Stripped));
    }
  }
  return Out;
}

const Reachability &GradientModel::flow(const CodeUnit &U) const {
  std::unique_ptr<Reachability> &Flow = Flows[&U];
  if (!Flow)
    Flow = std::make_unique<Reachability>(U.Function, U.Body, Context);
  return *Flow;
}

const Stmt *GradientModel::widen(const CodeUnit &U, const Stmt *S,
                                 llvm::ArrayRef<const Stmt *> Barriers) const {
  const Stmt *Current = S;
  while (const Stmt *P = U.Parent.lookup(Current)) {
    if (P == U.Body || llvm::any_of(Barriers, [&](const Stmt *B) {
          return B && U.contains(P, B);
        }))
      break;
    // Entered only on some ranks: the ranks that skip it are not covered.
    const Expr *Condition = nullptr;
    if (const auto *If = dyn_cast<IfStmt>(P))
      Condition = If->getCond();
    else if (const auto *Switch = dyn_cast<SwitchStmt>(P))
      Condition = Switch->getCond();
    else if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(P))
      Condition = Cond->getCond();
    else if (const auto *Binary = dyn_cast<BinaryOperator>(P);
             Binary && Binary->isLogicalOp())
      Condition = Binary->getLHS();
    if (Condition && Condition != Current && isRankDependent(Condition))
      break;
    Current = P;
  }
  return Current;
}

bool GradientModel::isRankDependent(const Expr *Condition) const {
  llvm::SmallVector<const Stmt *, 16> Work{Condition};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    const NamedDecl *Named = nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (Vocab.returnsRank(*Call))
        return true;
      Named = Call->getDirectCallee();
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      Named = DRE->getDecl();
    } else if (const auto *ME = dyn_cast<MemberExpr>(S)) {
      Named = ME->getMemberDecl();
    }
    std::string Name = identifierName(Named).lower();
    llvm::StringRef N(Name);
    if ((N.contains("rank") && !N.contains("ranks")) || N == "is_main" ||
        N == "is_master" || N == "is_root" || N == "is_leader" ||
        N == "is_chief" || N == "is_primary")
      return true;
    Work.append(S->child_begin(), S->child_end());
  }
  return false;
}

bool GradientModel::hidesCode(
    const CodeUnit &U, llvm::function_ref<bool(llvm::StringRef)> Matches,
    const Stmt *Within) const {
  const SourceManager &SM = Context.getSourceManager();
  const LangOptions &LangOpts = Context.getLangOpts();
  // Raw-lexes [Begin, End) of one file; true at a matching token for which
  // Shown is false.
  auto Scan = [&](SourceLocation Begin, SourceLocation End,
                  llvm::function_ref<bool(SourceLocation)> Shown) {
    Begin = SM.getFileLoc(Begin);
    End = SM.getFileLoc(End);
    FileID File = SM.getFileID(Begin);
    if (File != SM.getFileID(End))
      return false;
    llvm::StringRef Buffer = SM.getBufferData(File);
    Lexer Raw(SM.getLocForStartOfFile(File), LangOpts, Buffer.begin(),
              Buffer.begin() + SM.getFileOffset(Begin), Buffer.end());
    unsigned Stop = SM.getFileOffset(End);
    // Names count where they are called (followed by `(` or a template's
    // `<`): a variable named `mean` is not a sync.
    Token Tok, Name;
    Name.startToken();
    while (!Raw.LexFromRawLexer(Tok) &&
           SM.getFileOffset(Tok.getLocation()) < Stop) {
      if (Name.is(tok::raw_identifier) && Tok.isOneOf(tok::l_paren, tok::less) &&
          Matches(Name.getRawIdentifier()) && !Shown(Name.getLocation()))
        return true;
      if (Tok.isOneOf(tok::slash, tok::slashequal) &&
          Matches(tok::getPunctuatorSpelling(Tok.getKind())) &&
          !Shown(Tok.getLocation()))
        return true;
      Name = Tok;
    }
    return false;
  };
  SourceRange Body = (Within ? Within : U.Body)->getSourceRange();
  for (SourceRange R : Skipped)
    if (SM.isPointWithin(R.getBegin(), Body.getBegin(), Body.getEnd()) &&
        Scan(R.getBegin(), R.getEnd(), [](SourceLocation) { return false; }))
      return true;
  if (!Context.getDiagnostics().hasErrorOccurred())
    return false;
  if (Spelled.empty())
    for (const auto &Unit : Units)
      for (const Stmt *S : Unit->Stmts) {
        SourceLocation Loc;
        if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
          Loc = DRE->getLocation();
        else if (const auto *ME = dyn_cast<MemberExpr>(S))
          Loc = ME->getMemberLoc();
        else if (const auto *Binary = dyn_cast<BinaryOperator>(S))
          Loc = Binary->getOperatorLoc();
        else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
          Loc = Op->getOperatorLoc();
        else if (const auto *Overload = dyn_cast<OverloadExpr>(S))
          Loc = Overload->getNameLoc();
        else if (const auto *Dependent = dyn_cast<CXXDependentScopeMemberExpr>(S))
          Loc = Dependent->getMemberLoc();
        if (Loc.isValid())
          Spelled.insert(SM.getSpellingLoc(Loc));
      }
  return Scan(Body.getBegin(), Body.getEnd(), [&](SourceLocation Loc) {
    return Spelled.contains(Loc);
  });
}

const CXXRecordDecl *GradientModel::memberOf(const CodeUnit &U) {
  const CodeUnit *Root = &U;
  while (Root->Enclosing)
    Root = Root->Enclosing;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Root->Function))
    return MD->getParent();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Syncs
//===----------------------------------------------------------------------===//

GradientModel::GradientBuffers
GradientModel::gradientBuffers(const CodeUnit &U, const CallExpr &Call) const {
  std::optional<CollectiveInfo> Info = Vocab.classifyCollective(Call);
  if (!Info || Info->Kind == CollectiveKind::Barrier ||
      Info->Kind == CollectiveKind::Scatter ||
      Info->Kind == CollectiveKind::AllToAll)
    return GradientBuffers::None;
  GradientBuffers Found = GradientBuffers::None;
  for (const Expr *Arg : Call.arguments()) {
    if (!(role(U, Arg) & GradientRole))
      continue;
    if (!isDiscardedCopy(U, Call, Arg))
      return GradientBuffers::Gradients;
    Found = GradientBuffers::OnlyCopies;
  }
  return Found;
}

namespace {

/// The body of a loop statement.
const Stmt *loopBody(const Stmt *Loop) {
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return For->getBody();
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return While->getBody();
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Do->getBody();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return Range->getBody();
  return nullptr;
}

/// A plain number: what `item<double>()` or `item()` (a c10::Scalar) reads
/// a tensor down to.
bool isNumber(QualType T) {
  T = T.getNonReferenceType();
  if (T->isArithmeticType() || T->isEnumeralType())
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD && RD->getName() == "Scalar";
}

} // namespace

bool GradientModel::valueKept(const CodeUnit &U, const Expr *E,
                              unsigned Depth) const {
  if (Depth > 3)
    return true;
  const Stmt *Current = E;
  while (const Stmt *P = U.Parent.lookup(Current)) {
    // The callee `t.norm` of `t.norm()` holds the object too.
    if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
            CXXBindTemporaryExpr, ExprWithCleanups, MemberExpr>(P)) {
      Current = P;
      continue;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(P);
        Construct && Construct->getNumArgs() == 1 &&
        Vocabulary::isTensor(Construct->getType())) {
      Current = P; // a copy or move of the tensor
      continue;
    }
    // `t.slice(...)`, `t.view_as(g)` go on as tensors; `t.norm().item()`
    // ends in a number.
    // Anything else (`data_ptr()`, `begin()`, an accessor) still reaches
    // the data.
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(P);
        Member && Member->getImplicitObjectArgument() &&
        U.contains(Member->getImplicitObjectArgument(), E)) {
      if (isNumber(Member->getType()))
        return false;
      if (!Vocabulary::isTensorType(Member->getType()))
        return true;
      Current = P;
      continue;
    }
    // `auto mean = sum / ws;`: kept when a use of the variable (or of its
    // structured bindings) is. A range loop's hidden `__range` holds what
    // the loop walks: kept.
    if (const auto *Decl = dyn_cast<DeclStmt>(P)) {
      if (const auto *Range =
              dyn_cast_or_null<CXXForRangeStmt>(U.Parent.lookup(Decl));
          Range && Range->getRangeStmt() == Decl)
        return true;
      for (const clang::Decl *D : Decl->decls()) {
        const auto *Var = dyn_cast<VarDecl>(D);
        if (!Var || !Var->getInit() || !U.contains(Var->getInit(), E))
          continue;
        llvm::SmallVector<const ValueDecl *, 4> Names{Var};
        if (const auto *Decomposition = dyn_cast<DecompositionDecl>(Var))
          for (const BindingDecl *B : Decomposition->bindings())
            Names.push_back(B);
        // A lambda capturing the variable names it in its capture list,
        // which counts as passing it on: a lambda's body is not followed.
        for (const Stmt *S : U.Stmts)
          if (const auto *Ref = dyn_cast<DeclRefExpr>(S);
              Ref && llvm::is_contained(Names, Ref->getDecl()) &&
              valueKept(U, Ref, Depth + 1))
            return true;
        return false;
      }
      return true;
    }
    // `v[0]` of a vector of tensors goes on as a tensor.
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P);
        Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
        U.contains(Op->getArg(0), E)) {
      if (isNumber(Op->getType()))
        return false;
      if (!Vocabulary::isTensorType(Op->getType()))
        return true;
      Current = P;
      continue;
    }
    // A statement of its own (`copy[0].div_(ws);`): the value stays where
    // it was.
    if (isa<CompoundStmt>(P))
      return false;
    if (const auto *If = dyn_cast<IfStmt>(P);
        If && (If->getThen() == Current || If->getElse() == Current))
      return false;
    if (Current == loopBody(P))
      return false;
    // An argument, an operand, an assignment, a return: passed on.
    return true;
  }
  return true;
}

void GradientModel::findGradientWork() {
  auto IsGradientCollective = [&](const CodeUnit &U, const Expr *E) {
    const auto *Call = dyn_cast_or_null<CallExpr>(
        E ? stripObjectWrappers(E) : nullptr);
    return Call && isGradientCollective(U, *Call);
  };
  for (unsigned Round = 0; Round < 2; ++Round)
    for (const auto &U : Units)
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
                   Member && storesIntoObject(identifierName(Call->getDirectCallee())) &&
                   Call->getNumArgs() >= 1)
            Target = Member->getImplicitObjectArgument(), Value = Call->getArg(0);
          if (Target && IsGradientCollective(*U, Value))
            if (const ValueDecl *D = rootDecl(Target))
              GradientWork.insert(D);
          // MPI_Iallreduce(..., &request): the request is the last argument.
          std::optional<CollectiveInfo> Info = Vocab.classifyCollective(*Call);
          if (Info && Info->Api == CollectiveApi::Mpi && Info->Asynchronous &&
              Call->getNumArgs() > 0 && isGradientCollective(*U, *Call))
            if (const ValueDecl *D = handleDecl(Call->getArg(Call->getNumArgs() - 1)))
              GradientWork.insert(D);
        }
      }
}

bool GradientModel::waitsOnGradientWork(const CallExpr &Call) const {
  if (!Vocabulary::isWaitCall(Call))
    return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    if (GradientWork.contains(rootDecl(Member->getImplicitObjectArgument())))
      return true;
  return llvm::any_of(Call.arguments(), [&](const Expr *Arg) {
    return GradientWork.contains(handleDecl(Arg));
  });
}

bool GradientModel::looksLikeCommunicator(const CXXRecordDecl *RD) {
  return nameContainsAny(identifierName(RD),
                         {"comm", "group", "dist", "collective", "mpi", "nccl",
                          "gloo", "world"});
}

bool GradientModel::looksLikeSync(llvm::StringRef Name) {
  return nameContainsAny(Name, {"reduce", "sum", "avg", "average", "mean",
                                "sync", "gather", "exchange", "aggregate",
                                "bcast", "broadcast"});
}

llvm::SmallVector<std::pair<const ParmVarDecl *, const Expr *>, 4>
GradientModel::boundArguments(const CallExpr &Call, const CodeUnit &Callee) {
  unsigned Offset =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee.Function);
  llvm::SmallVector<std::pair<const ParmVarDecl *, const Expr *>, 4> Out;
  for (unsigned I = Offset, N = Call.getNumArgs();
       I < N && I - Offset < Callee.Function->getNumParams(); ++I)
    Out.emplace_back(Callee.Function->getParamDecl(I - Offset), Call.getArg(I));
  return Out;
}

bool GradientModel::isOpaqueUserFunction(const FunctionDecl *FD) const {
  return FD && !unitOf(FD) && !isLibraryFunction(*FD);
}

bool GradientModel::isOpaqueSync(const CodeUnit &U, const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!isOpaqueUserFunction(FD) || Vocab.classifyCollective(Call))
    return false;
  auto IsCommunicator = [&](const Expr *Arg) {
    return Vocabulary::isCommunicatorType(Arg->getType()) ||
           Vocab.wrapperClassOfHandle(Arg->getType());
  };
  auto IsModel = [&](const Expr *Arg) {
    return (role(U, Arg) & (GradientRole | ParameterRole)) ||
           Vocabulary::moduleClassOfHandle(Arg->getType()) ||
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
  if (FD)
    if (auto It = Overriders.find(FD->getCanonicalDecl()); It != Overriders.end())
      if (llvm::any_of(It->second, [&](const CodeUnit *Override) {
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
    if (!llvm::StringSwitch<bool>(identifierName(Member->getMethodDecl()))
             .Cases("add_", "sub_", "addcdiv_", "addcmul_", "copy_", "set_",
                    true)
             .Default(false))
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
    for (const auto &U : Units) {
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

void GradientModel::findHooks() {
  for (const auto &U : Units) {
    // A custom autograd function whose backward all-reduces (a model's
    // gradient-sync layer).
    if (Vocabulary::isCustomFunctionBackward(*U->Function) &&
        Syncing.contains(U.get()))
      HookSyncs = true;
    const CXXRecordDecl *Owner = memberOf(*U);
    bool InWrapper = false;
    for (const DeclContext *DC = Owner; DC && !InWrapper; DC = DC->getParent())
      if (const auto *RD = dyn_cast<CXXRecordDecl>(DC))
        InWrapper = Vocab.isWrapperClass(*RD) ||
                    (RD->getTemplateInstantiationPattern() &&
                     Vocab.isWrapperClass(*RD->getTemplateInstantiationPattern()));
    if (InWrapper)
      continue; // armed by the wrapper's forward: see armsSync
    for (const CallExpr *Call : U->Calls) {
      if (const Expr *Callback = Vocabulary::gradientHookCallback(*Call))
        for (const CodeUnit *Hook : callableUnits(Callback))
          if (Syncing.contains(Hook))
            HookSyncs = true;
      // `install_allreduce_hooks(model, pg)`, defined in another file.
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && !unitOf(FD) && nameContainsAny(identifierName(FD), {"hook"}) &&
          isOpaqueSync(*U, *Call))
        HookSyncs = true;
    }
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
        identifierName(M) == "forward")
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

//===----------------------------------------------------------------------===//
// Distributed context
//===----------------------------------------------------------------------===//

bool GradientModel::hasDistributedClue(const CodeUnit &U) const {
  auto TypeClue = [&](QualType T) {
    if (T.isNull() || T->isDependentType())
      return false;
    if (Vocabulary::isCommunicatorType(T) || Vocab.wrapperClassOfHandle(T))
      return true;
    if (const CXXRecordDecl *RD = pointeeRecord(T);
        RD && Vocabulary::isDistributedSampler(*RD))
      return true;
    const CXXRecordDecl *Sampler = Vocabulary::samplerOfLoaderType(T);
    return Sampler && Vocabulary::isDistributedSampler(*Sampler);
  };
  for (const ParmVarDecl *P : U.Function->parameters())
    if (TypeClue(P->getType()))
      return true;
  if (const CXXRecordDecl *Class = memberOf(U); Class && Class->hasDefinition())
    for (const FieldDecl *Field : Class->getDefinition()->fields())
      if (TypeClue(Field->getType()))
        return true;
  for (const Stmt *S : U.Stmts) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D); Var && TypeClue(Var->getType()))
          return true;
      continue;
    }
    if (isa<DeclRefExpr>(S) || isa<MemberExpr>(S) || isa<CXXConstructExpr>(S))
      if (TypeClue(cast<Expr>(S)->getType()))
        return true;
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      continue;
    if (Vocab.classifyCollective(*Call) || Vocab.returnsRank(*Call) ||
        Vocab.rankOutputArgument(*Call) || Vocab.returnsWorldSize(*Call) ||
        Vocab.worldSizeOutputArgument(*Call))
      return true;
    if (const FunctionDecl *FD = Call->getDirectCallee())
      if (identifierName(FD).startswith("MPI_Init") || Vocab.isGradientSyncFunction(*FD))
        return true;
  }
  return false;
}

void GradientModel::findDistributedUnits() {
  for (const auto &U : Units)
    if (hasDistributedClue(*U))
      Distributed.insert(U.get());
  // Lambdas written in, and functions called from, a distributed unit.
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    for (const auto &U : Units) {
      if (Distributed.contains(U.get()))
        continue;
      bool Inherits = U->Enclosing && Distributed.contains(U->Enclosing);
      for (const CallSite &Site : callers(*U))
        Inherits |= Distributed.contains(Site.Caller);
      if (Inherits) {
        Distributed.insert(U.get());
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

void GradientModel::build() {
  for (const auto &U : Units)
    for (const CallExpr *Call : U->Calls)
      if (const CodeUnit *Callee = calleeUnit(*Call))
        Callers[Callee].push_back({U.get(), Call});
  for (const auto &U : Units)
    if (const auto *MD = dyn_cast<CXXMethodDecl>(U->Function)) {
      llvm::SmallVector<const CXXMethodDecl *, 4> Work(
          MD->overridden_methods().begin(), MD->overridden_methods().end());
      while (!Work.empty()) {
        const CXXMethodDecl *Base = Work.pop_back_val();
        Overriders[Base->getCanonicalDecl()].push_back(U.get());
        Work.append(Base->overridden_methods().begin(),
                    Base->overridden_methods().end());
      }
    }
  seedRoles();
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    for (const auto &U : Units)
      Changed |= propagateRoles(*U);
    if (!Changed)
      break;
  }
  findGradientWork();
  findSyncingUnits();
  findHooks();
  findDistributedUnits();
}

} // namespace clang::tidy::ddp
