//===--- ModuleUsage.cpp --------------------------------------------------===//

#include "model/ModuleUsage.h"

#include "analysis/ASTUtils.h"
#include "analysis/Reachability.h"

#include "clang/AST/ParentMapContext.h"

namespace clang::tidy::ddp {

namespace {

constexpr unsigned MaxCallDepth = 4;
constexpr unsigned MaxNesting = 3;

MemberUse strongest(MemberUse A, MemberUse B) {
  return static_cast<int>(A) > static_cast<int>(B) ? A : B;
}

/// Whether \p E is `this` (written or implicit).
bool isThis(const Expr *E) {
  return E && isa<CXXThisExpr>(E->IgnoreParenImpCasts());
}

/// The user definitions of \p Class's member functions.
llvm::SmallVector<const FunctionDecl *, 8>
definedMethods(const CXXRecordDecl &Class) {
  llvm::SmallVector<const FunctionDecl *, 8> Out;
  for (const CXXMethodDecl *M : Class.methods())
    if (const FunctionDecl *Def = userDefinition(*M))
      Out.push_back(Def);
  return Out;
}

/// The outermost loop of \p Body that holds \p S, or \p S itself: a use in a
/// loop's body counts as made when the loop is reached. The walk climbs
/// through declarations (`auto y = layer(x);` in the loop's body).
const Stmt *widenToLoop(const Stmt *S, const Stmt *Body, ASTContext &Context) {
  const Stmt *Result = S;
  for (const Stmt *P = parentStmtAcrossDecls(*S, Context); P && P != Body;
       P = parentStmtAcrossDecls(*P, Context))
    if (isa<ForStmt>(P) || isa<WhileStmt>(P) || isa<DoStmt>(P) ||
        isa<CXXForRangeStmt>(P))
      Result = P;
  return Result;
}

/// The field a registration call stores into or is handed: the member a
/// constructor initialiser or an assignment gives its result to, else a
/// field passed as the registered value.
const FieldDecl *registeredField(const CallExpr &Call,
                                 const Registration &R,
                                 const FunctionDecl &Method,
                                 const CXXRecordDecl &Class) {
  auto OwnField = [&](const ValueDecl *D) -> const FieldDecl * {
    const auto *F = dyn_cast_or_null<FieldDecl>(D);
    return F && F->getParent() == &Class ? F : nullptr;
  };
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&Method))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->getMember() && contains(Init->getInit(), &Call))
        return OwnField(Init->getMember());
  const FieldDecl *Found = nullptr;
  forEachStmt(Method.getBody(), [&](const Stmt *S) {
    const Expr *Lhs = nullptr, *Rhs = nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      Lhs = Op->getArg(0);
      Rhs = Op->getArg(1);
    } else if (const auto *B = dyn_cast<BinaryOperator>(S);
               B && B->getOpcode() == BO_Assign) {
      Lhs = B->getLHS();
      Rhs = B->getRHS();
    }
    if (!Found && Lhs && contains(Rhs, &Call))
      Found = OwnField(referencedDecl(Lhs));
  });
  return Found ? Found : OwnField(referencedDecl(R.Registered));
}

} // namespace

std::string RegisteredMember::path() const {
  std::string Path;
  for (const FieldDecl *F : Chain)
    Path += (Path.empty() ? "" : "->") + F->getNameAsString();
  return Path;
}

const FieldDecl *fieldReachedBy(const Expr *E,
                                llvm::ArrayRef<const FieldDecl *> Fields,
                                ASTContext &Context) {
  for (unsigned Depth = 0; E && Depth < 12; ++Depth) {
    E = stripObjectWrappers(E);
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
          F && llvm::is_contained(Fields, F))
        return F;
      E = ME->getBase();
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      E = Member->getImplicitObjectArgument();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      E = Op->getNumArgs() ? Op->getArg(0) : nullptr;
    } else if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      E = U->getSubExpr();
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!V || !V->isLocalVarDecl())
        return nullptr;
      // The variable of a loop over a submodule's parameters.
      for (const DynTypedNode &Parent : Context.getParents(*V))
        if (const auto *For = Parent.get<CXXForRangeStmt>())
          if (For->getLoopVariable() == V)
            return fieldReachedBy(For->getRangeInit(), Fields, Context);
      E = V->getInit();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

