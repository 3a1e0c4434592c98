// ddp-divergent-collective on arrays that a loop rewrites element by element:
// after `for (i = 0; i < n; ++i) a[i] = ...;` the array holds what the
// assignment wrote, not what this rank's own updates left in it before.
// Functions marked "Bad" must be reported, the others must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>

// Block coordinate descent: each rank updates its own block of the dual
// variables, the changes are gathered, and a line search on reduced values
// decides the step; then every variable is rewritten from the gathered
// change, the same on every rank.
class BlockSolver {
public:
  void solve(int n, int iterations) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int first = rank * n / 4, last = (rank + 1) * n / 4;
    x_ = new double[n];
    start_ = new double[n];
    delta_ = new double[n];
    for (int i = 0; i < n; ++i)
      x_[i] = 0.5;
    double best = 1e9;
    for (int it = 0; it < iterations; ++it) {
      for (int i = 0; i < n; ++i)
        start_[i] = x_[i];
      for (int k = first; k < last; ++k)
        x_[k] -= 0.1 * (x_[k] - first); // this rank's block only
      for (int i = 0; i < n; ++i)
        delta_[i] = 0;
      for (int k = first; k < last; ++k)
        delta_[k] = x_[k] - start_[k];
      MPI_Allreduce(MPI_IN_PLACE, delta_, n, MPI_DOUBLE, MPI_SUM,
                    MPI_COMM_WORLD);
      double slope = 0;
      for (int i = 0; i < n; ++i)
        slope += delta_[i] * start_[i];
      double step = 1.0;
      int tries = 0;
      for (; tries < 30; ++tries) {
        double local = 0, global = 0;
        for (int k = first; k < last; ++k)
          local += step * delta_[k] * delta_[k];
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (global + step * slope < best) {
          best = global + step * slope;
          break;
        }
        step /= 2;
      }
      if (tries == 30)
        break;
      for (int i = 0; i < n; ++i)
        x_[i] = start_[i] + step * delta_[i];
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }

private:
  double *x_ = nullptr, *start_ = nullptr, *delta_ = nullptr;
};

// Bad: only this rank's block is rewritten; the rest keeps what the rank's
// own updates left, and the stopping test reads it.
double partialRewrite(double *x, const double *grad, int n, int rank) {
  for (int k = rank; k < n; k += 4)
    x[k] += grad[k];
  for (int i = 0; i < n / 2; ++i)
    if (i % 2 == 0)
      x[i] = 0;
  double total = 0;
  while (x[n - 1] > 0) {
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds
    // CHECK: :[[@LINE-3]]:10: note: this condition depends on the rank
    // CHECK: note: the rank comes from here
    x[n - 1] -= total;
  }
  return total;
}

// Bad: every element is rewritten, but from this rank's own values.
double rewrittenFromLocal(double *x, int n, int rank) {
  double local[8];
  for (int i = 0; i < 8; ++i)
    local[i] = rank * 0.5;
  for (int i = 0; i < n; ++i)
    x[i] = local[i % 8];
  double total = 0;
  if (x[0] > 1.0)
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
  return total;
}
