//===--- SummaryDraws.cpp - random values a function draws ----------------===//
//
// A model written from scratch gets its initial weights from a generator of
// C's library, the standard library or cuRAND. Whether two ranks draw the
// same weights depends on how that generator was seeded: with a constant,
// with the rank, or with something each process has of its own (the
// clock, std::random_device). A function's summary says the worst of the
// generators it draws values from, itself or through the functions and
// constructors it calls; a generator or a seed it is handed is left to
// each call to decide.
//
//===----------------------------------------------------------------------===//

#include "summary/FunctionSummaries.h"

#include "analysis/ASTUtils.h"
#include "vocabulary/Randomness.h"
#include "vocabulary/VocabularyHelpers.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::ddp {

namespace {

using Seeding = FunctionEffects::Seeding;

/// Rank before process before a parameter before common: the seeding that
/// makes replicas differ wins.
int severity(Seeding S) {
  switch (S) {
  case Seeding::Rank:
    return 5;
  case Seeding::PerProcess:
    return 4;
  case Seeding::Parameter:
  case Seeding::Generator:
    return 2;
  case Seeding::Common:
    return 1;
  case Seeding::None:
    break;
  }
  return 0;
}

void joinSeeding(Seeding &Into, int &IntoParameter, Seeding S, int Parameter) {
  if (severity(S) > severity(Into)) {
    Into = S;
    IntoParameter = Parameter;
  }
}

Seeding fromSeedValue(SeedValue V) {
  switch (V) {
  case SeedValue::Rank:
    return Seeding::Rank;
  case SeedValue::PerProcess:
    return Seeding::PerProcess;
  case SeedValue::Common:
    return Seeding::Common;
  case SeedValue::None:
    break;
  }
  return Seeding::None;
}

/// Where an expression is taken as a number: Floating when an arithmetic
/// expression or a conversion around it is floating-point, Blocked under a
/// comparison (`rand() < p * RAND_MAX` picks, it is no value).
enum class Context { Neutral, Floating, Blocked };

bool isArithmetic(const Stmt *S) {
  if (const auto *B = dyn_cast<BinaryOperator>(S))
    return B->isAdditiveOp() || B->isMultiplicativeOp() ||
           B->isAssignmentOp();
  if (const auto *U = dyn_cast<UnaryOperator>(S))
    return U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus;
  return isa<ParenExpr, CastExpr, CXXFunctionalCastExpr,
             MaterializeTemporaryExpr>(S);
}

/// Calls \p Visit(Call, InFloatingContext) for every call in \p S that is
/// not compared.
template <typename Fn>
void forEachCallInContext(const Stmt *S, Context C, Fn &&Visit) {
  if (!S || isa<LambdaExpr>(S))
    return; // a lambda's draws are its own function's
  if (const auto *Call = dyn_cast<CallExpr>(S); Call && C != Context::Blocked)
    Visit(*Call, C == Context::Floating);
  Context Inner = Context::Neutral;
  if (const auto *B = dyn_cast<BinaryOperator>(S);
      B && (B->isComparisonOp() || B->isLogicalOp()))
    Inner = Context::Blocked;
  else if (isArithmetic(S) && C == Context::Blocked)
    Inner = Context::Blocked;
  else if (isArithmetic(S))
    Inner = (C == Context::Floating ||
             (isa<Expr>(S) && cast<Expr>(S)->getType()->isRealFloatingType()))
                ? Context::Floating
                : Context::Neutral;
  for (const Stmt *Child : S->children())
    forEachCallInContext(Child, Inner, Visit);
}

/// The variable or field a generator expression names: `gen`, `this->gen_`,
/// `states[i]`.
const ValueDecl *generatorDecl(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
    E = peelHandle(E)->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return Ref->getDecl();
    if (const auto *Member = dyn_cast<MemberExpr>(E))
      return Member->getMemberDecl();
    E = subscriptBase(E);
  }
  return nullptr;
}

} // namespace

