//===--- PerParameterAllreduceCheck.cpp - ddp-per-parameter-allreduce -----===//

#include "ddp/PerParameterAllreduceCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/ParameterLoops.h"
#include "analysis/Reachability.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

// Bound-node ids.
constexpr llvm::StringLiteral CollectiveId = "collective";
constexpr llvm::StringLiteral HelperId = "helper";
constexpr llvm::StringLiteral RecoveredId = "recovered";

/// A call clang could not type-check (ASTMatchers has no matcher for it).
const internal::VariadicDynCastAllOfMatcher<Stmt, RecoveryExpr> recoveryExpr;

bool carries(const Stmt *E, const VarDecl &Element, bool ElementItself,
             const Stmt &Scope, unsigned Depth = 0);

/// Whether \p Within appends to \p Container (`push_back`, `emplace_back`)
/// something that carries the per-iteration tensor.
bool appendsCarried(const Stmt *Within, const ValueDecl &Container,
                    const VarDecl &Element, bool ElementItself,
                    const Stmt &Scope, unsigned Depth) {
  if (!Within || isa<LambdaExpr>(Within))
    return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Within)) {
    llvm::StringRef Name = identifierName(Member->getMethodDecl());
    if ((Name == "push_back" || Name == "emplace_back") &&
        referencedDecl(Member->getImplicitObjectArgument()) == &Container &&
        llvm::any_of(Member->arguments(), [&](const Expr *Arg) {
          return carries(Arg, Element, ElementItself, Scope, Depth + 1);
        }))
      return true;
  }
  for (const Stmt *Child : Within->children())
    if (appendsCarried(Child, Container, Element, ElementItself, Scope, Depth))
      return true;
  return false;
}

/// Whether E carries the per-iteration tensor: the gradient of Element
/// (`p.grad()`, `p.value().grad()`), Element itself when it is the tensor
/// being synchronised, a local of Scope computed from one of those
/// (`auto g = p.grad(); std::vector<at::Tensor> ts{g};`), or the element
/// just appended to a container declared outside the loop
/// (`buffers.push_back({p.grad()}); pg.allreduce(buffers.back());`).
bool carries(const Stmt *E, const VarDecl &Element, bool ElementItself,
             const Stmt &Scope, unsigned Depth) {
  if (!E)
    return false;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E);
      Member && Depth < 4 && identifierName(Member->getMethodDecl()) == "back")
    if (const ValueDecl *Container =
            referencedDecl(Member->getImplicitObjectArgument()))
      if (appendsCarried(&Scope, *Container, Element, ElementItself, Scope,
                         Depth))
        return true;
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (training::isGradAccess(*Call) &&
        training::parameterTensorVariable(
            modules::memberCallObject(*Call)) ==
            &Element)
      return true;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (Ref->getDecl() == &Element)
      return ElementItself;
    if (const auto *Local = dyn_cast<VarDecl>(Ref->getDecl()))
      if (Depth < 4 && Local->hasLocalStorage() && Local->hasInit() &&
          declaredWithin(*Local, Scope))
        return carries(Local->getInit(), Element, ElementItself, Scope,
                       Depth + 1);
    return false;
  }
  if (isa<LambdaExpr>(E))
    return false; // its body runs elsewhere
  for (const Stmt *Child : E->children())
    if (carries(Child, Element, ElementItself, Scope, Depth))
      return true;
  return false;
}

/// The arguments of a call, or of a call clang could not type-check and
/// kept as a recovery expression (its callee is its first child).
llvm::SmallVector<const Expr *, 4> argumentsOf(const Expr &Call) {
  llvm::SmallVector<const Expr *, 4> Out;
  if (const auto *C = dyn_cast<CallExpr>(&Call))
    Out.append(C->arg_begin(), C->arg_end());
  else if (const auto *Recovery = dyn_cast<RecoveryExpr>(&Call))
    if (std::optional<RecoveredCall> Recovered = recoveredCall(*Recovery))
      Out.append(Recovered->Arguments.begin(), Recovered->Arguments.end());
  return Out;
}

