//===--- Divergence.cpp - the flow analysis of one function --------------===//

#include "utils/Divergence.h"
#include "utils/ASTUtils.h"
#include "utils/FunctionCFG.h"


#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cstdint>
#include <functional>

namespace clang::tidy::ddp {

//===----------------------------------------------------------------------===//
// Divergence
//===----------------------------------------------------------------------===//

Divergence Divergence::seed(DivergenceSource S, const Stmt *Origin) {
  Divergence D;
  D.Sources = bit(S);
  D.Origins[static_cast<unsigned>(S)] = Origin;
  return D;
}

Divergence Divergence::parameter(unsigned Index) {
  Divergence D;
  if (Index < 64)
    D.Params = uint64_t(1) << Index;
  return D;
}

DivergenceSource Divergence::primary() const {
  // The most specific explanation first: a shape query on local data is
  // about the shape, a loss accumulated over batches about the loss.
  for (DivergenceSource S :
       {DivergenceSource::Rank, DivergenceSource::GradientPresence,
        DivergenceSource::TensorShape, DivergenceSource::LoaderExhaustion,
        DivergenceSource::LocalData, DivergenceSource::GradientValue,
        DivergenceSource::BatchCount})
    if (has(S))
      return S;
  return DivergenceSource::LocalData;
}

bool Divergence::merge(const Divergence &Other) {
  bool Added = (Other.Sources & ~Sources) || (Other.Params & ~Params);
  for (unsigned I = 0; I < NumDivergenceSources; ++I)
    if (!Origins[I])
      Origins[I] = Other.Origins[I];
  Sources |= Other.Sources;
  Params |= Other.Params;
  return Added;
}

void Divergence::drop(DivergenceSource S) {
  Sources &= uint8_t(~bit(S));
  Origins[static_cast<unsigned>(S)] = nullptr;
}

Divergence Divergence::sourcesOnly() const {
  Divergence D = *this;
  D.Params = 0;
  return D;
}

Divergence Divergence::through(const Stmt *Origin) const {
  Divergence D = *this;
  for (unsigned I = 0; I < NumDivergenceSources; ++I)
    if (D.Sources & (1u << I))
      D.Origins[I] = Origin;
  return D;
}

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

namespace {

/// Names of things that have a parameter's shape.
bool hasParameterName(const NamedDecl *D) {
  std::string Name = identifierName(D).lower();
  for (llvm::StringRef Word :
       {"param", "weight", "bias", "buffer", "grad", "bucket"})
    if (llvm::StringRef(Name).contains(Word))
      return true;
  return false;
}

/// A tensor, or a container of tensors: passing one hands over storage
/// that a collective can overwrite in place.
bool sharesTensorStorage(QualType T) {
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    return false;
  if (Vocabulary::isTensorClass(*RD))
    return true;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() > 0 && Args[0].getKind() == TemplateArgument::Type)
      if (const CXXRecordDecl *Elem = Args[0].getAsType()->getAsCXXRecordDecl())
        return Vocabulary::isTensorClass(*Elem);
  }
  return false;
}

/// Where values live and how ranks talk: devices and tensor options (a rank
/// picks its GPU from its rank, but where a value lives does not change the
/// value), communicators, c10d's stores and options (a store is the server
/// on rank 0). Built from the rank, they carry no rank-local data.
bool isInfrastructureType(QualType T) {
  if (Vocabulary::isCommunicatorType(T))
    return true;
  const CXXRecordDecl *RD = pointeeRecord(T);
  if (!RD)
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  return Name == "c10::Device" || Name == "c10::TensorOptions" ||
         llvm::StringRef(Name).startswith("c10d::");
}

bool isLoopStmt(const Stmt *S) {
  return S && (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
               isa<CXXForRangeStmt>(S));
}

/// Whether parameter \p I of \p FD is a forwarding reference (`Args&&...`)
/// in the template it was instantiated from: it binds a non-const lvalue
/// reference to pass the argument on, not to write it.
bool isForwardingParameter(const FunctionDecl &FD, unsigned I) {
  const FunctionDecl *Pattern = FD.getTemplateInstantiationPattern();
  if (!Pattern || Pattern->getNumParams() == 0)
    return false;
  const ParmVarDecl *P =
      Pattern->getParamDecl(std::min(I, Pattern->getNumParams() - 1));
  if (I >= Pattern->getNumParams() && !P->isParameterPack())
    return false;
  QualType T = P->getType();
  if (const auto *Pack = T->getAs<PackExpansionType>())
    T = Pack->getPattern();
  return T->isRValueReferenceType();
}

