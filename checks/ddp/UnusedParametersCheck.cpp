//===--- UnusedParametersCheck.cpp - ddp-unused-parameters ----------------===//

#include "ddp/UnusedParametersCheck.h"

#include "analysis/ASTUtils.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

#include <functional>

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {
constexpr llvm::StringLiteral FunctionId = "function";
constexpr llvm::StringLiteral DefaultUnusedParameterOptions =
    "find_unused_parameters;*allow_unused*;*unused_param*";

/// Whether \p E reads a gradient: `p.grad()`, or a local initialised
/// from one (`auto g = p.grad();`).
bool readsGradient(const Expr *E) {
  return containsWhere(E, [](const Stmt *S) {
    if (const auto *Call = dyn_cast<CallExpr>(S))
      return training::isGradAccess(*Call);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
          V && V->isLocalVarDecl() && V->getInit())
        return containsWhere(V->getInit(), [](const Stmt *Inner) {
          const auto *Call = dyn_cast<CallExpr>(Inner);
          return Call && training::isGradAccess(*Call);
        });
    return false;
  });
}

/// Whether \p S (lambda bodies included) asks whether a gradient exists.
bool asksForGradient(const Stmt *S) {
  return containsWhere(S, [](const Stmt *Node) {
    if (const auto *Lambda = dyn_cast<LambdaExpr>(Node))
      return asksForGradient(Lambda->getBody());
    const auto *Call = dyn_cast<CallExpr>(Node);
    const Expr *Object =
        Call ? registrations::definedQueryObject(*Call) : nullptr;
    return Object && readsGradient(Object);
  });
}

std::string describe(const RegisteredMember &M) {
  return std::string(M.Kind == RegistrationKind::Module
                         ? "submodule '"
                         : "parameter '") +
         M.path() + "'";
}

} // namespace

UnusedParametersCheck::UnusedParametersCheck(llvm::StringRef Name,
                                             ClangTidyContext *Context)
    : WrapperCheckBase(Name, Context),
      UnusedParameterOptions(Options.get("UnusedParameterOptions",
                                         DefaultUnusedParameterOptions)) {}

void UnusedParametersCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  WrapperCheckBase::storeOptions(Opts);
  Options.store(Opts, "UnusedParameterOptions",
                UnusedParameterOptions.spec());
}

void UnusedParametersCheck::onEndOfTranslationUnit() {
  WrapperCheckBase::onEndOfTranslationUnit();
  Usage.reset();
  Tolerant.clear();
  Reported.clear();
}

void UnusedParametersCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(functionDecl(isDefinition(), hasBody(stmt()),
                                  unless(isExpansionInSystemHeader()))
                         .bind(FunctionId),
                     this);
}

void UnusedParametersCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  if (isInstantiatedPattern(*Function))
    return;
  const WrapperLife &Life = lifeOf(*Function, *Result.Context);
  if (!Usage)
    Usage = std::make_unique<ModuleUsage>(*Result.Context);
  for (const Wrap &W : Life.wraps())
    if (W.Module)
      checkWrap(W, *Function, Life, *Result.Context);
}

void UnusedParametersCheck::checkWrap(const Wrap &W,
                                      const FunctionDecl &Function,
                                      const WrapperLife &Life,
                                      ASTContext &Context) {
  const CXXRecordDecl *Class =
      modules::moduleClassOfHandle(W.Module->getType());
  const CXXRecordDecl *Wrapper = Vocab.wrapperClassOfHandle(W.Wrapper->getType());
  if (!Class || !Wrapper || toleratesMissingGradients(*Wrapper) ||
      optionTolerates(W, Function, Context))
    return;
  std::optional<std::vector<RegisteredMember>> Members =
      Usage->members(*Class);
  if (!Members)
    return;
  dropFrozenBeforeWrap(*Members, W, Function, Life, Context);
  llvm::SmallVector<const RegisteredMember *, 4> Never, Some;
  for (const RegisteredMember &M : *Members) {
    if (M.Kind == RegistrationKind::Buffer || M.Frozen)
      continue;
    if (M.Use == MemberUse::Never)
      Never.push_back(&M);
    else if (M.Use == MemberUse::SomePaths)
      Some.push_back(&M);
  }
  if ((Never.empty() && Some.empty()) ||
      !Reported.insert({Class, W.Loc.getRawEncoding()}).second)
    return;
  if (!Never.empty())
    report(W, *Class, Never, MemberUse::Never);
  if (!Some.empty())
    report(W, *Class, Some, MemberUse::SomePaths);
}

