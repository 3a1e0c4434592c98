// ddp-divergent-collective on C-style trainers over MPI, NCCL and the CUDA
// runtime: what is uniform there although the rank passed near it. Every
// function but those marked "Bad" is correct and must stay silent.
//
// The SDK headers as system headers, and as user headers (-I, as many
// builds pass them): the findings are the same.
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- -std=c++17 -isystem %src_root/sdk-fallback 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- -std=c++17 -I %src_root/sdk-fallback 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>
#include <algorithm>
#include <map>

#define MPI_TRY(call)                                                          \
  do {                                                                         \
    int status_ = (call);                                                      \
    if (status_ != MPI_SUCCESS)                                                \
      std::exit(1);                                                            \
  } while (0)
#define NCCL_TRY(call)                                                         \
  do {                                                                         \
    ncclResult_t status_ = (call);                                             \
    if (status_ != ncclSuccess)                                                \
      throw std::runtime_error("nccl failed");                                 \
  } while (0)

// Every rank is the root once: the loop runs as often everywhere.
void each_rank_a_root(float *shards, int count) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  for (int root = 0; root < world; ++root)
    MPI_Bcast(shards + root * count, count, MPI_FLOAT, root, MPI_COMM_WORLD);
}

// A table of one entry per rank, written at this rank's entry: its size is
// the world size.
void table_by_rank(int local_count) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  std::vector<int> counts(world, 0);
  counts[rank] = local_count;
  MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, counts.data(), 1, MPI_INT,
                MPI_COMM_WORLD);
  for (size_t peer = 0; peer < counts.size(); ++peer)
    MPI_Barrier(MPI_COMM_WORLD);
}

// Decided on rank 0, then broadcast before anyone tests it.
int resume_requested();
void decided_on_root(float *weights, int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int resume = 0;
  if (rank == 0)
    resume = resume_requested();
  MPI_Bcast(&resume, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (resume)
    MPI_Bcast(weights, count, MPI_FLOAT, 0, MPI_COMM_WORLD);
}

// Status codes of setup calls say whether they failed, not what the rank is:
// the throw and exit of the error-check macros are no rank split.
void checked_setup(ncclUniqueId *ids, float *grads, size_t count) {
  int rank = 0, world = 1;
  MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &world));
  ncclComm_t comm;
  NCCL_TRY(ncclCommInitRank(&comm, world, ids[rank], rank));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  NCCL_TRY(ncclAllReduce(grads, grads, count, ncclFloat, ncclAvg, comm, stream));
}

