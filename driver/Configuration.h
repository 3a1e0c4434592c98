//===--- Configuration.h - the checks' configuration ------------*- C++ -*-===//
//
// Which checks run and with which options, as clang-tidy decides it:
// .clang-tidy files next to the sources, or --config / --config-file instead,
// with --checks and --header-filter on top. The driver's default is ddplint's
// own checks only; compiler warnings and the static analyzer never run.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_CONFIGURATION_H
#define DDPLINT_DRIVER_CONFIGURATION_H

#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <memory>

namespace ddplint {

/// The options provider the command line describes, reading .clang-tidy
/// files through FS. Null, with Failed set after an error on stderr, when
/// --config or --config-file cannot be used.
std::unique_ptr<clang::tidy::ClangTidyOptionsProvider>
createOptionsProvider(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                      bool &Failed);

} // namespace ddplint

#endif // DDPLINT_DRIVER_CONFIGURATION_H
