// A project header that starts with LibTorch, behind an include guard: a
// unit that includes it first shares the preamble of units that include
// LibTorch directly.
#ifndef RELATED_H
#define RELATED_H
#include <torch/torch.h>

constexpr unsigned long kEpochs = 3;
#endif
