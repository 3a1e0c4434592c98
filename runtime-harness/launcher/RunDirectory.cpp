//===- RunDirectory.cpp - The run directory: creating it, reading it ------===//

#include "RunDirectory.h"

#include "Process.h"
#include "RunRecords.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace ddpharness;
namespace json = llvm::json;

/// mkdir -p.
static llvm::Error makeDirectories(const std::string &Path) {
  std::string Prefix;
  std::stringstream Parts(Path);
  std::string Part;
  if (!Path.empty() && Path[0] == '/')
    Prefix = "/";
  while (std::getline(Parts, Part, '/')) {
    if (Part.empty())
      continue;
    Prefix += Part;
    if (mkdir(Prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return makeError("cannot create directory '" + Prefix +
                       "': " + std::strerror(errno));
    struct stat St;
    if (stat(Prefix.c_str(), &St) != 0 || !S_ISDIR(St.st_mode))
      return makeError("cannot create directory '" + Path + "': '" + Prefix +
                       "' is not a directory");
    Prefix += "/";
  }
  return llvm::Error::success();
}

static std::string absolutePath(const std::string &Path) {
  char Buf[PATH_MAX];
  if (realpath(Path.c_str(), Buf))
    return Buf;
  return Path;
}

static bool isRankFile(llvm::StringRef Name, llvm::StringRef Prefix,
                       llvm::StringRef Suffix, int *Rank = nullptr) {
  if (!Name.consume_front(Prefix) || !Name.consume_back(Suffix))
    return false;
  unsigned R;
  if (Name.empty() || Name.getAsInteger(10, R) || R > 100000)
    return false;
  if (Rank)
    *Rank = static_cast<int>(R);
  return true;
}

/// Files the ranks write (the contract's exact names).
static bool isProbeFile(llvm::StringRef Name) {
  return isRankFile(Name, "probe-rank", ".jsonl") ||
         isRankFile(Name, "probe-rank", ".bin") ||
         isRankFile(Name, "result-rank", ".json");
}

/// Files the harness itself writes.
static bool isHarnessFile(llvm::StringRef Name) {
  return Name == "harness.json" || Name == "drift.svg" ||
         Name.starts_with("drift-") || isRankFile(Name, "stdout-rank", ".log") ||
         isRankFile(Name, "stderr-rank", ".log");
}

static llvm::Error checkWritable(const std::string &Dir) {
  std::string Probe = Dir + "/.ddp-harness-write-check";
  int Fd = open(Probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0)
    return makeError("run directory '" + Dir +
                     "' is not writable: " + std::strerror(errno));
  close(Fd);
  unlink(Probe.c_str());
  return llvm::Error::success();
}

static std::string temporaryRoot() {
  const char *Tmp = std::getenv("TMPDIR");
  std::string Root = (Tmp && *Tmp) ? Tmp : "/tmp";
  while (Root.size() > 1 && Root.back() == '/')
    Root.pop_back();
  return Root + "/ddp-harness";
}

llvm::Expected<std::string>
ddpharness::makeFreshDirectory(const std::string &Requested,
                               const std::string &Prefix) {
  if (!Requested.empty()) {
    struct stat St;
    if (stat(Requested.c_str(), &St) == 0 && !S_ISDIR(St.st_mode))
      return makeError("run directory '" + Requested +
                       "' exists and is not a directory");
    if (llvm::Error E = makeDirectories(Requested))
      return std::move(E);
    std::string Dir = absolutePath(Requested);
    if (llvm::Error E = checkWritable(Dir))
      return std::move(E);
    return Dir;
  }
  std::string Root = temporaryRoot();
  if (llvm::Error E = makeDirectories(Root))
    return std::move(E);
  char Stamp[32];
  std::time_t Now = std::time(nullptr);
  std::strftime(Stamp, sizeof(Stamp), "%Y%m%d-%H%M%S", std::localtime(&Now));
  std::string Template = Root + "/" + Prefix + "-" + Stamp + "-XXXXXX";
  if (!mkdtemp(Template.data()))
    return makeError("cannot create a run directory under '" + Root +
                     "': " + std::strerror(errno));
  std::string Dir = absolutePath(Template);
  if (llvm::Error E = checkWritable(Dir))
    return std::move(E);
  return Dir;
}

llvm::Expected<std::string>
ddpharness::prepareRunDirectory(const std::string &Requested) {
  llvm::Expected<std::string> Dir = makeFreshDirectory(Requested, "run");
  if (!Dir || Requested.empty())
    return Dir;
  // Old probe files would be read as this run's evidence.
  if (DIR *D = opendir(Dir->c_str())) {
    std::string Stale;
    while (dirent *Entry = readdir(D))
      if (isProbeFile(Entry->d_name)) {
        Stale = Entry->d_name;
        break;
      }
    closedir(D);
    if (!Stale.empty())
      return makeError("run directory '" + *Dir + "' already holds '" + Stale +
                       "' from an earlier run; give an empty or new "
                       "directory");
  }
  return Dir;
}

llvm::Error ddpharness::writeFileAtomically(const std::string &Path,
                                            const std::string &Content) {
  std::string Temp = Path + ".tmp";
  FILE *F = std::fopen(Temp.c_str(), "w");
  if (!F)
    return makeError("cannot write '" + Path + "': " + std::strerror(errno));
  bool Ok = std::fwrite(Content.data(), 1, Content.size(), F) ==
            Content.size();
  Ok &= std::fclose(F) == 0;
  if (!Ok || std::rename(Temp.c_str(), Path.c_str()) != 0) {
    std::string Why = std::strerror(errno);
    std::remove(Temp.c_str());
    return makeError("cannot write '" + Path + "': " + Why);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Reading the probe files
//===----------------------------------------------------------------------===//

static bool isHash(llvm::StringRef S) {
  return S.size() == 16 && llvm::all_of(S, llvm::isHexDigit);
}

/// Parses one entry of a probe line's "params"; returns why it is unusable,
/// or "".
static std::string parseParam(const json::Object &P, ParamRecord &R) {
  std::optional<llvm::StringRef> Name = P.getString("name");
  std::optional<int64_t> Numel = P.getInteger("numel");
  std::optional<llvm::StringRef> Hash = P.getString("hash");
  std::optional<int64_t> Offset = P.getInteger("offset");
  if (!Name || !Numel || !Hash || !Offset || *Numel < 0 || *Offset < 0)
    return "a parameter lacks \"name\", \"numel\", \"hash\" or \"offset\"";
  if (!isHash(*Hash))
    return "parameter '" + Name->str() + "' has a malformed hash '" +
           Hash->str() + "'";
  R.Name = Name->str();
  R.Numel = *Numel;
  R.Hash = Hash->lower();
  R.Norm = P.getNumber("norm").value_or(0);
  R.Offset = *Offset;
  R.Stored = P.getInteger("stored").value_or(R.Numel);
  if (R.Stored > R.Numel || (R.Stored < 1 && R.Numel > 0))
    return "parameter '" + R.Name + "' stores " + std::to_string(R.Stored) +
           " of its " + std::to_string(R.Numel) + " values";
  if (const json::Value *G = P.get("grad"); G && !G->getAsNull()) {
    const json::Object *GO = G->getAsObject();
    if (!GO)
      return "parameter '" + R.Name + "' has a \"grad\" that is neither "
             "null nor an object";
    std::optional<llvm::StringRef> GHash = GO->getString("hash");
    std::optional<int64_t> GOffset = GO->getInteger("offset");
    if (!GHash || !isHash(*GHash) || !GOffset || *GOffset < 0)
      return "the gradient of '" + R.Name + "' lacks a hash or an offset";
    R.Grad = GradRecord{GHash->lower(), GO->getNumber("norm").value_or(0),
                        *GOffset};
  }
  return "";
}

/// Parses one probe line; returns why it is unusable, or "".
static std::string parseProbeLine(const json::Value &V, ProbeStep &Out) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return "not a JSON object";
  std::optional<int64_t> Step = O->getInteger("step");
  if (!Step)
    return "no integer \"step\"";
  Out.Step = *Step;
  Out.Epoch = O->getInteger("epoch").value_or(-1);
  Out.WorldSize = static_cast<int>(O->getInteger("world_size").value_or(0));
  const json::Array *Params = O->getArray("params");
  if (!Params)
    return "no \"params\" array";
  for (const json::Value &PV : *Params) {
    const json::Object *P = PV.getAsObject();
    if (!P)
      return "a \"params\" entry is not an object";
    ParamRecord R;
    if (std::string Why = parseParam(*P, R); !Why.empty())
      return Why;
    Out.Params.push_back(std::move(R));
  }
  if (const json::Array *Indices = O->getArray("indices")) {
    std::vector<int64_t> List;
    for (const json::Value &I : *Indices) {
      std::optional<int64_t> N = I.getAsInteger();
      if (!N)
        return "\"indices\" holds a non-integer";
      List.push_back(*N);
    }
    Out.Indices = std::move(List);
  }
  return "";
}

static void readProbe(const std::string &Path, RankEvidence &Rank,
                      std::vector<std::string> &Warnings) {
  std::ifstream In(Path, std::ios::binary);
  std::string Content((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
  llvm::StringRef Rest(Content);
  std::string Base = Path.substr(Path.rfind('/') + 1);
  unsigned LineNo = 0;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    bool Terminated = Rest.size() > Line.size();
    Rest = Tail;
    ++LineNo;
    if (Line.trim().empty())
      continue;
    llvm::Expected<json::Value> V = json::parse(Line);
    if (!V) {
      std::string Why = llvm::toString(V.takeError());
      Warnings.push_back(Base + ":" + std::to_string(LineNo) + ": " +
                         (Terminated ? "not JSON (" + Why + ")"
                                     : "truncated last line (the rank "
                                       "stopped while writing it)") +
                         "; line skipped");
      continue;
    }
    ProbeStep Step;
    std::string Problem = parseProbeLine(*V, Step);
    if (!Problem.empty()) {
      Warnings.push_back(Base + ":" + std::to_string(LineNo) + ": " + Problem +
                         "; line skipped");
      continue;
    }
    Rank.Steps.push_back(std::move(Step));
  }
}

static void readResult(const std::string &Path, RankEvidence &Rank,
                       std::vector<std::string> &Warnings) {
  std::ifstream In(Path, std::ios::binary);
  std::string Content((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
  std::string Base = Path.substr(Path.rfind('/') + 1);
  llvm::Expected<json::Value> V = json::parse(Content);
  if (!V) {
    Warnings.push_back(Base + ": not JSON (" + llvm::toString(V.takeError()) +
                       "); metrics ignored");
    return;
  }
  const json::Object *O = V->getAsObject();
  const json::Object *Metrics = O ? O->getObject("metrics") : nullptr;
  if (!Metrics) {
    Warnings.push_back(Base + ": no \"metrics\" object; metrics ignored");
    return;
  }
  Rank.HasResult = true;
  for (const auto &[Key, Value] : *Metrics) {
    if (std::optional<double> D = Value.getAsNumber())
      Rank.Metrics[Key.str()] = *D;
    else
      Warnings.push_back(Base + ": metric '" + Key.str() +
                         "' is not a number; ignored");
  }
}

static std::optional<HarnessRecord> readHarnessRecord(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::string Content((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
  llvm::Expected<json::Value> V = json::parse(Content);
  if (!V) {
    llvm::consumeError(V.takeError());
    return std::nullopt;
  }
  const json::Object *O = V->getAsObject();
  if (!O)
    return std::nullopt;
  HarnessRecord R;
  R.Verdict = O->getString("verdict").value_or("").str();
  R.CrashedRank = static_cast<int>(O->getInteger("crashed_rank").value_or(-1));
  R.WallSeconds = O->getNumber("wall_seconds").value_or(0);
  if (auto L = O->getString("launcher"); L && *L != "ddp-harness")
    R.Launcher = L->str();
  if (const json::Array *Ranks = O->getArray("ranks"))
    for (const json::Value &RV : *Ranks)
      if (const json::Object *RO = RV.getAsObject()) {
        R.RankStatus.push_back(RO->getString("status").value_or("").str());
        R.LastLines.push_back(RO->getString("last_line").value_or("").str());
      }
  return R;
}

llvm::Expected<RunEvidence> ddpharness::readRunDirectory(const std::string &Dir,
                                                         int NumRanks) {
  DIR *D = opendir(Dir.c_str());
  if (!D)
    return makeError("cannot read run directory '" + Dir +
                     "': " + std::strerror(errno));
  RunEvidence Run;
  Run.Dir = Dir;
  int MaxRank = NumRanks - 1;
  std::vector<std::string> Unexpected;
  while (dirent *Entry = readdir(D)) {
    llvm::StringRef Name(Entry->d_name);
    if (Name == "." || Name == "..")
      continue;
    int Rank;
    if (isRankFile(Name, "probe-rank", ".jsonl", &Rank) ||
        isRankFile(Name, "collectives-rank", ".tsv", &Rank) ||
        isRankFile(Name, "probe-rank", ".bin", &Rank) ||
        isRankFile(Name, "result-rank", ".json", &Rank)) {
      if (NumRanks > 0 && Rank >= NumRanks)
        Run.Warnings.push_back("'" + Name.str() + "' names rank " +
                               std::to_string(Rank) + " of a run with " +
                               std::to_string(NumRanks) + " ranks; ignored");
      else
        MaxRank = std::max(MaxRank, Rank);
      continue;
    }
    if (!isHarnessFile(Name) && !Name.ends_with(".tmp"))
      Unexpected.push_back(Name.str());
  }
  closedir(D);
  llvm::sort(Unexpected);
  for (const std::string &Name : Unexpected)
    Run.Warnings.push_back("unexpected file '" + Name +
                           "' in the run directory (ranks write only "
                           "probe-rank<R>.jsonl/.bin, result-rank<R>.json and "
                           "collectives-rank<R>.tsv)");

  for (int Rank = 0; Rank <= MaxRank; ++Rank) {
    RankEvidence R;
    R.Rank = Rank;
    std::string Jsonl =
        Dir + "/probe-rank" + std::to_string(Rank) + ".jsonl";
    R.BinPath = Dir + "/probe-rank" + std::to_string(Rank) + ".bin";
    if (access(Jsonl.c_str(), R_OK) == 0) {
      R.HasProbe = true;
      readProbe(Jsonl, R, Run.Warnings);
    }
    std::string Result =
        Dir + "/result-rank" + std::to_string(Rank) + ".json";
    if (access(Result.c_str(), R_OK) == 0)
      readResult(Result, R, Run.Warnings);
    Run.Ranks.push_back(std::move(R));
  }
  Run.Harness = readHarnessRecord(Dir + "/harness.json");
  return Run;
}

llvm::Error ddpharness::readFloats(const std::string &BinPath, int64_t Offset,
                                   int64_t Numel, std::vector<float> &Out) {
  int Fd = open(BinPath.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return makeError("cannot read '" + BinPath + "': " + std::strerror(errno));
  std::vector<unsigned char> Bytes(static_cast<size_t>(Numel) * 4);
  size_t Done = 0;
  while (Done < Bytes.size()) {
    ssize_t N = pread(Fd, Bytes.data() + Done, Bytes.size() - Done,
                      Offset + static_cast<int64_t>(Done));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Done += N;
  }
  close(Fd);
  if (Done < Bytes.size())
    return makeError("'" + BinPath.substr(BinPath.rfind('/') + 1) +
                     "' ends before offset " + llvm::Twine(Offset) + " + " +
                     llvm::Twine(Numel) + " floats");
  Out.resize(Numel);
  for (int64_t I = 0; I < Numel; ++I) {
    const unsigned char *B = &Bytes[I * 4];
    uint32_t Bits = uint32_t(B[0]) | uint32_t(B[1]) << 8 |
                    uint32_t(B[2]) << 16 | uint32_t(B[3]) << 24;
    std::memcpy(&Out[I], &Bits, 4);
  }
  return llvm::Error::success();
}

json::Array ddpharness::ranksJson(const LaunchResult &Result) {
  json::Array Ranks;
  for (const RankStatus &R : Result.Ranks) {
    json::Object O{{"rank", R.Rank},
                   {"pid", static_cast<int64_t>(R.Pid)},
                   {"status", R.describe()},
                   {"stopped_by_harness", R.StoppedByHarness},
                   {"last_line", R.LastLine}};
    O["exit_code"] = R.Signal ? json::Value(nullptr) : json::Value(R.ExitCode);
    O["signal"] = R.Signal ? json::Value(signalName(R.Signal))
                           : json::Value(nullptr);
    Ranks.push_back(std::move(O));
  }
  return Ranks;
}

std::string ddpharness::harnessRecordJson(const LaunchOptions &Options,
                                          const LaunchResult &Result) {
  json::Array Command;
  for (const std::string &A : Options.Command)
    Command.push_back(A);
  json::Object Record{
      {"command", std::move(Command)},
      {"nproc", Options.NumRanks},
      {"launcher", Options.ForeignLauncher.empty()
                       ? json::Value("ddp-harness")
                       : json::Value(Options.ForeignLauncher)},
      {"backend", Options.Backend},
      {"master_addr", "127.0.0.1"},
      {"master_port", Result.Port},
      {"timeout_seconds", Options.TimeoutSeconds},
      {"verdict", processVerdictName(Result.Verdict)},
      {"crashed_rank", Result.CrashedRank},
      {"wall_seconds", Result.WallSeconds},
      {"leftover_processes", static_cast<int64_t>(Result.LeftoverProcesses)},
      {"ranks", ranksJson(Result)}};
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << llvm::formatv("{0:2}", json::Value(std::move(Record))) << "\n";
  return OS.str();
}

HarnessRecord ddpharness::recordOf(const LaunchResult &Result) {
  HarnessRecord R;
  R.Verdict = processVerdictName(Result.Verdict);
  R.CrashedRank = Result.CrashedRank;
  R.WallSeconds = Result.WallSeconds;
  for (const RankStatus &S : Result.Ranks) {
    R.RankStatus.push_back(S.describe());
    R.LastLines.push_back(S.LastLine);
  }
  return R;
}
