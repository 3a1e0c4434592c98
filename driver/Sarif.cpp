//===--- Sarif.cpp - findings as SARIF 2.1.0 ------------------------------===//
//
// One run of the tool "ddplint": a rule per enabled check (described from the
// check's page, CheckDocs.h), a result per finding with its notes as related
// locations and its fix-its as SARIF fixes, and a stable partial fingerprint
// so that code scanning keeps tracking a result when lines move. Compile
// errors, files that could not be analysed and units whose analysis was
// vacuous are tool notifications of the invocation, never results; the
// last two make the execution unsuccessful. Built with llvm::json.
//
//===----------------------------------------------------------------------===//

#include "CheckDocs.h"
#include "Options.h"
#include "Output.h"
#include "OutputSupport.h"
#include "SdkFallback.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

using namespace llvm;

namespace ddplint {
namespace {

constexpr StringLiteral SrcRoot = "%SRCROOT%";
constexpr StringLiteral FingerprintKey = "ddplint/v1";

/// "ddp-sampler-epoch" -> "DdpSamplerEpoch": SARIF's friendly rule name.
std::string pascalName(StringRef Check) {
  std::string Name;
  bool Upper = true;
  for (char C : Check) {
    if (!isAlnum(C)) {
      Upper = true;
      continue;
    }
    Name += Upper ? toUpper(C) : C;
    Upper = false;
  }
  return Name;
}

// json::Value borrows a StringRef; every string handed to it here is copied.
json::Object message(std::string Text) {
  return json::Object{{"text", std::move(Text)}};
}

class SarifWriter {
public:
  SarifWriter(const OutputOptions &Opts) : Opts(Opts) {}

  json::Object artifactLocation(const std::string &File) {
    if (std::optional<std::string> Rel = relativeTo(File, Opts.SourceRoot))
      return json::Object{{"uri", encodeURIPath(*Rel)},
                          {"uriBaseId", SrcRoot}};
    return json::Object{{"uri", fileURI(File)}};
  }

  /// A region from a byte line and column to the end of the line, with that
  /// text as its snippet when the source is readable.
  json::Object region(const std::string &File, unsigned Line,
                      unsigned ByteColumn) {
    json::Object Region{{"startLine", Line}};
    std::optional<StringRef> Text = Sources.line(File, Line);
    if (!ByteColumn)
      return Region;
    if (!Text || ByteColumn > Text->size() + 1) {
      Region["startColumn"] = ByteColumn;
      return Region;
    }
    Region["startColumn"] = codePointColumn(*Text, ByteColumn);
    Region["endLine"] = Line;
    Region["endColumn"] = codePointColumn(*Text, Text->size() + 1);
    Region["snippet"] = message(Text->drop_front(ByteColumn - 1).str());
    return Region;
  }

  /// The lines around Line, for viewers that show context.
  std::optional<json::Object> contextRegion(const std::string &File,
                                            unsigned Line) {
    unsigned Count = Sources.lineCount(File);
    if (!Count || Line == 0 || Line > Count)
      return std::nullopt;
    unsigned First = Line > 1 ? Line - 1 : 1;
    unsigned Last = std::min(Count, Line + 1);
    std::string Snippet;
    for (unsigned I = First; I <= Last; ++I)
      Snippet += Sources.line(File, I)->str() + "\n";
    return json::Object{{"startLine", First},
                        {"endLine", Last},
                        {"snippet", message(Snippet)}};
  }

  std::optional<json::Object> physicalLocation(const Location &L) {
    if (L.File.empty())
      return std::nullopt;
    json::Object Physical{{"artifactLocation", artifactLocation(L.File)}};
    if (L.Line) {
      Physical["region"] = region(L.File, L.Line, L.Column);
      if (auto Context = contextRegion(L.File, L.Line))
        Physical["contextRegion"] = std::move(*Context);
    }
    return Physical;
  }

  json::Array locations(const Location &L) {
    json::Array Out;
    if (auto Physical = physicalLocation(L))
      Out.push_back(json::Object{{"physicalLocation", std::move(*Physical)}});
    return Out;
  }

