//===- LauncherEnv.cpp - A rank's place in the job, from its launcher -----===//

#include "ddpharness/LauncherEnv.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

using namespace ddpharness;

namespace {

/// One launcher's variable names; Local* may be null (not given).
struct LauncherVars {
  const char *Launcher;
  const char *Rank, *Size, *LocalRank, *LocalSize, *LocalSizeAlt;
};

const LauncherVars Launchers[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
     nullptr},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", nullptr},
    {"pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
     nullptr},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
     "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE"},
};

const char *envSet(const char *Name) {
  const char *V = Name ? std::getenv(Name) : nullptr;
  return V && *V ? V : nullptr;
}

/// The leading whole number of \p Name's value in [Min, Max]. Slurm's task
/// counts per node read "2(x3)" or "4,2" on uneven nodes: the first count is
/// this node's when the nodes are even, and the leading number is taken.
long parseInt(const char *Name, const char *Text, long Min, long Max,
              bool LeadingOnly) {
  errno = 0;
  char *End = nullptr;
  long N = std::strtol(Text, &End, 10);
  bool Trailing = *End && !(LeadingOnly && (*End == '(' || *End == ','));
  if (errno || End == Text || Trailing || N < Min || N > Max)
    throw std::runtime_error(std::string(Name) + "='" + Text +
                             "' is not a number in [" + std::to_string(Min) +
                             ", " + std::to_string(Max) + "]");
  return N;
}

LauncherRanks readFrom(const LauncherVars &L) {
  LauncherRanks R;
  R.launcher = L.Launcher;
  const char *Size = envSet(L.Size);
  if (!Size)
    throw std::runtime_error(std::string(L.Rank) + " is set but " + L.Size +
                             " is not");
  R.world_size = static_cast<int>(parseInt(L.Size, Size, 1, 1 << 16, false));
  R.rank = static_cast<int>(
      parseInt(L.Rank, envSet(L.Rank), 0, R.world_size - 1, false));
  if (const char *V = envSet(L.LocalRank))
    R.local_rank = static_cast<int>(
        parseInt(L.LocalRank, V, 0, R.world_size - 1, false));
  R.local_world_size = R.world_size;
  const char *LocalSizeName = envSet(L.LocalSize) ? L.LocalSize
                                                  : L.LocalSizeAlt;
  if (const char *V = envSet(LocalSizeName))
    R.local_world_size = static_cast<int>(
        parseInt(LocalSizeName, V, 1, R.world_size, true));
  return R;
}

} // namespace

LauncherRanks ddpharness::read_launcher_ranks() {
  for (const LauncherVars &L : Launchers)
    if (envSet(L.Rank))
      return readFrom(L);
  throw std::runtime_error(
      "no launcher's rank is set (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK or "
      "SLURM_PROCID); start the program with 'ddp-harness run', torchrun, "
      "mpirun or srun");
}

LauncherRanks ddpharness::launcher_ranks_or_single() {
  try {
    return read_launcher_ranks();
  } catch (const std::runtime_error &) {
    return LauncherRanks();
  }
}
