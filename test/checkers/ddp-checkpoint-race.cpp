// RUN: %clang_tidy %s -checks='-*,ddp-checkpoint-race' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-checkpoint-race' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// test/integration runs this same file against the real LibTorch headers.

#include <cstdio>
#include <fstream>
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

//===----------------------------------------------------------------------===//
// Every rank writes the same file
//===----------------------------------------------------------------------===//

void every_rank_saves(c10d::ProcessGroup &pg, Net &model) {
  std::vector<torch::Tensor> grads{model->fc->weight.grad()};
  pg.allreduce(grads)->wait();
  torch::save(model, "ckpt.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: every rank writes checkpoint "ckpt.pt" at the same time: the writers truncate and interleave one another's output, and on a shared file system the file tears; save on one rank only (under 'if (rank == 0)') or put the rank in the file name [ddp-checkpoint-race]
}

// A path in a variable, and a condition that is the same on every rank.
void every_rank_saves_each_epoch(c10d::ProcessGroup &pg, Net &model,
                                 const std::string &path, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    std::vector<torch::Tensor> params = model->parameters();
    pg.broadcast(params)->wait();
    if (epoch % 5 == 0)
      torch::save(model, path);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: every rank writes checkpoint 'path' at the same time{{.*}} [ddp-checkpoint-race]
  }
}