bool carriesInArguments(const Expr &Call, const VarDecl &Element,
                        bool ElementItself, const Stmt &Scope) {
  // c10d: the tensors are the arguments; the object is the group.
  for (const Expr *Arg : argumentsOf(Call))
    if (carries(Arg, Element, ElementItself, Scope))
      return true;
  return false;
}

/// carriesIterationTensor for one of the arguments of \p Call.
bool carriesIterationTensorInArguments(const Stmt &Loop, const Expr &Call) {
  return llvm::any_of(argumentsOf(Call), [&](const Expr *Arg) {
    return carriesIterationTensor(Loop, *Arg);
  });
}

/// carriesIterationGradient for one of the arguments of \p Call.
bool carriesIterationGradientInArguments(const Stmt &Loop, const Expr &Call) {
  return llvm::any_of(argumentsOf(Call), [&](const Expr *Arg) {
    return carriesIterationGradient(Loop, *Arg);
  });
}

/// Whether \p Inner names a variable the loop \p Loop declares (its
/// range-for element, the counters of its init), a local of its body made
/// from one (`auto ws = layer->get_weights();`), or a local of its body
/// made from nothing outside the loop (`Net model(1024, 512);`, a new
/// model each time round): the loop then walks what Inner works on (`for
/// (auto &m : modules) for (auto &p : m->parameters())`, `for (auto &layer
/// : layers) sync(layer)`), or hands out a new start each time; it does not
/// repeat the same thing.
bool walksWith(const Stmt &Loop, const Stmt &Inner) {
  llvm::SmallPtrSet<const Decl *, 8> Declared;
  const Stmt *Body = nullptr;
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Loop)) {
    Declared.insert(Range->getLoopVariable());
    Body = Range->getBody();
  } else if (const auto *For = dyn_cast<ForStmt>(&Loop)) {
    if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit()))
      Declared.insert(Init->decl_begin(), Init->decl_end());
    Body = For->getBody();
  }
  auto Names = [&](const Stmt *Where) {
    return containsWhere(Where, [&](const Stmt *S) {
      const auto *Ref = dyn_cast<DeclRefExpr>(S);
      return Ref && Declared.contains(Ref->getDecl());
    });
  };
  // Locals of the body, in order, made from what the loop walks or from
  // nothing declared outside it.
  llvm::SmallPtrSet<const Decl *, 16> Inside(Declared.begin(), Declared.end());
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *Decls = dyn_cast<DeclStmt>(S))
      Inside.insert(Decls->decl_begin(), Decls->decl_end());
  });
  auto Outside = [&](const Stmt *Where) {
    return containsWhere(Where, [&](const Stmt *S) {
      const auto *Ref = dyn_cast<DeclRefExpr>(S);
      const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      return Var && Var->hasLocalStorage() && !Inside.contains(Var);
    });
  };
  // The body's own statements, not those of loops nested in it.
  llvm::SmallVector<const Stmt *, 8> Statements;
  if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Body))
    Statements.append(Block->body_begin(), Block->body_end());
  for (const Stmt *S : Statements)
    if (const auto *Decls = dyn_cast<DeclStmt>(S))
      for (const Decl *D : Decls->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D);
            Var && Var->getInit() &&
            (Names(Var->getInit()) || !Outside(Var->getInit())))
          Declared.insert(Var);
  return Names(&Inner);
}

/// Whether \p S runs more than once where it stands: inside a loop that
/// does not walk with it, or in a lambda (which runs where it is called).
/// Top receives the outermost statement of its function otherwise.
bool repeatsWithin(const Stmt &S, ASTContext &Context, const Stmt *&Top) {
  Top = &S;
  for (unsigned Depth = 0; Depth < 128; ++Depth) {
    const Stmt *Parent = parentStmtAcrossDecls(*Top, Context);
    if (!Parent)
      return false;
    if ((isLoopStmt(Parent) && !walksWith(*Parent, S)) ||
        isa<LambdaExpr>(Parent))
      return true;
    Top = Parent;
  }
  return false;
}

