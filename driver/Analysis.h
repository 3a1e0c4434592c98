//===--- Analysis.h - running the checks over translation units -----------===//
//
// The driver's counterpart of clang::tidy::runClangTidy: the same checks, the
// same diagnostics consumer (so NOLINT, header filters and .clang-tidy files
// behave as in clang-tidy), with two differences:
//  - the AST matchers traverse only declarations outside system headers:
//    system headers cannot hold a reported finding, and skipping them is most
//    of the speed difference on a unit that includes <torch/torch.h>;
//  - clang's "N warnings generated." summary is not printed.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_ANALYSIS_H
#define DDPLINT_DRIVER_ANALYSIS_H

#include "Finding.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <string>
#include <vector>

namespace ddplint {

/// Runs the enabled checks over one translation unit and returns its
/// findings and compile errors, with lines and columns resolved. The context
/// may be reused for the next unit, but not shared between threads.
UnitResult
analyseUnit(clang::tidy::ClangTidyContext &Context,
            const clang::tooling::CompilationDatabase &Compilations,
            llvm::StringRef File,
            llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS);

} // namespace ddplint

#endif // DDPLINT_DRIVER_ANALYSIS_H