// Local queries are no collectives, and MPI_Abort ends every rank.
void local_queries(float *grads, int count, int bad) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && bad)
    MPI_Abort(MPI_COMM_WORLD, 1);
  int world = 1;
  if (rank == 0)
    MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Allreduce(MPI_IN_PLACE, grads, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

// A loader struct filled through a pointer: the rank goes into the fields
// that pick this rank's shard, not into the token count every rank reads
// from the same files.
struct TokenLoader {
  int process_rank;
  int num_processes;
  long batch, seq;
  long num_tokens;
  long offset;
};
long count_tokens(const char *pattern);
void token_loader_reset(TokenLoader *loader) {
  loader->offset = loader->process_rank * loader->batch * loader->seq;
}
void token_loader_init(TokenLoader *loader, const char *pattern, long batch,
                       long seq, int process_rank, int num_processes) {
  loader->process_rank = process_rank;
  loader->num_processes = num_processes;
  loader->batch = batch;
  loader->seq = seq;
  loader->num_tokens = count_tokens(pattern);
  token_loader_reset(loader);
}
// The mean of a host value over the ranks, through a device buffer.
float mean_over_ranks(float value, float *device, ncclComm_t comm,
                      cudaStream_t stream, int world) {
  cudaMemcpy(device, &value, sizeof(float), cudaMemcpyHostToDevice);
  ncclAllReduce(device, device, 1, ncclFloat, ncclSum, comm, stream);
  float sum = 0;
  cudaMemcpy(&sum, device, sizeof(float), cudaMemcpyDeviceToHost);
  return sum / world;
}
float local_loss(long step);
void token_training(const char *pattern, int process_rank, int num_processes,
                    float *grads, size_t count, float *device,
                    ncclComm_t comm, cudaStream_t stream) {
  TokenLoader loader;
  token_loader_init(&loader, pattern, 8, 1024, process_rank, num_processes);
  long steps = loader.num_tokens / (loader.batch * loader.seq * num_processes);
  for (long step = 0; step <= steps; ++step) {
    bool last_step = step == steps;
    float loss = mean_over_ranks(local_loss(step), device, comm, stream,
                                 num_processes);
    if (loss > 100.0f)
      break;
    ncclAllReduce(grads, grads, count, ncclFloat, ncclAvg, comm, stream);
    if (last_step)
      break;
  }
}

// A wrapper's broadcast of a flag rank 0 decided, through a pointer: the
// flag is the same everywhere afterwards.
struct Mpi {
  virtual ~Mpi() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void broadcast(void *buffer, size_t count, MPI_Datatype type,
                         size_t root, MPI_Comm comm = MPI_COMM_WORLD) const = 0;
};
bool checkpoint_exists();
void load_checkpoint(const Mpi &mpi, float *weights, int count) {
  bool found = false;
  if (mpi.rank() == 0)
    found = checkpoint_exists();
  mpi.broadcast(&found, 1, MPI_C_BOOL, 0);
  if (found)
    mpi.broadcast(weights, count, MPI_FLOAT, 0);
}

// Each process is the root in turn, with a counter named like a rank; and a
// table with one hash per process, filled at this process's entry, then
// walked by its size.
size_t local_hash();
void compare_hashes(const Mpi &mpi) {
  std::vector<size_t> hashes(mpi.size(), 0);
  for (size_t i = 0; i < hashes.size(); ++i)
    if (i == (size_t)mpi.rank())
      hashes[i] = local_hash();
  for (size_t i = 0; i < hashes.size(); ++i)
    mpi.broadcast(&hashes[i], 1, MPI_UNSIGNED_LONG, i);
  for (size_t peerRank = 0; peerRank < (size_t)mpi.size(); ++peerRank)
    mpi.broadcast(hashes.data(), hashes.size(), MPI_UNSIGNED_LONG, peerRank);
}

// The rank handed in a field of a struct of options: what the struct is
// for, not data that comes back with the result (as for a local struct).
struct ResumeOptions {
  int rank;
  const char *root;
};
int resume_step(ResumeOptions options);
void resume_then_train(int rank, int steps, float *grads, int count) {
  for (int step = resume_step({rank, "checkpoints"}); step < steps; ++step)
    MPI_Allreduce(MPI_IN_PLACE, grads, count, MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
}

// A root/non-root split in check macros that exit on an error: both sides
// broadcast once, and the exits do not make the two sides meet later.
void split_in_check_macros(float *buf, int count, int rank) {
  if (rank == 0)
    MPI_TRY(MPI_Bcast(buf, count, MPI_FLOAT, 0, MPI_COMM_WORLD));
  else
    MPI_TRY(MPI_Bcast(buf, count, MPI_FLOAT, 0, MPI_COMM_WORLD));
  MPI_TRY(MPI_Barrier(MPI_COMM_WORLD));
}

// Bad: one extra broadcast on the ranks where the condition holds. The
// broadcast after the branch matches neither side's first one: the exit of
// the check macro is no path on which the ranks meet again.
void extra_in_check_macro(float *buf, float *extra, int count, int rank) {
  if (rank == 0)
    MPI_TRY(MPI_Bcast(extra, count, MPI_FLOAT, 0, MPI_COMM_WORLD));
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: collective 'MPI_Bcast' runs only on ranks where a condition that depends on the rank holds
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: this condition depends on the rank
  MPI_TRY(MPI_Bcast(buf, count, MPI_FLOAT, 0, MPI_COMM_WORLD));
}

// Bad: the shard's length decides the trip count, and the last rank takes
// the remainder.
void remainder_shard(float *grads, int count, long samples) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  long per_rank = samples / world;
  long mine = rank == world - 1 ? samples - per_rank * (world - 1) : per_rank;
  for (long first = 0; first < mine; first += 32)
    MPI_Allreduce(MPI_IN_PLACE, grads, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds
  // CHECK-MESSAGES: :[[@LINE-3]]:24: note: this condition depends on the rank
  // CHECK-MESSAGES: :[[@LINE-8]]:3: note: the rank comes from here
}

// Bad: a field the helper fills from the rank still decides.
void shard_offset_decides(const char *pattern, int process_rank,
                          int num_processes, float *grads, int count) {
  TokenLoader loader;
  token_loader_init(&loader, pattern, 8, 1024, process_rank, num_processes);
  if (loader.offset == 0)
    MPI_Bcast(grads, count, MPI_FLOAT, 0, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'MPI_Bcast' runs only on ranks where a condition that depends on the rank holds
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the rank comes from here
}

// A communicator object that may be absent (a run without MPI): the flag
// rank 0 found is broadcast through it where it exists, and where it does
// not, the process is alone. The flag then decides nothing divergent.
class Messenger {
public:
  void bcast(void *buf, int count, MPI_Datatype type) {
    MPI_Bcast(buf, count, type, 0, comm_);
  }

private:
  MPI_Comm comm_ = MPI_COMM_WORLD;
};

bool checkpoint_exists();

struct Restorer {
  Messenger *mpi_ = nullptr;
  int rank_ = 0;
  float weights_[16];

  void restore() {
    bool found = false;
    if (rank_ == 0)
      found = checkpoint_exists();
    if (mpi_)
      mpi_->bcast(&found, 1, MPI_C_BOOL);
    if (found)
      if (mpi_ != nullptr)
        mpi_->bcast(weights_, 16, MPI_FLOAT);
  }

  // Bad: without the broadcast of the flag, the handle test does not help.
  void restore_unsynced() {
    bool found = false;
    if (rank_ == 0)
      found = checkpoint_exists();
    if (found && mpi_)
      mpi_->bcast(weights_, 16, MPI_FLOAT);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'bcast', which issues collective 'MPI_Bcast', runs only on ranks where a condition that depends on the rank holds
    // CHECK-MESSAGES: :[[@LINE-3]]:9: note: this condition depends on the rank
    // CHECK-MESSAGES: :[[@LINE-6]]:9: note: the rank comes from here
    // CHECK-MESSAGES: :[[@LINE-35]]:5: note: the collective is issued here, inside 'bcast'
  }
};

// Sub-communicators: each group of ranks has its own communicator, looked up
// by the group's tag; only a group's members call its collectives.
MPI_Comm group_communicator(int tag, const std::vector<int> &members);
bool contains(const std::vector<int> &ranks, int rank);

void reduce_in_groups(const std::map<int, std::vector<int>> &groups,
                      float *grads, int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (const auto &[tag, members] : groups) {
    if (contains(members, rank)) {
      MPI_Comm comm = group_communicator(tag, members);
      MPI_Allreduce(MPI_IN_PLACE, grads, count, MPI_FLOAT, MPI_SUM, comm);
      MPI_Barrier(comm);
    }
  }
}

// Bad: the members of a group call a collective of the whole world.
void group_members_reduce_world(const std::vector<int> &active, float *grads,
                                int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (std::find(active.begin(), active.end(), rank) != active.end())
    MPI_Allreduce(MPI_IN_PLACE, grads, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the rank comes from here
}