bool isContainerMutator(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("push_back", "emplace_back", "push_front", "emplace_front", true)
      .Cases("insert", "emplace", "append", "assign", "push", true)
      .Cases("resize", "swap", true)
      .Default(false);
}

} // namespace

//===----------------------------------------------------------------------===//
// FunctionDivergence
//===----------------------------------------------------------------------===//

FunctionDivergence::FunctionDivergence(DivergenceAnalysis &Owner,
                                       const FunctionDecl &FD)
    : Owner(Owner), Vocab(Owner.vocabulary()), Function(FD) {
  Cfg = buildFunctionCFG(&FD, FD.getBody(), Owner.context());
  if (!Cfg)
    return;
  for (const CFGBlock *Block : *Cfg)
    for (const CFGElement &Element : *Block)
      if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>())
        BlockOf.try_emplace(S->getStmt(), Block);
  Control = std::make_unique<ControlDependencyCalculator>(Cfg.get());
  PostDom = std::make_unique<CFGPostDomTree>(Cfg.get());
  for (const CFGBlock *Block : *Cfg)
    if (Block->succ_size() >= 2)
      if (const CFGBlock *Join = joinOf(*Block))
        JoinsAt[Join].push_back(Block);
  collectFacts();
  run();
}

FunctionDivergence::~FunctionDivergence() = default;

const CFGBlock *FunctionDivergence::blockOf(const Stmt *S) const {
  const ParentMap &Parents = Owner.parents(Function);
  for (unsigned Depth = 0; S && Depth < 64; ++Depth) {
    auto It = BlockOf.find(S);
    if (It != BlockOf.end())
      return It->second;
    S = Parents.getParent(S);
  }
  return nullptr;
}

bool FunctionDivergence::isLocal(const VarDecl *V) const {
  if (!V || !V->isLocalVarDeclOrParm())
    return false;
  const DeclContext *DC = V->getDeclContext();
  while (DC && !isa<FunctionDecl>(DC))
    DC = DC->getParent();
  return DC == &Function;
}

void FunctionDivergence::collectFacts() {
  forEachStmt(Function.getBody(), [&](const Stmt *S) {
    if (const auto *For = dyn_cast<CXXForRangeStmt>(S)) {
      const VarDecl *LoopVar = For->getLoopVariable();
      const Expr *Range = For->getRangeInit();
      if (!LoopVar || !Range)
        return;
      if (Vocabulary::isLoaderRange(*Range)) {
        BatchVariables[LoopVar] = For;
        return;
      }
      const Expr *Stripped = stripObjectWrappers(Range);
      const auto *RangeCall = dyn_cast_or_null<CXXMemberCallExpr>(Stripped);
      llvm::StringRef Name =
          RangeCall ? identifierName(RangeCall->getMethodDecl()) : "";
      if (Vocabulary::parameterLoopVariable(*For) || Name == "parameters" ||
          Name == "named_parameters" || Name == "buffers" ||
          Name == "named_buffers" || hasParameterName(referencedDecl(Range)))
        ParameterVariables.insert(LoopVar);
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->getInit()) {
            llvm::SmallVector<const VarDecl *, 4> Roots;
            storageRoots(V->getInit(), Roots);
            for (const VarDecl *R : Roots)
              if (R != V && !llvm::is_contained(Aliases[V], R))
                Aliases[V].push_back(R);
          }
      return;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
      if (!isContainerMutator(identifierName(Member->getMethodDecl())))
        return;
      bool Exact = false;
      const VarDecl *Container =
          rootLocal(Member->getImplicitObjectArgument(), Exact).first;
      if (!Container)
        return;
      for (const Expr *Arg : Member->arguments()) {
        llvm::SmallVector<const VarDecl *, 4> Roots;
        storageRoots(Arg, Roots);
        for (const VarDecl *R : Roots)
          if (R != Container && !llvm::is_contained(Aliases[Container], R))
            Aliases[Container].push_back(R);
      }
    }
  });
}

void FunctionDivergence::run() {
  PostOrderCFGView Order(Cfg.get());
  // Round robin in reverse post-order: a pass carries a value out of one
  // more level of loop nesting, so the depth of the CFG bounds the passes.
  const unsigned MaxPasses = std::min(8u + Cfg->getNumBlockIDs(), 512u);
  for (unsigned Pass = 0; Pass < MaxPasses; ++Pass) {
    Changed = false;
    for (const CFGBlock *B : Order)
      if (B)
        processBlock(*B);
    if (!Changed)
      break;
  }
}

