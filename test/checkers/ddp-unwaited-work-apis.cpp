// ddp-unwaited-work beyond c10d 1.13: MPI requests, c10d 2.x backends and the
// older c10d shape (std::shared_ptr<ProcessGroup::Work>). Mock headers only.
// RUN: %clang_tidy %s -checks='-*,ddp-unwaited-work' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unwaited-work' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
// RUN: %clang_tidy %s -checks='-*,ddp-unwaited-work' -- %mock_flags -DDDPLINT_MOCK_C10D_V2 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unwaited-work' -- %mock_flags -DDDPLINT_MOCK_C10D_OLD 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#ifndef DDPLINT_MOCK_C10D_OLD
#include <torch/csrc/distributed/c10d/Backend.hpp>
#endif
#include <mpi.h>
#include <nccl.h>

#include <cstdlib>
#include <vector>

void mpi_step_before_wait(torch::Tensor grad, torch::optim::Optimizer &optimizer) {
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
                 MPI_COMM_WORLD, &request);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'MPI_Iallreduce' may still be running when 'grad' is read: the work kept in 'request' is not waited for on this path, so the read races with the collective; wait on 'request' first [ddp-unwaited-work]
  grad.div_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: read here
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  optimizer.step();
}

void mpi_never_waited(torch::Tensor flat) {
  MPI_Request request;
  MPI_Ibcast(flat.data_ptr(), flat.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD, &request);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the work of 'MPI_Ibcast' kept in 'request' is never waited for
}

void negative_mpi_waited(torch::Tensor grad, torch::optim::Optimizer &optimizer) {
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
                 MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  grad.div_(2);
  optimizer.step();
}

void negative_mpi_waitall(std::vector<torch::Tensor> &grads,
                          torch::optim::Optimizer &optimizer) {
  std::vector<MPI_Request> requests(grads.size());
  for (size_t i = 0; i < grads.size(); ++i)
    MPI_Iallreduce(MPI_IN_PLACE, grads[i].data_ptr(), grads[i].numel(), MPI_FLOAT,
                   MPI_SUM, MPI_COMM_WORLD, &requests[i]);
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  optimizer.step();
}

// NCCL work is ordered on its CUDA stream; tensors used on that stream later
// are safe, so NCCL calls are left alone.
void negative_nccl(torch::Tensor grad, ncclComm_t comm, cudaStream_t stream) {
  ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat, ncclSum,
                comm, stream);
  grad.div_(2);
}

#ifndef DDPLINT_MOCK_C10D_OLD
void backend_discarded(c10d::Backend &backend, std::vector<at::Tensor> &tensors) {
  backend.allreduce(tensors);
  // CHECK-NEW: :[[@LINE-1]]:11: warning: the Work returned by 'allreduce' is discarded
  // CHECK-NEW: :[[@LINE-2]]:29: note: wait for the collective here
}
#endif

void process_group_step_first(c10d::ProcessGroup &pg, std::vector<at::Tensor> &tensors,
                              torch::optim::Optimizer &optimizer) {
  auto work = pg.allreduce(tensors);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'allreduce' may still be running when the optimizer steps
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: optimizer step here
  work->wait();
}

void process_group_discarded(c10d::ProcessGroup &pg, std::vector<at::Tensor> &tensors) {
  pg.allreduce(tensors);
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: the Work returned by 'allreduce' is discarded
  // CHECK-MESSAGES: :[[@LINE-2]]:24: note: wait for the collective here
}

//===----------------------------------------------------------------------===//
// MPI requests kept in an object's fields
//===----------------------------------------------------------------------===//

