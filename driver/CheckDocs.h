//===--- CheckDocs.h - what each check finds, from its page -------*- C++ -*-===//
//
// The short and full description of every check, generated at build time from
// docs/checks/<check>.md (driver/gen-check-docs.py): the page's first
// paragraph and its "Why" section. SARIF rules and the HTML report read them
// here, so a description is written once, on the check's page.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_CHECKDOCS_H
#define DDPLINT_DRIVER_CHECKDOCS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace ddplint {

struct CheckDoc {
  llvm::StringRef Name;
  llvm::StringRef Short;         ///< Plain text.
  llvm::StringRef ShortMarkdown;
  llvm::StringRef Full;          ///< Plain text, paragraphs apart.
  llvm::StringRef FullMarkdown;
};

/// Every documented check, ordered by name.
llvm::ArrayRef<CheckDoc> checkDocs();

/// The description of Check, or null when it has no page.
const CheckDoc *findCheckDoc(llvm::StringRef Check);

} // namespace ddplint

#endif // DDPLINT_DRIVER_CHECKDOCS_H
