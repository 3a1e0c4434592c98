// clang 16's CUDA wrapper (__clang_cuda_runtime_wrapper.h) includes this
// header of the CUDA toolkit, which the toolkits since CUDA 13 no longer
// ship (texture references were removed). Without it every CUDA unit stops
// at the wrapper. Host code needs nothing from it: it declared the device
// side of texture-reference fetches only.
#pragma once
