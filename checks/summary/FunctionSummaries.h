//===--- FunctionSummaries.h - what each function does, once --------------===//
//
// One summary per function, shared by every check: which collective it
// issues and with which reduce operation, where its return value and its
// output parameters come from (the rank, the world size), how it seeds the
// random generators, which of its parameters name a file it writes or
// reads, whether it steps an optimizer or broadcasts parameters. A check
// asks the summary of the function a call runs instead of walking the
// helper's body itself.
//
// Summaries are computed bottom-up over the unit's calls: a function's
// effects include those of the functions it calls, applied at each call
// (a helper's `seed=param0` becomes what this call passes). A function
// being summarised when a recursive call reaches it counts as doing
// nothing on that path; the rest of its body still counts. A function with
// no body here gets the summary its own unit wrote (ProjectFunctions, by
// USR), or none: the analyses then keep the conservative reading they
// document, which favours silence.
//
// The layer sits between the analyses (which it asks: collective sites,
// divergence) and the models and checks (which ask it).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_SUMMARY_FUNCTIONSUMMARIES_H
#define DDPLINT_CHECKS_SUMMARY_FUNCTIONSUMMARIES_H

#include "analysis/Divergence.h"
#include "vocabulary/ProjectFunctions.h"

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace clang::tidy::ddp {

/// How a seed (of a call that seeds) differs between ranks.
enum class SeedValue { None, Common, PerProcess, Rank };

class FunctionSummaries {
public:
  FunctionSummaries(const Vocabulary &Vocab, ASTContext &Context);
  ~FunctionSummaries();

  /// What \p FD does: its body's summary when it has one here, else what
  /// its own unit said (ProjectFunctions), else nothing.
  const FunctionEffects &of(const FunctionDecl &FD);
  /// Whether \p FD has a summary: a body here or one from its own unit.
  bool known(const FunctionDecl &FD);
  /// Whether \p FD is out of sight: the project's (not a system
  /// header's), with no body here and no summary from its own unit. What
  /// it does is not known; a question it could answer either way is left
  /// unanswered (a pure virtual method is out of sight too).
  bool outOfSight(const FunctionDecl &FD);

  /// The effects of one call: the vocabulary's for an SDK or LibTorch call,
  /// the callee's summary for the project's own functions.
  FunctionEffects ofCall(const CallExpr &Call);

  // Questions of one call, with the callee's parameters bound to what the
  // call passes.
  /// How \p Call seeds the random generators: `torch::manual_seed(v)` or
  /// a helper that seeds (with a value of its own or with what it is
  /// passed). \p Value is set to the expression that decides the seed,
  /// when there is one in this call.
  SeedValue seeds(const CallExpr &Call, const Expr **Value = nullptr);
  /// The argument of \p Call naming a file the callee writes (\p Saves) or
  /// reads; null when it names none. \p PlainFile: whether the callee opens
  /// it as a plain file (a stream, C stdio) rather than a checkpoint.
  const Expr *filePath(const CallExpr &Call, bool Saves,
                       bool *PlainFile = nullptr, bool *SomeRanks = nullptr);
  /// Whether \p E (a call or a construction) broadcasts a module's
  /// parameters: a broadcast, or a function or constructor whose summary
  /// says it broadcasts them (not one that touches only the buffers).
  bool broadcasts(const Expr &E);
  /// Each call or construction of \p Def's body that draws random
  /// values (SummaryDraws.cpp): a draw of its own (`dist(gen)`,
  /// `rand() / (float)RAND_MAX`, `curandGenerateNormal(...)`) or a call of
  /// a function or constructor whose summary draws, with how the
  /// generator is seeded (the callee's parameters bound to what the call
  /// passes) and the argument that decides it (a seed or a generator
  /// handed over), when there is one in the call.
  void forEachDraw(
      const FunctionDecl &Def,
      llvm::function_ref<void(const Expr &, SeedValue, const Expr *)> Visit);
  /// Whether \p FD runs in a distributed program: what the vocabulary sees
  /// in its own body (a communicator, a rank query, a collective, ...), or
  /// a call of a function that communicates, at any depth.
  bool distributed(const FunctionDecl &FD);

  /// The summaries of the unit's externally visible functions with bodies,
  /// by USR, for other units to use.
  std::vector<std::pair<std::string, FunctionEffects>> exported();

  DivergenceAnalysis &analysis() { return *Analysis; }
  ASTContext &context() const { return Context; }
  const Vocabulary &vocabulary() const { return Vocab; }

private:
  FunctionEffects summarise(const FunctionDecl &Def);
  /// The phases of summarise(), one per kind of effect.
  void addCollective(const FunctionDecl &Def, FunctionEffects &E);
  void addOrigins(const FunctionDecl &Def, FunctionEffects &E);
  void addCallEffects(const FunctionDecl &Def, FunctionEffects &E);
  void addFileAccesses(const FunctionDecl &Def, FunctionEffects &E);
  void addBroadcasts(const FunctionDecl &Def, FunctionEffects &E);
  /// A hand-written update of a tensor it is handed, by a value made from
  /// gradients, is a step (SummaryUpdates.cpp).
  void addUpdates(const FunctionDecl &Def, FunctionEffects &E);
  /// The random values it draws, and how their generators are seeded.
  void addDraws(const FunctionDecl &Def, FunctionEffects &E);
  void visitDraws(const FunctionDecl &Def,
                  llvm::function_ref<void(const Expr &, FunctionEffects::Seeding,
                                          int, const Expr *)>
                      Visit);
  /// draws(), with a seed or generator that \p In is handed left as its
  /// parameter's index.
  std::pair<FunctionEffects::Seeding, int>
  drawsIn(const Expr &E, const FunctionDecl &In, const Expr **Decisive);
  /// How the generator \p Object names (C's own one when \p CLibrary) is
  /// seeded, seen from \p Def; \p Parameter receives the index of the
  /// parameter of \p Def that decides it (the seed or the generator).
  FunctionEffects::Seeding generatorSeeding(const FunctionDecl &Def,
                                            const Expr *Object, bool CLibrary,
                                            int &Parameter);
  /// How the unit seeds C's generator (`srand`): the worst of its seeds,
  /// Common when there is none (C's default seed is a constant).
  FunctionEffects::Seeding librarySeeding();
  /// Whether a condition on the rank decides whether \p S runs in \p Def.
  bool underRankCondition(const FunctionDecl &Def, const Stmt &S);
  /// How a seed value of \p Def differs between ranks (or which of \p Def's
  /// parameters it is).
  SeedValue classifySeed(const FunctionDecl &Def, const Expr &Value,
                         int &Parameter);

  const Vocabulary &Vocab;
  ASTContext &Context;
  std::unique_ptr<DivergenceAnalysis> Analysis;
  llvm::DenseMap<const FunctionDecl *, FunctionEffects> Done;
  llvm::DenseSet<const FunctionDecl *> InProgress;
  /// Summaries looked up in ProjectFunctions, by canonical declaration.
  llvm::DenseMap<const FunctionDecl *, std::optional<FunctionEffects>>
      External;
  std::optional<FunctionEffects::Seeding> LibrarySeeding;
};

/// The functions with bodies declared in \p DC and the namespaces and
/// classes inside it, outside system headers (\p ExternalOnly: only those
/// other units can call).
void collectDefinitions(const DeclContext &DC, const SourceManager &SM,
                        bool ExternalOnly,
                        std::vector<const FunctionDecl *> &Out);

/// A summary's seeding that does not depend on what a call passes (one
/// with a parameter or a generator handed over counts as common).
SeedValue seedOf(FunctionEffects::Seeding S);

/// The argument of \p Call passed for the callee's parameter \p Index
/// (an operator method's object is its first argument); null when none.
const Expr *argumentFor(const CallExpr &Call, int Index);

/// The index of the parameter of \p FD that \p E names (through casts,
/// `std::string` conversions and `.c_str()`), or -1.
int parameterIndexOf(const FunctionDecl &FD, const Expr *E);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_SUMMARY_FUNCTIONSUMMARIES_H