// A master that tells every worker the step, and sends the weights, with
// requests kept in fields that no method completes: one is overwritten for
// every worker, the other freed before its send is known to be done.
class StepMaster {
public:
  StepMaster(int procs, int layers) : procs_(procs) {
    sends_.resize(layers);
    for (auto &row : sends_)
      row.assign(procs, MPI_REQUEST_NULL);
  }
  void announce() {
    for (int i = 1; i < procs_; ++i)
      MPI_Isend(&step_, 1, MPI_INT, i, 0, MPI_COMM_WORLD, &step_req_);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: the request of 'MPI_Isend' kept in field 'step_req_' is never waited on or tested by any method of 'StepMaster'{{.*}} [ddp-unwaited-work]
    ++step_;
  }
  void send_weights(double *weights, int count) {
    for (size_t l = 0; l < sends_.size(); ++l)
      for (int i = 1; i < procs_; ++i) {
        if (sends_[l][i] != MPI_REQUEST_NULL)
          MPI_Request_free(&sends_[l][i]);
        MPI_Isend(weights, count, MPI_DOUBLE, i, 1, MPI_COMM_WORLD,
                  &sends_[l][i]);
        // CHECK-MESSAGES: :[[@LINE-2]]:9: warning: the request of 'MPI_Isend' kept in field 'sends_' is never waited on or tested by any method of 'StepMaster'{{.*}} [ddp-unwaited-work]
      }
  }

private:
  int procs_;
  int step_ = 0;
  MPI_Request step_req_ = MPI_REQUEST_NULL;
  std::vector<std::vector<MPI_Request>> sends_;
};

// OK: another method tests the request before the buffer is read.
class StepWorker {
public:
  void fetch() { MPI_Irecv(&next_, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req_); }
  bool arrived() {
    int done = 0;
    MPI_Test(&req_, &done, MPI_STATUS_IGNORE);
    return done != 0;
  }

private:
  int next_ = 0;
  MPI_Request req_ = MPI_REQUEST_NULL;
};

