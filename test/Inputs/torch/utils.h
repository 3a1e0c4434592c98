// ddplint mock of <torch/utils.h> (LibTorch 1.13).
#pragma once
#include <c10/core/GradMode.h>
#include <torch/types.h>

namespace torch {
using NoGradGuard = at::NoGradGuard;
using AutoGradMode = at::AutoGradMode;
using at::manual_seed;
int get_num_threads();
void set_num_threads(int num_threads);
} // namespace torch