bool UnusedParametersCheck::toleratesMissingGradients(
    const CXXRecordDecl &Wrapper) {
  if (auto It = Tolerant.find(&Wrapper); It != Tolerant.end())
    return It->second;
  bool Found = false;
  // The wrapper, the template it comes from, and the classes it holds (a
  // reducer of its own).
  llvm::SmallVector<const CXXRecordDecl *, 8> Classes{&Wrapper};
  if (const CXXRecordDecl *Pattern = Wrapper.getTemplateInstantiationPattern())
    Classes.push_back(Pattern);
  for (unsigned I = 0, N = Classes.size(); I < N; ++I)
    if (const CXXRecordDecl *Def = Classes[I]->getDefinition())
      for (const FieldDecl *Field : Def->fields())
        if (const CXXRecordDecl *Held = pointeeRecord(Field->getType());
            Held && !inSystemHeader(*Held))
          Classes.push_back(Held);
  for (const CXXRecordDecl *RD : Classes) {
    const CXXRecordDecl *Def = RD->getDefinition();
    if (!Def || inSystemHeader(*Def))
      continue;
    for (const Decl *D : Def->decls()) {
      const auto *FD = dyn_cast<FunctionDecl>(D);
      if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
        FD = FT->getTemplatedDecl();
      const FunctionDecl *Body = FD ? userDefinition(*FD) : nullptr;
      Found |= Body && asksForGradient(Body->getBody());
    }
  }
  return Tolerant[&Wrapper] = Found;
}

bool UnusedParametersCheck::turnsOnOption(const Stmt *S,
                                          ASTContext &Context) const {
  auto Named = [&](const NamedDecl *D) {
    llvm::StringRef Name = identifierName(D);
    return !Name.empty() && UnusedParameterOptions.matchesName(Name, Name);
  };
  return containsWhere(S, [&](const Stmt *Node) {
    if (const auto *B = dyn_cast<BinaryOperator>(Node);
        B && B->getOpcode() == BO_Assign)
      if (const auto *ME = dyn_cast<MemberExpr>(B->getLHS()->IgnoreParens()))
        return Named(ME->getMemberDecl()) &&
               !isConstantFalse(B->getRHS(), Context);
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Node))
      return Named(Call->getMethodDecl()) &&
             (Call->getNumArgs() == 0 ||
              !isConstantFalse(Call->getArg(0), Context));
    if (const auto *Init = dyn_cast<InitListExpr>(Node))
      if (const CXXRecordDecl *RD = Init->getType()->getAsCXXRecordDecl()) {
        unsigned I = 0;
        for (const FieldDecl *F : RD->fields()) {
          if (I >= Init->getNumInits())
            break;
          if (Named(F) && !isConstantFalse(Init->getInit(I), Context))
            return true;
          ++I;
        }
      }
    return false;
  });
}

