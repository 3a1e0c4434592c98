// ddp-divergent-collective: a value depends on the rank where a rank flows
// into it, as the functions' summaries say, not where a rank merely passes
// near it; and what reaches each process on its own (a signal, a clock)
// differs between ranks. Every function but those marked "Bad" is correct
// and must stay silent.
//
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- -std=c++17 -isystem %src_root/sdk-fallback 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- -std=c++17 -isystem %src_root/sdk-fallback 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <vector>

//===----------------------------------------------------------------------===//
// A helper that fills the rank and the world size
//===----------------------------------------------------------------------===//

void init_distributed(int &rank, int &world_size) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
}

void sum_gradients(std::vector<float> &grad, int world_size) {
  if (world_size > 1)
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
}

// The world size is the same on every rank, although the helper that fills
// it fills the rank too.
void world_size_from_helper(std::vector<float> &grad) {
  int rank = 0, world_size = 1;
  init_distributed(rank, world_size);
  if (world_size > 1)
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
  sum_gradients(grad, world_size);
}

// Bad: the rank the same helper fills does differ.
void rank_from_helper(std::vector<float> &grad) {
  int rank = 0, world_size = 1;
  init_distributed(rank, world_size);
  if (rank == 0)
    MPI_Barrier(MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'MPI_Barrier' runs only on ranks where a condition that depends on the rank holds; ranks that skip it wait forever in their next collective (the job hangs); issue it on every rank (a root/non-root split must call the matching collective on both sides) [ddp-divergent-collective]
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the rank comes from here
}

// A helper that fills a rank-named output from the world size alone.
void read_sizes(int &local_rank_count, int &size) {
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  local_rank_count = size;
}

void sizes_named_like_ranks(std::vector<float> &grad) {
  int ranks_here = 0, size = 0;
  read_sizes(ranks_here, size);
  for (int i = 0; i < size; ++i)
    MPI_Bcast(grad.data(), (int)grad.size(), MPI_FLOAT, i, MPI_COMM_WORLD);
}

//===----------------------------------------------------------------------===//
// A loop over an object built with a rank it does not count with
//===----------------------------------------------------------------------===//

// Counts from 0 to n; `show` only decides whether it prints progress.
class ProgressRange {
public:
  struct Iterator {
    int Index;
    int operator*() const { return Index; }
    Iterator &operator++() {
      ++Index;
      return *this;
    }
    bool operator!=(const Iterator &Other) const { return Index != Other.Index; }
  };
  ProgressRange(int n, bool show) : n_(n), show_(show) {}
  ~ProgressRange() {
    if (show_)
      std::printf("done\n");
  }
  Iterator begin() const { return {0}; }
  Iterator end() const { return {n_}; }

private:
  int n_;
  bool show_;
};

void progress_on_rank_zero(std::vector<float> &grad, int steps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int step : ProgressRange(steps, /*show=*/rank == 0))
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
}

// Bad: here the rank decides how many steps there are.
void steps_from_rank(std::vector<float> &grad) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int step : ProgressRange(rank + 1, false))
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds
  // CHECK-MESSAGES: :[[@LINE-4]]:19: note: this condition depends on the rank
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the rank comes from here
}

// As progress-bar libraries build one: a function returns a bar that keeps
// the range it was handed; `show` only switches the printing on.
template <class Range> class ProgressBar {
public:
  ProgressBar(Range &&range, bool show) : range_(range), show_(show) {}
  auto begin() const { return range_.begin(); }
  auto end() const { return range_.end(); }

private:
  Range range_;
  bool show_;
};

template <class Range> auto progress_bar(Range &&range, bool show) {
  return ProgressBar<Range>(static_cast<Range &&>(range), show);
}

inline auto progress_steps(int n, bool show) {
  return progress_bar(ProgressRange(n, false), show);
}

void progress_bar_on_rank_zero(std::vector<float> &grad, int steps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int step : progress_steps(steps, /*show=*/rank == 0))
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
}

// Bad: the returned bar counts the rank's own number of steps.
void progress_bar_over_rank_steps(std::vector<float> &grad) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int step : progress_steps(rank + 1, false))
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds
  // CHECK-MESSAGES: :[[@LINE-4]]:19: note: this condition depends on the rank
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the rank comes from here
}

//===----------------------------------------------------------------------===//
// What reaches each process on its own
//===----------------------------------------------------------------------===//

static volatile std::sig_atomic_t stop_requested = 0;
static void request_stop(int) { stop_requested = 1; }

// Bad: each process receives its own SIGTERM, at its own step.
void stop_on_signal(std::vector<float> &grad) {
  std::signal(SIGTERM, request_stop);
  for (int step = 0; step < 1000; ++step) {
    if (stop_requested)
      break;
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' is skipped by ranks that leave early through 'break' on a condition that depends on what reaches each process on its own (a signal, a clock); the ranks that stay wait forever in it (the job hangs); agree on it first (all-reduce the flag with MAX, or broadcast rank 0's decision), so that every rank takes the same branch [ddp-divergent-collective]
    // CHECK-MESSAGES: :[[@LINE-5]]:9: note: this condition depends on what reaches each process on its own (a signal, a clock)
    // CHECK-MESSAGES: :[[@LINE-5]]:7: note: ranks where it holds leave through this 'break'
  }
}