void FunctionDivergence::processBlock(const CFGBlock &B) {
  Current.clear();
  for (const CFGBlock::AdjacentBlock &Pred : B.preds()) {
    const CFGBlock *P = Pred.getReachableBlock();
    if (!P)
      continue;
    auto It = Out.find(P);
    if (It != Out.end())
      for (const auto &[Where, D] : It->second)
        Current[Where].merge(D);
  }
  // Where the paths out of a diverging branch meet again, a variable that
  // one path set and another did not now differs between ranks (inside the
  // branch, every rank that is there agrees). Leaving a loop over this
  // rank's data loader, whatever the loop counted reflects this rank's
  // batches.
  auto Joining = JoinsAt.find(&B);
  if (Joining != JoinsAt.end())
    for (const CFGBlock *Branch : Joining->second) {
      Divergence Control =
          isLoaderLoop(*Branch)
              ? Divergence::seed(DivergenceSource::BatchCount,
                                 Branch->getTerminatorStmt())
              : conditionValue(*Branch);
      if (!Control.diverges() && !Control.parameters())
        continue;
      for (const auto &[Where, Blocks] : Modified)
        for (const CFGBlock *M : Blocks)
          if (llvm::is_contained(controllingBranches(*M), Branch)) {
            Current[Where].merge(Control);
            break;
          }
    }
  if (&B == &Cfg->getEntry())
    for (unsigned I = 0; I < Function.getNumParams(); ++I)
      Current[{Function.getParamDecl(I), nullptr}] = Divergence::parameter(I);

  for (const CFGElement &Element : B)
    if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>())
      transfer(S->getStmt(), B);

  State &Stored = Out[&B];
  for (const auto &[Where, D] : Current)
    if (Stored[Where].merge(D))
      Changed = true;
}

Divergence FunctionDivergence::value(const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    auto It = Values.find(E);
    if (It != Values.end())
      return It->second;
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Next))
      Next = Cleanups->getSubExpr();
    if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = Temp->getSubExpr();
    if (Next == E)
      break;
    E = Next;
  }
  return {};
}

Divergence FunctionDivergence::read(const VarDecl *V) const {
  Divergence D;
  for (const auto &[Where, Value] : Current) {
    if (Where.first != V)
      continue;
    if (!Where.second) {
      D.merge(Value);
    } else {
      Divergence Carried = Value;
      Carried.drop(DivergenceSource::Rank);
      D.merge(Carried);
    }
  }
  return D;
}

Divergence FunctionDivergence::readField(const VarDecl *V,
                                         const FieldDecl *F) const {
  Divergence D;
  auto Whole = Current.find({V, nullptr});
  if (Whole != Current.end())
    D.merge(Whole->second);
  auto Field = Current.find({V, F});
  if (Field != Current.end())
    D.merge(Field->second);
  return D;
}

FunctionDivergence::Slot FunctionDivergence::rootLocal(const Expr *E,
                                                       bool &Exact) const {
  Exact = true;
  const FieldDecl *Field = nullptr;
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!isLocal(V))
        return {nullptr, nullptr};
      return {V, Field};
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (ME->isArrow())
        return {nullptr, nullptr};
      // The outermost field names the slot; a deeper one only updates it.
      if (Field)
        Exact = false;
      Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (!Field)
        return {nullptr, nullptr};
      E = ME->getBase();
      continue;
    }
    Exact = false;
    Field = nullptr;
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      E = AS->getBase();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getOperator() != OO_Subscript || Op->getNumArgs() < 1)
        return {nullptr, nullptr};
      E = Op->getArg(0);
    } else {
      return {nullptr, nullptr};
    }
  }
  return {nullptr, nullptr};
}

void FunctionDivergence::storageRoots(
    const Expr *E, llvm::SmallVectorImpl<const VarDecl *> &Out,
    unsigned Depth) const {
  if (!E || Depth > 8)
    return;
  E = stripObjectWrappers(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!isLocal(V) || llvm::is_contained(Out, V))
      return;
    Out.push_back(V);
    auto It = Aliases.find(V);
    if (It != Aliases.end())
      for (const VarDecl *A : It->second)
        if (!llvm::is_contained(Out, A)) {
          Out.push_back(A);
          auto Next = Aliases.find(A);
          if (Next != Aliases.end())
            for (const VarDecl *B : Next->second)
              if (!llvm::is_contained(Out, B))
                Out.push_back(B);
        }
    return;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_AddrOf || UO->getOpcode() == UO_Deref)
      storageRoots(UO->getSubExpr(), Out, Depth + 1);
    return;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    bool SameStorage =
        llvm::StringSwitch<bool>(identifierName(Member->getMethodDecl()))
            .Cases("data_ptr", "data", "detach", "view", "view_as", true)
            .Cases("reshape", "flatten", "slice", "narrow", "select", true)
            .Cases("squeeze", "unsqueeze", "t", "contiguous", "expand", true)
            .Cases("front", "back", "at", "value", true)
            .Default(false);
    if (SameStorage)
      storageRoots(Member->getImplicitObjectArgument(), Out, Depth + 1);
    return;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() >= 1)
      storageRoots(Op->getArg(0), Out, Depth + 1);
    return;
  }
  if (const auto *List = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Init : List->inits())
      storageRoots(Init, Out, Depth + 1);
    return;
  }
  if (const auto *Std = dyn_cast<CXXStdInitializerListExpr>(E)) {
    storageRoots(Std->getSubExpr(), Out, Depth + 1);
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    for (const Expr *Arg : Construct->arguments())
      storageRoots(Arg, Out, Depth + 1);
    return;
  }
}