// A test whose answer nobody reads completes nothing: the shutdown polls
// MPI_Test's return code, MPI_SUCCESS whether or not the receive arrived,
// and the request is still pending when the object is gone.
class ExitListener {
public:
  void listen() {
    MPI_Irecv(&code_, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &exit_req_);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the request of 'MPI_Irecv' kept in field 'exit_req_' is never waited on or tested by any method of 'ExitListener'{{.*}} [ddp-unwaited-work]
  }
  void shutdown() {
    int flag = 0;
    while (MPI_Test(&exit_req_, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    }
  }

private:
  int code_ = 0;
  MPI_Request exit_req_ = MPI_REQUEST_NULL;
};

// OK: the answer is kept in a field, which any method may read.
class ExitWatcher {
public:
  void listen() { MPI_Irecv(&code_, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &req_); }
  void poll() { MPI_Test(&req_, &arrived_, MPI_STATUS_IGNORE); }
  bool arrived() const { return arrived_ != 0; }

private:
  int code_ = 0;
  int arrived_ = 0;
  MPI_Request req_ = MPI_REQUEST_NULL;
};

// Freeing the array of requests hands them to nobody.
class Scatterer {
public:
  void send(double *rows, int n) {
    reqs_ = static_cast<MPI_Request *>(malloc(n * sizeof(MPI_Request)));
    for (int i = 0; i < n; ++i)
      MPI_Isend(rows + i, 1, MPI_DOUBLE, i, 0, MPI_COMM_WORLD, &reqs_[i]);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: the request of 'MPI_Isend' kept in field 'reqs_' is never waited on or tested by any method of 'Scatterer'{{.*}} [ddp-unwaited-work]
  }
  ~Scatterer() { free(reqs_); }

private:
  MPI_Request *reqs_ = nullptr;
};

// OK: a worker thread's lambda waits on the requests before the array is
// freed.
class Overlapper {
public:
  void start(double *grads, int n) {
    n_ = n;
    reqs_ = static_cast<MPI_Request *>(malloc(n * sizeof(MPI_Request)));
    for (int i = 0; i < n; ++i)
      MPI_Iallreduce(MPI_IN_PLACE, grads + i, 1, MPI_DOUBLE, MPI_SUM,
                     MPI_COMM_WORLD, &reqs_[i]);
    auto finish_all = [this] { MPI_Waitall(n_, reqs_, MPI_STATUSES_IGNORE); };
    finish_all();
  }
  ~Overlapper() { free(reqs_); }

private:
  int n_ = 0;
  MPI_Request *reqs_ = nullptr;
};

// OK: the request is handed to a helper, which may complete it.
void finish(MPI_Request *req);
class HandsOn {
public:
  void start(double *buf) {
    MPI_Isend(buf, 4, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req_);
    finish(&req_);
  }

private:
  MPI_Request req_ = MPI_REQUEST_NULL;
};

// OK: a method defined out of sight may complete it.
class OutOfSight {
public:
  void start(double *buf) {
    MPI_Isend(buf, 4, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req_);
  }
  void finish();

private:
  MPI_Request req_ = MPI_REQUEST_NULL;
};

// Point-to-point requests kept in locals are followed like a collective's:
// a coordinator that posts one send per worker every step into one request
// and never completes any of them.
void post_index_every_step(int steps, int workers, float *w) {
  MPI_Request req;
  float part = 0;
  for (int i = 0; i < steps; ++i) {
    int idx = i % 7;
    for (int r = 0; r < workers; ++r)
      MPI_Isend(&idx, 1, MPI_INT, r, 0, MPI_COMM_WORLD, &req);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: the work of 'MPI_Isend' kept in 'req' is never waited for: nothing orders the transfer before later uses of its buffer or the optimizer step, and the request leaks; wait on 'req' before the buffer is used [ddp-unwaited-work]
    MPI_Recv(&part, 1, MPI_FLOAT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    w[idx] -= 0.1f * part;
  }
}

// OK: a pending send may be read (MPI 3.0), and it is completed before
// the function returns.
double read_while_sending(torch::Tensor grad, torch::optim::Optimizer &opt) {
  MPI_Request req;
  MPI_Isend(grad.data_ptr(), grad.numel(), MPI_FLOAT, 1, 0, MPI_COMM_WORLD,
            &req);
  opt.step();
  double norm = grad.norm().item<double>();
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  return norm;
}

// OK: one request per worker, all completed at once.
void post_and_wait_all(int workers, const float *w) {
  std::vector<MPI_Request> reqs(workers);
  for (int r = 0; r < workers; ++r)
    MPI_Isend(w, 4, MPI_FLOAT, r, 0, MPI_COMM_WORLD, &reqs[r]);
  MPI_Waitall(workers, reqs.data(), MPI_STATUSES_IGNORE);
}

// OK: a receive polled with MPI_Test until it completes.
float poll_until_received() {
  float incoming = 0;
  MPI_Request req;
  int done = 0;
  MPI_Irecv(&incoming, 1, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
  while (!done)
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  return incoming;
}

// OK: a request freed at once is handed on to MPI, which completes it; the
// buffer outlives the call.
void fire_and_forget(const float *w) {
  MPI_Request req;
  MPI_Isend(w, 4, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &req);
  MPI_Request_free(&req);
}

// OK: a call that starts with the same letters but writes a communicator,
// not a request.
MPI_Comm bridge(MPI_Comm local) {
  MPI_Comm inter;
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1, 0, &inter);
  return inter;
}

// Each post is its own transfer: handing out shards with one send after
// another into a single request leaks every one of them.
void hand_out_shards(const double *x, const unsigned *y, int n, int size) {
  MPI_Request request = MPI_REQUEST_NULL;
  int share = n / size;
  for (int p = 1; p < size; ++p) {
    MPI_Isend(x + p * share, share, MPI_DOUBLE, p, p, MPI_COMM_WORLD, &request);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the work of 'MPI_Isend' kept in 'request' is never waited for{{.*}} [ddp-unwaited-work]
    if (y != nullptr)
      MPI_Isend(y + p * share, share, MPI_UNSIGNED, p, p, MPI_COMM_WORLD,
                &request);
    // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: the work of 'MPI_Isend' kept in 'request' is never waited for{{.*}} [ddp-unwaited-work]
  }
}

// Only the last of two posts into one request is waited for: the first is
// never completed.
void send_weights_then_bias(const float *w, const float *b, int peer) {
  MPI_Request req;
  MPI_Isend(w, 16, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &req);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the request of 'MPI_Isend' kept in 'req' is replaced by another before it is waited for: this transfer is never completed and its request leaks; wait on 'req' before posting again, or keep one request per transfer [ddp-unwaited-work]
  MPI_Isend(b, 4, MPI_FLOAT, peer, 1, MPI_COMM_WORLD, &req);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'MPI_Isend' posts into 'req' again here
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

// A post in a loop, waited for once after it: every iteration but the last
// replaces a pending request.
void broadcast_by_hand(const float *w, int size) {
  MPI_Request req;
  for (int r = 1; r < size; ++r)
    MPI_Isend(w, 16, MPI_FLOAT, r, 0, MPI_COMM_WORLD, &req);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the request of 'MPI_Isend' kept in 'req' is replaced by another before it is waited for{{.*}} [ddp-unwaited-work]
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: 'MPI_Isend' posts into 'req' again here
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

// OK: one request reused, each transfer completed before the next post.
void send_in_turn(const float *w, const float *b, int size) {
  MPI_Request req;
  for (int r = 1; r < size; ++r) {
    MPI_Isend(w, 16, MPI_FLOAT, r, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  MPI_Isend(b, 4, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

// OK: the previous transfer is waited for before the next post (from the
// second iteration on), and the last one after the loop.
void wait_then_repost(float *buf, int n, int peer) {
  MPI_Request req;
  for (int i = 0; i < n; ++i) {
    if (i > 0)
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    buf[0] = static_cast<float>(i);
    MPI_Isend(buf, 4, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &req);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

// OK: receives posted on even iterations, completed on odd ones.
void alternate(float *buf, int n) {
  MPI_Request req;
  for (int i = 0; i < n; ++i) {
    if (i % 2 == 0)
      MPI_Irecv(buf, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
    else
      MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
}

// A test completes requests only where its answer is read: this loop reads
// MPI_Testall's return code, which is MPI_SUCCESS whether or not the
// receives arrived, and the array is freed with them still pending.
void shutdown_unread_test(int workers) {
  int *codes = new int[workers];
  MPI_Request *exits = new MPI_Request[workers];
  int done = 0;
  for (int i = 0; i < workers; ++i)
    // CHECK-MESSAGES: :[[@LINE+1]]:5: warning: the work of 'MPI_Irecv' kept in 'exits' is never waited for
    MPI_Irecv(&codes[i], 1, MPI_INT, i, 7, MPI_COMM_WORLD, &exits[i]);
  while (MPI_Testall(workers, exits, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
  }
  delete[] exits;
}

// OK: the flag is read; the loop ends once every receive completed.
void shutdown_polled(int workers) {
  int *codes = new int[workers];
  MPI_Request *exits = new MPI_Request[workers];
  int done = 0;
  for (int i = 0; i < workers; ++i)
    MPI_Irecv(&codes[i], 1, MPI_INT, i, 7, MPI_COMM_WORLD, &exits[i]);
  while (!done)
    MPI_Testall(workers, exits, &done, MPI_STATUSES_IGNORE);
  delete[] exits;
}

// OK: one request tested until it completes.
void poll_one(float *buf) {
  MPI_Request req;
  int flag = 0;
  MPI_Irecv(buf, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
  do {
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  } while (!flag);
  buf[0] += 1.0f;
}

// OK: polled until the flag says done, then the optimizer steps. The flag
// starts at 0, which the analysis does not know: a read test is left to the
// function's logic, not taken as completing on every path.
void poll_then_step(torch::Tensor grad, torch::optim::Optimizer &opt) {
  MPI_Request req;
  int flag = 0;
  MPI_Iallreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT,
                 MPI_SUM, MPI_COMM_WORLD, &req);
  while (!flag)
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  opt.step();
}

// OK: MPI_Testany answers through the index too (MPI_UNDEFINED while
// nothing completed).
void drain_any(float *bufs, int n, void (*process)(int)) {
  MPI_Request reqs[8];
  for (int i = 0; i < n; ++i)
    MPI_Irecv(&bufs[i], 1, MPI_FLOAT, i, 0, MPI_COMM_WORLD, &reqs[i]);
  for (int got = 0; got < n;) {
    int idx, flag;
    MPI_Testany(n, reqs, &idx, &flag, MPI_STATUS_IGNORE);
    if (idx != MPI_UNDEFINED) {
      process(idx);
      ++got;
    }
  }
}

// OK: the flag is a reference to a field read through the object.
struct PollState {
  int done = 0;
};
void poll_into(float *buf, PollState &state) {
  MPI_Request req;
  int &done = state.done;
  MPI_Irecv(buf, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &req);
  do
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  while (!state.done);
}