/// Whether this unit calls \p Function from inside a loop.
bool calledInLoop(const FunctionDecl &Function, ASTContext &Context) {
  const FunctionDecl *Target = Function.getCanonicalDecl();
  bool Found = false;
  forEachUserCall(Context, [&](const FunctionDecl &, const CallExpr &Call) {
    const FunctionDecl *Callee = Call.getDirectCallee();
    const Stmt *Top = nullptr;
    Found = Found || (Callee && Callee->getCanonicalDecl() == Target &&
                      repeatsWithin(Call, Context, Top));
  });
  return Found;
}

/// What a collective of kind \p K, issued once per parameter, does with the
/// ranks' values, the same question whether the loop issues it or a helper
/// it calls does: a barrier carries nothing; a broadcast or scatter hands
/// one rank's values out, which costs a round per tensor only where its
/// loop runs again and again (a start at start-up is paid once), like a
/// sync of the parameters' values themselves; anything else (an all-reduce,
/// a reduction or a gather, whose result goes back out) brings them
/// together.
bool carriesValues(CollectiveKind K) { return K != CollectiveKind::Barrier; }

/// Whether the parameter loop \p Origin runs more than once: inside another
/// loop (or a lambda, which runs where it is called), or in a function
/// this unit calls from inside a loop. A model averaged once, at start-up
/// or after training, pays the per-parameter rounds once.
bool runsRepeatedly(const Stmt &Origin, ASTContext &Context) {
  const Stmt *Top = nullptr;
  if (repeatsWithin(Origin, Context, Top))
    return true;
  DynTypedNodeList Parents = Context.getParents(*Top);
  const auto *Function =
      Parents.empty() ? nullptr : Parents[0].get<FunctionDecl>();
  return Function && calledInLoop(*Function, Context);
}

/// Whether \p Call lies in a function template (or a member of a class
/// template) that the unit instantiates.
bool inInstantiatedTemplate(const CallExpr &Call, ASTContext &Context) {
  for (DynTypedNodeList Parents = Context.getParents(Call); !Parents.empty();
       Parents = Context.getParents(Parents[0])) {
    if (const auto *FD = Parents[0].get<FunctionDecl>())
      return isInstantiatedPattern(*FD);
    if (Parents[0].get<TranslationUnitDecl>())
      return false;
  }
  return false;
}

} // namespace

void PerParameterAllreduceCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(anyOf(matchers::isCollective(&Vocab),
                     callee(unresolvedLookupExpr())),
               unless(isExpansionInSystemHeader()),
               anyOf(hasAncestor(cxxForRangeStmt()), hasAncestor(forStmt()),
                     hasAncestor(whileStmt()), hasAncestor(lambdaExpr())))
          .bind(CollectiveId),
      this);
  // A helper of this translation unit called once per parameter
  // (`dist::all_reduce(p.mutable_grad(), pg)`).
  Finder->addMatcher(
      callExpr(unless(matchers::isCollective(&Vocab)),
               unless(isExpansionInSystemHeader()),
               callee(functionDecl(unless(isExpansionInSystemHeader()),
                                   hasBody(stmt()))),
               anyOf(hasAncestor(cxxForRangeStmt()), hasAncestor(forStmt()),
                     hasAncestor(whileStmt())))
          .bind(HelperId),
      this);
  // The same call when it does not type-check (`all_reduce(p.grad(), pg)`
  // binding a const gradient to a `Tensor &`): clang keeps the candidates.
  Finder->addMatcher(recoveryExpr(unless(isExpansionInSystemHeader()),
                                  hasAncestor(cxxForRangeStmt()))
                         .bind(RecoveredId),
                     this);
}