bool FunctionDivergence::isGradient(const Expr *E, unsigned Depth) const {
  if (!E || Depth > 8)
    return false;
  E = stripObjectWrappers(E);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (Vocabulary::isGradAccess(*Call))
      return true;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      llvm::StringRef Name = identifierName(Member->getMethodDecl());
      if (Name == "data" || Name == "detach" || Name == "value")
        return isGradient(Member->getImplicitObjectArgument(), Depth + 1);
    }
    return false;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return false;
    // A tensor hook only runs when the gradient was computed: testing it
    // there is the same on every rank that runs the hook.
    if (const auto *P = dyn_cast<ParmVarDecl>(V); P && isHookParameter(*P))
      return false;
    if (llvm::StringRef(identifierName(V).lower()).contains("grad"))
      return true;
    return isLocal(V) && V->getInit() && isGradient(V->getInit(), Depth + 1);
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return llvm::StringRef(identifierName(ME->getMemberDecl()).lower())
        .contains("grad");
  return false;
}

/// The gradient a tensor hook receives: a parameter of a lambda passed to
/// `register_hook`. Autograd calls the hook with the gradient it computed,
/// so the gradient is always there.
bool FunctionDivergence::isHookParameter(const ParmVarDecl &P) const {
  const auto *Method = dyn_cast<CXXMethodDecl>(P.getDeclContext());
  if (!Method || !Method->getParent()->isLambda())
    return false;
  const CXXRecordDecl *Closure = Method->getParent();
  const auto *Enclosing = dyn_cast<FunctionDecl>(Closure->getDeclContext());
  if (!Enclosing || !Enclosing->getBody())
    return false;
  // The lambda expression in the enclosing body, then the call it is
  // handed to.
  const LambdaExpr *Lambda = nullptr;
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S || Lambda)
      return;
    if (const auto *L = dyn_cast<LambdaExpr>(S);
        L && L->getLambdaClass() == Closure)
      Lambda = L;
    for (const Stmt *Child : S->children())
      Find(Child);
  };
  Find(Enclosing->getBody());
  const ParentMap &Parents = Owner.parents(*Enclosing);
  const Stmt *S = Lambda;
  for (unsigned Depth = 0; S && Depth < 8; ++Depth) {
    S = Parents.getParent(S);
    if (const auto *Call = dyn_cast_or_null<CallExpr>(S))
      return identifierName(Call->getDirectCallee()) == "register_hook";
    if (S && !isa<Expr>(S))
      return false;
  }
  return false;
}

bool FunctionDivergence::isParameterLike(const Expr *E, unsigned Depth) const {
  if (!E || Depth > 8)
    return false;
  E = stripObjectWrappers(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return false;
    return ParameterVariables.count(V) || hasParameterName(V) ||
           (isLocal(V) && V->getInit() &&
            isParameterLike(V->getInit(), Depth + 1));
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return hasParameterName(ME->getMemberDecl());
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    llvm::StringRef Name = identifierName(Member->getMethodDecl());
    if (Name == "grad" || Name == "mutable_grad" || Name == "parameters" ||
        Name == "named_parameters" || Name == "buffers" ||
        Name == "named_buffers")
      return true;
    bool KeepsShape = llvm::StringSwitch<bool>(Name)
                          .Cases("value", "detach", "data", "to", true)
                          .Cases("view", "reshape", "flatten", "view_as", true)
                          .Cases("contiguous", "clone", "at", true)
                          .Default(false);
    return KeepsShape &&
           isParameterLike(Member->getImplicitObjectArgument(), Depth + 1);
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() >= 1)
      return isParameterLike(Op->getArg(0), Depth + 1);
  return false;
}

