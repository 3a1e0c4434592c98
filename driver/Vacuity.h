//===--- Vacuity.h - analyses that saw nothing --------------------*- C++ -*-===//
//
// ddplint keeps going past compile errors: training code that does not fully
// type-check is still analysed. But a unit whose analysis saw (next to)
// nothing must not pass for a clean one: with a wrong include path on a CI
// machine every unit would report "0 findings". A unit's analysis is
// vacuous when
//
//  1. an #include could not be found or opened: the compiler stops there
//     (ddplint demotes the fatal error to carry on, DdpCheck.cpp), and every
//     declaration the header would have brought in is unknown;
//  2. clang met another fatal error: a source file in an encoding it cannot
//     read (a UTF-16 or UTF-32 byte order mark), a file it could not read;
//  3. the unit has compile errors and not one function definition of its
//     own code survived them for the checks to analyse.
//
// A unit with compile errors that clang recovered from, and functions left
// to analyse, is not vacuous. The driver names each vacuous unit on
// standard error, in SARIF and in JSON, and exits with 3 (Options.h).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_VACUITY_H
#define DDPLINT_DRIVER_VACUITY_H

#include "Finding.h"

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace clang {
class Decl;
} // namespace clang

namespace ddplint {

/// What the parse of one unit showed about how much of it was seen. A unit
/// the compile database compiles twice adds to the same facts.
struct VacuityFacts {
  /// Headers that were not found, as written in the #include
  /// ("torch/torch.h"), or could not be opened, by path; first one first,
  /// each once.
  struct MissingHeader {
    std::string Name;
    std::string Why; ///< Why it could not be opened; "" when not found.
  };
  std::vector<MissingHeader> MissingHeaders;
  /// The first other fatal error, as clang words it.
  std::string Fatal;
  /// For a byte order mark clang cannot read: the encoding ("UTF-16 (LE)")
  /// and the file that has it.
  std::string Encoding, EncodedFile;
  /// Function definitions (lambdas included) outside system headers.
  unsigned Functions = 0;
};

/// Forwards every diagnostic to Target, recording into Facts the errors
/// that leave an analysis vacuous.
class VacuityRecorder : public clang::DiagnosticConsumer {
public:
  VacuityRecorder(clang::DiagnosticConsumer &Target, VacuityFacts &Facts)
      : Target(Target), Facts(Facts) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override;
  void clear() override;

private:
  clang::DiagnosticConsumer &Target;
  VacuityFacts &Facts;
};

/// Counts the function definitions (and lambdas) under Scope, the unit's
/// declarations outside system headers; stops counting at Limit.
unsigned countFunctions(llvm::ArrayRef<clang::Decl *> Scope,
                        unsigned Limit = 1);

/// Why the analysis of the unit in Result was vacuous, in one line with
/// advice ("'torch/torch.h' file not found (add its include path, e.g.
/// -isystem /usr/include/torch/csrc/api/include)"), or "" when it was not.
std::string vacuityCause(const VacuityFacts &Facts, const UnitResult &Result);

/// How to make Header (as written in an #include) found: an include
/// directory where it exists on this machine, else general advice.
std::string includeAdvice(llvm::StringRef Header);

} // namespace ddplint

#endif // DDPLINT_DRIVER_VACUITY_H
