//===- ddpharness.h - Everything a program under the harness uses ---------===//
//
// Naming (docs/harness-library.md, "Naming"): the public API mirrors
// LibTorch's C++ frontend and torch.distributed, so a program reads the same
// whether it calls LibTorch or the harness: functions, methods and fields in
// snake_case (init_process_group_from_env, Distributed::world_size), types
// in UpperCamel, constants as kUpperCamel (kSkipExitCode, as torch::kCPU).
// Implementation details follow LLVM style like the rest of the project:
// parameters, locals and private data members in UpperCamel, private
// methods and internal helpers in lowerCamel, the same parameter name in a
// declaration and its definition.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_DDPHARNESS_H
#define DDPHARNESS_DDPHARNESS_H

#include "ddpharness/DistributedDataParallel.h"
#include "ddpharness/ProcessGroup.h"
#include "ddpharness/Probe.h"
#include "ddpharness/Reducer.h"

#endif
