// A module of two checks, for test/driver/add-check.test.

#include "ddp/AlphaCheck.h"
#include "ddp/GammaCheck.h"
#include "clang-tidy/ClangTidyModule.h"

namespace clang::tidy::ddp {

class DdpModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<AlphaCheck>(
        "ddp-alpha");
    Factories.registerCheck<GammaCheck>(
        "ddp-gamma");
  }
};

} // namespace clang::tidy::ddp