Seeding FunctionSummaries::librarySeeding() {
  if (LibrarySeeding)
    return *LibrarySeeding;
  Seeding Worst = Seeding::Common;
  bool AnyCommon = false;
  int Unused = -1;
  std::vector<const FunctionDecl *> Functions;
  collectDefinitions(*Context.getTranslationUnitDecl(),
                     Context.getSourceManager(), /*ExternalOnly=*/false,
                     Functions);
  for (const FunctionDecl *FD : Functions)
    forEachCall(FD->getBody(), [&](const Expr *Node) {
      const auto *Call = dyn_cast<CallExpr>(Node);
      std::optional<randomness::Seeding> Seed =
          Call ? randomness::seedsGenerator(*Call) : std::nullopt;
      if (!Seed || !Seed->Of.CLibrary || !Seed->Seed)
        return;
      int Parameter = -1;
      SeedValue V = classifySeed(*FD, *Seed->Seed, Parameter);
      // A seed the caller passes is not known here: favour silence.
      Seeding S = Parameter >= 0 ? Seeding::Common : fromSeedValue(V);
      AnyCommon |= S == Seeding::Common;
      joinSeeding(Worst, Unused, S, -1);
    });
  // A common seed anywhere may be the one that runs (a program that seeds
  // with the clock only when nobody seeded): it decides, for silence.
  LibrarySeeding = AnyCommon ? Seeding::Common : Worst;
  return *LibrarySeeding;
}

namespace {

/// The seeds one generator gets, joined, each classified in the function
/// it is written in; a parameter counts only in the function asked about.
class GeneratorSeeds {
public:
  using Classify =
      llvm::function_ref<SeedValue(const FunctionDecl &, const Expr &, int &)>;
  GeneratorSeeds(const ValueDecl &Gen, const FunctionDecl &Def, Classify C)
      : Gen(Gen), Def(Def), ClassifySeed(C) {}

  /// A seed written out, or null: the engine's default.
  void seed(const FunctionDecl &In, const Expr *Seed) {
    if (!Seed) {
      // The default seed is a constant: where it may be the one that
      // runs, it decides, for silence.
      AnyCommon = true;
      return;
    }
    int P = -1;
    Seeding S = fromSeedValue(ClassifySeed(In, *Seed, P));
    if (P >= 0 && &In == &Def)
      return join(Seeding::Parameter, P);
    AnyCommon |= P >= 0 || S == Seeding::Common;
    join(P >= 0 ? Seeding::Common : S, -1);
  }
  /// What the seeds make of the generator: a common seed written anywhere
  /// may be the one that runs, and decides, for silence.
  Seeding result(int &P) const {
    P = AnyCommon ? -1 : Parameter;
    if (AnyCommon)
      return Seeding::Common;
    return Worst;
  }
  /// An engine's construction: `std::mt19937 gen(seed)`, a random_device.
  void initializer(const FunctionDecl &In, const Expr *Init) {
    bool PerProcess = false;
    std::optional<const Expr *> Seed =
        Init ? randomness::engineSeed(*Init, PerProcess) : std::nullopt;
    if (PerProcess)
      join(Seeding::PerProcess, -1);
    else if (Seed)
      seed(In, *Seed);
  }
  /// The calls of \p In's body that seed this generator.
  void seedingCalls(const FunctionDecl &In) {
    forEachCall(In.getBody(), [&](const Expr *Node) {
      const auto *Call = dyn_cast<CallExpr>(Node);
      std::optional<randomness::Seeding> Seed =
          Call ? randomness::seedsGenerator(*Call) : std::nullopt;
      if (Seed && !Seed->Of.CLibrary && generatorDecl(Seed->Of.Object) == &Gen)
        seed(In, Seed->Seed);
    });
  }
  /// A field: its in-class initialiser, the constructors' initialisers,
  /// and what the class's methods seed it with.
  void field(const FieldDecl &Field) {
    const auto *Class = dyn_cast<CXXRecordDecl>(Field.getParent());
    if (!Class)
      return;
    initializer(Def, Field.getInClassInitializer());
    for (const CXXMethodDecl *Method : Class->methods()) {
      const FunctionDecl *Body = nullptr;
      if (!Method->hasBody(Body) || !Body)
        continue;
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Body))
        for (const CXXCtorInitializer *Init : Ctor->inits())
          if (Init->getMember() == &Field)
            initializer(*Ctor, Init->getInit());
      if (Body != &Def)
        seedingCalls(*Body);
    }
  }

  Seeding Worst = Seeding::None;

private:
  void join(Seeding S, int P) { joinSeeding(Worst, Parameter, S, P); }

  int Parameter = -1;
  bool AnyCommon = false;

  const ValueDecl &Gen;
  const FunctionDecl &Def;
  Classify ClassifySeed;
};

} // namespace

