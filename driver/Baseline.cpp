//===--- Baseline.cpp - known findings, hidden ----------------------------===//

#include "Baseline.h"

#include "AtomicWrite.h"
#include "OutputSupport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>
#include <utility>

using namespace llvm;

namespace ddplint {

namespace {
constexpr int64_t BaselineVersion = 1;
} // namespace

std::string writeBaseline(StringRef Path, const std::vector<Finding> &Findings,
                          const OutputOptions &Opts) {
  SourceCache Sources;
  std::vector<std::string> Prints = fingerprints(Findings, Opts, Sources);
  json::Array Entries;
  for (size_t I = 0; I < Findings.size(); ++I)
    Entries.push_back(json::Object{
        {"check", Findings[I].Check},
        {"file", displayPath(Findings[I].Where.File, Opts)},
        {"fingerprint", Prints[I]},
        // For people reading the file; matching ignores it.
        {"message", Findings[I].Message}});
  json::Object Doc{{"version", BaselineVersion},
                   {"tool", "ddplint"},
                   {"findings", std::move(Entries)}};
  return writeAtomically(Path, [&](raw_ostream &OS) {
    OS << formatv("{0:2}", json::Value(std::move(Doc))) << "\n";
  });
}

unsigned applyBaseline(StringRef Path, std::vector<Finding> &Findings,
                       const OutputOptions &Opts, std::string &Error) {
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer) {
    Error = "cannot read baseline '" + Path.str() +
            "': " + Buffer.getError().message();
    return 0;
  }
  Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed) {
    Error = "baseline '" + Path.str() +
            "' is not JSON: " + toString(Parsed.takeError());
    return 0;
  }
  const json::Object *Doc = Parsed->getAsObject();
  const json::Array *Entries = Doc ? Doc->getArray("findings") : nullptr;
  if (!Entries || Doc->getInteger("version") != BaselineVersion) {
    Error = "'" + Path.str() + "' is not a ddplint baseline (version " +
            std::to_string(BaselineVersion) + ")";
    return 0;
  }
  std::set<std::pair<std::string, std::string>> Known;
  for (const json::Value &E : *Entries) {
    const json::Object *O = E.getAsObject();
    std::optional<StringRef> Check = O ? O->getString("check") : std::nullopt;
    std::optional<StringRef> Print =
        O ? O->getString("fingerprint") : std::nullopt;
    if (!Check || !Print) {
      Error = "baseline '" + Path.str() +
              "' has an entry without a check or a fingerprint";
      return 0;
    }
    Known.insert({Check->str(), Print->str()});
  }

  SourceCache Sources;
  std::vector<std::string> Prints = fingerprints(Findings, Opts, Sources);
  std::vector<Finding> Kept;
  for (size_t I = 0; I < Findings.size(); ++I)
    if (!Known.count({Findings[I].Check, Prints[I]}))
      Kept.push_back(std::move(Findings[I]));
  unsigned Hidden = Findings.size() - Kept.size();
  Findings = std::move(Kept);
  return Hidden;
}

} // namespace ddplint