std::vector<RegisteredMember>
ModuleUsage::registrations(const CXXRecordDecl &Class) {
  std::vector<RegisteredMember> Members;
  auto Visit = [&](const FunctionDecl &Method, const Stmt *Root) {
    forEachCall(Root, [&](const Expr *E) {
      const auto *Call = dyn_cast<CallExpr>(E);
      if (!Call)
        return;
      std::optional<Registration> R =
          registrations::registration(*Call, Context);
      if (!R || !isThis(modules::memberCallObject(*Call)))
        return;
      const FieldDecl *F = registeredField(*Call, *R, Method, Class);
      if (!F || llvm::any_of(Members, [&](const RegisteredMember &M) {
            return M.field() == F;
          }))
        return;
      RegisteredMember M;
      M.Chain.push_back(F);
      M.Kind = R->Kind;
      M.Registration = Call;
      M.Frozen = !R->RequiresGrad;
      Members.push_back(M);
    });
  };
  for (const FunctionDecl *Method : definedMethods(Class)) {
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Method))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        Visit(*Method, Init->getInit());
    Visit(*Method, Method->getBody());
  }
  return Members;
}

void ModuleUsage::markFrozen(const CXXRecordDecl &Class,
                             std::vector<RegisteredMember> &Members) {
  llvm::SmallVector<const FieldDecl *, 8> Fields;
  for (const RegisteredMember &M : Members)
    Fields.push_back(M.field());
  for (const FunctionDecl *Method : definedMethods(Class))
    forEachCall(Method->getBody(), [&](const Expr *E) {
      const auto *Call = dyn_cast<CallExpr>(E);
      const Expr *Target =
          Call ? registrations::gradientDisabledTarget(*Call, Context)
               : nullptr;
      const FieldDecl *F = fieldReachedBy(Target, Fields, Context);
      for (RegisteredMember &M : Members)
        if (F && M.field() == F)
          M.Frozen = true;
    });
}

std::optional<std::vector<RegisteredMember>>
ModuleUsage::members(const CXXRecordDecl &Class, unsigned Depth) {
  const CXXRecordDecl *Def = Class.getDefinition();
  if (!Def || inSystemHeader(*Def) || Depth > MaxNesting)
    return std::nullopt;
  Summary Forward;
  bool HasForward = false;
  for (const CXXMethodDecl *M : Def->methods()) {
    const FunctionDecl *Body = userDefinition(*M);
    if (!Body || !registrations::isForwardMethod(*M))
      continue;
    HasForward = true;
    const Summary &S = summary(*Body, *Def, 0);
    Forward.Opaque |= S.Opaque;
    for (const auto &[F, Use] : S.Uses)
      Forward.Uses[F] = strongest(Forward.Uses.lookup(F), Use);
  }
  if (!HasForward || Forward.Opaque)
    return std::nullopt;

  std::vector<RegisteredMember> Members = registrations(*Def);
  markFrozen(*Def, Members);
  std::vector<RegisteredMember> Nested;
  for (RegisteredMember &M : Members) {
    M.Use = Forward.Uses.lookup(M.field());
    if (M.Kind != RegistrationKind::Module ||
        M.Use != MemberUse::EveryPath)
      continue;
    const CXXRecordDecl *Inner =
        modules::moduleClassOfHandle(M.field()->getType());
    if (!Inner || Inner == Def)
      continue;
    std::optional<std::vector<RegisteredMember>> InnerMembers =
        members(*Inner, Depth + 1);
    if (!InnerMembers)
      continue;
    for (RegisteredMember &IM : *InnerMembers) {
      IM.Chain.insert(IM.Chain.begin(), M.Chain.begin(), M.Chain.end());
      IM.Frozen |= M.Frozen;
      Nested.push_back(std::move(IM));
    }
  }
  Members.insert(Members.end(), Nested.begin(), Nested.end());
  return Members;
}

const ModuleUsage::Summary &ModuleUsage::summary(const FunctionDecl &Method,
                                                 const CXXRecordDecl &Class,
                                                 unsigned Depth) {
  auto It = Summaries.find(&Method);
  if (It != Summaries.end())
    return It->second;
  // A recursive call sees no uses of its own.
  Summaries[&Method] = Summary();
  Summary S = summarise(Method, Class, Depth);
  return Summaries[&Method] = std::move(S);
}

