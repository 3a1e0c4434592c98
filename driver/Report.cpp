//===--- Report.cpp - ddplint report: findings files in any format --------===//
//
//   ddplint report [--format=...] [--output FILE] FINDINGS.json...
//
// Reads findings files written by `ddplint --format=json` (possibly annotated
// with run-time evidence by ddp-harness) and prints them in any output
// format, as if the run had just happened. Several files are combined.
// Relative paths of evidence pictures ("runtime": {"svg": ...}) are relative
// to the findings file that names them.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "Output.h"
#include "RunStatus.h"
#include "Subcommands.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace ddplint {
namespace {

cl::SubCommand ReportCommand(
    "report", "Print findings files (from --format=json) in another format");

cl::list<std::string> Inputs(cl::Positional,
                             cl::desc("<findings.json files>"),
                             cl::sub(ReportCommand));

} // namespace

std::string loadFindingsFile(StringRef Path, Report &R,
                             std::set<std::string> &Checks) {
  auto Buffer = MemoryBuffer::getFileOrSTDIN(Path);
  if (!Buffer)
    return "cannot read '" + Path.str() + "': " + Buffer.getError().message();
  Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed)
    return "'" + Path.str() + "' is not JSON: " + toString(Parsed.takeError());

  // The document of --format=json, or a bare array of findings.
  std::vector<Finding> Findings, Errors;
  std::vector<std::string> FileChecks, ToolErrors;
  std::vector<SdkFallbackNote> Fallbacks;
  std::vector<VacuousUnit> Vacuous;
  json::Path::Root Root("document");
  bool Ok;
  if (Parsed->getAsArray()) {
    Ok = fromJSON(*Parsed, Findings, Root);
  } else {
    json::ObjectMapper O(*Parsed, Root);
    Ok = O && O.map("findings", Findings) &&
         O.mapOptional("compile_errors", Errors) &&
         O.mapOptional("checks", FileChecks) &&
         O.mapOptional("tool_errors", ToolErrors) &&
         O.mapOptional("sdk_fallbacks", Fallbacks) &&
         O.mapOptional("vacuous", Vacuous);
  }
  if (!Ok) {
    return "'" + Path.str() + "' is not a ddplint findings file: " +
           toString(Root.getError());
  }

  SmallString<256> Dir(Path == "-" ? "." : sys::path::parent_path(Path));
  if (Dir.empty())
    Dir = ".";
  sys::fs::make_absolute(Dir);
  for (Finding &F : Findings)
    if (F.Runtime && !F.Runtime->Svg.empty() &&
        sys::path::is_relative(F.Runtime->Svg)) {
      SmallString<256> Svg(Dir);
      sys::path::append(Svg, F.Runtime->Svg);
      sys::path::remove_dots(Svg, /*remove_dot_dot=*/true);
      F.Runtime->Svg = std::string(Svg);
    }
  for (Finding &F : Findings)
    R.Findings.push_back(std::move(F));
  for (Finding &F : Errors)
    R.CompileErrors.push_back(std::move(F));
  for (std::string &E : ToolErrors)
    R.ToolErrors.push_back(std::move(E));
  for (SdkFallbackNote &N : Fallbacks)
    R.SdkFallbacks.push_back(std::move(N));
  for (VacuousUnit &U : Vacuous)
    R.Vacuous.push_back(std::move(U));
  Checks.insert(FileChecks.begin(), FileChecks.end());
  return "";
}

std::optional<int> runReportCommand() {
  if (!ReportCommand)
    return std::nullopt;
  if (Inputs.empty()) {
    WithColor::error(errs(), "ddplint")
        << "no findings file; usage: ddplint report [--format=...] "
           "[--output FILE] FINDINGS.json...\n";
    return ExitToolError;
  }

  Report R;
  std::set<std::string> Checks;
  bool Failed = false;
  for (const std::string &Path : Inputs) {
    std::string Error = loadFindingsFile(Path, R, Checks);
    if (!Error.empty()) {
      WithColor::error(errs(), "ddplint") << Error << "\n";
      R.ToolErrors.push_back(Error);
      Failed = true;
    }
  }
  sortAndUnique(R.Findings);
  sortAndUnique(R.CompileErrors);
  R.Checks.assign(Checks.begin(), Checks.end());
  R.ExitCode = exitCode(Failed, !R.Vacuous.empty(), !R.Findings.empty());
  if (!emitReport(R))
    return ExitToolError;
  // The text format holds findings only; as after a run, the compile errors
  // and the vacuous units follow apart, on standard error.
  if (outputOptionsFromCommandLine().Format == OutputFormat::Text) {
    printCompileErrors(R.CompileErrors);
    printVacuousUnits(R.Vacuous);
  }
  return R.ExitCode;
}

} // namespace ddplint
