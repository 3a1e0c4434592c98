//===--- Ranks.h - rank and world-size sources ----------------------------===//
//
// Where a program gets its rank and the world size: queries, environment
// variables and names (RankVocabulary, configured by `RankFunctions`,
// `RankEnvironmentVariables`, `RankVariables`, `WorldSizeFunctions` and
// `WorldSizeEnvironmentVariables`), and the names of sizes and averaging
// (free functions in `ranks`).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_RANKS_H
#define DDPLINT_CHECKS_VOCABULARY_RANKS_H

#include "vocabulary/NameList.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

#include <string>
#include <vector>

namespace clang::tidy::ddp {

namespace ranks {

/// A name programs give the number of ranks: `world`, `world_size`,
/// `kWorldSize`, `ws`, `num_ranks`, `nprocs`, `num_gpus`, ... (not
/// `world_rank`).
bool isWorldSizeName(llvm::StringRef Name);

/// Which side of a test of the world size against a number runs on one
/// process alone: true for the `then` side (`ws == 1`, `ws <= 1`,
/// `ws < 2`, `1 >= ws`), false for the `else` side (`ws > 1`, `ws != 1`,
/// `ws >= 2`), nullopt where \p Condition is no such test. \p IsWorldSize
/// says which expressions hold the world size.
std::optional<bool>
soleProcessOnThen(const Expr *Condition,
                  llvm::function_ref<bool(const Expr *)> IsWorldSize,
                  const ASTContext &Context);

/// A method name that asks a communicator for its size: `size`,
/// `getSize`, `get_size`, `nranks`, `num_ranks`.
bool isSizeMethodName(llvm::StringRef Name);

/// A name (or the operator `/`, `/=`) that looks like averaging by the
/// world size: `div`, `mul_`, `avg`, `average`, `world`, `getsize`,
/// `comm_size` in any case. What `#ifdef`-gated code, or a call into a
/// missing header, may be.
bool looksLikeAveraging(llvm::StringRef Name);

/// A call that reads a clock: `std::chrono::*_clock::now()`, `time`,
/// `clock`, `gettimeofday`, `clock_gettime`, `MPI_Wtime`, `omp_get_wtime`.
/// Each process reads its own, so what it returns differs between ranks.
bool readsClock(const CallExpr &Call);

/// Whether a value differs from process to process whatever the rank:
/// `std::random_device{}()`, a clock, `getpid()`, also through a local
/// initialised with one.
bool differsPerProcess(const Stmt *S, unsigned Depth = 0);

} // namespace ranks

/// Rank and world-size sources, configured by the Rank* and WorldSize*
/// options.
class RankVocabulary {
public:
  explicit RankVocabulary(ClangTidyCheck::OptionsView &Options);
  void storeOptions(ClangTidyCheck::OptionsView &Options,
                    ClangTidyOptions::OptionMap &Opts) const;

  /// A call whose value is the rank (`pg->getRank()`,
  /// `std::getenv("RANK")`, `comm.rank()`).
  bool returnsRank(const CallExpr &Call) const;

  /// For rank queries that write through a pointer (`MPI_Comm_rank(c,
  /// &rank)`), the argument written; null otherwise.
  const Expr *rankOutputArgument(const CallExpr &Call) const;

  /// A variable, field, parameter or function whose name says it holds the
  /// rank: `rank`, `rank_`, `local_rank`, `myRank`, `getRank` (the last word,
  /// after a leading `get`, is "rank", and no word names another process:
  /// `root_rank`, `src_rank` and `dst_rank` are not this process's rank), a
  /// `bool` named like `is_main` / `isMaster` / `is_root_process`, or a name
  /// in `RankVariables`.
  bool isRankName(const NamedDecl &D) const;

  /// A call of a function that reads an environment variable named in
  /// `RankEnvironmentVariables`, when the variable name is passed as a string
  /// literal to a helper (`env_int("RANK", 0)`): the helper is `getenv`
  /// itself or a function named like an environment accessor (`*env*`).
  bool readsRankEnvironment(const CallExpr &Call) const;

  /// Whether \p S mentions the rank: a rank query, a rank environment
  /// variable, a rank-named variable, field or function, or a local
  /// initialised from one of those.
  bool mentionsRank(const Stmt *S) const;

  /// The same test on one statement, its children left out: a rank query,
  /// a rank environment variable, a rank-named variable, field or function.
  bool namesRank(const Stmt &S) const;

  /// A call whose value is the world size (`pg->getSize()`, `comm.size()`,
  /// `std::getenv("WORLD_SIZE")`, or a configuration reader given that
  /// variable's name: `env_int("WORLD_SIZE", 1)`).
  bool returnsWorldSize(const CallExpr &Call) const;

  /// For world-size queries that write through a pointer
  /// (`MPI_Comm_size(c, &size)`), the argument written; null otherwise.
  const Expr *worldSizeOutputArgument(const CallExpr &Call) const;

private:
  /// A function returning a rank or the world size, or writing it through
  /// an argument (`name@N`).
  struct QueryFunction {
    NameList Name;
    int OutputArgument; // -1: the value is returned
  };

  std::string RankFunctionsSpec;
  std::vector<QueryFunction> RankFunctions;
  std::string RankEnvironmentVariablesSpec;
  std::vector<std::string> RankEnvironmentVariables;
  NameList RankVariables;
  std::string WorldSizeFunctionsSpec;
  std::vector<QueryFunction> WorldSizeFunctions;
  std::string WorldSizeEnvironmentVariablesSpec;
  std::vector<std::string> WorldSizeEnvironmentVariables;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_RANKS_H