// The flag is agreed on first: every rank leaves at the same step.
void stop_on_agreed_signal(std::vector<float> &grad) {
  std::signal(SIGTERM, request_stop);
  for (int step = 0; step < 1000; ++step) {
    int local = stop_requested, any = 0;
    MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any)
      break;
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
  }
}

// Bad: a time budget read from this process's own clock.
void stop_on_time_budget(std::vector<float> &grad) {
  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < 1000; ++step) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(60))
      break;
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' is skipped by ranks that leave early through 'break' on a condition that depends on what reaches each process on its own (a signal, a clock)
    // CHECK-MESSAGES: :[[@LINE-5]]:9: note: this condition depends on what reaches each process on its own (a signal, a clock)
    // CHECK-MESSAGES: :[[@LINE-5]]:7: note: ranks where it holds leave through this 'break'
  }
}

// A clock read only to print how long a step took.
void time_for_logging(std::vector<float> &grad) {
  for (int step = 0; step < 10; ++step) {
    double t0 = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
    if (MPI_Wtime() - t0 > 1.0)
      std::printf("slow step %d\n", step);
  }
}

// Bad: an accuracy report every `period` seconds of this rank's own summed
// compute time, or on the first iteration: one operand of `||` decides per
// rank, so after the first iteration ranks part.
void report_on_time_budget(int iterations, double period) {
  double busy = 0, last_report = 0;
  for (int it = 0; it < iterations; ++it) {
    double begin = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    busy += MPI_Wtime() - begin;
    int correct = 0, total = 0;
    if (busy - last_report >= period || it == 0) {
      last_report = busy;
      MPI_Allreduce(&correct, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on what reaches each process on its own (a signal, a clock) holds
      // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on what reaches each process on its own (a signal, a clock)
      // CHECK-MESSAGES: note: this process's own signal flag or clock is read here
    }
  }
}

// The root makes the shared value, and throws if the SDK call fails; the
// broadcast after the branch is skipped only on that failure, an error path.
#define CHECK_MPI(call)                                                        \
  do {                                                                         \
    int status = call;                                                         \
    if (status != MPI_SUCCESS)                                                 \
      throw std::runtime_error("MPI call failed");                             \
  } while (false)

void root_makes_then_broadcasts(char *name) {
  int rank = 0, length = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    CHECK_MPI(MPI_Get_processor_name(name, &length));
  MPI_Bcast(name, 64, MPI_CHAR, 0, MPI_COMM_WORLD);
}

//===----------------------------------------------------------------------===//
// A helper that all-reduces a buffer in place through a pointer
//===----------------------------------------------------------------------===//

template <typename T>
void reduce_in_place(T *values, int count, MPI_Datatype type, MPI_Op op) {
  std::vector<T> reduced(count);
  MPI_Allreduce(values, reduced.data(), count, type, op, MPI_COMM_WORLD);
  for (int i = 0; i < count; ++i)
    values[i] = reduced[i];
}

// Each rank sums its own slice of the weights; an array and a heap buffer
// reduced by the helper hold the same sums on every rank, so the stopping
// test on them is taken alike.
void solve_on_slices(const double *w, int n) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int begin = rank * n / size, end = (rank + 1) * n / size;
  double sums[2];
  double *all = new double[n + 1];
  while (true) {
    sums[0] = sums[1] = 0;
    for (int i = begin; i < end; ++i) {
      sums[0] += w[i] * w[i];
      all[i] = w[i];
    }
    reduce_in_place(sums, 2, MPI_DOUBLE, MPI_SUM);
    all[n] = sums[0];
    reduce_in_place(all, n + 1, MPI_DOUBLE, MPI_MAX);
    if (sums[0] < 1e-6 || all[n] > 1e6)
      break;
  }
  delete[] all;
}

//===----------------------------------------------------------------------===//
// A member that holds this rank's partial sum until the reduced sum
// replaces it: a method follows its object's fields in order
//===----------------------------------------------------------------------===//

class SliceObjective {
public:
  explicit SliceObjective(int n) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    begin_ = rank * n / size;
    end_ = (rank + 1) * n / size;
  }

  // `reg_` holds this rank's slice first, then the total over every rank:
  // the value returned is the same on every rank.
  double value(const double *w) {
    reg_ = 0;
    for (int i = begin_; i < end_; ++i)
      reg_ += w[i] * w[i];
    double total = reg_;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    reg_ = total;
    return 0.5 * reg_;
  }

  // Leaves this rank's own partial sum in `last_`.
  void sum_slice(const double *w) {
    last_ = 0;
    for (int i = begin_; i < end_; ++i)
      last_ += w[i];
  }
  double last() const { return last_; }

private:
  int begin_ = 0, end_ = 0;
  double reg_ = 0, last_ = 0;
};

void minimise(double *w, int n) {
  SliceObjective f(n);
  for (int iter = 0; iter < 100; ++iter) {
    if (f.value(w) < 1e-6)
      break;
    MPI_Bcast(w, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
}

// Bad: the stopping test reads the partial sum the method left behind.
void minimise_on_partial_sum(double *w, int n) {
  SliceObjective f(n);
  for (int iter = 0; iter < 100; ++iter) {
    f.sum_slice(w);
    if (f.last() < 1e-6)
      break;
    MPI_Bcast(w, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'MPI_Bcast' is skipped by ranks that leave early through 'break' on a condition that depends on the rank
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on the rank
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: ranks where it holds leave through this 'break'
  }
}
