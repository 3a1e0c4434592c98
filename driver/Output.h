//===--- Output.h - printing findings -----------------------------*- C++ -*-===//
//
// The formats the driver prints findings in. Each printer takes the complete
// result of a run (sorted findings, compile errors, tool errors, the enabled
// checks, the exit code) and writes it to one stream. docs/output-formats.md
// describes every format.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_OUTPUT_H
#define DDPLINT_DRIVER_OUTPUT_H

#include "Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace ddplint {

enum class OutputFormat { Text, JSON, SARIF, GitHub, GitLab, HTML };

/// A unit parsed with ddplint's fallback declarations for SDK headers the
/// machine lacks (SdkFallback.h): its findings may differ from a machine
/// with the real SDK.
struct SdkFallbackNote {
  std::string File;                 ///< The unit's main file.
  std::vector<std::string> Headers; ///< As included: "nccl.h".
};
llvm::json::Value toJSON(const SdkFallbackNote &N);
bool fromJSON(const llvm::json::Value &V, SdkFallbackNote &N,
              llvm::json::Path P);

/// A unit whose analysis was vacuous (Vacuity.h): it saw (next to)
/// nothing, so its lack of findings means nothing.
struct VacuousUnit {
  std::string File;  ///< The unit's main file.
  std::string Cause; ///< One line, with advice.
};
llvm::json::Value toJSON(const VacuousUnit &U);
bool fromJSON(const llvm::json::Value &V, VacuousUnit &U, llvm::json::Path P);

/// Everything a run (or a findings file given to `ddplint report`) produced.
struct Report {
  std::vector<Finding> Findings;      ///< Sorted (sortAndUnique).
  std::vector<Finding> CompileErrors; ///< Sorted; not findings.
  /// Why a file could not be analysed at all (unreadable, no command).
  std::vector<std::string> ToolErrors;
  /// The enabled checks: SARIF's rules, the HTML summary's rows.
  std::vector<std::string> Checks;
  int ExitCode = 0; ///< What ddplint exits with (Options.h).
  /// The units that used the SDK fallback, in unit order.
  std::vector<SdkFallbackNote> SdkFallbacks;
  /// The units whose analysis was vacuous, in unit order.
  std::vector<VacuousUnit> Vacuous;
};

struct OutputOptions {
  OutputFormat Format = OutputFormat::Text;
  bool Color = false;
  /// Absolute; SARIF URIs and the paths of the CI formats and the HTML page
  /// are relative to it.
  std::string SourceRoot;
  /// Where docs/checks/<check>.md pages live: SARIF helpUri, HTML links.
  std::string DocUrlBase;
};

/// clang's format: "file:line:col: warning: message [check]", the source
/// line with a caret, then the notes the same way. Coloured when Color is set.
void printText(llvm::raw_ostream &OS, llvm::ArrayRef<Finding> Findings,
               bool Color);

/// One JSON document: {"version", "checks", "findings", "compile_errors",
/// "tool_errors"}, one object per finding (toJSON(Finding)),
/// "sdk_fallbacks" when a unit used the SDK fallback and "vacuous" when a
/// unit's analysis was vacuous.
void printJSON(llvm::raw_ostream &OS, const Report &R);
void printJSON(llvm::raw_ostream &OS, llvm::ArrayRef<Finding> Findings);

/// SARIF 2.1.0 (Sarif.cpp).
void printSARIF(llvm::raw_ostream &OS, const Report &R,
                const OutputOptions &Opts);

/// GitHub Actions workflow commands, one annotation per finding
/// (CIFormats.cpp).
void printGitHub(llvm::raw_ostream &OS, const Report &R,
                 const OutputOptions &Opts);

/// GitLab Code Quality report (CIFormats.cpp).
void printGitLab(llvm::raw_ostream &OS, const Report &R,
                 const OutputOptions &Opts);

/// One self-contained HTML page (Html.cpp).
void printHTML(llvm::raw_ostream &OS, const Report &R,
               const OutputOptions &Opts);

/// Prints R in Opts.Format.
void printReport(llvm::raw_ostream &OS, const Report &R,
                 const OutputOptions &Opts);

/// The output options given on the command line (--format, --color,
/// --source-root, --doc-url-base), for output to stdout or --output.
OutputOptions outputOptionsFromCommandLine();

/// Prints R as the command line asks: on stdout, or with --output FILE into
/// FILE, atomically (a temporary file in the same directory, renamed over
/// FILE once complete). Returns false, after an error on stderr, when the
/// file could not be written; FILE is then left as it was.
bool emitReport(const Report &R);

/// The --output file, or "" for standard output.
std::string outputPath();

/// Whether the report can go where -o names, asked before the analysis
/// (whose result would be lost); says why not on stderr.
bool outputWritable();

/// Applies --color to ddplint's own messages on standard error.
void applyColorOption();

} // namespace ddplint

#endif // DDPLINT_DRIVER_OUTPUT_H
