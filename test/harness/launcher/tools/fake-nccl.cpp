//===- fake-nccl.cpp - A stand-in for NCCL's entry points -----------------===//
//
// libnccl.so.2 for a machine without NCCL or a GPU: the entry points the
// collective trace defines, with NCCL's C ABI (enums as int, handles as
// pointers), each doing nothing and returning ncclSuccess. nccl-ranks links
// it as a program links the real one, so the trace's definitions must find
// these through dlsym(RTLD_NEXT) exactly as they find NCCL's.
//
//===----------------------------------------------------------------------===//

#include <cstddef>

extern "C" {
int ncclAllReduce(const void *, void *, size_t, int, int, void *, void *) {
  return 0;
}
int ncclBroadcast(const void *, void *, size_t, int, int, void *, void *) {
  return 0;
}
int ncclAllGather(const void *, void *, size_t, int, void *, void *) {
  return 0;
}
}