bool PerParameterAllreduceCheck::isBlocking(const CallExpr &Collective,
                                            const CollectiveInfo &Info,
                                            const Stmt &Iteration,
                                            ASTContext &Context) const {
  if (!Info.Asynchronous)
    return true;
  // `pg->allreduce(ts)->wait()`: the wait is chained on the result.
  const ValueDecl *Holder = nullptr;
  const Stmt *Child = &Collective;
  for (unsigned Depth = 0; Depth < 10; ++Depth) {
    const Stmt *Parent = parentStmtAcrossDecls(*Child, Context);
    if (!Parent)
      break;
    if (const auto *Call = dyn_cast<CallExpr>(Parent)) {
      if (const Expr *Waited = collectives::waitedObject(*Call))
        if (contains(Waited, &Collective))
          return true;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
        if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
            contains(Op->getArg(1), &Collective)) {
          Holder = handleDecl(Op->getArg(0));
          break;
        }
    }
    if (const auto *Decl = dyn_cast<DeclStmt>(Parent)) {
      if (Decl->isSingleDecl())
        Holder = dyn_cast<VarDecl>(Decl->getSingleDecl());
      break;
    }
    if (!isa<Expr>(Parent))
      break;
    Child = Parent;
  }
  if (const Expr *Request = Vocab.requestArgument(Collective))
    Holder = handleDecl(Request);
  if (!Holder)
    return false;
  // The work kept in a local and waited on in the same iteration.
  auto Waits = match(
      findAll(callExpr(callee(functionDecl())).bind("wait")), Iteration,
      Context);
  for (const BoundNodes &N : Waits)
    if (const Expr *Waited =
            collectives::waitedObject(*N.getNodeAs<CallExpr>("wait")))
      if (handleDecl(Waited) == Holder)
        return true;
  return false;
}

PerParameterSite PerParameterAllreduceCheck::siteOf(const Expr &Call,
                                                    ASTContext &Context) const {
  PerParameterSite Site;
  const Stmt *Child = &Call;
  for (unsigned Depth = 0; Depth < 128 && !Site.Iteration; ++Depth) {
    const Stmt *Parent = parentStmtAcrossDecls(*Child, Context);
    if (!Parent)
      break;
    if (const auto *Loop = dyn_cast<CXXForRangeStmt>(Parent)) {
      const VarDecl *Element = Loop->getLoopVariable();
      bool OverParameters = training::parameterLoopVariable(*Loop);
      bool Named = !OverParameters;
      if (Child == Loop->getBody() && Element &&
          (carriesInArguments(Call, *Element,
                              OverParameters,
                              *Loop->getBody()) ||
           (Named && carriesIterationTensorInArguments(*Loop, Call))))
        Site = {Loop->getBody(), Loop, false,
                !carriesInArguments(Call, *Element, false, *Loop->getBody()) &&
                    !(Named && carriesIterationGradientInArguments(*Loop, Call))};
    } else if (isa<ForStmt, WhileStmt>(Parent)) {
      // An index or iterator loop over layers or gradient buffers of the
      // project's own (`nabla_w[i]`, `layers[i]->params[j]`), or a walk
      // along a list of layers (`layer = layer->next`).
      const Stmt *Body = isa<ForStmt>(Parent) ? cast<ForStmt>(Parent)->getBody()
                                              : cast<WhileStmt>(Parent)->getBody();
      if (Child == Body && carriesIterationTensorInArguments(*Parent, Call))
        Site = {Body, Parent, false,
                !carriesIterationGradientInArguments(*Parent, Call)};
    } else if (const auto *Lambda = dyn_cast<LambdaExpr>(Parent)) {
      // Inside a hook registered with `register_hook`: once per tensor.
      const CXXMethodDecl *Operator = Lambda->getCallOperator();
      const Stmt *Above = Lambda;
      for (unsigned Up = 0; Up < 8 && Above; ++Up) {
        Above = parentStmtAcrossDecls(*Above, Context);
        const auto *Hooking = dyn_cast_or_null<CallExpr>(Above);
        if (!Hooking)
          continue;
        if (const Expr *Hook = training::gradientHookCallback(*Hooking))
          if (lambdaOf(Hook) == Lambda && Operator->getNumParams() >= 1 &&
              carriesInArguments(Call, *Operator->getParamDecl(0), true,
                                 *Lambda->getBody()))
            Site = {Lambda->getBody(), Hooking, true};
        break;
      }
      break; // a lambda's body runs where it is called
    }
    Child = Parent;
  }
  return Site;
}