Divergence FunctionDivergence::evaluate(const Expr *E) {
  if (isa<LambdaExpr>(E) || isa<UnaryExprOrTypeTraitExpr>(E) ||
      isa<CXXThisExpr>(E) || isa<CXXDefaultArgExpr>(E) ||
      isa<CXXDefaultInitExpr>(E) || isInfrastructureType(E->getType()))
    return {};
  auto ValueOf = [&](const Expr *Child) {
    auto It = Values.find(Child);
    return It != Values.end() ? It->second : evaluate(Child);
  };

  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return {};
    // Where the value came from, when the flow knows, explains more than
    // the variable's name.
    Divergence D = isLocal(V) ? read(V) : Divergence();
    if (Vocab.isRankName(*V) && !inSystemHeader(*V))
      D.merge(Divergence::seed(DivergenceSource::Rank, DRE));
    return D;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    Divergence D;
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (F) {
      if (Vocab.isRankName(*F) && !inSystemHeader(*F))
        D = Divergence::seed(DivergenceSource::Rank, ME);
      else
        D = Owner.field(*F).through(ME);
    }
    const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
    const auto *BaseRef = dyn_cast<DeclRefExpr>(Base);
    const auto *BaseVar =
        BaseRef ? dyn_cast<VarDecl>(BaseRef->getDecl()) : nullptr;
    if (F && !ME->isArrow() && isLocal(BaseVar))
      D.merge(readField(BaseVar, F)); // `stats.loss`: that field's slot
    else if (!isa<CXXThisExpr>(Base))
      D.merge(ValueOf(ME->getBase()));
    return D;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return evaluateCall(Call);

  Divergence D;
  for (const Stmt *Child : E->children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      D.merge(ValueOf(ChildExpr));
  return D;
}

Divergence FunctionDivergence::evaluateCall(const CallExpr *Call) {
  auto ValueOf = [&](const Expr *Child) {
    auto It = Values.find(Child);
    return It != Values.end() ? It->second : evaluate(Child);
  };
  const FunctionDecl *FD = Call->getDirectCallee();
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Object = Member->getImplicitObjectArgument();
  auto ArgumentsAndObject = [&] {
    Divergence D;
    for (const Expr *Arg : Call->arguments())
      D.merge(ValueOf(Arg));
    if (Object)
      D.merge(ValueOf(Object));
    return D;
  };

  // What a collective produces is the same on every rank.
  if (std::optional<CollectiveSite> Site = Owner.sites().collective(*Call))
    if (Site->How != CollectiveSite::Via::Helper)
      return {};
  if (Vocab.returnsRank(*Call) || Vocab.readsRankEnvironment(*Call))
    return Divergence::seed(DivergenceSource::Rank, Call);
  if (!FD) {
    Divergence D;
    for (const Stmt *Child : Call->children())
      if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
        D.merge(ValueOf(ChildExpr));
    return D;
  }
  llvm::StringRef Name = identifierName(FD);

  if (const auto *Method = dyn_cast<CXXMethodDecl>(FD);
      Method && Object && Vocabulary::isTensorClass(*Method->getParent())) {
    if (Vocabulary::isGradAccess(*Call))
      return Divergence::seed(DivergenceSource::GradientValue, Call);
    if (Name == "defined")
      return isGradient(Object)
                 ? Divergence::seed(DivergenceSource::GradientPresence, Call)
                 : ValueOf(Object);
    if (Vocabulary::isTensorShapeQuery(*Call)) {
      // Parameters and gradients have the model's shapes; tensors built
      // here or reduced are alike everywhere. A tensor computed from this
      // rank's data, or handed in, may not be.
      // The rank picks which rows a rank holds, not how many: a slice at a
      // rank's offset has the same shape everywhere. A tensor handed in
      // has the shape its callers give it. Tensors computed from this
      // rank's data may differ in shape too.
      Divergence D = ValueOf(Object);
      D.drop(DivergenceSource::Rank);
      if (isParameterLike(Object))
        return {};
      if (D.diverges())
        D.merge(Divergence::seed(DivergenceSource::TensorShape, Call));
      return D;
    }
  }
  // How many elements a container holds depends on what was inserted when,
  // not on the values inserted: a bucket of unreduced gradients has the
  // same size everywhere.
  // Nor does where it begins and ends: a range-for over a vector of
  // unreduced gradients runs as often on every rank.
  bool Bound = Name == "begin" || Name == "end" || Name == "cbegin" ||
               Name == "cend";
  if (Object &&
      (Name == "size" || Name == "empty" || Name == "length" ||
       (Bound && !Vocabulary::dataLoaderOfHandle(Object->getType()))) &&
      isa<CXXMethodDecl>(FD) && inSystemHeader(*FD)) {
    Divergence D = ValueOf(Object);
    D.drop(DivergenceSource::LocalData);
    D.drop(DivergenceSource::GradientValue);
    // A container of tensors handed in (the gradients, a bucket's tensors)
    // holds as many as the model has: what callers pass says how the
    // values differ, not how many there are.
    QualType T = Object->getType();
    if (Vocabulary::isTensorType(T) && !Vocabulary::isTensor(T))
      return D.sourcesOnly();
    return D;
  }
  if (Object && (Name == "begin" || Name == "end" || Name == "cbegin" ||
                 Name == "cend") &&
      Vocabulary::dataLoaderOfHandle(Object->getType()))
    return Divergence::seed(DivergenceSource::LoaderExhaustion, Call);

  if (const FunctionDecl *Def = userDefinition(*FD)) {
    Divergence Summary = Owner.returned(*Def);
    Divergence D = Summary.sourcesOnly().through(Call);
    unsigned Offset = isa<CXXOperatorCallExpr>(Call) &&
                              isa<CXXMethodDecl>(FD) &&
                              !cast<CXXMethodDecl>(FD)->isStatic()
                          ? 1
                          : 0;
    for (unsigned I = 0; I < 64 && I + Offset < Call->getNumArgs(); ++I)
      if (Summary.parameters() & (uint64_t(1) << I))
        D.merge(ValueOf(Call->getArg(I + Offset)));
    if (Object)
      D.merge(ValueOf(Object));
    return D;
  }
  if (!inSystemHeader(*FD)) {
    if (Vocab.isRankName(*FD))
      return Divergence::seed(DivergenceSource::Rank, Call);
    // Defined elsewhere and handed a struct holding the communicator
    // (`all_reduce_mean(context, loss)`): its result is taken as reduced.
    if (CollectiveSites::handsCommunicator(*Call, /*InStructs=*/true))
      return {};
  }
  return ArgumentsAndObject();
}

Divergence FunctionDivergence::implicitIn(const CFGBlock &B) {
  Divergence D;
  for (const CFGBlock *Branch : controllingBranches(B))
    if (!isLoaderLoop(*Branch))
      D.merge(conditionValue(*Branch));
  return D;
}

Divergence FunctionDivergence::implicitAt(const Stmt *S) {
  const CFGBlock *B = blockOf(S);
  return B ? implicitIn(*B) : Divergence();
}

void FunctionDivergence::define(Slot Where, Divergence D, bool Overwrite,
                                const CFGBlock &B) {
  if (!isLocal(Where.first))
    return;
  if (Overwrite && !Where.second)
    clear(Where.first); // a new value for the whole variable, fields too
  if (Overwrite)
    Current[Where] = D;
  else
    Current[Where].merge(D);
  auto &Blocks = Modified[Where];
  if (!llvm::is_contained(Blocks, &B))
    Blocks.push_back(&B);
}

void FunctionDivergence::clear(const VarDecl *V) {
  llvm::SmallVector<Slot, 4> Slots;
  for (const auto &Entry : Current)
    if (Entry.first.first == V)
      Slots.push_back(Entry.first);
  for (const Slot &Where : Slots)
    Current[Where] = Divergence();
}

void FunctionDivergence::sanitize(const CollectiveSite &Site,
                                  const CallExpr &Call) {
  auto Clear = [&](const Expr *Arg) {
    llvm::SmallVector<const VarDecl *, 4> Roots;
    storageRoots(Arg, Roots);
    for (const VarDecl *V : Roots)
      clear(V);
  };
  if (Site.How == CollectiveSite::Via::Api) {
    if (!Site.Kind)
      return;
    switch (*Site.Kind) {
    case CollectiveKind::AllReduce:
    case CollectiveKind::Broadcast:
      for (const Expr *Arg : Call.arguments())
        Clear(Arg);
      return;
    case CollectiveKind::AllGather:
      // c10d's allgather(outputs, inputs): only the outputs agree.
      if (isa<CXXMemberCallExpr>(Call) && Call.getNumArgs() > 0)
        Clear(Call.getArg(0));
      else
        for (const Expr *Arg : Call.arguments())
          Clear(Arg);
      return;
    default:
      return; // gather, scatter, reduce, ...: results differ by rank
    }
  }
  // A helper or an outside function handed the communicator: tensors it is
  // given, and what it may write, come back reduced.
  const FunctionDecl *FD = Call.getDirectCallee();
  for (unsigned I = 0; I < Call.getNumArgs(); ++I) {
    const Expr *Arg = Call.getArg(I);
    bool Writable = false;
    if (FD && I < FD->getNumParams()) {
      QualType P = FD->getParamDecl(I)->getType();
      Writable = P->isLValueReferenceType() &&
                 !P.getNonReferenceType().isConstQualified();
    }
    if (Writable || sharesTensorStorage(Arg->getType()))
      Clear(Arg);
  }
}

void FunctionDivergence::transfer(const Stmt *S, const CFGBlock &B) {
  auto ValueOf = [&](const Expr *E) {
    auto It = Values.find(E);
    return It != Values.end() ? It->second : evaluate(E);
  };
  if (const auto *E = dyn_cast<Expr>(S)) {
    Divergence D = evaluate(E);
    if (Values[E].merge(D))
      Changed = true;
  }

  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V)
        continue;
      auto Batch = BatchVariables.find(V);
      Slot Whole{V, nullptr};
      if (Batch != BatchVariables.end())
        define(Whole,
               Divergence::seed(DivergenceSource::LocalData,
                                Batch->second->getRangeInit()),
               true, B);
      else if (V->getInit())
        define(Whole, ValueOf(V->getInit()), true, B);
      else
        define(Whole, {}, true, B);
    }
    return;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (!BO->isAssignmentOp())
      return;
    bool Exact = false;
    define(rootLocal(BO->getLHS(), Exact), ValueOf(BO->getRHS()),
           Exact && BO->getOpcode() == BO_Assign, B);
    return;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    bool Exact = false;
    if (UO->isIncrementDecrementOp())
      define(rootLocal(UO->getSubExpr(), Exact), {}, false, B);
    return;
  }
  if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
    Divergence D = implicitIn(B);
    if (const Expr *Value = Ret->getRetValue())
      D.merge(ValueOf(Value));
    if (Returned.merge(D))
      Changed = true;
    return;
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  if (!Call)
    return;

  if (std::optional<CollectiveSite> Site = Owner.sites().collective(*Call)) {
    sanitize(*Site, *Call);
    return;
  }
  if (const Expr *Out = Vocab.rankOutputArgument(*Call)) {
    // `MPI_Comm_rank(comm, &rank)`, `&peers.rank`.
    Out = Out->IgnoreParenImpCasts();
    if (const auto *AddrOf = dyn_cast<UnaryOperator>(Out);
        AddrOf && AddrOf->getOpcode() == UO_AddrOf)
      Out = AddrOf->getSubExpr();
    bool Exact = false;
    define(rootLocal(Out, Exact),
           Divergence::seed(DivergenceSource::Rank, Call), Exact, B);
    return;
  }
  if (Vocab.optimizerStepClosure(*Call)) {
    closureAssignments(*Call, B);
    return;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if (Op->getNumArgs() < 1)
      return;
    bool Exact = false;
    Slot V = rootLocal(Op->getArg(0), Exact);
    if (!V.first)
      return;
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      define(V, ValueOf(Op->getArg(1)), Exact, B);
    } else if (Op->isAssignmentOp() || Op->getOperator() == OO_PlusPlus ||
               Op->getOperator() == OO_MinusMinus) {
      Divergence D;
      for (unsigned I = 1; I < Op->getNumArgs(); ++I)
        D.merge(ValueOf(Op->getArg(I)));
      define(V, D, false, B);
    }
    return;
  }
  const FunctionDecl *FD = Call->getDirectCallee();
  Divergence Arguments;
  for (const Expr *Arg : Call->arguments())
    Arguments.merge(ValueOf(Arg));
  // In-place tensor operations and container insertions update the object.
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = Member->getMethodDecl();
    llvm::StringRef Name = identifierName(MD);
    bool Mutates = isContainerMutator(Name) ||
                   (Name.endswith("_") && MD &&
                    Vocabulary::isTensorClass(*MD->getParent()));
    bool Exact = false;
    if (Mutates)
      define(rootLocal(Member->getImplicitObjectArgument(), Exact), Arguments,
             false, B);
  }
  // Output arguments: `f(&x)`, `f(x)` binding a non-const reference.
  if (!FD)
    return;
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    if (isForwardingParameter(*FD, I))
      continue; // `make_intrusive<T>(store, rank, size)` passes, not writes
    QualType P = FD->getParamDecl(I)->getType();
    const Expr *Arg = Call->getArg(I)->IgnoreParenImpCasts();
    bool Written = false;
    if (P->isLValueReferenceType())
      Written = !P.getNonReferenceType().isConstQualified();
    else if (P->isPointerType() && !P->getPointeeType().isConstQualified())
      if (const auto *UO = dyn_cast<UnaryOperator>(Arg))
        if (UO->getOpcode() == UO_AddrOf) {
          Arg = UO->getSubExpr();
          Written = true;
        }
    // A callee whose body is here and only reads it leaves it alone.
    if (Written)
      if (const FunctionDecl *Def = userDefinition(*FD))
        Written = Owner.writes().mayWrite(*Def, I);
    bool Exact = false;
    if (Written)
      define(rootLocal(Arg, Exact), Arguments, false, B);
  }
}