// A helper called on every rank.
void save_checkpoint(Net &model) {
  torch::save(model, "helper.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: every rank writes checkpoint "helper.pt" at the same time{{.*}} [ddp-checkpoint-race]
}
void calls_helper_on_every_rank(c10d::ProcessGroup &pg, Net &model) {
  pg.barrier()->wait();
  save_checkpoint(model);
}

//===----------------------------------------------------------------------===//
// One rank writes, the others read with no collective in between
//===----------------------------------------------------------------------===//

void others_read_right_away(c10d::ProcessGroup &pg, Net &model) {
  int rank = pg.getRank();
  if (rank == 0)
    torch::save(model, "shared.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: checkpoint "shared.pt" is written on one rank and read on the others with no collective in between: the readers can open it before the write completes and load a stale or partial state, so the replicas start from different parameters; call a barrier between the save and the load, or broadcast the state instead of reading the file [ddp-checkpoint-race]
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: only ranks where this condition holds write it
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: the other ranks read it here, possibly while it is written
  // A std::string built from the same literal names the same file.
  torch::load(model, std::string("shared.pt"));
}

// The readers are on the other side of the branch.
void others_read_in_else(c10d::ProcessGroup &pg, Net &model,
                         const std::string &path) {
  if (pg.getRank() == 0) {
    torch::save(model, path);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: checkpoint 'path' is written on one rank and read on the others with no collective in between{{.*}} [ddp-checkpoint-race]
    // CHECK-MESSAGES: :[[@LINE-3]]:7: note: only ranks where this condition holds write it
  } else {
    torch::load(model, path);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the other ranks read it here, possibly while it is written
  }
}

// A collective on one path only does not order the others.
void barrier_on_one_path(c10d::ProcessGroup &pg, Net &model, bool sync) {
  const std::string path = "maybe.pt";
  if (pg.getRank() == 0)
    torch::save(model, path);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: checkpoint 'path' is written on one rank{{.*}} [ddp-checkpoint-race]
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: only ranks where this condition holds write it
  if (sync)
    pg.barrier()->wait();
  torch::load(model, "maybe.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the other ranks read it here{{.*}}
}

//===----------------------------------------------------------------------===//
// Every rank loads onto one fixed GPU
//===----------------------------------------------------------------------===//

void every_rank_loads_onto_cuda0(c10d::ProcessGroup &pg, Net &model) {
  pg.barrier()->wait();
  torch::load(model, "resume.pt", torch::Device("cuda:0"));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: every rank loads checkpoint "resume.pt" onto cuda:0: the state of every rank lands on that one GPU instead of the rank's own device, which runs out of memory or leaves ranks computing on a device they do not own; load onto this rank's device (torch::Device(torch::kCUDA, local_rank)) or onto the CPU and move the model after [ddp-checkpoint-race]
  // CHECK-MESSAGES: :[[@LINE-2]]:35: note: the device is fixed here
}

void every_rank_loads_onto_device_variable(c10d::ProcessGroup &pg, Net &model) {
  torch::Device device(torch::kCUDA, 0);
  pg.barrier()->wait();
  torch::load(model, "resume.pt", device);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: every rank loads checkpoint "resume.pt" onto cuda:0{{.*}} [ddp-checkpoint-race]
  // CHECK-MESSAGES: :[[@LINE-4]]:17: note: the device is fixed here
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

void negative_rank_guarded_save(c10d::ProcessGroup &pg, Net &model) {
  pg.barrier()->wait();
  if (pg.getRank() == 0)
    torch::save(model, "ckpt.pt");
}

void negative_main_process_saves(c10d::ProcessGroup &pg, Net &model,
                                 bool is_main) {
  pg.barrier()->wait();
  if (is_main)
    torch::save(model, "ckpt.pt");
}

// The helper runs on rank 0 only.
void save_on_main(Net &model) { torch::save(model, "main.pt"); }
void negative_helper_called_on_rank0(c10d::ProcessGroup &pg, Net &model) {
  if (pg.getRank() == 0)
    save_on_main(model);
  pg.barrier()->wait();
}

void negative_per_rank_path(c10d::ProcessGroup &pg, Net &model) {
  int rank = pg.getRank();
  torch::save(model, "ckpt_" + std::to_string(rank) + ".pt");
  std::string mine = "opt_" + std::to_string(rank) + ".pt";
  torch::save(model, mine);
  torch::load(model, mine, torch::Device("cuda:0"));
}

// The rank printed into a buffer: each rank's own file.
void negative_rank_in_buffer(c10d::ProcessGroup &pg, Net &model) {
  char name[64];
  std::snprintf(name, sizeof name, "ckpt-%d.pt", pg.getRank());
  torch::save(model, name);
  std::string opt_name = "opt-";
  opt_name += std::to_string(pg.getRank());
  torch::save(model, opt_name);
}

void negative_barrier_between(c10d::ProcessGroup &pg, Net &model) {
  if (pg.getRank() == 0)
    torch::save(model, "shared.pt");
  pg.barrier()->wait();
  torch::load(model, "shared.pt");
}

// Any collective orders the ranks: here the broadcast of a flag.
void negative_collective_between(c10d::ProcessGroup &pg, Net &model) {
  if (pg.getRank() == 0)
    torch::save(model, "shared.pt");
  std::vector<torch::Tensor> flag{torch::ones({1})};
  pg.broadcast(flag)->wait();
  torch::load(model, "shared.pt");
}

// The writer reads its own file back.
void negative_writer_reads_back(c10d::ProcessGroup &pg, Net &model) {
  if (pg.getRank() == 0) {
    torch::save(model, "shared.pt");
    torch::load(model, "shared.pt");
  }
  pg.barrier()->wait();
}

// Two blocks on the same condition: the writer reads its own file.
void negative_same_condition_twice(c10d::ProcessGroup &pg, Net &model) {
  int rank = pg.getRank();
  if (rank == 0)
    torch::save(model, "shared.pt");
  if (rank == 0)
    torch::load(model, "shared.pt");
  pg.barrier()->wait();
}

// Another file is read.
void negative_other_file(c10d::ProcessGroup &pg, Net &model) {
  if (pg.getRank() == 0)
    torch::save(model, "out.pt");
  torch::load(model, "pretrained.pt");
}

// The state is broadcast instead of going through a file.
void negative_broadcast_state(c10d::ProcessGroup &pg, Net &model) {
  if (pg.getRank() == 0)
    torch::save(model, "ckpt.pt");
  std::vector<torch::Tensor> params = model->parameters();
  pg.broadcast(params)->wait();
}

void negative_load_onto_own_device(c10d::ProcessGroup &pg, Net &model,
                                   int local_rank) {
  pg.barrier()->wait();
  torch::load(model, "resume.pt", torch::Device(torch::kCUDA, local_rank));
  // The current device, which each rank sets to its own.
  torch::load(model, "resume.pt", torch::kCUDA);
  torch::load(model, "resume.pt", torch::Device("cpu"));
}

// Only rank 0 loads, for evaluation.
void negative_rank0_loads_onto_cuda0(c10d::ProcessGroup &pg, Net &model) {
  if (pg.getRank() == 0)
    torch::load(model, "eval.pt", torch::Device("cuda:0"));
}

// No process group, wrapper or collective: one process.
void negative_not_distributed(Net &model) {
  torch::save(model, "ckpt.pt");
  torch::load(model, "ckpt.pt", torch::Device("cuda:0"));
}

//===----------------------------------------------------------------------===//
// Files handed off with C stdio and streams
//===----------------------------------------------------------------------===//

// Rank 0 writes the vocabulary, the others poll for it and read it: the
// polling loop sees the file as soon as it exists, half written.
void stdio_hand_off(c10d::ProcessGroup &pg, const char *path) {
  if (pg.getRank() == 0) {
    FILE *out = fopen(path, "w");
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: file 'path' is written on one rank and read on the others with no collective in between: the readers can open it before the write completes and read a stale or partial file, so the ranks go on from different data (polling for the file does not wait for the writer to finish); call a barrier between the write and the read, or broadcast the contents instead of reading the file [ddp-checkpoint-race]
    // CHECK-MESSAGES: :[[@LINE-3]]:7: note: only ranks where this condition holds write it
    fputs("vocab", out);
    fclose(out);
  }
  FILE *in = nullptr;
  while (!(in = fopen(path, "r"))) {
  }
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: the other ranks read it here, possibly while it is written
  fclose(in);
}

void stream_hand_off(c10d::ProcessGroup &pg, const std::string &path) {
  if (pg.getRank() == 0) {
    std::ofstream out(path);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: file 'path' is written on one rank and read on the others with no collective in between
    // CHECK-MESSAGES: :[[@LINE-3]]:7: note: only ranks where this condition holds write it
    out << 42;
  }
  std::ifstream in;
  in.open(path);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the other ranks read it here, possibly while it is written
}

// A barrier between the write and the read: the readers wait for the writer.
void negative_stream_barrier(c10d::ProcessGroup &pg, const std::string &path) {
  if (pg.getRank() == 0) {
    std::ofstream out(path);
    out << 42;
  }
  pg.barrier()->wait();
  std::ifstream in(path);
}

// Every rank writes its own log file (the rank in the name), or reads a file
// nobody writes here; every rank writing a plain file is not a hand-off.
void negative_own_files(c10d::ProcessGroup &pg, const std::string &dir) {
  std::ofstream log(dir + "/log." + std::to_string(pg.getRank()));
  std::ifstream config(dir + "/config.json");
  FILE *scratch = fopen("/tmp/scratch.bin", "wb");
  fclose(scratch);
  pg.barrier()->wait();
}

//===----------------------------------------------------------------------===//
// Helpers that write or read the file they are handed: the call is the
// access, with the caller's conditions and file name
//===----------------------------------------------------------------------===//

void save_progress(const std::string &path, int step) {
  std::ofstream out(path);
  out << step;
}

int load_progress(const std::string &path) {
  std::ifstream in(path);
  int step = 0;
  in >> step;
  return step;
}

void save_model(Net &model, const std::string &path) { torch::save(model, path); }

void hand_off_through_helpers(c10d::ProcessGroup &pg, int step) {
  if (pg.getRank() == 0)
    save_progress("progress.txt", step);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: file "progress.txt" is written on one rank and read on the others with no collective in between
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: only ranks where this condition holds write it
  int resumed = load_progress("progress.txt");
  // CHECK-MESSAGES: :[[@LINE-1]]:17: note: the other ranks read it here, possibly while it is written
  (void)resumed;
}

void every_rank_saves_through_helper(c10d::ProcessGroup &pg, Net &model) {
  save_model(model, "model.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: every rank writes checkpoint "model.pt" at the same time
  pg.barrier()->wait();
}

void negative_helpers_with_barrier(c10d::ProcessGroup &pg, Net &model, int step) {
  if (pg.getRank() == 0) {
    save_progress("progress.txt", step);
    save_model(model, "model.pt");
  }
  pg.barrier()->wait();
  int resumed = load_progress("progress.txt");
  (void)resumed;
}

// A method that saves on rank 0 only, called by every rank: one writer.
struct Trainer {
  c10d::ProcessGroup &pg;
  Net model;
  void save_checkpoint(const std::string &path) {
    if (pg.getRank() == 0)
      torch::save(model, path);
  }
};

void negative_helper_saves_on_rank0(Trainer &trainer) {
  trainer.save_checkpoint("final.pt");
}

void negative_helper_own_file(c10d::ProcessGroup &pg, int step) {
  save_progress("progress." + std::to_string(pg.getRank()), step);
  int resumed = load_progress("progress." + std::to_string(pg.getRank()));
  (void)resumed;
}

//===----------------------------------------------------------------------===//
// Known false negatives
//===----------------------------------------------------------------------===//

// Two different expressions that build the same name are not recognised as
// one file.
void false_negative_paths_built_apart(c10d::ProcessGroup &pg, Net &model,
                                      const std::string &dir) {
  if (pg.getRank() == 0)
    torch::save(model, dir + "/ckpt.pt");
  std::string again = dir + "/ckpt.pt";
  torch::load(model, again);
}

// A helper that saves on rank 0 inside, then a load in the caller with no
// barrier: the helper's condition is not carried to the caller's flow.
void false_negative_load_after_ranked_helper(Trainer &trainer, Net &model) {
  trainer.save_checkpoint("final.pt");
  torch::load(model, "final.pt");
}

// The save and the load in two functions: the order between them is not
// followed across calls.
void save_on_rank0(c10d::ProcessGroup &pg, Net &model) {
  if (pg.getRank() == 0)
    torch::save(model, "split.pt");
}
void false_negative_load_in_caller(c10d::ProcessGroup &pg, Net &model) {
  save_on_rank0(pg, model);
  torch::load(model, "split.pt");
}

//===----------------------------------------------------------------------===//
// Checkpoint helpers defined in another file, known by their names
//===----------------------------------------------------------------------===//

struct Checkpoint {
  static void save_checkpoint(const Net &model, const std::string &path);
  static void load_checkpoint(Net &model, const std::string &path);
};
void saveModelWeights(const Net &model, const char *file);
void save_checkpoint_from(const Net &model, const std::string &path, int rank);
void save_log(const std::string &path, const std::string &line);

// Every rank calls the writer with one path.
void every_rank_calls_writer(c10d::ProcessGroup &pg, Net &model,
                             const std::string &save_path) {
  pg.barrier()->wait();
  Checkpoint::save_checkpoint(model, save_path);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: every rank writes checkpoint 'save_path' at the same time{{.*}} [ddp-checkpoint-race]
}

// Rank 0 writes through the helper, the others read through the other one.
void helper_hand_off(c10d::ProcessGroup &pg, Net &model) {
  if (pg.getRank() == 0)
    saveModelWeights(model, "weights.bin");
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: checkpoint "weights.bin" is written on one rank and read on the others with no collective in between{{.*}} [ddp-checkpoint-race]
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: {{.*}}
  Checkpoint::load_checkpoint(model, "weights.bin");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: {{.*}}
}

// OK: the writer on rank 0 only, a barrier before the readers; a log file
// is not a checkpoint.
void helper_on_rank0(c10d::ProcessGroup &pg, Net &model,
                     const std::string &path) {
  if (pg.getRank() == 0)
    Checkpoint::save_checkpoint(model, path);
  pg.barrier()->wait();
  Checkpoint::load_checkpoint(model, path);
  save_log("train.log", "saved");
}

// OK: a helper handed the rank decides itself who writes.
void helper_handed_the_rank(c10d::ProcessGroup &pg, Net &model,
                            const std::string &path) {
  save_checkpoint_from(model, path, pg.getRank());
  int rank = pg.getRank();
  save_checkpoint_from(model, path + ".last", rank);
}

// OK: a checkpoint lambda every call of which is on rank 0 only, the rank
// asked through a predicate of the project.
struct RunState {
  int rank = 0;
  bool active = false;
};
RunState join_group(c10d::ProcessGroup &pg) {
  RunState s;
  s.rank = pg.getRank();
  s.active = pg.getSize() > 1;
  return s;
}
inline bool is_main(const RunState &s) { return !s.active || s.rank == 0; }

void negative_lambda_called_on_rank0(c10d::ProcessGroup &pg, Net &model,
                                     int epochs) {
  RunState state = join_group(pg);
  auto save = [&](const std::string &name) {
    std::string path = "ckpt/" + name;
    torch::save(model, path);
  };
  for (int epoch = 0; epoch < epochs; ++epoch)
    if (is_main(state) && epoch % 10 == 0)
      save("best.pt");
  if (is_main(state))
    save("last.pt");
}

// The same lambda, also called on every rank: reported in its body.
void lambda_called_everywhere(c10d::ProcessGroup &pg, Net &model) {
  RunState state = join_group(pg);
  auto save = [&](const std::string &name) {
    std::string path = "ckpt/" + name;
    torch::save(model, path);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: every rank writes checkpoint 'path' at the same time{{.*}} [ddp-checkpoint-race]
  };
  if (is_main(state))
    save("best.pt");
  save("last.pt");
}

// OK: what decides the save comes from a function out of sight (defined in
// another unit, no summary of it): it may be the rank, and the check cannot
// show that every rank writes. The lambda is called in a class template as
// written, where its call names the local that holds it.
struct LaunchState {
  bool active = false;
  int r = 0;
};
LaunchState state_from_launcher();
inline bool leads(const LaunchState &s) { return !s.active || s.r == 0; }

template <class M> struct EpochTrainer {
  M extra;
  Net model;
  c10d::ProcessGroup *pg = nullptr;
  int epochs = 1;
  void run() {
    LaunchState launch = state_from_launcher();
    auto save = [&](const std::string &name) {
      std::string path = "runs/" + name;
      torch::save(model, path);
    };
    for (int epoch = 0; epoch < epochs; ++epoch)
      if (leads(launch) && epoch % 5 == 0)
        save("best.pt");
    if (leads(launch))
      save("last.pt");
    pg->barrier()->wait();
  }
  // Saved with nothing deciding it: every rank writes.
  void run_unguarded() {
    auto save = [&](const std::string &name) {
      std::string path = "runs/" + name;
      torch::save(model, path);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: every rank writes checkpoint 'path' at the same time{{.*}} [ddp-checkpoint-race]
    };
    save("last.pt");
    pg->barrier()->wait();
  }
};
