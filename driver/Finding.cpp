//===--- Finding.cpp - the driver's model of a finding --------------------===//

#include "Finding.h"

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"

#include "llvm/Support/Path.h"

#include <algorithm>
#include <tuple>

using namespace llvm;

namespace ddplint {

bool Finding::isCompileError() const {
  return Level == "error" && StringRef(Check).starts_with("clang-diagnostic-");
}

void LineTable::resolve(Location &L) {
  L.Line = L.Column = 0;
  if (L.File.empty())
    return;
  auto It = Files.find(L.File);
  if (It == Files.end()) {
    auto Buffer = MemoryBuffer::getFile(L.File, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
    It = Files.try_emplace(L.File, Buffer ? std::move(*Buffer) : nullptr)
             .first;
  }
  if (!It->second)
    return;
  StringRef Before = It->second->getBuffer().take_front(L.Offset);
  L.Line = Before.count('\n') + 1;
  L.Column = Before.size() - (Before.rfind('\n') + 1) + 1;
}

namespace {

/// Diagnostics name files as the compile command did: relative paths are
/// relative to the command's directory.
Location locationOf(StringRef BuildDirectory, const std::string &File,
                    unsigned Offset, LineTable &Lines) {
  Location L;
  L.File = File;
  if (!File.empty() && !BuildDirectory.empty() &&
      sys::path::is_relative(File)) {
    SmallString<256> Abs(BuildDirectory);
    sys::path::append(Abs, File);
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    L.File = std::string(Abs);
  }
  L.Offset = Offset;
  Lines.resolve(L);
  return L;
}

} // namespace

Finding toFinding(const clang::tidy::ClangTidyError &E, LineTable &Lines) {
  Finding F;
  F.Check = E.DiagnosticName;
  F.Level = E.DiagLevel == clang::tooling::Diagnostic::Error ? "error"
                                                             : "warning";
  F.Message = E.Message.Message;
  F.Where = locationOf(E.BuildDirectory, E.Message.FilePath, E.Message.FileOffset, Lines);
  auto FixesOf = [&](const clang::tooling::DiagnosticMessage &M) {
    std::vector<Replacement> Fixes;
    for (const auto &FileAndReplacements : M.Fix)
      for (const clang::tooling::Replacement &R : FileAndReplacements.second) {
        Replacement Out;
        Out.Begin = locationOf(E.BuildDirectory, R.getFilePath().str(), R.getOffset(), Lines);
        Out.Length = R.getLength();
        Out.Text = R.getReplacementText().str();
        Fixes.push_back(std::move(Out));
      }
    return Fixes;
  };
  for (const clang::tooling::DiagnosticMessage &N : E.Notes)
    F.Notes.push_back({N.Message, locationOf(E.BuildDirectory, N.FilePath, N.FileOffset, Lines), FixesOf(N)});
  F.Fixes = FixesOf(E.Message);
  return F;
}

json::Value toJSON(const Location &L) {
  return json::Object{{"file", L.File},
                      {"line", L.Line},
                      {"column", L.Column},
                      {"offset", L.Offset}};
}

json::Value toJSON(const RuntimeEvidence &R) {
  json::Object O{{"verdict", R.Verdict}};
  if (!R.Evidence.empty())
    O["evidence"] = R.Evidence;
  if (!R.Svg.empty())
    O["svg"] = R.Svg;
  if (!R.Collectives.empty()) {
    json::Array Rows;
    for (const RankCollective &C : R.Collectives)
      Rows.push_back(json::Object{{"rank", C.Rank},
                                  {"collective", C.Collective},
                                  {"site", C.Site},
                                  {"blocked", C.Blocked}});
    O["collectives"] = std::move(Rows);
  }
  return std::move(O);
}

namespace {

json::Array toJSON(const std::vector<Replacement> &Fixes) {
  json::Array Out;
  for (const Replacement &R : Fixes)
    Out.push_back(json::Object{{"location", toJSON(R.Begin)},
                               {"length", R.Length},
                               {"replacement", R.Text}});
  return Out;
}

} // namespace

json::Value toJSON(const Finding &F) {
  json::Array Notes;
  for (const Note &N : F.Notes) {
    json::Object O{{"message", N.Message}, {"location", toJSON(N.Where)}};
    // Only notes that carry a suggestion have the field.
    if (!N.Fixes.empty())
      O["fixes"] = toJSON(N.Fixes);
    Notes.push_back(std::move(O));
  }
  json::Array Fixes = toJSON(F.Fixes);
  json::Object O{{"check", F.Check},
                 {"level", F.Level},
                 {"message", F.Message},
                 {"file", F.Where.File},
                 {"line", F.Where.Line},
                 {"column", F.Where.Column},
                 {"offset", F.Where.Offset},
                 {"notes", std::move(Notes)},
                 {"fixes", std::move(Fixes)}};
  if (F.Runtime)
    O["runtime"] = toJSON(*F.Runtime);
  return std::move(O);
}

json::Value toJSON(const InactiveRegion &R) {
  json::Object O{{"file", R.File},
                 {"line", R.Line},
                 {"lines", R.Lines},
                 {"directive", R.Directive}};
  if (!R.Opener.empty())
    O["opener"] = R.Opener;
  if (!R.Advice.empty())
    O["advice"] = R.Advice;
  return std::move(O);
}

json::Value toJSON(const UnitResult &U) {
  json::Array Findings, Errors, Inactive;
  for (const Finding &F : U.Findings)
    Findings.push_back(toJSON(F));
  for (const Finding &F : U.CompileErrors)
    Errors.push_back(toJSON(F));
  for (const InactiveRegion &R : U.Inactive)
    Inactive.push_back(toJSON(R));
  json::Object O{{"file", U.File},
                 {"findings", std::move(Findings)},
                 {"compile_errors", std::move(Errors)}};
  if (!U.ToolError.empty())
    O["tool_error"] = U.ToolError;
  if (!U.Vacuous.empty())
    O["vacuous"] = U.Vacuous;
  if (!U.SdkFallbacks.empty())
    O["sdk_fallbacks"] = U.SdkFallbacks;
  if (!U.AddedIncludes.empty())
    O["added_includes"] = U.AddedIncludes;
  if (!Inactive.empty())
    O["inactive"] = std::move(Inactive);
  if (!U.Summaries.empty())
    O["summaries"] = U.Summaries;
  if (!U.AskedSummaries.empty())
    O["asked_summaries"] = U.AskedSummaries;
  return std::move(O);
}

namespace {

/// json::ObjectMapper has no unsigned overload; go through int64_t.
bool mapUnsigned(json::ObjectMapper &O, StringLiteral Key, unsigned &Out,
                 bool Optional = false) {
  int64_t Value = Out;
  if (!(Optional ? O.mapOptional(Key, Value) : O.map(Key, Value)))
    return false;
  if (Value < 0 || Value > UINT32_MAX)
    return false;
  Out = static_cast<unsigned>(Value);
  return true;
}

} // namespace

bool fromJSON(const json::Value &V, Location &L, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("file", L.File) && mapUnsigned(O, "line", L.Line) &&
         mapUnsigned(O, "column", L.Column) &&
         mapUnsigned(O, "offset", L.Offset, /*Optional=*/true);
}

namespace {

/// The optional "fixes" array of a finding or a note.
bool readFixes(const json::Object &O, std::vector<Replacement> &Out,
               json::Path P) {
  Out.clear();
  const json::Array *Fixes = O.getArray("fixes");
  if (!Fixes)
    return true;
  for (size_t I = 0; I < Fixes->size(); ++I) {
    Replacement R;
    json::ObjectMapper RO((*Fixes)[I], P.field("fixes").index(I));
    if (!RO || !RO.map("location", R.Begin) ||
        !mapUnsigned(RO, "length", R.Length) ||
        !RO.map("replacement", R.Text))
      return false;
    Out.push_back(std::move(R));
  }
  return true;
}

} // namespace

bool fromJSON(const json::Value &V, RankCollective &R, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("rank", R.Rank) && O.map("collective", R.Collective) &&
         O.mapOptional("site", R.Site) && O.mapOptional("blocked", R.Blocked);
}

bool fromJSON(const json::Value &V, RuntimeEvidence &R, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("verdict", R.Verdict) &&
         O.mapOptional("evidence", R.Evidence) &&
         O.mapOptional("svg", R.Svg) &&
         O.mapOptional("collectives", R.Collectives);
}

bool fromJSON(const json::Value &V, Finding &F, json::Path P) {
  json::ObjectMapper O(V, P);
  if (!O || !O.map("check", F.Check) || !O.map("message", F.Message) ||
      !O.map("file", F.Where.File) || !mapUnsigned(O, "line", F.Where.Line) ||
      !mapUnsigned(O, "column", F.Where.Column) ||
      !mapUnsigned(O, "offset", F.Where.Offset, /*Optional=*/true))
    return false;
  if (!O.mapOptional("level", F.Level))
    return false;
  if (F.Level.empty())
    F.Level = "warning";
  F.Notes.clear();
  F.Fixes.clear();
  if (const json::Array *Notes = V.getAsObject()->getArray("notes")) {
    for (size_t I = 0; I < Notes->size(); ++I) {
      Note N;
      json::ObjectMapper NO((*Notes)[I], P.field("notes").index(I));
      if (!NO || !NO.map("message", N.Message) ||
          !NO.map("location", N.Where) ||
          !readFixes(*(*Notes)[I].getAsObject(), N.Fixes,
                     P.field("notes").index(I)))
        return false;
      F.Notes.push_back(std::move(N));
    }
  }
  if (!readFixes(*V.getAsObject(), F.Fixes, P))
    return false;
  F.Runtime.reset();
  if (const json::Value *Runtime = V.getAsObject()->get("runtime")) {
    if (Runtime->kind() != json::Value::Null) {
      RuntimeEvidence R;
      if (!fromJSON(*Runtime, R, P.field("runtime")))
        return false;
      F.Runtime = std::move(R);
    }
  }
  return true;
}

bool fromJSON(const json::Value &V, InactiveRegion &R, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("file", R.File) && mapUnsigned(O, "line", R.Line) &&
         mapUnsigned(O, "lines", R.Lines) &&
         O.map("directive", R.Directive) && O.mapOptional("opener", R.Opener) &&
         O.mapOptional("advice", R.Advice);
}

bool fromJSON(const json::Value &V, UnitResult &U, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("file", U.File) && O.map("findings", U.Findings) &&
         O.map("compile_errors", U.CompileErrors) &&
         O.mapOptional("tool_error", U.ToolError) &&
         O.mapOptional("vacuous", U.Vacuous) &&
         O.mapOptional("sdk_fallbacks", U.SdkFallbacks) &&
         O.mapOptional("added_includes", U.AddedIncludes) &&
         O.mapOptional("inactive", U.Inactive) &&
         O.mapOptional("summaries", U.Summaries) &&
         O.mapOptional("asked_summaries", U.AskedSummaries);
}

void sortAndUnique(std::vector<Finding> &Findings) {
  auto Key = [](const Finding &F) {
    return std::tie(F.Where.File, F.Where.Offset, F.Check, F.Message);
  };
  std::stable_sort(Findings.begin(), Findings.end(),
                   [&](const Finding &A, const Finding &B) {
                     return Key(A) < Key(B);
                   });
  Findings.erase(std::unique(Findings.begin(), Findings.end(),
                             [&](const Finding &A, const Finding &B) {
                               return Key(A) == Key(B);
                             }),
                 Findings.end());
}

} // namespace ddplint
