//===--- Output.h - printing findings -----------------------------*- C++ -*-===//
//
// The formats the driver prints findings in. Each printer takes the complete,
// sorted list of findings of a run and writes it to one stream.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_OUTPUT_H
#define DDPLINT_DRIVER_OUTPUT_H

#include "Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

namespace ddplint {

/// clang's format: "file:line:col: warning: message [check]", the source
/// line with a caret, then the notes the same way. Coloured when Color is set.
void printText(llvm::raw_ostream &OS, llvm::ArrayRef<Finding> Findings,
               bool Color);

/// One JSON document: {"version": ..., "findings": [...]} with one object per
/// finding (check, file, line, column, message, notes, fixes).
void printJSON(llvm::raw_ostream &OS, llvm::ArrayRef<Finding> Findings);

} // namespace ddplint

#endif // DDPLINT_DRIVER_OUTPUT_H
