//===--- VocabularyProbe.cpp - prints what the vocabulary sees ------------===//
//
// A test-only clang-tidy plugin with one check, `probe-vocabulary`, that
// reports every classification the shared vocabulary makes in the main file.
// The lit tests under test/vocabulary pin those classifications against the
// mock headers (and, in test/integration, the real LibTorch headers).
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {
namespace {

class VocabularyProbeCheck : public ClangTidyCheck {
public:
  VocabularyProbeCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context), Vocab(Options),
        DistributedFunctions(Options.get("DistributedFunctions", false)) {}

  void storeOptions(ClangTidyOptions::OptionMap &Opts) override {
    Vocab.storeOptions(Options, Opts);
    Options.store(Opts, "DistributedFunctions", DistributedFunctions);
  }

  void registerMatchers(MatchFinder *Finder) override {
    Finder->addMatcher(callExpr(isExpansionInMainFile()).bind("call"), this);
    Finder->addMatcher(
        varDecl(isExpansionInMainFile(), unless(isImplicit())).bind("var"),
        this);
    Finder->addMatcher(fieldDecl(isExpansionInMainFile()).bind("var"), this);
    Finder->addMatcher(cxxForRangeStmt(isExpansionInMainFile()).bind("for"),
                       this);
    Finder->addMatcher(memberExpr(isExpansionInMainFile()).bind("member"),
                       this);
    Finder->addMatcher(
        cxxRecordDecl(isExpansionInMainFile(), isDefinition()).bind("record"),
        this);
    Finder->addMatcher(ifStmt(isExpansionInMainFile()).bind("if"), this);
    // Every function is distributed or not: reported on request only, so
    // that the other probe tests need not list their functions.
    if (DistributedFunctions)
      Finder->addMatcher(functionDecl(isExpansionInMainFile(), isDefinition(),
                                      unless(isImplicit()))
                             .bind("function"),
                         this);
  }

  void check(const MatchFinder::MatchResult &Result) override {
    Context = Result.Context;
    if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call"))
      probeCall(*Call);
    if (const auto *Var = Result.Nodes.getNodeAs<DeclaratorDecl>("var"))
      probeType(Var->getLocation(), *Var, Var->getType());
    if (const auto *For = Result.Nodes.getNodeAs<CXXForRangeStmt>("for"))
      if (const VarDecl *P = training::parameterLoopVariable(*For))
        diag(For->getBeginLoc(), "parameter loop over %0") << P;
    if (const auto *Member = Result.Nodes.getNodeAs<MemberExpr>("member"))
      if (Vocab.innerModuleAccessBase(Member) && isa<FieldDecl>(Member->getMemberDecl()))
        diag(Member->getMemberLoc(), "inner module access");
    if (const auto *Record = Result.Nodes.getNodeAs<CXXRecordDecl>("record"))
      probeRecord(*Record);
    if (const auto *If = Result.Nodes.getNodeAs<IfStmt>("if"))
      if (Vocab.mentionsRank(If->getCond()))
        diag(If->getCond()->getBeginLoc(), "condition differs between ranks");
    if (const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>("function"))
      if (Vocab.isDistributedFunction(*FD))
        diag(FD->getLocation(), "%0 runs in a distributed program") << FD;
  }

private:
  void probeCall(const CallExpr &Call) {
    SourceLocation Loc = Call.getExprLoc();
    if (std::optional<CollectiveInfo> C = Vocab.classifyCollective(Call))
      diag(Loc, "collective %0 (%1%2)")
          << collectiveKindName(C->Kind) << collectiveApiName(C->Api)
          << (C->Asynchronous ? ", asynchronous" : "");
    if (Vocab.returnsRank(Call))
      diag(Loc, "rank query");
    if (const Expr *Out = Vocab.rankOutputArgument(Call))
      diag(Out->getExprLoc(), "rank written here");
    if (const Expr *Receiver = Vocab.forwardReceiver(Call)) {
      const ValueDecl *D = handleDecl(Receiver);
      diag(Loc, "forward pass on %0%1")
          << (D ? D->getName() : "an expression")
          << (Vocab.wrapperClassOfHandle(Receiver->getType()) ? " (wrapper)"
                                                              : "");
    }
    if (auto P = training::parameterCollection(Call))
      diag(Loc, "%0 of %1")
          << (*P == ParameterCollection::Parameters ? "parameters"
                                                    : "named parameters")
          << [&] {
               const ValueDecl *D = handleDecl(
                   cast<CXXMemberCallExpr>(Call).getImplicitObjectArgument());
               return D ? D->getName() : StringRef("an expression");
             }();
    if (training::isGradAccess(Call)) {
      const auto &Member = cast<CXXMemberCallExpr>(Call);
      const VarDecl *P =
          training::parameterTensorVariable(Member.getImplicitObjectArgument());
      diag(Loc, "gradient of %0")
          << (P ? P->getName() : StringRef("a tensor"));
    }
    if (collectives::isWaitCall(Call))
      diag(Loc, "wait");
    if (std::optional<bool> Open = collectives::coalescingBracket(Call))
      diag(Loc, *Open ? "coalescing starts" : "coalescing ends");
    if (const Expr *Request = Vocab.requestArgument(Call))
      diag(Request->getExprLoc(), "request written here");
    if (std::optional<ReduceOpKind> Op =
            Vocab.reduceOp(Call, enclosingBody(Call), *Context))
      diag(Loc, "reduce op %0") << reduceOpName(*Op);
    if (Vocab.returnsWorldSize(Call))
      diag(Loc, "world size query");
    if (const Expr *Out = Vocab.worldSizeOutputArgument(Call))
      diag(Out->getExprLoc(), "world size written here");
    if (training::backwardRoot(Call))
      diag(Loc, "backward");
    if (Vocab.isOptimizerStep(Call))
      diag(Loc, "optimizer step%select{| with a closure}0")
          << (Vocab.optimizerStepClosure(Call) != nullptr);
    if (training::gradientHookCallback(Call))
      diag(Loc, "gradient hook");
    if (const Expr *Optimizer = Vocab.optimizerParameterAddition(Call))
      diag(Loc, "parameters added to %0")
          << [&] {
               const ValueDecl *D = handleDecl(Optimizer);
               return D ? D->getName() : StringRef("an expression");
             }();
    if (const Expr *Source = modules::moduleCopySource(Call))
      diag(Loc, "copy of %0")
          << [&] {
               const ValueDecl *D = handleDecl(Source);
               return D ? D->getName() : StringRef("an expression");
             }();
    if (Call.getDirectCallee() && Vocab.isGradientSyncFunction(*Call.getDirectCallee()))
      diag(Loc, "gradient sync function");
    if (isa<CXXMemberCallExpr>(Call) && Vocab.innerModuleAccessBase(&Call))
      diag(Loc, "inner module access");
    if (const Expr *Sampler = loaders::copiedSamplerArgument(Call))
      diag(Sampler->getExprLoc(), "sampler copied into the loader");
    if (const CXXRecordDecl *S = loaders::defaultConstructedSampler(Call))
      diag(Loc, "loader default-constructs %0") << S;
    if (std::optional<Registration> R =
            registrations::registration(Call, *Context))
      diag(Loc, "registers a %select{submodule|parameter|buffer}0"
                "%select{| without a gradient}1")
          << static_cast<int>(R->Kind) << !R->RequiresGrad;
    if (registrations::gradientDisabledTarget(Call, *Context))
      diag(Loc, "gradient switched off");
    if (registrations::definedQueryObject(Call))
      diag(Loc, "asks whether a tensor is defined");
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
      probeMemberCall(*Member);
    probeCallName(Call);
  }

  /// What the vocabulary says of a call by its callee's name alone.
  void probeCallName(const CallExpr &Call) {
    SourceLocation Loc = Call.getExprLoc();
    llvm::StringRef Callee = identifierName(Call.getDirectCallee());
    if (std::optional<TensorScaling> S = flow::tensorScaling(Callee))
      diag(Loc, "%select{division|product}0%select{| in place}1")
          << (*S == TensorScaling::Product)
          << flow::isInPlaceMethodName(Callee);
    if (flow::isTensorOfNumbers(Callee))
      diag(Loc, "tensor of numbers");
    // The heuristic for code the AST does not resolve.
    if (!Call.getDirectCallee() &&
        ranks::looksLikeAveraging(spelledCalleeName(Call)))
      diag(Loc, "name looks like averaging");
  }

  void probeMemberCall(const CXXMemberCallExpr &Call) {
    SourceLocation Loc = Call.getExprLoc();
    if (const CXXMethodDecl *MD = Call.getMethodDecl();
        MD && training::isLearningRateSetter(*MD))
      diag(Loc, "learning rate set");
    if (flow::copiesIntoTensor(Call))
      diag(Loc, "data copied into a tensor");
    // parameters() and named_parameters() are reported as collections.
    if (std::optional<ModuleState> State = training::moduleStateAccess(Call);
        State && !training::parameterCollection(Call))
      diag(Loc, "%select{buffers|parameters}0 of a module read")
          << (*State == ModuleState::Parameters);
  }

  void probeType(SourceLocation Loc, const NamedDecl &D, QualType T) {
    if (!D.getDeclName().isIdentifier() || D.getName().empty())
      return; // parameters of implicit members
    if (const CXXRecordDecl *W = Vocab.wrapperClassOfHandle(T))
      diag(Loc, "%0 is a wrapper handle (%1)") << &D << W;
    else if (const CXXRecordDecl *M = modules::moduleClassOfHandle(T))
      diag(Loc, "%0 is a module handle (%1)") << &D << M;
    if (collectives::processGroupOfHandle(T))
      diag(Loc, "%0 is a c10d process group") << &D;
    else if (collectives::isCommunicatorType(T))
      diag(Loc, "%0 is a communicator") << &D;
    if (collectives::isWorkType(T))
      diag(Loc, "%0 holds pending work") << &D;
    if (const CXXRecordDecl *O = T.getNonReferenceType()->getAsCXXRecordDecl();
        O && training::isOptimizerOptionsClass(*O))
      diag(Loc, "%0 holds optimizer options") << &D;
    if (const CXXRecordDecl *S = loaders::samplerOfLoaderType(T))
      diag(Loc, "%0 is a data loader over %1%2")
          << &D << S << (Vocab.isShufflingSampler(*S) ? " (shuffling)" : "");
  }

  void probeRecord(const CXXRecordDecl &RD) {
    if (Vocab.isWrapperClass(RD))
      diag(RD.getLocation(), "wrapper class %0") << &RD;
    if (loaders::isDistributedSampler(RD))
      diag(RD.getLocation(), "distributed sampler %0%1")
          << &RD << (Vocab.isShufflingSampler(RD) ? " (shuffling)" : "");
    else if (modules::isModuleClass(RD))
      diag(RD.getLocation(), "module class %0") << &RD;
    if (collectives::isProcessGroupClass(RD))
      diag(RD.getLocation(), "process group class %0") << &RD;
    if (Vocab.isOptimizerClass(RD))
      diag(RD.getLocation(), "optimizer class %0") << &RD;
    if (training::isOptimizerOptionsClass(RD))
      diag(RD.getLocation(), "optimizer options class %0") << &RD;
  }

  static llvm::StringRef reduceOpName(ReduceOpKind Op) {
    switch (Op) {
    case ReduceOpKind::Sum: return "sum";
    case ReduceOpKind::Average: return "average";
    case ReduceOpKind::PreMultipliedSum: return "premultiplied sum";
    case ReduceOpKind::Other: return "other";
    case ReduceOpKind::Unknown: break;
    }
    return "unknown";
  }

  /// The body of the function a call is written in (where an options
  /// variable's assignments are looked up).
  const Stmt *enclosingBody(const Stmt &S) const {
    DynTypedNode Node = DynTypedNode::create(S);
    for (unsigned Depth = 0; Depth < 64; ++Depth) {
      DynTypedNodeList Parents = Context->getParents(Node);
      if (Parents.empty())
        return nullptr;
      Node = Parents[0];
      if (const auto *FD = Node.get<FunctionDecl>())
        return FD->getBody();
      if (const auto *Lambda = Node.get<LambdaExpr>())
        return Lambda->getBody();
    }
    return nullptr;
  }

  const Vocabulary Vocab;
  const bool DistributedFunctions;
  ASTContext *Context = nullptr;
};

class ProbeModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<VocabularyProbeCheck>("probe-vocabulary");
  }
};

static ClangTidyModuleRegistry::Add<ProbeModule>
    Registration("ddplint-probe-module", "Test-only vocabulary probe.");

} // namespace
} // namespace clang::tidy::ddp