void PerParameterAllreduceCheck::check(const MatchFinder::MatchResult &Result) {
  if (const auto *Helper = Result.Nodes.getNodeAs<CallExpr>(HelperId)) {
    checkHelper(*Helper, *Result.Context);
    return;
  }
  if (const auto *Recovered = Result.Nodes.getNodeAs<RecoveryExpr>(RecoveredId)) {
    checkRecovered(*Recovered, *Result.Context);
    return;
  }
  const auto *Collective = Result.Nodes.getNodeAs<CallExpr>(CollectiveId);
  ASTContext &Context = *Result.Context;
  std::optional<CollectiveInfo> Info = Vocab.classifyCollective(*Collective);
  // In a template nothing instantiates, an MPI or NCCL call with a
  // dependent argument is left unresolved; instantiated templates are
  // analysed in their instantiations.
  const FunctionDecl *Unresolved = nullptr;
  if (!Info && !inInstantiatedTemplate(*Collective, Context))
    Info = collectives::classifyUnresolvedCollective(*Collective, Unresolved);
  if (!Info)
    return;
  if (!carriesValues(Info->Kind))
    return;
  PerParameterSite Site = siteOf(*Collective, Context);
  if (!reportable(*Collective, Info->Kind, Site, Context))
    return;
  report(*Collective, nullptr, Info->Kind,
         isBlocking(*Collective, *Info, *Site.Iteration, Context), Site);
}

void PerParameterAllreduceCheck::checkHelper(const CallExpr &Call,
                                             ASTContext &Context) {
  // Also a transport of the project's own, known by its name
  // (CollectiveSites).
  std::optional<CollectiveSite> What = sites(Context).collective(Call);
  if (!What || What->How != CollectiveSite::Via::Helper)
    return;
  // A helper that hands back its Work lets the caller overlap the rounds.
  checkHelperSite(Call, *What, !collectives::isWorkType(Call.getType()),
                  Context);
}

void PerParameterAllreduceCheck::checkRecovered(const RecoveryExpr &Recovered,
                                                ASTContext &Context) {
  std::optional<RecoveredCall> Call = recoveredCall(Recovered);
  if (!Call)
    return;
  // Each candidate must issue a collective; the first is taken as meant.
  std::optional<CollectiveSite> What;
  for (const FunctionDecl *FD : Call->Candidates) {
    const FunctionDecl *Def = userDefinition(*FD);
    std::optional<CollectiveSite> Issued =
        Def ? sites(Context).issues(*Def) : std::nullopt;
    if (!Issued)
      return;
    if (!What)
      What = CollectiveSite{CollectiveSite::Via::Helper, Def, Issued->Api,
                            Issued->Kind};
  }
  checkHelperSite(Recovered, *What,
                  !collectives::isWorkType(What->Callee->getReturnType()),
                  Context);
}

void PerParameterAllreduceCheck::checkHelperSite(const Expr &Call,
                                                 const CollectiveSite &What,
                                                 bool Blocking,
                                                 ASTContext &Context) {
  if (!What.Kind)
    return;
  CollectiveKind Kind = *What.Kind;
  if (!carriesValues(Kind))
    return;
  PerParameterSite Site = siteOf(Call, Context);
  if (Site.IsHook || !reportable(Call, Kind, Site, Context))
    return;
  report(Call, What.Callee, Kind, Blocking, Site);
}

bool PerParameterAllreduceCheck::reportable(const Expr &Call,
                                            CollectiveKind Kind,
                                            PerParameterSite &Site,
                                            ASTContext &Context) {
  if (!Site.Iteration)
    return false;
  Site.ValuesOnly |= handsOut(Kind);
  return !isCoalesced(Call, *Site.Iteration, Context) &&
         (!Site.ValuesOnly || runsRepeatedly(*Site.Origin, Context));
}

CollectiveSites &PerParameterAllreduceCheck::sites(ASTContext &Context) {
  if (!Sites || &Sites->context() != &Context)
    Sites = std::make_unique<CollectiveSites>(Vocab, Context);
  return *Sites;
}

} // namespace clang::tidy::ddp
