//===- ConfirmFindings.cpp - The findings confirm reads and writes --------===//

#include "ConfirmFindings.h"

#include "llvm/Support/Path.h"

using namespace ddpharness;
namespace json = llvm::json;

namespace {

/// A SARIF artifact URI as a path: file:// URIs lose their scheme.
std::string pathOfUri(llvm::StringRef Uri) {
  if (Uri.consume_front("file://"))
    Uri.consume_front("localhost");
  std::string Out;
  for (size_t I = 0; I < Uri.size(); ++I) {
    unsigned Byte;
    if (Uri[I] == '%' && I + 2 < Uri.size() &&
        !Uri.substr(I + 1, 2).getAsInteger(16, Byte)) {
      Out += static_cast<char>(Byte);
      I += 2;
    } else {
      Out += Uri[I];
    }
  }
  return Out;
}

/// The flagged file of finding \p F. In SARIF a relative artifact URI is
/// resolved against the run's `originalUriBaseIds` entry its `uriBaseId`
/// names (ddplint writes paths relative to %SRCROOT%, the directory it ran
/// in), so confirm finds the file from any working directory.
std::string fileOf(const json::Object &F, InputFormat Format,
                   const json::Object *BaseIds) {
  if (Format == InputFormat::Json) {
    std::optional<llvm::StringRef> File = F.getString("file");
    return File ? File->str() : "";
  }
  const json::Array *Locations = F.getArray("locations");
  const json::Object *Loc = Locations && !Locations->empty()
                                ? (*Locations)[0].getAsObject()
                                : nullptr;
  const json::Object *Physical =
      Loc ? Loc->getObject("physicalLocation") : nullptr;
  const json::Object *Artifact =
      Physical ? Physical->getObject("artifactLocation") : nullptr;
  std::optional<llvm::StringRef> Uri =
      Artifact ? Artifact->getString("uri") : std::nullopt;
  if (!Uri)
    return "";
  std::string Path = pathOfUri(*Uri);
  std::optional<llvm::StringRef> BaseId = Artifact->getString("uriBaseId");
  const json::Object *Base =
      BaseId && BaseIds ? BaseIds->getObject(*BaseId) : nullptr;
  std::optional<llvm::StringRef> BaseUri =
      Base ? Base->getString("uri") : std::nullopt;
  if (BaseUri && !llvm::sys::path::is_absolute(Path)) {
    llvm::SmallString<256> Joined(pathOfUri(*BaseUri));
    llvm::sys::path::append(Joined, Path);
    return std::string(Joined);
  }
  return Path;
}

/// (file, line) of a SARIF location object.
std::optional<std::pair<std::string, int>>
sarifLine(const json::Value &Location) {
  const json::Object *L = Location.getAsObject();
  const json::Object *Physical = L ? L->getObject("physicalLocation") : nullptr;
  const json::Object *Artifact =
      Physical ? Physical->getObject("artifactLocation") : nullptr;
  const json::Object *Region = Physical ? Physical->getObject("region") : nullptr;
  std::optional<int64_t> Line =
      Region ? Region->getInteger("startLine") : std::nullopt;
  std::optional<llvm::StringRef> Uri =
      Artifact ? Artifact->getString("uri") : std::nullopt;
  if (!Line || !Uri)
    return std::nullopt;
  return std::make_pair(pathOfUri(*Uri), int(*Line));
}

/// The finding's line and its notes' lines.
std::vector<std::pair<std::string, int>> linesOf(const json::Object &F,
                                                 InputFormat Format) {
  std::vector<std::pair<std::string, int>> Out;
  if (Format == InputFormat::Json) {
    std::optional<llvm::StringRef> File = F.getString("file");
    if (std::optional<int64_t> Line = F.getInteger("line"); File && Line)
      Out.emplace_back(File->str(), int(*Line));
    if (const json::Array *Notes = F.getArray("notes"))
      for (const json::Value &N : *Notes) {
        const json::Object *NO = N.getAsObject();
        const json::Object *L = NO ? NO->getObject("location") : nullptr;
        std::optional<llvm::StringRef> NF =
            L ? L->getString("file") : std::nullopt;
        std::optional<int64_t> NL = L ? L->getInteger("line") : std::nullopt;
        if (NF && NL)
          Out.emplace_back(NF->str(), int(*NL));
      }
    return Out;
  }
  for (const char *Key : {"locations", "relatedLocations"})
    if (const json::Array *List = F.getArray(Key))
      for (const json::Value &L : *List)
        if (auto Line = sarifLine(L))
          Out.push_back(*Line);
  return Out;
}

/// Whether the ranks parted at one of the finding's lines (same file name
/// and line: the program was built from the flagged file).
bool partedHere(const FindingRef &F, const CheckResult &Program) {
  for (const auto &[File, Line] : F.Lines)
    for (const auto &[PartFile, PartLine] : Program.PartedAt)
      if (Line == PartLine && llvm::sys::path::filename(File) ==
                                  llvm::sys::path::filename(PartFile))
        return true;
  return false;
}

/// A collective check's finding, confirmed by its program where the ranks'
/// collectives parted: at its line (or a line its notes name), or
/// elsewhere; the evidence sentence says which.
void placeCollective(const FindingRef &F, const CheckResult &Program,
                     json::Object &Runtime) {
  if ((F.Check != "ddp-divergent-collective" &&
       F.Check != "ddp-unwaited-work") ||
      Program.Verdict != "confirmed" || Program.PartedAt.empty())
    return;
  bool Here = partedHere(F, Program);
  Runtime["collective"] = Here ? "at this line" : "elsewhere";
  std::string Evidence = Program.Evidence;
  llvm::StringRef Rest(Evidence);
  Rest.consume_front("confirmed: ");
  Runtime["evidence"] = (Here ? "confirmed at this line: "
                              : "confirmed elsewhere (the ranks parted at "
                                "another line): ") +
                        Rest.str();
}

/// The `runtime` object of finding \p F, or none when nothing measured
/// its check.
std::optional<json::Object> runtimeOf(const FindingRef &F,
                                      const ScenarioResults &Scenarios,
                                      const ProgramResults &Programs) {
  auto It = Scenarios.find(F.Check);
  auto P = Programs.find({F.File, F.Check});
  if (P == Programs.end()) {
    if (It == Scenarios.end())
      return std::nullopt;
    return It->second.toJSON();
  }
  // The user's own program speaks first where it measured something.
  const CheckResult &Program = P->second;
  bool Measured =
      Program.Verdict == "confirmed" || Program.Verdict == "not confirmed";
  const CheckResult &Top =
      Measured || It == Scenarios.end() ? Program : It->second;
  json::Object Runtime{{"verdict", Top.Verdict}, {"evidence", Top.Evidence}};
  std::string Svg = !Top.Svg.empty()        ? Top.Svg
                    : It != Scenarios.end() ? It->second.Svg
                                            : Program.Svg;
  if (!Svg.empty())
    Runtime["svg"] = Svg;
  if (!Top.PartedTable.empty())
    Runtime["collectives"] = json::Array(Top.PartedTable);
  Runtime["program"] = Program.toJSON();
  if (&Top == &Program)
    placeCollective(F, Program, Runtime);
  if (It != Scenarios.end())
    Runtime["scenario"] = It->second.toJSON();
  return Runtime;
}

} // namespace

