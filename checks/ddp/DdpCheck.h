//===--- DdpCheck.h - the base of every ddp check -------------------------===//
//
// Gives each check the shared vocabulary (read from the shared options and
// written back by storeOptions) and what all ddp checks need on real code: a
// missing header does not stop the analysis, and through clang-tidy the SDK
// headers a machine lacks (MPI, NCCL, CUDA) come from ddplint's fallback, as
// in the driver.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_DDPCHECK_H
#define DDPLINT_CHECKS_DDPCHECK_H

#include "summary/FunctionSummaries.h"
#include "vocabulary/Vocabulary.h"
#include "clang-tidy/ClangTidyCheck.h"

#include <memory>

namespace clang::tidy::ddp {

class DdpCheck : public ClangTidyCheck {
public:
  DdpCheck(llvm::StringRef Name, ClangTidyContext *Context);

  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }

  /// Training code is often linted where its MPI, NCCL or newer c10d headers
  /// are missing. clang treats a missing #include as fatal, and after a fatal
  /// error it stops instantiating templates, which hides every LibTorch call
  /// that goes through one (make_data_loader, register_module, ...). Demote
  /// it to an ordinary error, still reported, and lift the error limit, so
  /// the checks see everything clang could build. In the plugin, also
  /// append ddplint's SDK fallback headers to the search path, last (the
  /// driver adds them to the command).
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;

  /// The summaries the checks of \p Context's translation unit share, while
  /// they live; null when no check asked for them.
  static std::shared_ptr<FunctionSummaries>
  sharedSummaries(const ASTContext &Context);

protected:
  /// The summaries of \p Context's functions, one set shared by every check
  /// of the translation unit.
  FunctionSummaries &summaries(ASTContext &Context);

  const Vocabulary Vocab;

private:
  /// `SummaryFolder`: where the summaries of the project's other units are
  /// (the driver's cache writes them there); empty for none.
  std::string SummaryFolder;
  std::shared_ptr<FunctionSummaries> Summaries;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_DDPCHECK_H
