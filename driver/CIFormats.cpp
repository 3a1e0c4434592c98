//===--- CIFormats.cpp - findings for GitHub Actions and GitLab CI --------===//
//
// github: one workflow command per finding, which GitHub Actions turns into
//   an annotation on the pull request's diff:
//     ::warning file=src/train.cpp,line=14,endLine=14,col=13,title=<check>::<message>
//   notes and run-time evidence are folded into the message; compile errors
//   and files that could not be analysed are ::error commands.
// gitlab: a Code Quality report, a JSON array of issues GitLab shows in the
//   merge request widget.
//
//===----------------------------------------------------------------------===//

#include "Output.h"
#include "OutputSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace ddplint {
namespace {

/// A workflow command's message: '%', CR and LF would end or corrupt it.
std::string escapeData(StringRef Text) {
  std::string Out;
  for (char C : Text) {
    switch (C) {
    case '%':
      Out += "%25";
      break;
    case '\r':
      Out += "%0D";
      break;
    case '\n':
      Out += "%0A";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

/// A workflow command's property value: also ':' and ',', which separate
/// the properties.
std::string escapeProperty(StringRef Text) {
  std::string Out;
  for (char C : escapeData(Text)) {
    if (C == ':')
      Out += "%3A";
    else if (C == ',')
      Out += "%2C";
    else
      Out += C;
  }
  return Out;
}

class GitHubWriter {
public:
  GitHubWriter(raw_ostream &OS, const OutputOptions &Opts)
      : OS(OS), Opts(Opts) {}

  std::string where(const Location &L) {
    std::string Out = displayPath(L.File, Opts);
    if (L.Line)
      Out += formatv(":{0}:{1}", L.Line, column(L)).str();
    return Out;
  }

  unsigned column(const Location &L) {
    std::optional<StringRef> Line = Sources.line(L.File, L.Line);
    return Line ? codePointColumn(*Line, L.Column) : L.Column;
  }

  void command(StringRef Kind, const Location *L, StringRef Title,
               StringRef Message) {
    OS << "::" << Kind << " ";
    std::vector<std::string> Properties;
    if (L && !L->File.empty()) {
      Properties.push_back("file=" + escapeProperty(displayPath(L->File, Opts)));
      if (L->Line) {
        Properties.push_back(formatv("line={0}", L->Line));
        Properties.push_back(formatv("endLine={0}", L->Line));
        if (L->Column)
          Properties.push_back(formatv("col={0}", column(*L)));
      }
    }
    Properties.push_back("title=" + escapeProperty(Title));
    OS << join(Properties, ",") << "::" << escapeData(Message) << "\n";
  }

  void print(const Report &R) {
    for (const Finding &F : R.Findings) {
      std::string Message = F.Message;
      for (const Note &N : F.Notes)
        Message += "\nnote: " + where(N.Where) + ": " + N.Message;
      if (F.Runtime)
        Message += "\n" + runtimeLine(*F.Runtime);
      command(F.Level == "error" ? "error" : "warning", &F.Where, F.Check,
              Message);
    }
    for (const Finding &E : R.CompileErrors)
      command("error", &E.Where, "compile error (ddplint)", E.Message);
    for (const std::string &E : R.ToolErrors)
      command("error", nullptr, "ddplint", E);
    for (const VacuousUnit &V : R.Vacuous) {
      Location Unit;
      Unit.File = V.File;
      command("error", &Unit, "vacuous analysis (ddplint)",
              "analysis was vacuous: " + V.Cause);
    }
  }

private:
  raw_ostream &OS;
  const OutputOptions &Opts;
  SourceCache Sources;
};

} // namespace

void printGitHub(raw_ostream &OS, const Report &R, const OutputOptions &Opts) {
  GitHubWriter(OS, Opts).print(R);
}

void printGitLab(raw_ostream &OS, const Report &R, const OutputOptions &Opts) {
  SourceCache Sources;
  std::vector<std::string> Prints = fingerprints(R.Findings, Opts, Sources);
  json::Array Issues;
  for (size_t I = 0; I < R.Findings.size(); ++I) {
    const Finding &F = R.Findings[I];
    Issues.push_back(json::Object{
        {"description", F.Message},
        {"check_name", F.Check},
        {"fingerprint", Prints[I]},
        {"severity", F.Level == "error" ? "critical" : "major"},
        {"location",
         json::Object{{"path", displayPath(F.Where.File, Opts)},
                      {"lines", json::Object{{"begin", F.Where.Line}}}}}});
  }
  OS << formatv("{0:2}", json::Value(std::move(Issues))) << "\n";
}

} // namespace ddplint