  /// The text a replacement deletes, as lines and columns when the file is
  /// readable, else as bytes.
  json::Object deletedRegion(const Replacement &R) {
    auto Begin = Sources.position(R.Begin.File, R.Begin.Offset);
    auto End = Sources.position(R.Begin.File, R.Begin.Offset + R.Length);
    if (!Begin || !End)
      return json::Object{{"byteOffset", R.Begin.Offset},
                          {"byteLength", R.Length}};
    auto Column = [&](std::pair<unsigned, unsigned> P) {
      std::optional<StringRef> Line = Sources.line(R.Begin.File, P.first);
      return Line ? codePointColumn(*Line, P.second) : P.second;
    };
    return json::Object{{"startLine", Begin->first},
                        {"startColumn", Column(*Begin)},
                        {"endLine", End->first},
                        {"endColumn", Column(*End)}};
  }

  json::Array fixes(const Finding &F) {
    if (F.Fixes.empty())
      return {};
    // One fix: every replacement of the finding, grouped by file.
    std::map<std::string, json::Array> ByFile;
    for (const Replacement &R : F.Fixes) {
      json::Object Replacement{{"deletedRegion", deletedRegion(R)}};
      if (!R.Text.empty())
        Replacement["insertedContent"] = message(R.Text);
      ByFile[R.Begin.File].push_back(std::move(Replacement));
    }
    json::Array Changes;
    for (auto &[File, Replacements] : ByFile)
      Changes.push_back(
          json::Object{{"artifactLocation", artifactLocation(File)},
                       {"replacements", std::move(Replacements)}});
    return json::Array{json::Object{
        {"description", message("Apply the fix-it of " + F.Check)},
        {"artifactChanges", std::move(Changes)}}};
  }

  json::Object rule(StringRef Check) {
    std::string Help = docURL(Check, Opts);
    json::Object Rule{{"id", Check.str()},
                      {"name", pascalName(Check)},
                      {"helpUri", Help},
                      {"defaultConfiguration",
                       json::Object{{"level", "warning"}}}};
    if (const CheckDoc *Doc = findCheckDoc(Check)) {
      Rule["shortDescription"] = json::Object{
          {"text", Doc->Short}, {"markdown", Doc->ShortMarkdown}};
      Rule["fullDescription"] = json::Object{{"text", Doc->Full},
                                             {"markdown", Doc->FullMarkdown}};
      Rule["help"] = json::Object{
          {"text", (Doc->Full + "\n\nMore: " + Help).str()},
          {"markdown",
           (Doc->FullMarkdown + "\n\n[More about " + Check + "](" + Help +
            ")")
               .str()}};
    } else {
      Rule["shortDescription"] = message(Check.str());
      Rule["fullDescription"] = message(Check.str());
    }
    return Rule;
  }

  /// What kept the analysis from being complete (errors), or may make it
  /// differ from a machine with every SDK installed (notes).
  json::Array notifications(const Report &R) {
    json::Array Notifications;
    for (const Finding &E : R.CompileErrors) {
      json::Object N{{"level", "error"},
                     {"message", message("compile error: " + E.Message)},
                     {"descriptor", json::Object{{"id", E.Check}}}};
      json::Array Locs = locations(E.Where);
      if (!Locs.empty())
        N["locations"] = std::move(Locs);
      Notifications.push_back(std::move(N));
    }
    for (const std::string &E : R.ToolErrors)
      Notifications.push_back(json::Object{
          {"level", "error"},
          {"message", message(E)},
          {"descriptor", json::Object{{"id", "ddplint-tool-error"}}}});
    for (const VacuousUnit &V : R.Vacuous) {
      Location Unit;
      Unit.File = V.File;
      Notifications.push_back(json::Object{
          {"level", "error"},
          {"message", message("analysis was vacuous: " + V.Cause)},
          {"descriptor", json::Object{{"id", "ddplint-vacuous-analysis"}}},
          {"locations", locations(Unit)}});
    }
    for (const SdkFallbackNote &N : R.SdkFallbacks) {
      Location Unit;
      Unit.File = N.File;
      Notifications.push_back(json::Object{
          {"level", "note"},
          {"message", message(describeSdkFallback(N.Headers))},
          {"descriptor", json::Object{{"id", "ddplint-sdk-fallback"}}},
          {"locations", locations(Unit)}});
    }
    return Notifications;
  }