bool UnusedParametersCheck::optionTolerates(const Wrap &W,
                                            const FunctionDecl &Function,
                                            ASTContext &Context) const {
  if (!W.Site)
    return false;
  if (turnsOnOption(W.Site, Context))
    return true;
  // An options object handed to the wrapper, set up before.
  llvm::SmallVector<const VarDecl *, 2> Locals;
  forEachStmt(W.Site, [&](const Stmt *S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
          V && V->isLocalVarDecl() && V != W.Wrapper)
        Locals.push_back(V);
  });
  for (const VarDecl *V : Locals)
    if (V->getInit() && turnsOnOption(V->getInit(), Context))
      return true;
  bool Found = false;
  forEachStmt(Function.getBody(), [&](const Stmt *S) {
    const auto *E = dyn_cast<Expr>(S);
    if (Found || !E || !(isa<BinaryOperator>(E) || isa<CXXMemberCallExpr>(E)))
      return;
    const ValueDecl *Root = nullptr;
    if (const auto *B = dyn_cast<BinaryOperator>(E))
      if (const auto *ME = dyn_cast<MemberExpr>(B->getLHS()->IgnoreParens()))
        Root = referencedDecl(ME->getBase());
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E))
      Root = referencedDecl(Call->getImplicitObjectArgument());
    Found = Root && llvm::is_contained(Locals, Root) &&
            turnsOnOption(E, Context);
  });
  return Found;
}

void UnusedParametersCheck::dropFrozenBeforeWrap(
    std::vector<RegisteredMember> &Members, const Wrap &W,
    const FunctionDecl &Function, const WrapperLife &Life,
    ASTContext &Context) const {
  if (!W.Site)
    return;
  llvm::SmallVector<const FieldDecl *, 8> Fields;
  for (const RegisteredMember &M : Members)
    Fields.append(M.Chain.begin(), M.Chain.end());
  auto Freeze = [&](const CallExpr &Call) {
    const Expr *Target = registrations::gradientDisabledTarget(Call, Context);
    if (const FieldDecl *F = fieldReachedBy(Target, Fields, Context))
      for (RegisteredMember &M : Members)
        if (llvm::is_contained(M.Chain, F))
          M.Frozen = true;
  };
  forEachCall(Function.getBody(), [&](const Expr *E) {
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call || !Life.flow().reachable(Call, W.Site))
      return;
    Freeze(*Call);
    // A helper handed the module before the wrap: `freeze(model)`.
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Def = Callee ? userDefinition(*Callee) : nullptr;
    if (Def && llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
          return handleDecl(Arg) == W.Module;
        }))
      forEachCall(Def->getBody(), [&](const Expr *Inner) {
        if (const auto *InnerCall = dyn_cast<CallExpr>(Inner))
          Freeze(*InnerCall);
      });
  });
}

void UnusedParametersCheck::report(
    const Wrap &W, const CXXRecordDecl &Class,
    llvm::ArrayRef<const RegisteredMember *> Members, MemberUse Use) {
  std::string Names;
  for (size_t I = 0; I < Members.size(); ++I)
    Names += (I == 0 ? "" : I + 1 == Members.size() ? " and " : ", ") +
             describe(*Members[I]);
  bool Plural = Members.size() > 1;
  if (Use == MemberUse::Never)
    diag(W.Loc,
         "%0 is wrapped by %1, whose gradient hooks wait for every parameter, "
         "but forward() of %2 never uses %3: no gradient reaches "
         "%select{it|them}4, %select{its bucket is|their buckets are}4 never "
         "reduced, and backward() hangs or fails on every rank; remove "
         "%select{it|them}4, freeze %select{it|them}4 with "
         "requires_grad(false) before wrapping, or let the wrapper tolerate "
         "unused parameters")
        << WrapperLife::moduleName(W) << W.Wrapper << &Class << Names
        << Plural;
  else
    diag(W.Loc,
         "%0 is wrapped by %1, whose gradient hooks wait for every parameter, "
         "but forward() of %2 uses %3 only on some paths: in a step that "
         "skips %select{it|them}4 no gradient reaches %select{it|them}4, "
         "%select{its bucket is|their buckets are}4 never reduced, and "
         "backward() hangs or fails; use %select{it|them}4 on every path, or "
         "let the wrapper tolerate unused parameters")
        << WrapperLife::moduleName(W) << W.Wrapper << &Class << Names
        << Plural;
  for (const RegisteredMember *M : Members)
    diag(M->Registration->getExprLoc(), "'%0' registered here",
         DiagnosticIDs::Note)
        << M->path();
  noteWrap(W);
}

} // namespace clang::tidy::ddp
