// What a CUDA build of LibTorch generates here (c10/cuda/impl/
// cuda_cmake_macros.h.in), for compiling against the CPU-only libtorch-dev's
// headers: c10's CUDA headers are shipped there, this configured one is not.
#pragma once
#define C10_CUDA_BUILD_SHARED_LIBS