llvm::Expected<std::vector<FindingRef>>
ddpharness::collectFindings(json::Value &Doc, const std::string &Format,
                            InputFormat &Detected) {
  auto error = [](const std::string &Message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
  };
  json::Array *List = nullptr;
  const json::Object *BaseIds = nullptr;
  std::string CheckKey = "check";
  json::Object *Top = Doc.getAsObject();
  bool LooksSarif = Top && Top->get("runs");
  if (Format == "sarif" || (Format == "auto" && LooksSarif)) {
    Detected = InputFormat::Sarif;
    json::Array *Runs = Top ? Top->getArray("runs") : nullptr;
    json::Object *Run =
        Runs && !Runs->empty() ? (*Runs)[0].getAsObject() : nullptr;
    List = Run ? Run->getArray("results") : nullptr;
    if (!List)
      return error("not a SARIF log with runs[0].results");
    BaseIds = Run->getObject("originalUriBaseIds");
    CheckKey = "ruleId";
  } else {
    Detected = InputFormat::Json;
    if (Top)
      List = Top->getArray("findings");
    else
      List = Doc.getAsArray();
    if (!List)
      return error("not a ddplint findings document: expected an object "
                   "with a \"findings\" array, a bare array of findings, or "
                   "a SARIF log");
  }
  std::vector<FindingRef> Out;
  for (size_t I = 0; I < List->size(); ++I) {
    json::Object *F = (*List)[I].getAsObject();
    std::optional<llvm::StringRef> Check =
        F ? F->getString(CheckKey) : std::nullopt;
    if (!Check)
      return error("finding " + std::to_string(I) + " has no \"" + CheckKey +
                   "\" string");
    Out.push_back({Check->str(), F, fileOf(*F, Detected, BaseIds),
                   linesOf(*F, Detected)});
  }
  return Out;
}

void ddpharness::annotateFindings(std::vector<FindingRef> &Refs,
                                  const ScenarioResults &Scenarios,
                                  const ProgramResults &Programs,
                                  InputFormat Format) {
  for (FindingRef &F : Refs) {
    std::optional<json::Object> Runtime = runtimeOf(F, Scenarios, Programs);
    if (!Runtime)
      continue;
    if (Format == InputFormat::Json) {
      (*F.Object)["runtime"] = std::move(*Runtime);
      continue;
    }
    // SARIF keeps tool-specific data in a property bag.
    json::Object *Props = F.Object->getObject("properties");
    if (!Props) {
      (*F.Object)["properties"] = json::Object{};
      Props = F.Object->getObject("properties");
    }
    (*Props)["runtime"] = std::move(*Runtime);
  }
}