  /// A rule for every enabled check, and for any other check a findings
  /// file brought along, so that every result names a rule; Index receives
  /// each rule's position.
  json::Array rules(const Report &R, std::map<std::string, unsigned> &Index) {
    std::set<std::string> Ids(R.Checks.begin(), R.Checks.end());
    for (const Finding &F : R.Findings)
      Ids.insert(F.Check);
    json::Array Rules;
    for (const std::string &Id : Ids) {
      Index[Id] = Rules.size();
      Rules.push_back(rule(Id));
    }
    return Rules;
  }

  json::Object result(const Finding &F, unsigned RuleIndex,
                      const std::string &Fingerprint) {
    json::Object Result{
        {"ruleId", F.Check},
        {"ruleIndex", RuleIndex},
        {"level", F.Level == "error" ? "error" : "warning"},
        {"message", message(F.Message)},
        {"locations", locations(F.Where)},
        {"partialFingerprints", json::Object{{FingerprintKey, Fingerprint}}}};
    json::Array Related;
    for (const Note &N : F.Notes) {
      json::Object Loc{{"id", Related.size() + 1},
                       {"message", message(N.Message)}};
      if (auto Physical = physicalLocation(N.Where))
        Loc["physicalLocation"] = std::move(*Physical);
      Related.push_back(std::move(Loc));
    }
    if (!Related.empty())
      Result["relatedLocations"] = std::move(Related);
    json::Array Fixes = fixes(F);
    if (!Fixes.empty())
      Result["fixes"] = std::move(Fixes);
    if (F.Runtime) {
      json::Object Runtime{{"verdict", F.Runtime->Verdict}};
      if (!F.Runtime->Evidence.empty())
        Runtime["evidence"] = F.Runtime->Evidence;
      Result["properties"] = json::Object{{"runtime", std::move(Runtime)}};
    }
    return Result;
  }

  json::Object invocation(const Report &R) {
    json::Array Notifications = notifications(R);
    // A vacuous analysis did not succeed, whatever the exit code it was
    // given (--no-vacuous-status).
    bool Succeeded = R.ExitCode != ExitToolError && R.Vacuous.empty();
    json::Object Invocation{{"executionSuccessful", Succeeded},
                            {"exitCode", R.ExitCode}};
    if (!Notifications.empty())
      Invocation["toolExecutionNotifications"] = std::move(Notifications);
    return Invocation;
  }

  json::Value log(const Report &R) {
    std::map<std::string, unsigned> Index;
    json::Array Rules = rules(R, Index);
    std::vector<std::string> Prints = fingerprints(R.Findings, Opts, Sources);
    json::Array Results;
    for (size_t I = 0; I < R.Findings.size(); ++I)
      Results.push_back(
          result(R.Findings[I], Index[R.Findings[I].Check], Prints[I]));

    json::Object Driver{{"name", "ddplint"},
                        {"version", DDPLINT_VERSION},
                        {"semanticVersion", DDPLINT_VERSION},
                        {"informationUri", DDPLINT_HOMEPAGE_URL},
                        {"rules", std::move(Rules)}};
    json::Object Run{
        {"tool", json::Object{{"driver", std::move(Driver)}}},
        {"invocations", json::Array{invocation(R)}},
        {"originalUriBaseIds",
         json::Object{{SrcRoot, json::Object{{"uri", fileURI(Opts.SourceRoot,
                                                             true)}}}}},
        {"columnKind", "unicodeCodePoints"},
        {"results", std::move(Results)}};
    return json::Object{
        {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
        {"version", "2.1.0"},
        {"runs", json::Array{std::move(Run)}}};
  }

private:
  const OutputOptions &Opts;
  SourceCache Sources;
};

} // namespace

void printSARIF(raw_ostream &OS, const Report &R, const OutputOptions &Opts) {
  SarifWriter Writer(Opts);
  OS << formatv("{0:2}", Writer.log(R)) << "\n";
}

} // namespace ddplint
