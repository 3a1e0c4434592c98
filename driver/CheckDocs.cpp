//===--- CheckDocs.cpp - what each check finds, from its page -------------===//

#include "CheckDocs.h"

#include <algorithm>

namespace ddplint {

namespace {
const CheckDoc Docs[] = {
#define DDPLINT_CHECK_DOC(Name, Short, ShortMarkdown, Full, FullMarkdown)      \
  {Name, Short, ShortMarkdown, Full, FullMarkdown},
#include "CheckDocs.inc"
#undef DDPLINT_CHECK_DOC
};
} // namespace

llvm::ArrayRef<CheckDoc> checkDocs() { return Docs; }

const CheckDoc *findCheckDoc(llvm::StringRef Check) {
  const CheckDoc *It = std::lower_bound(
      std::begin(Docs), std::end(Docs), Check,
      [](const CheckDoc &D, llvm::StringRef Name) { return D.Name < Name; });
  return It != std::end(Docs) && It->Name == Check ? It : nullptr;
}

} // namespace ddplint
