//===--- RunStatus.cpp - how a run ends -----------------------------------===//

#include "RunStatus.h"

#include "Options.h"
#include "Runner.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>

using namespace llvm;

namespace ddplint {
namespace {

// Applies to `report` and `merge` as well, which compute the exit code a
// run over the same units would have had.
cl::opt<bool> NoVacuousStatus("no-vacuous-status", cl::desc(R"(
Exit with 0 or 1, by the findings, instead of 3
when a unit's analysis was vacuous (a header not
found, a file clang cannot read, no function left
to analyse). Such units are still named on
standard error, in SARIF and in JSON.)"),
                              cl::init(false), cl::cat(optionCategory()),
                              cl::sub(cl::SubCommand::getAll()));

} // namespace

bool vacuousStatusEnabled() { return !NoVacuousStatus; }

int exitCode(bool ToolError, bool Vacuous, bool Findings) {
  if (ToolError)
    return ExitToolError;
  if (Vacuous && vacuousStatusEnabled())
    return ExitVacuous;
  return Findings ? ExitFindings : ExitClean;
}

void printCompileErrors(ArrayRef<Finding> Errors) {
  if (Errors.empty())
    return;
  // Apart from the findings, once: what clang could not build. The checks
  // still ran over everything else in those files.
  errs() << "\n";
  WithColor::warning(errs(), "ddplint")
      << Errors.size() << " compile error" << (Errors.size() == 1 ? "" : "s")
      << "; the checks ran on everything clang could build, findings "
         "that depend on the broken code may be missing:\n";
  // A unit whose main header is missing can produce thousands of errors;
  // the first ones say what is wrong.
  constexpr size_t Shown = 20;
  for (size_t I = 0; I < Errors.size() && I < Shown; ++I) {
    const Location &L = Errors[I].Where;
    if (!L.File.empty())
      errs() << L.File << ":" << L.Line << ":" << L.Column << ": ";
    errs() << "error: " << Errors[I].Message << "\n";
  }
  if (Errors.size() > Shown)
    errs() << "... and " << Errors.size() - Shown << " more compile errors\n";
}

void printVacuousUnits(ArrayRef<VacuousUnit> Units) {
  for (const VacuousUnit &U : Units)
    errs() << "ddplint: " << shownPath(U.File)
           << ": analysis was vacuous: " << U.Cause << "\n";
}

/// The one-line summary on standard error.
/// "N findings in K files" counts the files that hold findings, as the HTML
/// report does; the units looked at follow when that does not say it.
void printSummary(ArrayRef<Finding> Findings, size_t Files,
                  const RunStats &Stats, size_t Vacuous, unsigned Hidden) {
  auto Plural = [](size_t N, StringRef One) {
    return (Twine(N) + " " + One + (N == 1 ? "" : "s")).str();
  };
  std::set<std::string> WithFindings;
  for (const Finding &F : Findings)
    WithFindings.insert(F.Where.File);
  size_t Found = Findings.size();
  errs() << Plural(Found, "finding");
  if (Found)
    errs() << " in " << Plural(WithFindings.size(), "file");
  if (Stats.FromCache)
    errs() << " (" << Plural(Files, "file") << ": " << Stats.Analysed
           << " analysed, " << Stats.FromCache << " from the cache)";
  else if (!Found || WithFindings.size() != Files)
    errs() << " (" << Plural(Files, "file") << " analysed)";
  if (Vacuous)
    errs() << "; " << Vacuous
           << (Vacuous == 1 ? " unit's analysis was" : " units' analyses were")
           << " vacuous";
  if (Hidden)
    errs() << "; " << Hidden << " known finding" << (Hidden == 1 ? "" : "s")
           << " hidden by the baseline";
  errs() << "\n";
}

} // namespace ddplint
