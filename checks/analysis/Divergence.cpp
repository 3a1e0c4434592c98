//===--- Divergence.cpp - the flow analysis of one function --------------===//
//
// FunctionDivergence's fixpoint on the CFG: the facts gathered before it
// (batch and parameter loop variables, storage aliases), the passes in
// reverse post-order, and the flow state (slots: locals and their fields)
// it reads and writes. What one statement does to the state is in
// DivergenceTransfer.cpp, what an expression evaluates to in
// DivergenceEvaluation.cpp, which branches decide a block in
// DivergenceControl.cpp.
//
//===----------------------------------------------------------------------===//

#include "analysis/Divergence.h"
#include "analysis/ASTUtils.h"
#include "analysis/DivergenceInternal.h"
#include "analysis/FunctionCFG.h"
#include "vocabulary/TensorMethods.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

namespace clang::tidy::ddp {

//===----------------------------------------------------------------------===//
// Helpers shared with the other files (DivergenceInternal.h)
//===----------------------------------------------------------------------===//

bool hasParameterName(const NamedDecl *D) {
  std::string Name = identifierName(D).lower();
  for (llvm::StringRef Word :
       {"param", "weight", "bias", "buffer", "grad", "bucket"})
    if (llvm::StringRef(Name).contains(Word))
      return true;
  return false;
}

bool isContainerMutator(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("push_back", "emplace_back", "push_front", "emplace_front", true)
      .Cases("insert", "emplace", "append", "assign", "push", true)
      .Cases("resize", "swap", true)
      .Default(false);
}

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
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&FD);
      Method && Method->isInstance())
    forEachOwnFieldAssignment(
        FD, [&](const FieldDecl &F, const Stmt *, const Expr *) {
          OwnFields.insert(&F);
        });
  collectFacts();
  if (!BackwardBlocks.empty())
    Dom = std::make_unique<CFGDomTree>(Cfg.get());
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
      collectLoopVariable(*For);
    } else if (const auto *For = dyn_cast<ForStmt>(S)) {
      if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit()))
        for (const Decl *D : Init->decls())
          if (const auto *V = dyn_cast<VarDecl>(D))
            if (V->getInit() && !V->getInit()->isValueDependent() &&
                V->getInit()->isEvaluatable(Owner.context()))
              LoopCounters.insert(V);
      collectRewriteLoop(*For);
    } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit())
          addAliases(*V, V->getInit());
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
      collectMemberCall(*Member);
    }
    if (const auto *Call = dyn_cast<CallExpr>(S);
        Call && modules::isBackwardCall(*Call))
      if (const CFGBlock *Block = blockOf(Call))
        BackwardBlocks.push_back(Block);
  });
}

void FunctionDivergence::collectLoopVariable(const CXXForRangeStmt &For) {
  const VarDecl *LoopVar = For.getLoopVariable();
  const Expr *Range = For.getRangeInit();
  if (!LoopVar || !Range)
    return;
  if (loaders::isLoaderRange(*Range)) {
    BatchVariables[LoopVar] = &For;
    return;
  }
  const auto *RangeCall =
      dyn_cast_or_null<CXXMemberCallExpr>(stripObjectWrappers(Range));
  llvm::StringRef Name =
      RangeCall ? identifierName(RangeCall->getMethodDecl()) : "";
  if (training::parameterLoopVariable(For) ||
      tensors::isModuleTensorCollection(Name) ||
      hasParameterName(referencedDecl(Range)))
    ParameterVariables.insert(LoopVar);
}

void FunctionDivergence::collectMemberCall(const CXXMemberCallExpr &Member) {
  if (Owner.sites().collective(Member))
    if (const ValueDecl *Handle = handleDecl(Member.getImplicitObjectArgument()))
      CommunicatorHandles.insert(Handle);
  if (!isContainerMutator(identifierName(Member.getMethodDecl())))
    return;
  bool Exact = false;
  const VarDecl *Container =
      rootLocal(Member.getImplicitObjectArgument(), Exact).first;
  if (!Container || Container == objectSlot())
    return;
  for (const Expr *Arg : Member.arguments())
    addAliases(*Container, Arg);
}

