// ddp-unwaited-work on the buffers nonblocking MPI calls lend MPI: a
// receive's buffer is neither read nor written, and a send's buffer is not
// written, until its request completes. Every function but those marked
// "Bad" is correct and must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-unwaited-work' -- -std=c++17 -isystem %src_root/sdk-fallback 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unwaited-work' -- -std=c++17 -isystem %src_root/sdk-fallback 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>

#include <vector>

double score(const double *weights, int n);

// Bad: the master hands its weights to every worker and takes theirs back
// into the same buffer, and waits only once every ten passes; the passes in
// between score and rewrite the weights while the transfers run.
void masterEveryTenthBad(double *weights, int n, int size, int passes) {
  double best[64];
  MPI_Request requests[256];
  MPI_Status statuses[256];
  int pending = 0;
  for (int pass = 0; pass < passes; pass++) {
    for (int worker = 1; worker < size; worker++) {
      MPI_Isend(weights, n, MPI_DOUBLE, worker, 1, MPI_COMM_WORLD, &requests[pending]);
      MPI_Irecv(weights, n, MPI_DOUBLE, worker, 2, MPI_COMM_WORLD, &requests[pending + 1]);
      pending += 2;
    }
    if (pending == 20 * (size - 1)) {
      MPI_Waitall(pending, requests, statuses);
      pending = 0;
    }
    if (pass % 100 == 0 && score(weights, n) > 0.9) {
      for (int i = 0; i < n; i++)
        weights[i] = best[i];
      break;
    }
  }
}
// CHECK-MESSAGES: :[[@LINE-15]]:7: warning: 'MPI_Isend' may still be running when 'weights' is written: the work kept in 'requests' is not waited for on this path, so the write races with the transfer; wait on 'requests' first [ddp-unwaited-work]
// CHECK-MESSAGES: :[[@LINE-6]]:9: note: written here
// CHECK-MESSAGES: :[[@LINE-16]]:7: warning: 'MPI_Irecv' may still be running when 'weights' is read: the work kept in 'requests' is not waited for on this path, so the read races with the transfer; wait on 'requests' first [ddp-unwaited-work]
// CHECK-MESSAGES: :[[@LINE-10]]:34: note: read here

// Good: every pass waits before it reads the weights.
void masterEveryPass(double *weights, int n, int size, int passes) {
  std::vector<MPI_Request> requests(2 * size);
  for (int pass = 0; pass < passes; pass++) {
    int pending = 0;
    for (int worker = 1; worker < size; worker++) {
      MPI_Isend(weights, n, MPI_DOUBLE, worker, 1, MPI_COMM_WORLD, &requests[pending++]);
      MPI_Irecv(weights, n, MPI_DOUBLE, worker, 2, MPI_COMM_WORLD, &requests[pending++]);
    }
    MPI_Waitall(pending, requests.data(), MPI_STATUSES_IGNORE);
    if (score(weights, n) > 0.9)
      break;
  }
}

// Good: a pending send's buffer may be read (MPI 3.0).
double sendWhileScoring(const double *weights, int n) {
  MPI_Request request;
  MPI_Isend(weights, n, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &request);
  double s = score(weights, n);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  return s;
}

// Good: each worker's share lands in its own slice, read after the wait.
double gatherShares(double *all, int n, int size) {
  std::vector<MPI_Request> requests(size);
  for (int worker = 1; worker < size; worker++)
    MPI_Irecv(all + worker * n, n, MPI_DOUBLE, worker, 3, MPI_COMM_WORLD, &requests[worker]);
  MPI_Waitall(size - 1, requests.data() + 1, MPI_STATUSES_IGNORE);
  return score(all, n * size);
}

// Good: the reduction is in place, and its result is read after the wait;
// the sizes of the buffer are no read of it.
double averageInPlace(std::vector<double> &grad, int size) {
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_DOUBLE, MPI_SUM,
                 MPI_COMM_WORLD, &request);
  int n = (int)grad.size();
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++)
    grad[i] /= size;
  return score(grad.data(), n);
}

// Good: double buffering; the receive into the next buffer overlaps work on
// the current one.
void pipeline(double *front, double *back, int n, int steps) {
  MPI_Request request;
  for (int step = 0; step < steps; step++) {
    MPI_Irecv(back, n, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, &request);
    score(front, n);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    double *t = front;
    front = back;
    back = t;
  }
}

// Good: an in-place all-gather; this rank's own slot is its input, which
// MPI leaves as it is, read while the others' slots arrive.
double gatherInPlace(double *all, int mine, int n, int size) {
  MPI_Request request;
  MPI_Iallgather(MPI_IN_PLACE, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD, &request);
  double own = score(all + mine * n, n);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  return own + score(all, n * size);
}

// Bad: the wait under `if (i > 0)` comes after this iteration's post, so
// the first read of each iteration races with the receive.
void waitLateBad(double *in, int n, int steps) {
  MPI_Request request;
  for (int i = 0; i < steps; ++i) {
    MPI_Irecv(in, n, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &request);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'MPI_Irecv' may still be running when 'in' is read: {{.*}} [ddp-unwaited-work]
    if (i > 0)
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    score(in, n);
    // CHECK-MESSAGES: :[[@LINE-1]]:11: note: read here
  }
}

// Good: the root broadcasts its weights and scores them meanwhile; the
// root's buffer is only read.
double broadcastWhileScoring(double *w, int n, int rank) {
  MPI_Request request;
  double s = 0;
  MPI_Ibcast(w, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &request);
  if (rank == 0)
    s = score(w, n);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  return s;
}

// Good: two halves of one buffer, each read after its own wait.
double halves(int n) {
  std::vector<double> buf(2 * n);
  MPI_Request first, second;
  MPI_Irecv(buf.data(), n, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, &first);
  MPI_Irecv(buf.data() + n, n, MPI_DOUBLE, 2, 6, MPI_COMM_WORLD, &second);
  MPI_Wait(&second, MPI_STATUS_IGNORE);
  double s = score(buf.data() + n, n);
  MPI_Wait(&first, MPI_STATUS_IGNORE);
  return s + score(buf.data(), n);
}

// Good: the lambda made before the wait runs after it.
double consumeLater(int n) {
  std::vector<double> buf(n);
  MPI_Request request;
  MPI_Irecv(buf.data(), n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &request);
  auto consume = [&] { return score(buf.data(), n); };
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  return consume();
}
