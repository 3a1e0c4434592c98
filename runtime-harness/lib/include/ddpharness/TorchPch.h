//===- TorchPch.h - The heavy includes of every harness target ------------===//
//
// Parsing <torch/torch.h> costs about 11 s per translation unit on the
// project's machines; the harness targets compile it once as a precompiled
// header and reuse it.
//
//===----------------------------------------------------------------------===//

#include <torch/torch.h>

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