namespace {
/// The expression whose value decides a branch block. For a chain of `&&` /
/// `||` the CFG gives each operand a block of its own; the block that ends
/// the chain names the whole chain as its condition, but decides on the
/// last operand, which is the one it evaluates.
const Expr *decidingExpr(const CFGBlock &Branch) {
  const auto *E = dyn_cast_or_null<Expr>(
      const_cast<CFGBlock &>(Branch).getTerminatorCondition(false));
  for (unsigned Depth = 0; E && Depth < 32; ++Depth) {
    const Expr *Inner = E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Inner))
      Inner = Cleanups->getSubExpr()->IgnoreParenImpCasts();
    const auto *Logical = dyn_cast<BinaryOperator>(Inner);
    if (!Logical || !Logical->isLogicalOp())
      return E;
    E = Logical->getRHS();
  }
  return E;
}
} // namespace

const Expr *FunctionDivergence::condition(const CFGBlock &Branch) const {
  const Stmt *T = Branch.getTerminatorStmt();
  if (const auto *For = dyn_cast_or_null<CXXForRangeStmt>(T))
    return For->getRangeInit();
  return decidingExpr(Branch);
}

Divergence FunctionDivergence::conditionValue(const CFGBlock &Branch) const {
  if (Branch.succ_size() < 2)
    return {};
  const Expr *E = decidingExpr(Branch);
  return E ? value(E) : Divergence();
}

