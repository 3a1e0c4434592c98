//===- LauncherEnv.h - A rank's place in the job, from its launcher -------===//
//
// Every launcher tells a process its rank in its own variables. The first
// launcher whose rank variable is set wins, in this order:
//
//   torchrun, ddp-harness run  RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE
//   Open MPI (mpirun)          OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE,
//                              OMPI_COMM_WORLD_LOCAL_RANK,
//                              OMPI_COMM_WORLD_LOCAL_SIZE
//   MPICH, Intel MPI (PMI)     PMI_RANK, PMI_SIZE, MPI_LOCALRANKID,
//                              MPI_LOCALNRANKS
//   Slurm (srun)               SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID,
//                              SLURM_NTASKS_PER_NODE or SLURM_TASKS_PER_NODE
//
// torchrun comes first because it is the innermost launcher where they nest
// (`srun torchrun ...` leaves SLURM_PROCID set to the srun task), and MPI
// before Slurm for `mpirun` inside an sbatch script. A local rank that is not
// given is 0; a local world size that is not given is the world size.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHERENV_H
#define DDPHARNESS_LAUNCHERENV_H

#include <string>

namespace ddpharness {

struct LauncherRanks {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  /// "torchrun", "openmpi", "pmi" or "slurm".
  std::string launcher;
};

/// The ranks from the first launcher found; throws std::runtime_error when
/// no launcher's rank variable is set, or a value is not a number in range
/// (the message names the variable).
LauncherRanks read_launcher_ranks();

/// As read_launcher_ranks(), but rank 0 of 1 (launcher "") when no launcher
/// set anything usable: what the probe keys its files by.
LauncherRanks launcher_ranks_or_single();

} // namespace ddpharness

#endif
