//===- AutoProbe.cpp - The probe for programs that never call it ----------===//
//
// libddpharness-autoprobe.so is preloaded (LD_PRELOAD) into a LibTorch
// program that knows nothing of the harness, such as a flagged program that
// `ddp-harness confirm` builds from the user's source. It defines the step()
// of LibTorch's optimizers (SGD, Adam, AdamW, Adagrad, RMSprop, LBFGS): each
// calls the real one, found with dlsym(RTLD_NEXT), and then records the
// probe's fingerprints of every parameter of every parameter group with the
// gradient it was stepped with, as a program calling Probe::step after
// optimizer.step() would. Virtual calls reach it too: libtorch_cpu's vtables
// bind step() through the dynamic symbol table, so the preloaded definition
// wins.
//
// Parameters are named group<G>.param<I>, in the optimizer's order, which is
// the same on every rank. The probe records nothing unless the launcher set
// DDP_HARNESS_RUN_DIR. What it cannot see: an optimizer class of the
// program's own, parameters updated without an optimizer, and the data a
// step consumed (no data-order verdict).
//
//===----------------------------------------------------------------------===//

#include "ddpharness/Probe.h"

#include <torch/optim.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

using LossClosure = torch::optim::Optimizer::LossClosure;
/// The Itanium C++ ABI passes `this` where a free function's first
/// parameter goes, so a member function is callable through this type.
using StepFunction = at::Tensor (*)(void *, LossClosure);

StepFunction realStep(const char *Symbol) {
  void *Found = dlsym(RTLD_NEXT, Symbol);
  if (!Found) {
    std::fprintf(stderr,
                 "ddpharness-autoprobe: cannot find LibTorch's %s: %s\n",
                 Symbol, dlerror());
    std::abort();
  }
  return reinterpret_cast<StepFunction>(Found);
}

void record(torch::optim::Optimizer &Optimizer) {
  static std::mutex Lock;
  static ddpharness::Probe Probe;
  static int64_t Steps = 0;
  std::lock_guard<std::mutex> Guard(Lock);
  int64_t Step = Steps++;
  if (!Probe.records(Step))
    return;
  std::vector<std::pair<std::string, torch::Tensor>> Named;
  const auto &Groups = Optimizer.param_groups();
  for (size_t G = 0; G < Groups.size(); ++G) {
    const std::vector<torch::Tensor> &Params = Groups[G].params();
    for (size_t I = 0; I < Params.size(); ++I)
      Named.emplace_back("group" + std::to_string(G) + ".param" +
                             std::to_string(I),
                         Params[I]);
  }
  torch::NoGradGuard NoGrad;
  Probe.step(Named, Step);
}

} // namespace

#define DDPHARNESS_AUTOPROBE_STEP(Class, Symbol)                              \
  at::Tensor torch::optim::Class::step(LossClosure Closure) {                \
    static StepFunction Real = realStep(Symbol);                             \
    at::Tensor Loss = Real(this, std::move(Closure));                        \
    record(*this);                                                           \
    return Loss;                                                             \
  }

DDPHARNESS_AUTOPROBE_STEP(SGD, "_ZN5torch5optim3SGD4stepESt8functionIFN2at6TensorEvEE")
DDPHARNESS_AUTOPROBE_STEP(Adam, "_ZN5torch5optim4Adam4stepESt8functionIFN2at6TensorEvEE")
DDPHARNESS_AUTOPROBE_STEP(AdamW, "_ZN5torch5optim5AdamW4stepESt8functionIFN2at6TensorEvEE")
DDPHARNESS_AUTOPROBE_STEP(Adagrad, "_ZN5torch5optim7Adagrad4stepESt8functionIFN2at6TensorEvEE")
DDPHARNESS_AUTOPROBE_STEP(RMSprop, "_ZN5torch5optim7RMSprop4stepESt8functionIFN2at6TensorEvEE")
DDPHARNESS_AUTOPROBE_STEP(LBFGS, "_ZN5torch5optim5LBFGS4stepESt8functionIFN2at6TensorEvEE")
