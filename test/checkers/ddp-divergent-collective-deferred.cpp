// ddp-divergent-collective on collectives that a call hands over rather than
// issues in its own body: a lambda given to a thread pool or a thread, the
// lambdas stored in a std::function member, the overriders of a virtual
// method the unit defines. Functions marked "Bad" must be reported, the others
// must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- -std=c++17 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- -std=c++17 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>

#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

class ThreadPool {
public:
  void submit(std::function<void()> task) { tasks_.push_back(std::move(task)); }
  void drain() {
    for (auto &task : tasks_)
      task();
    tasks_.clear();
  }

private:
  std::deque<std::function<void()>> tasks_;
};

// Bad: only the root queues the reduction; the pool runs it on that rank.
void pool_on_root(ThreadPool &pool, std::vector<float> &grads, int rank) {
  if (rank == 0)
    pool.submit([&] {
    // CHECK: :[[@LINE-1]]:5: warning: 'submit', which issues collective 'MPI_Allreduce', runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
    // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
      MPI_Allreduce(MPI_IN_PLACE, grads.data(), (int)grads.size(), MPI_FLOAT,
                    MPI_SUM, MPI_COMM_WORLD);
    });
  pool.drain();
}

// Bad: a thread started on the root only.
void thread_on_root(std::vector<float> &grads, int rank) {
  if (rank == 0) {
    std::thread worker([&] { MPI_Barrier(MPI_COMM_WORLD); });
    // CHECK: :[[@LINE-1]]:17: warning: {{.*}}issues collective 'MPI_Barrier', runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
    // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
    worker.join();
  }
}

// The same on every rank.
void pool_everywhere(ThreadPool &pool, std::vector<float> &grads) {
  pool.submit([&] {
    MPI_Allreduce(MPI_IN_PLACE, grads.data(), (int)grads.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
  });
  pool.drain();
}

// A callback registered on the root only: it runs when the trainer calls it,
// not here.
struct Trainer {
  void on_epoch_end(std::function<void()> callback) { callbacks_.push_back(callback); }
  std::vector<std::function<void()>> callbacks_;
};
void callback_registered_on_root(Trainer &trainer, int rank) {
  if (rank == 0)
    trainer.on_epoch_end([] { MPI_Barrier(MPI_COMM_WORLD); });
}

// A gradient sync kept in a std::function member.
class Syncer {
public:
  explicit Syncer(std::vector<float> &grads)
      : sync_([&grads] {
          MPI_Allreduce(MPI_IN_PLACE, grads.data(), (int)grads.size(),
                        MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        }) {}
  // Bad: only the root runs the stored reduction.
  void step(int rank) {
    if (rank == 0)
      sync_();
    // CHECK: :[[@LINE-1]]:7: warning: 'sync_', which issues collective 'MPI_Allreduce', runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
    // CHECK: :[[@LINE-3]]:9: note: this condition depends on the rank
  }
  // A logger kept the same way does no communication.
  void log(int rank) {
    if (rank == 0)
      log_();
  }

private:
  std::function<void()> sync_;
  std::function<void()> log_ = [] {};
};

// A communicator interface whose implementations in this unit all reduce.
struct Exchange {
  virtual ~Exchange() = default;
  virtual void exchange(std::vector<float> &grads) = 0;
};
struct MpiExchange : Exchange {
  void exchange(std::vector<float> &grads) override {
    MPI_Allreduce(MPI_IN_PLACE, grads.data(), (int)grads.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
  }
};

// Bad: only the root exchanges.
void exchange_on_root(Exchange &ex, std::vector<float> &grads, int rank) {
  if (rank == 0)
    ex.exchange(grads);
  // CHECK: :[[@LINE-1]]:5: warning: 'exchange', which issues collective 'MPI_Allreduce', runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
}

// An interface with one implementation that does no communication is not
// known to communicate.
struct Reporter {
  virtual ~Reporter() = default;
  virtual void report(float loss) = 0;
};
struct MpiReporter : Reporter {
  void report(float loss) override { MPI_Barrier(MPI_COMM_WORLD); }
};
struct ConsoleReporter : Reporter {
  void report(float loss) override {}
};
void report_on_root(Reporter &reporter, float loss, int rank) {
  if (rank == 0)
    reporter.report(loss);
}

// Known false positive (documented): a lambda handed to a function that only
// keeps it, under a name that does not say so, counts as run at the call.
struct Deferred {
  void add(std::function<void()> task) { later_.push_back(task); }
  std::vector<std::function<void()>> later_;
};
void kept_for_later_on_root(Deferred &deferred, int rank) {
  if (rank == 0)
    deferred.add([] { MPI_Barrier(MPI_COMM_WORLD); });
  // CHECK: :[[@LINE-1]]:5: warning: 'add', which issues collective 'MPI_Barrier', runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
}
