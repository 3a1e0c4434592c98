//===--- LLVMCompat.h - what differs between the LLVMs built against ------===//
//
// ddplint builds against LLVM 16 (Debian 12's clang-tidy-16) and LLVM 19
// (Debian 13's clang-tidy-19, also in Debian 12): a clang-tidy plugin loads
// only into the major version it was built for. The few API differences
// the checks and the driver meet live here, nowhere else.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_LLVMCOMPAT_H
#define DDPLINT_CHECKS_VOCABULARY_LLVMCOMPAT_H

#include "clang/AST/DeclCXX.h"
#include "clang/Basic/FileEntry.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"

namespace ddplint::compat {

/// Whether a method is pure virtual (`= 0`).
inline bool isPureVirtual(const clang::CXXMethodDecl &Method) {
#if LLVM_VERSION_MAJOR >= 18
  return Method.isPureVirtual();
#else
  return Method.isPure();
#endif
}

/// The name a source manager's file table keys a file by (a FileEntry
/// pointer up to LLVM 17, a FileEntryRef since).
#if LLVM_VERSION_MAJOR < 18
inline llvm::StringRef fileName(const clang::FileEntry *File) {
  return File->getName();
}
#endif
inline llvm::StringRef fileName(clang::FileEntryRef File) {
  return File.getName();
}

} // namespace ddplint::compat

/// The module parameters of PPCallbacks::InclusionDirective: LLVM 19 adds
/// whether the module was imported after the suggested module.
#if LLVM_VERSION_MAJOR >= 19
#define DDPLINT_INCLUSION_MODULE_PARAMETERS                                    \
  const clang::Module *SuggestedModule, bool ModuleImported
#else
#define DDPLINT_INCLUSION_MODULE_PARAMETERS const clang::Module *Imported
#endif

#endif // DDPLINT_CHECKS_VOCABULARY_LLVMCOMPAT_H