/// Where a member function names each field of its class: the statements
/// (widened to their outermost loop) that use it, directly or through a
/// member function it calls on `this`.
class ModuleUsage::SiteWalker {
public:
  SiteWalker(ModuleUsage &Usage, const FunctionDecl &Method,
             const CXXRecordDecl &Class, unsigned Depth)
      : Usage(Usage), Body(Method.getBody()), Class(Class), Depth(Depth) {}

  /// Walks \p S; \p Site, when set, stands for every use inside a lambda.
  void walk(const Stmt *S, const Stmt *Site) {
    if (!S || Opaque)
      return;
    if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
      walk(Lambda->getBody(), Site ? Site : Lambda);
      return;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(S); ME && isThis(ME->getBase())) {
      if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl()))
        addSite(F, Site ? Site : ME);
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (walkCallOnThis(*Call, Site))
        return;
    // `this` handed elsewhere (`helper(*this)`): members may be used.
    if (isa<CXXThisExpr>(S)) {
      Opaque = true;
      return;
    }
    for (const Stmt *Child : S->children())
      walk(Child, Site);
  }

  llvm::DenseMap<const FieldDecl *, llvm::SmallVector<const Stmt *, 4>> Sites;
  /// Members reached without their names: nothing can be said.
  bool Opaque = false;

private:
  void addSite(const FieldDecl *F, const Stmt *At) {
    Sites[F].push_back(widenToLoop(At, Body, Usage.Context));
  }

  /// A call of a member function on `this`: one that walks the members
  /// makes the method opaque; a user-defined one uses what its own summary
  /// says. Returns whether the call was handled.
  bool walkCallOnThis(const CallExpr &Call, const Stmt *Site) {
    const Expr *Object = modules::memberCallObject(Call);
    if (!isThis(Object))
      return false;
    if (registrations::memberWalkReceiver(Call)) {
      Opaque = true;
      return true;
    }
    const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
    const CXXMethodDecl *Callee = Member ? Member->getMethodDecl() : nullptr;
    const FunctionDecl *Def = Callee ? userDefinition(*Callee) : nullptr;
    if (!Def || Depth >= MaxCallDepth)
      return false;
    const Summary &Sub = Usage.summary(*Def, Class, Depth + 1);
    Opaque |= Sub.Opaque;
    for (const auto &[F, Use] : Sub.Uses) {
      if (Use == MemberUse::EveryPath)
        addSite(F, Site ? Site : &Call);
      else
        Sites[F]; // at least on some paths
    }
    for (const Expr *Arg : Call.arguments())
      walk(Arg, Site);
    return true;
  }

  ModuleUsage &Usage;
  const Stmt *Body;
  const CXXRecordDecl &Class;
  unsigned Depth;
};

ModuleUsage::Summary ModuleUsage::summarise(const FunctionDecl &Method,
                                            const CXXRecordDecl &Class,
                                            unsigned Depth) {
  SiteWalker Walker(*this, Method, Class, Depth);
  Walker.walk(Method.getBody(), nullptr);
  Summary Result;
  Result.Opaque = Walker.Opaque;
  if (Result.Opaque || Walker.Sites.empty())
    return Result;

  // A field is used on every path when no return is reachable from the
  // entry without passing one of its sites.
  const Stmt *Body = Method.getBody();
  Reachability Flow(&Method, Body, Context);
  llvm::SmallVector<const Stmt *, 4> Returns;
  forEachStmt(Body, [&](const Stmt *S) {
    if (isa<ReturnStmt>(S))
      Returns.push_back(S);
  });
  for (const auto &Entry : Walker.Sites) {
    llvm::ArrayRef<const Stmt *> FieldSites = Entry.second;
    bool Skippable;
    if (!Flow.valid() || FieldSites.empty())
      Skippable = true;
    else if (Method.getReturnType()->isVoidType() || Returns.empty())
      Skippable = Flow.entryReachesExit(FieldSites);
    else
      Skippable = llvm::any_of(Returns, [&](const Stmt *R) {
        return Flow.reachableFromEntry(R, FieldSites);
      });
    Result.Uses[Entry.first] =
        Skippable ? MemberUse::SomePaths : MemberUse::EveryPath;
  }
  return Result;
}

} // namespace clang::tidy::ddp
