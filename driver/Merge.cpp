//===--- Merge.cpp - ddplint merge: shards into one document --------------===//
//
//   ddplint merge [--output FILE] SHARD...
//
// Joins what `ddplint --shard I/N` jobs wrote into one document of the same
// format: ddplint JSON documents into one JSON document (the findings
// sorted and deduplicated, as one run would print them), SARIF logs into one
// log with a single run whose rules are the union of the shards' rules and
// whose results point at them again. The shards must all be one format.
//
//===----------------------------------------------------------------------===//

#include "AtomicWrite.h"
#include "Options.h"
#include "Output.h"
#include "RunStatus.h"
#include "Subcommands.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include <map>
#include <set>

using namespace llvm;

namespace ddplint {
namespace {

cl::SubCommand MergeCommand(
    "merge", "Join the JSON or SARIF outputs of --shard runs into one");

cl::list<std::string> Shards(cl::Positional, cl::desc("<shard files>"),
                             cl::sub(MergeCommand));

bool isSarif(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  return O && O->getArray("runs") && O->getString("version");
}

/// What one SARIF invocation says about its run: a tool error (exit code 2,
/// or no exit code and no success), and units whose analysis was vacuous
/// (their notifications, present with --no-vacuous-status too).
void readInvocation(const json::Object &Invocation, bool &ToolError,
                    bool &Vacuous) {
  std::optional<int64_t> Code = Invocation.getInteger("exitCode");
  if (Code ? *Code == ExitToolError
           : Invocation.getBoolean("executionSuccessful") == false)
    ToolError = true;
  if (Code == ExitVacuous)
    Vacuous = true;
  if (const json::Array *Ns =
          Invocation.getArray("toolExecutionNotifications"))
    for (const json::Value &N : *Ns)
      if (const json::Object *NO = N.getAsObject())
        if (const json::Object *D = NO->getObject("descriptor"))
          if (D->getString("id") == "ddplint-vacuous-analysis")
            Vacuous = true;
}

/// One SARIF log with one run, from several.
std::optional<json::Value> mergeSarif(std::vector<json::Value> Logs,
                                      std::string &Error) {
  std::map<std::string, json::Value> Rules;
  json::Array Results, Invocations;
  for (json::Value &Log : Logs) {
    json::Array *Runs = Log.getAsObject()->getArray("runs");
    for (json::Value &RunValue : *Runs) {
      json::Object *Run = RunValue.getAsObject();
      if (!Run)
        continue;
      if (json::Object *Tool = Run->getObject("tool"))
        if (json::Object *Driver = Tool->getObject("driver"))
          if (json::Array *Rs = Driver->getArray("rules"))
            for (json::Value &R : *Rs)
              if (const json::Object *RO = R.getAsObject())
                if (std::optional<StringRef> Id = RO->getString("id"))
                  Rules.emplace(Id->str(), R);
      if (json::Array *Rs = Run->getArray("results"))
        for (json::Value &R : *Rs)
          Results.push_back(std::move(R));
      if (json::Array *Is = Run->getArray("invocations"))
        for (json::Value &I : *Is)
          Invocations.push_back(std::move(I));
    }
  }

  json::Value Out = std::move(Logs.front());
  json::Object *OutRun = nullptr;
  if (json::Array *Runs = Out.getAsObject()->getArray("runs");
      Runs && Runs->size() == 1)
    OutRun = (*Runs)[0].getAsObject();
  if (!OutRun) {
    Error = "the first SARIF shard does not hold exactly one run";
    return std::nullopt;
  }

  std::map<std::string, int64_t> Index;
  json::Array RuleArray;
  for (auto &[Id, Rule] : Rules) {
    Index[Id] = RuleArray.size();
    RuleArray.push_back(std::move(Rule));
  }
  for (json::Value &R : Results)
    if (json::Object *RO = R.getAsObject())
      if (std::optional<StringRef> Id = RO->getString("ruleId"))
        (*RO)["ruleIndex"] = Index[Id->str()];
  if (json::Object *Tool = OutRun->getObject("tool"))
    if (json::Object *Driver = Tool->getObject("driver"))
      (*Driver)["rules"] = std::move(RuleArray);
  (*OutRun)["results"] = std::move(Results);
  (*OutRun)["invocations"] = std::move(Invocations);
  return Out;
}

/// Reads and parses every shard into Docs; Sarif says which format they
/// share. Returns false after an error on stderr.
bool readShards(std::vector<json::Value> &Docs, bool &Sarif) {
  for (const std::string &Path : Shards) {
    auto Fail = [&](const Twine &Why) {
      WithColor::error(errs(), "ddplint")
          << "cannot merge '" << Path << "': " << Why << "\n";
      return false;
    };
    auto Buffer = MemoryBuffer::getFileOrSTDIN(Path);
    if (!Buffer)
      return Fail(Buffer.getError().message());
    Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
    if (!Parsed)
      return Fail("not JSON: " + toString(Parsed.takeError()));
    bool ThisSarif = isSarif(*Parsed);
    if (!ThisSarif && !(Parsed->getAsObject() &&
                        Parsed->getAsObject()->getArray("findings")))
      return Fail("neither a ddplint JSON document nor a SARIF log");
    if (!Docs.empty() && ThisSarif != Sarif)
      return Fail("the shards mix SARIF and ddplint JSON");
    Sarif = ThisSarif;
    Docs.push_back(std::move(*Parsed));
  }
  return true;
}

/// The exit code a single run over the units of these SARIF logs would have
/// returned.
int sarifExitCode(ArrayRef<json::Value> Logs) {
  bool ToolError = false, Vacuous = false, Findings = false;
  for (const json::Value &D : Logs)
    for (const json::Value &Run : *D.getAsObject()->getArray("runs"))
      if (const json::Object *RO = Run.getAsObject()) {
        if (const json::Array *Rs = RO->getArray("results"); Rs && !Rs->empty())
          Findings = true;
        if (const json::Array *Is = RO->getArray("invocations"))
          for (const json::Value &I : *Is)
            if (const json::Object *IO = I.getAsObject())
              readInvocation(*IO, ToolError, Vacuous);
      }
  return exitCode(ToolError, Vacuous, Findings);
}

/// The findings of every ddplint JSON shard as one run would print them, or
/// None after an error on stderr.
std::optional<Report> mergeFindingsFiles() {
  Report R;
  std::set<std::string> Checks;
  for (const std::string &Path : Shards)
    if (std::string Why = loadFindingsFile(Path, R, Checks); !Why.empty()) {
      WithColor::error(errs(), "ddplint") << "cannot merge: " << Why << "\n";
      return std::nullopt;
    }
  sortAndUnique(R.Findings);
  sortAndUnique(R.CompileErrors);
  R.Checks.assign(Checks.begin(), Checks.end());
  return R;
}

/// Prints the merged document on stdout or into --output. Returns false
/// after an error on stderr.
bool writeMerged(function_ref<void(raw_ostream &)> Print) {
  std::string Output = outputPath();
  if (Output.empty()) {
    Print(outs());
    return true;
  }
  if (std::string Why = writeAtomically(Output, Print); !Why.empty()) {
    WithColor::error(errs(), "ddplint")
        << "cannot write '" << Output << "': " << Why << "\n";
    return false;
  }
  return true;
}

} // namespace

std::optional<int> runMergeCommand() {
  if (!MergeCommand)
    return std::nullopt;
  if (Shards.empty()) {
    WithColor::error(errs(), "ddplint")
        << "no shard files; usage: ddplint merge [--output FILE] SHARD...\n";
    return ExitToolError;
  }
  std::vector<json::Value> Docs;
  bool Sarif = false;
  if (!readShards(Docs, Sarif))
    return ExitToolError;

  if (Sarif) {
    int ExitCode = sarifExitCode(Docs);
    std::string Error;
    std::optional<json::Value> Merged = mergeSarif(std::move(Docs), Error);
    if (!Merged) {
      WithColor::error(errs(), "ddplint") << "cannot merge: " << Error << "\n";
      return ExitToolError;
    }
    if (!writeMerged([&](raw_ostream &OS) {
          OS << formatv("{0:2}", *Merged) << "\n";
        }))
      return ExitToolError;
    return ExitCode;
  }

  std::optional<Report> Combined = mergeFindingsFiles();
  if (!Combined)
    return ExitToolError;
  if (!writeMerged([&](raw_ostream &OS) { printJSON(OS, *Combined); }))
    return ExitToolError;
  return exitCode(!Combined->ToolErrors.empty(), !Combined->Vacuous.empty(),
                  !Combined->Findings.empty());
}

} // namespace ddplint
