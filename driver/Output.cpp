//===--- Output.cpp - printing findings -----------------------------------===//

#include "Output.h"
#include "AtomicWrite.h"
#include "Options.h"
#include "OutputSupport.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <memory>

using namespace llvm;

namespace ddplint {
namespace {

// Output options apply to every subcommand (a run and `ddplint report`).
cl::opt<OutputFormat> Format(
    "format", cl::desc("How findings are printed."),
    cl::values(
        clEnumValN(OutputFormat::Text, "text",
                   "clang's format (default; coloured on a terminal)"),
        clEnumValN(OutputFormat::JSON, "json",
                   "one JSON document, one object per finding"),
        clEnumValN(OutputFormat::SARIF, "sarif",
                   "SARIF 2.1.0 (GitHub code scanning, IDE viewers)"),
        clEnumValN(OutputFormat::GitHub, "github",
                   "GitHub Actions annotations (workflow commands)"),
        clEnumValN(OutputFormat::GitLab, "gitlab",
                   "GitLab Code Quality report"),
        clEnumValN(OutputFormat::HTML, "html",
                   "one self-contained HTML page")),
    cl::init(OutputFormat::Text), cl::cat(optionCategory()),
    cl::sub(cl::SubCommand::getAll()));

cl::opt<std::string> OutputFile("output", cl::desc(R"(
Write the findings to this file instead of
standard output. The file is replaced atomically
once complete; if it cannot be written ddplint
says why and exits with 2.)"),
                                cl::value_desc("file"),
                                cl::cat(optionCategory()),
                                cl::sub(cl::SubCommand::getAll()));
cl::alias OutputFileShort("o", cl::desc("Alias for --output"),
                          cl::aliasopt(OutputFile), cl::NotHidden);

cl::opt<std::string> SourceRoot("source-root", cl::desc(R"(
Directory that paths in SARIF (%SRCROOT%), GitHub,
GitLab and HTML output are relative to.
Default: the current directory.)"),
                                cl::value_desc("dir"),
                                cl::cat(optionCategory()),
                                cl::sub(cl::SubCommand::getAll()));
cl::alias SarifRoot("sarif-root", cl::desc("Alias for --source-root"),
                    cl::aliasopt(SourceRoot), cl::NotHidden);

cl::opt<std::string> DocUrlBase("doc-url-base", cl::desc(R"(
URL of the directory holding the checks' pages
(docs/checks/<check>.md): SARIF helpUri and the
HTML report's links. Default:
)" DDPLINT_DOC_URL_BASE),
                                cl::value_desc("url"),
                                cl::init(DDPLINT_DOC_URL_BASE),
                                cl::cat(optionCategory()),
                                cl::sub(cl::SubCommand::getAll()));

enum class ColorMode { Auto, Always, Never };

// libLLVM registers a boolean "--color" of its own (for WithColor) the first
// time the option registry is read. ddplint's takes the name over, with
// clang's three choices, and applyColorOption() hands the choice on.
cl::opt<ColorMode> &colorOption() {
  static cl::opt<ColorMode> *Option = [] {
    if (cl::Option *Llvm = cl::getRegisteredOptions().lookup("color"))
      Llvm->removeArgument();
    return new cl::opt<ColorMode>(
        "color", cl::desc("Colour the text format and ddplint's messages."),
        cl::values(clEnumValN(ColorMode::Auto, "auto",
                              "only on a terminal (default)"),
                   clEnumValN(ColorMode::Always, "always", "always"),
                   clEnumValN(ColorMode::Never, "never", "never")),
        cl::init(ColorMode::Auto), cl::cat(optionCategory()),
        cl::sub(cl::SubCommand::getAll()));
  }();
  return *Option;
}
const cl::opt<ColorMode> &ColorOption = colorOption();

cl::opt<bool> UseColor("use-color", cl::desc(R"(
As clang-tidy's --use-color: --use-color is
--color=always, --use-color=false
--color=never.)"),
                       cl::cat(optionCategory()));

/// --color, or what --use-color says when it was given.
ColorMode colorMode() {
  if (UseColor.getNumOccurrences())
    return UseColor ? ColorMode::Always : ColorMode::Never;
  return ColorOption;
}

void printHeader(raw_ostream &OS, const Location &Where, StringRef Level,
                 StringRef Message, StringRef Check, bool Color) {
  if (Color)
    OS.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  if (!Where.File.empty()) {
    OS << Where.File;
    if (Where.Line)
      OS << ":" << Where.Line << ":" << Where.Column;
    OS << ": ";
  }
  if (Color)
    OS.changeColor(Level == "error"     ? raw_ostream::RED
                   : Level == "warning" ? raw_ostream::MAGENTA
                                        : raw_ostream::BLACK,
                   /*Bold=*/true);
  OS << Level << ": ";
  if (Color)
    OS.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << Message;
  if (!Check.empty())
    OS << " [" << Check << "]";
  if (Color)
    OS.resetColor();
  OS << "\n";
}

/// The source line, a caret under the column, and the replacement text of
/// fix-its that start on that line.
void printSnippet(raw_ostream &OS, const Location &Where,
                  ArrayRef<Replacement> Fixes, SourceCache &Sources,
                  bool Color) {
  StringRef Line = Sources.line(Where.File, Where.Line).value_or("");
  if (Line.empty() || Where.Column == 0 || Where.Column > Line.size() + 1)
    return;
  OS << Line << "\n";
  // Keep tabs so the caret lines up under the column in a terminal.
  auto Indent = [&](unsigned Column) {
    std::string Pad;
    for (unsigned I = 0; I + 1 < Column && I < Line.size(); ++I)
      Pad += Line[I] == '\t' ? '\t' : ' ';
    return Pad;
  };
  if (Color)
    OS.changeColor(raw_ostream::GREEN, /*Bold=*/true);
  OS << Indent(Where.Column) << "^\n";
  if (Color)
    OS.resetColor();
  for (const Replacement &R : Fixes)
    if (R.Begin.File == Where.File && R.Begin.Line == Where.Line &&
        !R.Text.empty() && StringRef(R.Text).find('\n') == StringRef::npos) {
      if (Color)
        OS.changeColor(raw_ostream::GREEN);
      OS << Indent(R.Begin.Column) << R.Text << "\n";
      if (Color)
        OS.resetColor();
    }
}

} // namespace

void printText(raw_ostream &OS, ArrayRef<Finding> Findings, bool Color) {
  OS.enable_colors(Color);
  SourceCache Sources;
  for (const Finding &F : Findings) {
    printHeader(OS, F.Where, F.Level, F.Message, F.Check, Color);
    printSnippet(OS, F.Where, F.Fixes, Sources, Color);
    for (const Note &N : F.Notes) {
      printHeader(OS, N.Where, "note", N.Message, "", Color);
      printSnippet(OS, N.Where, N.Fixes, Sources, Color);
    }
    if (F.Runtime) {
      printHeader(OS, F.Where, "note", runtimeLine(*F.Runtime), "", Color);
    }
  }
}

json::Value toJSON(const SdkFallbackNote &N) {
  return json::Object{{"file", N.File}, {"headers", N.Headers}};
}

bool fromJSON(const json::Value &V, SdkFallbackNote &N, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("file", N.File) && O.map("headers", N.Headers);
}

json::Value toJSON(const VacuousUnit &U) {
  return json::Object{{"file", U.File}, {"cause", U.Cause}};
}

bool fromJSON(const json::Value &V, VacuousUnit &U, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("file", U.File) && O.map("cause", U.Cause);
}

void printJSON(raw_ostream &OS, const Report &R) {
  json::Array Checks, Findings, Errors, ToolErrors;
  for (const std::string &Check : R.Checks)
    Checks.push_back(Check);
  for (const Finding &F : R.Findings)
    Findings.push_back(toJSON(F));
  for (const Finding &F : R.CompileErrors)
    Errors.push_back(toJSON(F));
  for (const std::string &E : R.ToolErrors)
    ToolErrors.push_back(E);
  json::Object Document{{"version", DDPLINT_VERSION},
                        {"checks", std::move(Checks)},
                        {"findings", std::move(Findings)},
                        {"compile_errors", std::move(Errors)},
                        {"tool_errors", std::move(ToolErrors)}};
  // Only when it happened, so documents of complete runs keep their shape.
  if (!R.SdkFallbacks.empty())
    Document["sdk_fallbacks"] = json::Array(R.SdkFallbacks);
  if (!R.Vacuous.empty())
    Document["vacuous"] = json::Array(R.Vacuous);
  OS << formatv("{0:2}", json::Value(std::move(Document))) << "\n";
}

void printJSON(raw_ostream &OS, ArrayRef<Finding> Findings) {
  Report R;
  R.Findings = Findings.vec();
  printJSON(OS, R);
}

void printReport(raw_ostream &OS, const Report &R, const OutputOptions &Opts) {
  switch (Opts.Format) {
  case OutputFormat::Text:
    printText(OS, R.Findings, Opts.Color);
    break;
  case OutputFormat::JSON:
    printJSON(OS, R);
    break;
  case OutputFormat::SARIF:
    printSARIF(OS, R, Opts);
    break;
  case OutputFormat::GitHub:
    printGitHub(OS, R, Opts);
    break;
  case OutputFormat::GitLab:
    printGitLab(OS, R, Opts);
    break;
  case OutputFormat::HTML:
    printHTML(OS, R, Opts);
    break;
  }
}

OutputOptions outputOptionsFromCommandLine() {
  OutputOptions Opts;
  Opts.Format = Format;
  bool ToFile = !OutputFile.empty() && OutputFile != "-";
  ColorMode Color = colorMode();
  Opts.Color = Color == ColorMode::Always ||
               (Color == ColorMode::Auto && !ToFile && outs().has_colors());
  SmallString<256> Root(SourceRoot.empty() ? "." : SourceRoot.getValue());
  sys::fs::make_absolute(Root);
  sys::path::remove_dots(Root, /*remove_dot_dot=*/true);
  Opts.SourceRoot = std::string(Root);
  Opts.DocUrlBase = DocUrlBase;
  return Opts;
}

bool emitReport(const Report &R) {
  OutputOptions Opts = outputOptionsFromCommandLine();
  if (OutputFile.empty() || OutputFile == "-") {
    printReport(outs(), R, Opts);
    outs().flush();
    return true;
  }

  std::string Why = writeAtomically(
      OutputFile, [&](raw_ostream &OS) { printReport(OS, R, Opts); });
  if (Why.empty())
    return true;
  WithColor::error(errs(), "ddplint")
      << "cannot write '" << OutputFile << "': " << Why << "\n";
  return false;
}

bool outputWritable() {
  std::string Path = outputPath();
  std::string Why = Path.empty() ? std::string() : unwritable(Path);
  if (!Why.empty())
    WithColor::error(errs(), "ddplint") << "cannot write '" << Path << "': "
                                        << Why << "; nothing was analysed\n";
  return Why.empty();
}

std::string outputPath() {
  return OutputFile == "-" ? std::string() : OutputFile.getValue();
}

void applyColorOption() {
  switch (colorMode()) {
  case ColorMode::Auto:
    break;
  case ColorMode::Always:
    WithColor::setAutoDetectFunction([](const raw_ostream &) { return true; });
    break;
  case ColorMode::Never:
    WithColor::setAutoDetectFunction(
        [](const raw_ostream &) { return false; });
    break;
  }
}

} // namespace ddplint