bool FunctionDivergence::isLoaderLoop(const CFGBlock &Branch) const {
  if (!isLoopStmt(Branch.getTerminatorStmt()))
    return false;
  return conditionValue(Branch).onlyFrom(DivergenceSource::LoaderExhaustion);
}

bool FunctionDivergence::bypasses(const CFGBlock &Branch,
                                  const CFGBlock &Block) {
  auto Key = std::make_pair(&Branch, &Block);
  auto It = Bypasses.find(Key);
  if (It != Bypasses.end())
    return It->second;
  const CFGBlock *Exit = &Cfg->getExit();
  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<const CFGBlock *, 16> Work;
  for (const CFGBlock::AdjacentBlock &Succ : Branch.succs())
    Work.push_back(Succ.getReachableBlock());
  bool Found = false;
  while (!Work.empty() && !Found) {
    const CFGBlock *B = Work.pop_back_val();
    if (!B || B == &Block || B->hasNoReturnElement() || !Seen.insert(B).second)
      continue;
    if (B == Exit) {
      Found = true;
      break;
    }
    for (const CFGBlock::AdjacentBlock &Succ : B->succs())
      Work.push_back(Succ.getReachableBlock());
  }
  return Bypasses[Key] = Found;
}

llvm::ArrayRef<const CFGBlock *>
FunctionDivergence::controllingBranches(const CFGBlock &Block) {
  auto It = Controllers.find(&Block);
  if (It != Controllers.end())
    return It->second;
  llvm::SmallVector<const CFGBlock *, 8> Result;
  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<const CFGBlock *, 8> Queue;
  // A branch decides whether Block runs when one of its sides can finish
  // the function without running Block. A side that can only end in a call
  // that does not return (TORCH_CHECK, abort) does not count: the ranks that
  // take it stop, so it makes no difference among those that go on.
  auto Push = [&](const CFGBlock *B) {
    for (CFGBlock *Dep :
         Control->getControlDependencies(const_cast<CFGBlock *>(B)))
      if (Seen.insert(Dep).second && bypasses(*Dep, Block))
        Queue.push_back(Dep);
  };
  Push(&Block);
  for (size_t I = 0; I < Queue.size(); ++I) {
    Result.push_back(Queue[I]);
    Push(Queue[I]);
  }
  return Controllers[&Block] = std::move(Result);
}

const CFGBlock *FunctionDivergence::joinOf(const CFGBlock &Branch) const {
  auto *Node = PostDom->getBase().getNode(const_cast<CFGBlock *>(&Branch));
  if (!Node || !Node->getIDom())
    return nullptr;
  return Node->getIDom()->getBlock();
}

} // namespace clang::tidy::ddp
