//===--- VocabularyStreams.cpp - CUDA streams, events and stream guards ---===//

#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp::streams {

namespace {

const CXXRecordDecl *recordOf(QualType T) {
  return T.isNull() ? nullptr
                    : T.getNonReferenceType()->getAsCXXRecordDecl();
}

bool isRecordNamed(const CXXRecordDecl *RD,
                   std::initializer_list<llvm::StringRef> Names) {
  if (!RD)
    return false;
  std::string Name = qualifiedName(*RD);
  for (llvm::StringRef Candidate : Names)
    if (Name == Candidate)
      return true;
  return false;
}

/// One of the CUDA runtime's or driver's C functions \p Names.
bool isCFunctionNamed(const FunctionDecl *FD,
                      std::initializer_list<llvm::StringRef> Names) {
  return FD && FD->getDeclName().isIdentifier() && isGlobalCFunction(*FD) &&
         llvm::is_contained(Names, FD->getName());
}

bool isEventClass(const CXXRecordDecl *RD) {
  return isRecordNamed(RD, {"at::cuda::CUDAEvent"});
}

bool isCudaStreamClass(const CXXRecordDecl *RD) {
  return isRecordNamed(RD, {"c10::cuda::CUDAStream", "c10::Stream"});
}

} // namespace

bool isStreamType(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  for (const auto *TT = T->getAs<TypedefType>(); TT;
       TT = TT->getDecl()->getUnderlyingType()->getAs<TypedefType>()) {
    llvm::StringRef Name = TT->getDecl()->getName();
    if (Name == "cudaStream_t" || Name == "CUstream")
      return true;
  }
  if (const auto *Pointee = T->getPointeeCXXRecordDecl())
    return Pointee->getName() == "CUstream_st";
  if (const QualType Pointee = T->getPointeeType(); !Pointee.isNull())
    if (const auto *RT = Pointee->getAs<RecordType>())
      return RT->getDecl()->getName() == "CUstream_st";
  return isCudaStreamClass(recordOf(T));
}

const Expr *streamArgument(const CallExpr &Call) {
  if (const auto *Launch = dyn_cast<CUDAKernelCallExpr>(&Call))
    if (const CallExpr *Config = Launch->getConfig())
      if (Config->getNumArgs() >= 4 &&
          !isa<CXXDefaultArgExpr>(Config->getArg(3)))
        return Config->getArg(3);
  for (unsigned I = Call.getNumArgs(); I-- > 0;) {
    const Expr *Arg = Call.getArg(I);
    if (!isa<CXXDefaultArgExpr>(Arg) &&
        isStreamType(Arg->IgnoreImplicit()->getType()))
      return Arg;
  }
  return nullptr;
}

const ValueDecl *streamDecl(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 6; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      E = Construct->getNumArgs() ? Construct->getArg(0) : nullptr;
      continue;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      // `s.stream()`, `s.unwrap()` and the conversions to cudaStream_t.
      const CXXRecordDecl *Of = Member->getRecordDecl();
      if (!isCudaStreamClass(Of))
        return nullptr;
      E = Member->getImplicitObjectArgument();
      continue;
    }
    if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = Temp->getSubExpr();
      continue;
    }
    if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = Bind->getSubExpr();
      continue;
    }
    return referencedDecl(E);
  }
  return nullptr;
}

bool isStreamGuardType(QualType T) {
  return isRecordNamed(recordOf(T), {"c10::cuda::CUDAStreamGuard",
                                     "c10::cuda::OptionalCUDAStreamGuard",
                                     "c10::cuda::CUDAMultiStreamGuard"});
}

bool ordersStreams(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    llvm::StringRef Name = MD->getName();
    if (isEventClass(MD->getParent()))
      return Name == "block" || Name == "synchronize";
    return isCudaStreamClass(MD->getParent()) && Name == "synchronize";
  }
  if (isCFunctionNamed(FD, {"cudaStreamSynchronize", "cudaDeviceSynchronize",
                            "cudaEventSynchronize", "cudaStreamWaitEvent",
                            "cudaThreadSynchronize", "cuStreamSynchronize",
                            "cuCtxSynchronize", "cuEventSynchronize",
                            "cuStreamWaitEvent"}))
    return true;
  std::string Name = qualifiedName(*FD);
  return Name == "torch::cuda::synchronize" ||
         Name == "c10::cuda::device_synchronize" ||
         Name == "c10::cuda::stream_synchronize";
}

const Expr *ncclOutputBuffer(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() || isa<CXXMethodDecl>(FD))
    return nullptr;
  int Index = llvm::StringSwitch<int>(FD->getName())
                  .Cases("ncclBcast", "ncclRecv", 0)
                  .Cases("ncclAllReduce", "ncclBroadcast", "ncclReduce", 1)
                  .Cases("ncclAllGather", "ncclReduceScatter", 1)
                  .Default(-1);
  if (Index < 0 || Call.getNumArgs() <= static_cast<unsigned>(Index))
    return nullptr;
  return Call.getArg(static_cast<unsigned>(Index));
}

} // namespace clang::tidy::ddp::streams