Seeding FunctionSummaries::generatorSeeding(const FunctionDecl &Def,
                                            const Expr *Object, bool CLibrary,
                                            int &Parameter) {
  Parameter = -1;
  if (CLibrary)
    return librarySeeding();
  const ValueDecl *Gen = generatorDecl(Object);
  if (!Gen)
    return Seeding::None;
  auto Classify = [this](const FunctionDecl &In, const Expr &Value, int &P) {
    return classifySeed(In, Value, P);
  };
  GeneratorSeeds Seeds(*Gen, Def, Classify);
  Seeds.seedingCalls(Def);
  if (const auto *Param = dyn_cast<ParmVarDecl>(Gen)) {
    // A generator handed over: each call decides, unless seeded here.
    unsigned Index = Param->getFunctionScopeIndex();
    if (Seeds.Worst == Seeding::None && Index < Def.getNumParams() &&
        Def.getParamDecl(Index) == Param) {
      Parameter = int(Index);
      return Seeding::Generator;
    }
  } else if (const auto *Var = dyn_cast<VarDecl>(Gen)) {
    const VarDecl *Defined = Var->getDefinition();
    Seeds.initializer(Def, (Defined ? Defined : Var)->getInit());
  } else if (const auto *Field = dyn_cast<FieldDecl>(Gen)) {
    Seeds.field(*Field);
  }
  return Seeds.result(Parameter);
}

std::pair<Seeding, int> FunctionSummaries::drawsIn(const Expr &E,
                                                   const FunctionDecl &In,
                                                   const Expr **Decisive) {
  const auto *Call = dyn_cast<CallExpr>(&E);
  const auto *Construct = dyn_cast<CXXConstructExpr>(&E);
  const FunctionDecl *Callee =
      Call ? Call->getDirectCallee()
           : Construct ? Construct->getConstructor() : nullptr;
  if (!Callee)
    return {Seeding::None, -1};
  FunctionEffects Effects = Call ? ofCall(*Call) : of(*Callee);
  if (Effects.Draws != Seeding::Parameter &&
      Effects.Draws != Seeding::Generator)
    return {Effects.Draws, -1};
  const Expr *Arg =
      Call ? argumentFor(*Call, Effects.DrawParameter)
      : unsigned(Effects.DrawParameter) < Construct->getNumArgs()
          ? Construct->getArg(Effects.DrawParameter)
          : nullptr;
  if (Decisive)
    *Decisive = Arg;
  if (!Arg)
    return {Seeding::Common, -1};
  int P = -1;
  if (Effects.Draws == Seeding::Generator) {
    // Drawn from the generator the call hands over: how that one is seeded.
    Seeding S = generatorSeeding(In, Arg, false, P);
    return {S, P};
  }
  Seeding S = fromSeedValue(classifySeed(In, *Arg, P));
  return P >= 0 ? std::pair{Seeding::Parameter, P} : std::pair{S, -1};
}

void FunctionSummaries::visitDraws(
    const FunctionDecl &Def,
    llvm::function_ref<void(const Expr &, Seeding, int, const Expr *)> Visit) {
  // What the functions and constructors it calls draw, bound to what it
  // passes them.
  auto Callee = [&](const Expr *Node) {
    if (!isa<CallExpr, CXXConstructExpr>(Node))
      return;
    const Expr *Decisive = nullptr;
    auto [S, P] = drawsIn(*Node, Def, &Decisive);
    if (S != Seeding::None)
      Visit(*Node, S, P, Decisive);
  };
  forEachCall(Def.getBody(), Callee);
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&Def))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten())
        forEachCall(Init->getInit(), Callee);
  // The values it draws itself; the standard library's own bodies are the
  // vocabulary's to describe.
  if (inSystemHeader(Def))
    return;
  forEachCallInContext(Def.getBody(), Context::Neutral,
                       [&](const CallExpr &Call, bool Floating) {
    std::optional<randomness::Generator> Gen =
        randomness::drawnValue(Call, Floating);
    if (!Gen)
      return;
    int P = -1;
    Seeding S = generatorSeeding(Def, Gen->Object, Gen->CLibrary, P);
    if (S != Seeding::None)
      Visit(Call, S, P, nullptr);
  });
}

void FunctionSummaries::forEachDraw(
    const FunctionDecl &Def,
    llvm::function_ref<void(const Expr &, SeedValue, const Expr *)> Visit) {
  visitDraws(Def, [&](const Expr &Node, Seeding S, int, const Expr *Decisive) {
    Visit(Node, seedOf(S), Decisive);
  });
}

void FunctionSummaries::addDraws(const FunctionDecl &Def, FunctionEffects &E) {
  visitDraws(Def, [&](const Expr &, Seeding S, int P, const Expr *) {
    joinSeeding(E.Draws, E.DrawParameter, S, P);
  });
}

} // namespace clang::tidy::ddp
