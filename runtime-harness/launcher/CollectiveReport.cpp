//===- CollectiveReport.cpp - The collective trace in the reports ---------===//
//
// After the process verdict, `run` and `analyze` print where the ranks'
// collectives parted (each rank's collective there and its call site) and
// where each rank was blocked when the run ended:
//
//   collectives: the ranks parted at collective 6 on gloo#0
//     rank 0: allreduce SUM 49 x Float at DivergentCollective.cpp:50 (run); blocked there 18.4 s
//     rank 1: barrier at DivergentCollective.cpp:55 (run); blocked there 18.4 s
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace ddpharness;
namespace json = llvm::json;

namespace {

std::string siteOf(const TracedCollective &C) {
  return C.Sites.empty() ? "an unknown call site" : C.Sites.front().describe();
}

std::string blockedText(const RankCollectives &R, std::optional<size_t> Here) {
  if (!R.Blocked)
    return "";
  std::string Seconds = llvm::formatv("{0:f1} s", R.BlockedSeconds).str();
  if (Here && *R.Blocked == *Here)
    return "; blocked there " + Seconds;
  const TracedCollective &B = R.Issued[*R.Blocked];
  return "; blocked in " + B.describe() + " at " + siteOf(B) + " for " +
         Seconds;
}

size_t groupCount(const CollectiveAnalysis &C) {
  std::set<std::string> Groups;
  for (const RankCollectives &R : C.Ranks)
    for (const TracedCollective &T : R.Issued)
      Groups.insert(T.Group);
  return Groups.size();
}

json::Value collectiveJson(const TracedCollective &C) {
  json::Array Sites;
  for (const CallSite &S : C.Sites)
    Sites.push_back(json::Object{{"function", S.Function},
                                 {"file", S.File},
                                 {"line", S.Line}});
  return json::Object{{"group", C.Group},   {"index", C.Index},
                      {"kind", C.Kind},     {"op", C.Op},
                      {"count", C.Count},   {"dtype", C.Dtype},
                      {"root", C.Root},     {"call_sites", std::move(Sites)}};
}

} // namespace

void ddpharness::printCollectives(llvm::raw_ostream &OS,
                                  const CollectiveAnalysis &C) {
  if (!C.Available)
    return;
  if (!C.Disagree) {
    size_t Most = 0;
    for (const RankCollectives &R : C.Ranks)
      Most = std::max(Most, R.Issued.size());
    OS << "collectives: " << Most << " per rank on " << groupCount(C)
       << " group(s), issued alike on every rank\n";
    for (size_t Rank = 0; Rank < C.Ranks.size(); ++Rank)
      if (C.Ranks[Rank].Blocked)
        OS << "  rank " << Rank << blockedText(C.Ranks[Rank], std::nullopt)
                                       .substr(2)
           << "\n";
    return;
  }
  OS << "collectives: the ranks parted at collective " << C.Index + 1
     << " on " << C.Group << "\n";
  for (size_t Rank = 0; Rank < C.Ranks.size(); ++Rank) {
    const RankCollectives &R = C.Ranks[Rank];
    OS << "  rank " << Rank << ": ";
    if (!R.Present)
      OS << "no trace";
    else if (!C.At[Rank])
      OS << "issued none (" << R.Issued.size() << " collective(s) in all)";
    else
      OS << R.Issued[*C.At[Rank]].describe() << " at "
         << siteOf(R.Issued[*C.At[Rank]]);
    OS << blockedText(R, C.At[Rank]) << "\n";
  }
}

json::Value ddpharness::collectivesJson(const CollectiveAnalysis &C) {
  if (!C.Available)
    return nullptr;
  json::Array Ranks;
  for (size_t Rank = 0; Rank < C.Ranks.size(); ++Rank) {
    const RankCollectives &R = C.Ranks[Rank];
    json::Object O{{"rank", int64_t(Rank)},
                   {"issued", int64_t(R.Issued.size())}};
    if (C.Disagree)
      O["at_disagreement"] =
          C.At[Rank] ? collectiveJson(R.Issued[*C.At[Rank]]) : nullptr;
    if (R.Blocked) {
      json::Value Blocked = collectiveJson(R.Issued[*R.Blocked]);
      Blocked.getAsObject()->insert({"seconds", R.BlockedSeconds});
      O["blocked_in"] = std::move(Blocked);
    }
    Ranks.push_back(std::move(O));
  }
  json::Object Out{{"disagree", C.Disagree}, {"ranks", std::move(Ranks)}};
  if (C.Disagree) {
    Out["group"] = C.Group;
    Out["index"] = C.Index;
  }
  return Out;
}

std::string ddpharness::partedSentence(const CollectiveAnalysis &C) {
  if (!C.Disagree)
    return "";
  std::string Out = "the ranks parted at collective " +
                    std::to_string(C.Index + 1) + " on " + C.Group + ":";
  for (size_t Rank = 0; Rank < C.Ranks.size(); ++Rank) {
    const RankCollectives &R = C.Ranks[Rank];
    Out += std::string(Rank ? "," : "") + " rank " + std::to_string(Rank);
    if (!R.Present)
      Out += " left no trace";
    else if (!C.At[Rank])
      Out += " issued none";
    else
      Out += " in " + R.Issued[*C.At[Rank]].describe() + " at " +
             siteOf(R.Issued[*C.At[Rank]]);
  }
  return Out;
}

std::vector<std::pair<std::string, int>>
ddpharness::partedSites(const CollectiveAnalysis &C) {
  std::vector<std::pair<std::string, int>> Out;
  if (!C.Disagree)
    return Out;
  for (size_t Rank = 0; Rank < C.Ranks.size(); ++Rank)
    if (C.At[Rank])
      for (const CallSite &S : C.Ranks[Rank].Issued[*C.At[Rank]].Sites)
        if (S.Line > 0)
          Out.emplace_back(S.File, S.Line);
  return Out;
}

json::Array ddpharness::partedTable(const CollectiveAnalysis &C) {
  json::Array Rows;
  if (!C.Disagree)
    return Rows;
  for (size_t Rank = 0; Rank < C.Ranks.size(); ++Rank) {
    const RankCollectives &R = C.Ranks[Rank];
    const TracedCollective *At =
        C.At[Rank] ? &R.Issued[*C.At[Rank]] : nullptr;
    std::string Blocked =
        R.Blocked ? llvm::formatv("{0:f1} s", R.BlockedSeconds).str() : "";
    Rows.push_back(json::Object{
        {"rank", int64_t(Rank)},
        {"collective", At ? At->describe() : "none"},
        {"site", At ? siteOf(*At) : ""},
        {"blocked", Blocked}});
  }
  return Rows;
}
