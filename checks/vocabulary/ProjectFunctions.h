//===--- ProjectFunctions.h - what functions out of sight do --------------===//
//
// A function called here but defined in another translation unit of the
// project has no body to read. Its own unit's summary (summary/) says what
// it does; the driver keeps those summaries in its cache folder, keyed by
// the function's USR, and this store serves them to every check of the
// units that call it, the way the vocabulary serves what an SDK function
// does by its name.
//
// FunctionEffects is the part of a function summary that crosses units:
// plain data with a one-line text form. ProjectFunctions is the store: the
// summaries loaded from a folder or added by the driver while it runs, and,
// per thread, the questions asked of it (which USRs a unit looked up and
// what it got), so that a unit is analysed again when an answer changes.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_PROJECTFUNCTIONS_H
#define DDPLINT_CHECKS_VOCABULARY_PROJECTFUNCTIONS_H

#include "vocabulary/VocabularyTypes.h"

#include "clang/AST/Decl.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang::tidy::ddp {

/// What a function does, in terms its callers can apply at a call.
struct FunctionEffects {
  /// Where a value the function produces comes from (bits).
  enum Origin : uint8_t {
    FromRank = 1,      // the rank (a rank query, a launcher variable)
    FromWorldSize = 2, // the world size: the same on every rank
  };
  /// How the function seeds the random generators.
  enum class Seeding : uint8_t {
    None,
    Common,     // with the same value on every rank
    Parameter,  // with the value of parameter SeedParameter
    PerProcess, // with a value each process draws (time, random_device)
    Rank,       // with a value computed from the rank
    Generator,  // (draws only) from the generator handed as a parameter
  };

  /// Whether the function issues a collective, at any depth, and the kind
  /// of the first one (none when that is not known).
  bool Communicates = false;
  std::optional<CollectiveKind> Collective;
  /// Its reduce operation, when it reduces (Unknown: not known here).
  ReduceOpKind Op = ReduceOpKind::Unknown;
  /// What the return value holds.
  uint8_t Returned = 0;
  /// What each reference or pointer parameter holds when the function
  /// returns, by index: only the parameters it writes with a rank or world
  /// size. Other parameters keep what the caller passed.
  std::map<unsigned, uint8_t> Outputs;
  Seeding Seeds = Seeding::None;
  int SeedParameter = -1;
  /// How the generators it draws random values from are seeded (weights
  /// drawn from `std::normal_distribution`, `rand() / RAND_MAX`, cuRAND's
  /// uniform or normal values; not LibTorch's generator, not integers
  /// drawn to shuffle or pick): the worst of them, rank before process
  /// before a parameter before common. Parameter: seeded with parameter
  /// DrawParameter; Generator: drawn from the generator handed as
  /// parameter DrawParameter.
  Seeding Draws = Seeding::None;
  int DrawParameter = -1;
  /// The parameters naming a file the function writes or reads (a
  /// checkpoint, a stream); -1 when none.
  int SavesPath = -1;
  int LoadsPath = -1;
  /// Whether that file is a plain file (a stream, C stdio) rather than a
  /// checkpoint (`torch::save`, a checkpoint helper out of sight).
  bool SavesPlainFile = false;
  bool LoadsPlainFile = false;
  /// Whether it writes that file only on some ranks (under a condition on
  /// the rank): a call is then no write by every rank.
  bool SavesOnSomeRanks = false;
  /// Whether it steps the parameters: an optimizer's step, or an update
  /// in place written by hand (`param -= lr * grad`, `p.data().sub_(...)`)
  /// of a tensor it is handed with a value made from gradients.
  bool StepsParameters = false;
  /// Whether it broadcasts a module's parameters (every replica then holds
  /// the root's values).
  bool BroadcastsParameters = false;
  /// Whether it leaves a coalescing group opened or closes one it did not
  /// open (`ncclGroupStart()`, c10d's `startCoalescing()`, or a function
  /// that calls more of one than of the other): the collectives issued
  /// between the two are fused into one launch.
  enum class Group : uint8_t { None, Opens, Closes };
  Group Groups = Group::None;

  bool empty() const { return *this == FunctionEffects(); }
  bool operator==(const FunctionEffects &Other) const;
  bool operator!=(const FunctionEffects &Other) const {
    return !(*this == Other);
  }
  /// `collective=allreduce;op=sum;returns=rank;out1=world;seed=param0;...`
  std::string encode() const;
  /// None for text that is not an encoding.
  static std::optional<FunctionEffects> decode(llvm::StringRef Text);
};

/// The USR of a function (its canonical declaration), as the index names
/// it across translation units; empty when there is none.
std::string functionUSR(const FunctionDecl &FD);

/// The summaries of the project's functions defined in other units.
class ProjectFunctions {
public:
  /// The process's store (the checks of every unit share it).
  static ProjectFunctions &instance();

  /// Reads every `*.summaries` file of \p Dir (once per folder); returns
  /// the number of functions it holds afterwards.
  size_t loadFolder(llvm::StringRef Dir);
  /// Reads the `*.summaries` files \p Paths that exist (a project's own
  /// units'); returns the number of functions it holds afterwards.
  size_t loadFiles(llvm::ArrayRef<std::string> Paths);
  /// Adds or replaces the summaries of one unit's functions.
  void add(const std::vector<std::pair<std::string, FunctionEffects>> &Unit);
  /// What \p FD does when another unit defines it (looked up by USR; the
  /// question is recorded on this thread). None for a function nobody
  /// summarised, and for functions with a body here.
  std::optional<FunctionEffects> lookup(const FunctionDecl &FD) const;
  /// The current encoding for \p USR, or "" when there is none.
  std::string encodingOf(llvm::StringRef USR) const;
  size_t size() const;

  /// The questions this thread asked since the last call: USR and the
  /// encoding it got first ("" for none), sorted.
  static std::vector<std::pair<std::string, std::string>> takeQuestions();

  /// One summary file: `USR<TAB>encoding` lines.
  static std::string
  format(const std::vector<std::pair<std::string, FunctionEffects>> &Unit);

private:
  mutable std::mutex Lock;
  llvm::StringMap<FunctionEffects> ByUSR;
  llvm::StringMap<bool> LoadedFolders;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_PROJECTFUNCTIONS_H
