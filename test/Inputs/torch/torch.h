// ddplint mock of <torch/torch.h> (LibTorch 1.13 C++ frontend). Split over
// the files under test/Inputs/{c10,ATen,torch}; see test/Inputs/README.md.
#pragma once
#include <torch/all.h>
