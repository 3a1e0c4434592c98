// c10's CUDA build configuration, which LibTorch generates only when it is
// built with CUDA. Debian's LibTorch and the CPU builds ship c10/cuda's
// headers without it, so code that includes a CUDA part of LibTorch (c10d's
// ProcessGroupNCCL.hpp under USE_C10D_NCCL) stops at c10/cuda/CUDAMacros.h.
// A CUDA build of LibTorch is a shared library; nothing else is configured.
#pragma once

#define C10_CUDA_BUILD_SHARED_LIBS
