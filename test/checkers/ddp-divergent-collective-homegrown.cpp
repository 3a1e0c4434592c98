// ddp-divergent-collective on a homegrown framework: its own tensor and
// autograd (the gradient a shared_ptr field `grad_` of the tensor's autograd
// metadata), its own transport (sockets or shared memory, nothing the
// vocabulary knows), collectives known by their names. Functions marked
// "Bad" must be reported, the others must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- -std=c++17 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- -std=c++17 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <memory>
#include <vector>

namespace mini {

struct Storage {};
struct AutogradMeta {
  std::shared_ptr<Storage> grad_;
  bool requires_grad_ = false;
  std::shared_ptr<Storage> grad_fn_;
};

class Tensor {
public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<Storage> s);
  AutogradMeta *autograd_meta() const;
  long numel() const;
  float *data_ptr() const;
};

struct Parameter {
  Tensor &data();
};

struct Module {
  std::vector<Parameter *> parameters();
};

// The project's transport: frames over sockets; nothing the vocabulary
// knows, so the name says what it is.
bool send_frame(int peer, const float *data, long n);
bool recv_frame(int peer, float *data, long n);
void all_reduce_impl(float *data, long n);
void all_reduce(Tensor &t) { all_reduce_impl(t.data_ptr(), t.numel()); }

// A process group whose all_reduce is pure virtual.
class ProcessGroupBase {
public:
  virtual ~ProcessGroupBase() = default;
  virtual void allReduce(Tensor &t) = 0;
};

} // namespace mini

using namespace mini;

// Bad: a parameter this rank's forward did not use has no gradient here,
// and the ranks that have one wait in all_reduce for this one.
void sync_gradients(Module &model) {
  for (Parameter *p : model.parameters()) {
    AutogradMeta *meta = p->data().autograd_meta();
    if (!meta || !meta->grad_)
      continue;
    Tensor g(meta->grad_);
    all_reduce(g);
    // CHECK: :[[@LINE-1]]:5: warning: 'all_reduce', which issues collectives, is skipped by ranks that leave early through 'continue'{{.*}} [ddp-divergent-collective]
    // CHECK: :[[@LINE-5]]:9: note: this condition depends on whether this rank has a gradient
    // CHECK: :[[@LINE-5]]:7: note: ranks where it holds leave through this 'continue'
  }
}

// Bad: the same through the pure virtual method of the group.
void sync_through_group(Module &model, ProcessGroupBase &group) {
  for (Parameter *p : model.parameters()) {
    AutogradMeta *meta = p->data().autograd_meta();
    if (meta && meta->grad_) {
      Tensor g(meta->grad_);
      group.allReduce(g);
      // CHECK: :[[@LINE-1]]:7: warning: {{.*}}'allReduce'{{.*}} [ddp-divergent-collective]
      // CHECK: :[[@LINE-4]]:9: note: this condition depends on whether this rank has a gradient
    }
  }
}

// OK: a flag about gradients is not a gradient: whether a parameter
// requires one, or has a grad_fn, is the model's, the same everywhere.
void sync_trainable(Module &model) {
  for (Parameter *p : model.parameters()) {
    AutogradMeta *meta = p->data().autograd_meta();
    if (!meta->requires_grad_ || meta->grad_fn_)
      continue;
    all_reduce(p->data());
  }
}

// Known false positive (docs/checks/ddp-divergent-collective.md): "ranks"
// that are threads of one process share the parameters, so the gradient
// test is the same for all of them; each thread is taken for a process.
void threads_as_ranks(Module &model, int world) {
  std::vector<Parameter *> params = model.parameters();
  auto step = [&](int rank) {
    for (Parameter *p : params) {
      AutogradMeta *meta = p->data().autograd_meta();
      if (meta && meta->grad_) {
        Tensor g(meta->grad_);
        all_reduce(g);
        // CHECK: :[[@LINE-1]]:9: warning: 'all_reduce', which issues collectives, runs only on ranks where{{.*}} [ddp-divergent-collective]
        // CHECK: :[[@LINE-4]]:11: note: this condition depends on whether this rank has a gradient
      }
    }
  };
  for (int rank = 0; rank < world; ++rank)
    step(rank);
}

// OK: the transport's own frames under a rank test are the implementation
// of one collective, not collectives of their own.
void all_reduce_impl(float *data, long n) {
  int rank = 0, world = 2;
  if (rank == 0) {
    for (int peer = 1; peer < world; ++peer)
      recv_frame(peer, data, n);
  } else {
    send_frame(0, data, n);
  }
}

// A communicator class of the project's own around ncclComm_t, made on every
// rank from the rank; null only when making it failed (a store that handed
// back an id of the wrong size on a rank other than the root): an error
// path, not a rank split.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <string>

struct NcclComm {
  explicit NcclComm(ncclComm_t c) : comm_(c) {}
  static std::shared_ptr<NcclComm> create(int ranks, int rank, ncclUniqueId id) {
    ncclComm_t c;
    if (ncclCommInitRank(&c, ranks, id, rank) != ncclSuccess)
      return nullptr;
    return std::make_shared<NcclComm>(c);
  }
  ncclComm_t get() const { return comm_; }
  ncclComm_t comm_;
  int rank_ = 0;
};

struct KeyValueStore {
  std::string get(const std::string &key);
  void set(const std::string &key, const std::string &value);
};

class NcclBackend {
public:
  int rank() const;
  int size() const;
  std::shared_ptr<NcclComm> communicator() {
    if (comm_)
      return comm_;
    ncclUniqueId id;
    if (rank() == 0) {
      ncclGetUniqueId(&id);
      store_->set("id", std::string(reinterpret_cast<char *>(&id), sizeof(id)));
    } else {
      std::string data = store_->get("id");
      if (data.size() != sizeof(id))
        return nullptr;
      std::memcpy(&id, data.data(), sizeof(id));
    }
    comm_ = NcclComm::create(size(), rank(), id);
    return comm_;
  }
  template <typename Launch> bool collective(Launch &&launch, cudaStream_t stream) {
    auto comm = communicator();
    if (!comm)
      return false;
    ncclGroupStart();
    launch(comm->get(), stream);
    ncclGroupEnd();
    return true;
  }
  bool allreduce(float *buf, size_t n, cudaStream_t stream) {
    return collective(
        [&](ncclComm_t c, cudaStream_t s) {
          return ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, c, s);
        },
        stream);
  }

  // Bad: the communicator is the same kind of thing everywhere, its rank is
  // not.
  void root_only(float *buf, size_t n, cudaStream_t stream) {
    auto comm = communicator();
    if (comm->rank_ == 0)
      ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm->get(), stream);
    // CHECK: :[[@LINE-1]]:7: warning: collective 'ncclAllReduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
    // CHECK: :[[@LINE-3]]:9: note: this condition depends on the rank
  }

private:
  std::shared_ptr<NcclComm> comm_;
  KeyValueStore *store_ = nullptr;
};
