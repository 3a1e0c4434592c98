/* ddplint's fallback <cuda_runtime.h>: the C API of <cuda_runtime_api.h>
 * plus the C++ overloads the real header adds, so that `cudaMalloc(&p, n)`
 * with a `float *p` compiles as it does with the toolkit. ddplint adds this
 * directory with -idirafter, so an installed toolkit always wins. */
#ifndef DDPLINT_SDK_FALLBACK_CUDA_RUNTIME_H
#define DDPLINT_SDK_FALLBACK_CUDA_RUNTIME_H

#include <cuda_runtime_api.h>

/* Host code read as C++ (a .cuh header analysed on its own, a machine
 * without the toolkit): the execution-space attributes mean nothing here. */
#if !defined(__CUDA__) && !defined(__CUDACC__)
#ifndef __global__
#define __global__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __host__
#define __host__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#endif

#ifdef __cplusplus
/* Typed pointers convert to void** only through these. */
template <class T>
static inline cudaError_t cudaMalloc(T** devPtr, size_t size) {
  return ::cudaMalloc((void**)(void*)devPtr, size);
}
template <class T>
static inline cudaError_t cudaMallocHost(T** ptr, size_t size) {
  return ::cudaMallocHost((void**)(void*)ptr, size);
}
template <class T>
static inline cudaError_t cudaMallocManaged(T** devPtr, size_t size, unsigned int flags = 0x01) {
  return ::cudaMallocManaged((void**)(void*)devPtr, size, flags);
}
static inline cudaError_t cudaEventCreate(cudaEvent_t* event, unsigned int flags) {
  return ::cudaEventCreateWithFlags(event, flags);
}
#endif

#endif /* DDPLINT_SDK_FALLBACK_CUDA_RUNTIME_H */