void FunctionDivergence::addAliases(const VarDecl &V, const Expr *Shared) {
  llvm::SmallVector<const VarDecl *, 4> Roots;
  storageRoots(Shared, Roots);
  for (const VarDecl *R : Roots)
    if (R != &V && !llvm::is_contained(Aliases[&V], R))
      Aliases[&V].push_back(R);
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
    if (!P || isAloneEdge(*P, B))
      continue;
    mergeEdge(*P, B);
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
  if (&B == &Cfg->getEntry()) {
    for (unsigned I = 0; I < Function.getNumParams(); ++I)
      Current[{Function.getParamDecl(I), nullptr}] = Divergence::parameter(I);
    for (const FieldDecl *F : OwnFields)
      Current[{objectSlot(), F}] = Divergence::onEntry();
  }

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
    if (!Where.second || Where.second == elementsSlot()) {
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

Divergence FunctionDivergence::extentOf(const Expr *E) {
  const VarDecl *V = nullptr;
  for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
    if (isModuleTensorList(E))
      return {};
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!isLocal(V))
      return constructedExtent(E).value_or(valueOf(E));
    // `auto &&__range = counts;`: the range is the container.
    E = V->getType()->isReferenceType() ? V->getInit() : nullptr;
  }
  Divergence D;
  for (const auto &[Where, Value] : Current)
    if (Where.first == V && Where.second != elementsSlot())
      D.merge(Value);
  return D;
}

bool FunctionDivergence::isModuleTensorList(const Expr *E) {
  const auto *List = dyn_cast_or_null<CXXMemberCallExpr>(stripObjectWrappers(E));
  const CXXMethodDecl *Method = List ? List->getMethodDecl() : nullptr;
  return Method && tensors::isModuleTensorCollection(identifierName(Method)) &&
         modules::isModuleClass(*Method->getParent());
}

std::optional<Divergence>
FunctionDivergence::constructedExtent(const Expr *E) {
  // `ProgressRange(n, rank == 0)`, and `trange(n, rank == 0)`, an object a
  // function returns.
  std::optional<llvm::SmallVector<const Expr *, 4>> Deciding =
      Owner.extentArguments(E);
  if (!Deciding)
    return std::nullopt;
  Divergence D;
  for (const Expr *Argument : *Deciding)
    D.merge(valueOf(Argument));
  return D;
}

Divergence FunctionDivergence::readOwnField(const FieldDecl &F,
                                            const MemberExpr &ME) {
  auto It = Current.find({objectSlot(), &F});
  if (It == Current.end())
    return Owner.field(F).through(&ME);
  Divergence D = It->second;
  if (D.heldOnEntry()) {
    D.merge(Owner.field(F).through(&ME));
    D.forgetEntry();
  }
  return D;
}

std::optional<Divergence>
FunctionDivergence::ownFieldAtExit(const FieldDecl &F) const {
  if (!OwnFields.count(&F))
    return std::nullopt;
  Divergence D;
  auto Exit = Out.find(&Cfg->getExit());
  if (Exit != Out.end()) {
    auto It = Exit->second.find({objectSlot(), &F});
    if (It != Exit->second.end())
      D.merge(It->second);
  }
  return D.sourcesOnly();
}

void FunctionDivergence::define(Slot Where, Divergence D, bool Overwrite,
                                const CFGBlock &B) {
  if (Where.first != objectSlot() && !isLocal(Where.first))
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
      if (const auto *Own = dyn_cast<FieldDecl>(ME->getMemberDecl());
          Own && OwnFields.count(Own) &&
          isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())) {
        if (Field)
          Exact = false;
        return {objectSlot(), Own};
      }
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
    Field = elementsSlot();
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

const FieldDecl *FunctionDivergence::ownFieldRoot(const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *AddrOf = dyn_cast<UnaryOperator>(E);
        AddrOf && AddrOf->getOpcode() == UO_AddrOf) {
      E = AddrOf->getSubExpr();
    } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      E = AS->getBase();
    } else if (const auto *Storage = dyn_cast<CXXMemberCallExpr>(E);
               Storage && tensors::sharesStorage(
                              identifierName(Storage->getMethodDecl()))) {
      E = Storage->getImplicitObjectArgument();
    } else {
      const auto *ME = dyn_cast<MemberExpr>(E);
      const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
      return F && OwnFields.count(F) &&
                     isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())
                 ? F
                 : nullptr;
    }
  }
  return nullptr;
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
    if (tensors::sharesStorage(identifierName(Member->getMethodDecl())))
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

} // namespace clang::tidy::ddp
