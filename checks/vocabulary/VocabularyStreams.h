//===--- VocabularyStreams.h - CUDA streams, events and stream guards -----===//
//
// What orders work between CUDA streams: the stream a call queues its work
// on (`cudaStream_t`, `c10::cuda::CUDAStream`), the scopes in which a stream
// is current (`CUDAStreamGuard`), and the calls after which work queued on
// one stream is ordered before another's or the host's (synchronizes, event
// waits). Defined in VocabularyStreams.cpp; included by Vocabulary.h.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARYSTREAMS_H
#define DDPLINT_CHECKS_VOCABULARYSTREAMS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::ddp::streams {

/// `cudaStream_t` (also the driver's `CUstream`), `c10::cuda::CUDAStream`
/// (`at::cuda::CUDAStream`) and `c10::Stream`.
bool isStreamType(QualType T);
/// The stream a call queues its work on: its last argument of stream type,
/// or a kernel launch's stream (`k<<<grid, block, shared, stream>>>`).
/// Null when the call names none (it runs on the current or default stream).
const Expr *streamArgument(const CallExpr &Call);
/// The variable or field that names a stream in \p E, through conversions
/// and `.stream()`: `s`, `comm_stream_`, `side.stream()`; null otherwise
/// (a literal 0, a call's result).
const ValueDecl *streamDecl(const Expr *E);
/// A scope guard that makes its stream current until the scope ends:
/// `c10::cuda::CUDAStreamGuard`, `OptionalCUDAStreamGuard`,
/// `CUDAMultiStreamGuard` (and their `at::cuda` names).
bool isStreamGuardType(QualType T);
/// A call after which the work queued before it on some stream is ordered
/// before what comes next: the host waits (`cudaStreamSynchronize`,
/// `cudaDeviceSynchronize`, `cudaEventSynchronize`, `stream.synchronize()`,
/// `event.synchronize()`, `torch::cuda::synchronize()`), or another stream
/// waits on an event (`cudaStreamWaitEvent`, `event.block(stream)`).
bool ordersStreams(const CallExpr &Call);
/// The buffer an NCCL call writes on its stream: `recvbuff` of the
/// collectives, `buff` of `ncclBcast`, `recvbuff` of `ncclRecv`; null for
/// other calls and for `ncclSend`.
const Expr *ncclOutputBuffer(const CallExpr &Call);

} // namespace clang::tidy::ddp::streams

#endif // DDPLINT_CHECKS_VOCABULARYSTREAMS_H
