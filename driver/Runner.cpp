//===--- Runner.cpp - analysing many units --------------------------------===//

#include "Runner.h"
#include "Summaries.h"

#include "Analysis.h"
#include "Cache.h"
#include "InactiveCode.h"
#include "Configuration.h"
#include "Preamble.h"
#include "SdkFallback.h"
#include "StdIncludes.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

using namespace clang;
using namespace llvm;

namespace ddplint {

std::string shownPath(StringRef File) {
  SmallString<256> CWD;
  if (!sys::fs::current_path(CWD)) {
    StringRef Rel = File;
    if (Rel.consume_front(CWD) && Rel.consume_front("/"))
      return Rel.str();
  }
  return File.str();
}

namespace {

std::string minutesAndSeconds(double Seconds) {
  auto S = static_cast<unsigned long>(Seconds + 0.5);
  return formatv("{0}:{1:2}", S / 60, S % 60).str();
}

/// The status line and per-unit messages on standard error, from any thread.
class Progress {
public:
  Progress(size_t Total, bool Show)
      : Total(Total), Show(Show), Start(std::chrono::steady_clock::now()) {}

  void started(StringRef File) {
    std::lock_guard<std::mutex> Guard(Lock);
    Current = shownPath(File);
    draw();
  }

  void finished() {
    std::lock_guard<std::mutex> Guard(Lock);
    ++Done;
    draw();
  }

  /// A whole line, printed above the status line.
  void say(const Twine &Line) {
    std::lock_guard<std::mutex> Guard(Lock);
    clear();
    errs() << Line << "\n";
    draw();
  }

  void end() {
    std::lock_guard<std::mutex> Guard(Lock);
    clear();
    Show = false;
  }

private:
  void clear() {
    if (Show && Drawn)
      errs() << "\r\033[K";
    Drawn = false;
  }

  void draw() {
    if (!Show)
      return;
    double Elapsed = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - Start)
                         .count();
    std::string Line =
        formatv("[{0}/{1}] {2}  {3} elapsed", std::min(Done + 1, Total), Total,
                Current, minutesAndSeconds(Elapsed))
            .str();
    if (Done > 0)
      Line += ", ETA " +
              minutesAndSeconds(Elapsed / Done * (Total - Done));
    errs() << "\r\033[K" << Line;
    errs().flush();
    Drawn = true;
  }

  std::mutex Lock;
  size_t Total, Done = 0;
  bool Show, Drawn = false;
  std::string Current;
  std::chrono::steady_clock::time_point Start;
};

/// With -v, what the unit's result leaves out or adds: the SDK headers only
/// the fallback provided, the standard headers it forgot to include, and
/// distributed code in skipped branches of the main file and of the project's own headers (those under the directory ddplint
/// runs in; a library's headers given with -I are not news).
void sayWhatWasMissed(Progress &Status, const UnitResult &R) {
  if (!R.SdkFallbacks.empty())
    Status.say(shownPath(R.File) + ": " + describeSdkFallback(R.SdkFallbacks));
  if (!R.AddedIncludes.empty())
    Status.say(shownPath(R.File) + ": " + describeAddedIncludes(R.AddedIncludes));
  for (const InactiveRegion &Region : R.Inactive) {
    std::string Shown = shownPath(Region.File);
    if (Region.File != R.File && sys::path::is_absolute(Shown))
      continue;
    Status.say(Shown + ":" + Twine(Region.Line) + ": " +
               describeInactiveRegion(Region));
  }
}

/// Analyses one unit, with the shared preamble when there is one it can
/// use, and stores the result in the cache under Key (when not empty).
UnitResult analyseUnit(Analyser &Analysis, const std::string &File,
                       const tooling::CompileCommand *Command,
                       const tooling::CompilationDatabase &Compilations,
                       const RunOptions &Options, const std::string &Key,
                       bool &UsedPreamble) {
  Analyser::Inputs Dependencies;
  std::vector<std::string> Shared;
  std::optional<Analyser::PreambleUse> Preamble;
  if (Options.Preambles && Command)
    Preamble = Options.Preambles->get(File, *Command, Shared);
  // A preamble whose own headers needed the SDK fallback would hide where
  // the real header was looked for; this unit parses them itself.
  if (Preamble && any_of(Shared, [&](const std::string &Path) {
        return isInSdkFallback(Path, Options.SdkFallback);
      })) {
    Preamble.reset();
    Shared.clear();
  }
  UnitResult R = Analysis.run(Compilations, File, &Dependencies,
                              Preamble ? &*Preamble : nullptr);
  if (Preamble && preambleRefused(R, Preamble->PCH)) {
    // Out of date (a header changed since it was built) or unusable:
    // this unit goes without, the next run builds a fresh one.
    Options.Preambles->discard(Preamble->PCH);
    Preamble.reset();
    Dependencies = {};
    Shared.clear();
    R = Analysis.run(Compilations, File, &Dependencies);
  }
  UsedPreamble = Preamble.has_value();
  // A unit with compile errors may depend on a header that does not
  // exist yet, which no dependency list can name: it is not cached. Nor
  // is a vacuous one, whatever makes it so: the next run says it again.
  if (!Key.empty() && R.ToolError.empty() && R.CompileErrors.empty() &&
      R.Vacuous.empty())
    Options.Cache->store(Key, R, Dependencies.Files, Shared,
                         Dependencies.Absent);
  return R;
}

/// Tells the shared preambles which units would share one: only those are
/// worth a PCH.
void announcePreambles(ArrayRef<std::string> Files,
                       const tooling::CompilationDatabase &Compilations,
                       const OptionsProviderFactory &MakeOptions,
                       const RunOptions &Options) {
  bool Failed = false; // said once, by the run's own file system
  auto FS = createBaseFileSystem(Failed);
  Analyser Planner(MakeOptions(FS), FS, Options.SdkFallback);
  for (const std::string &File : Files)
    if (auto Command = Planner.command(Compilations, File))
      Options.Preambles->expect(File, *Command);
}

/// The units of one runUnits call and their results: each worker thread
/// takes the next unit until none is left.
class UnitQueue {
public:
  UnitQueue(ArrayRef<std::string> Files,
            const tooling::CompilationDatabase &Compilations,
            const OptionsProviderFactory &MakeOptions,
            const RunOptions &Options)
      : Files(Files), Compilations(Compilations), MakeOptions(MakeOptions),
        Options(Options), Results(Files.size()),
        Status(Files.size(), Options.Progress) {
    for (size_t I = 0; I < Files.size(); ++I)
      Order.push_back(I);
  }

  /// One worker's loop, with its own analyser and file system.
  void work() {
    bool Failed = false; // said once, by the run's own file system
    auto FS = createBaseFileSystem(Failed);
    Analyser Analysis(MakeOptions(FS), FS, Options.SdkFallback);
    configureContext(Analysis.context());
    for (size_t N; (N = Next++) < Order.size();) {
      size_t I = Order[N];
      Status.started(Files[I]);
      run(Analysis, I);
      Status.finished();
    }
  }

  /// The units whose results used a summary that changed after they were
  /// computed (a callee's unit analysed after them): the next round
  /// analyses them again. False when there are none.
  bool nextRound() {
    Order.clear();
    for (size_t I = 0; I < Results.size(); ++I)
      if (!changedSummary(Results[I]).empty())
        Order.push_back(I);
    Next = 0;
    Again = true;
    return !Order.empty();
  }

private:
  /// Reuses the cached findings of unit I, or analyses it.
  void run(Analyser &Analysis, size_t I) {
    const std::string &File = Files[I];
    std::optional<tooling::CompileCommand> Command =
        Analysis.command(Compilations, File);
    std::string Key, Why = Again ? changedSummary(Results[I])
                                 : std::string("the cache is off");
    if (Options.Cache && Command)
      Key = FindingsCache::key(
          File, Command->Directory, Command->CommandLine,
          tidy::configurationAsText(
              Analysis.context().getOptionsForFile(File)) +
              lineFilterText());
    if (!Key.empty() && !Again) {
      std::optional<UnitResult> Hit = Options.Cache->lookup(Key, Why);
      if (Hit && !(Why = changedSummary(*Hit)).empty())
        Hit.reset();
      if (Hit) {
        Hit->File = File;
        publishSummaries(*Hit, Options.Cache);
        Results[I] = std::move(*Hit);
        ++FromCache;
        if (Options.Verbose) {
          Status.say("ddplint: reused the findings of " + shownPath(File));
          sayWhatWasMissed(Status, Results[I]);
        }
        return;
      }
    }
    bool UsedPreamble = false;
    Results[I] = analyseUnit(Analysis, File, Command ? &*Command : nullptr,
                             Compilations, Options, Key, UsedPreamble);
    publishSummaries(Results[I], Options.Cache);
    ++Analysed;
    if (Options.Verbose) {
      Status.say("ddplint: analysed " + shownPath(File) + " (" + Why +
                 (UsedPreamble ? "; shared preamble" : "") + ")");
      sayWhatWasMissed(Status, Results[I]);
    }
  }

  ArrayRef<std::string> Files;
  const tooling::CompilationDatabase &Compilations;
  const OptionsProviderFactory &MakeOptions;
  const RunOptions &Options;
  std::atomic<size_t> Next{0};
  /// The indices of Files this round analyses, in order.
  std::vector<size_t> Order;
  /// Set after the first round: the cache is not asked again.
  bool Again = false;

public:
  std::vector<UnitResult> Results;
  Progress Status;
  std::atomic<unsigned> Analysed{0}, FromCache{0};
};

} // namespace

std::vector<UnitResult>
runUnits(ArrayRef<std::string> Files,
         const tooling::CompilationDatabase &Compilations,
         const OptionsProviderFactory &MakeOptions, const RunOptions &Options,
         RunStats &Stats) {
  UnitQueue Queue(Files, Compilations, MakeOptions, Options);
  if (Options.Preambles)
    announcePreambles(Files, Compilations, MakeOptions, Options);

  if (Options.Cache) {
    size_t Known = loadSummaries(*Options.Cache, Files);
    if (Options.Verbose && Known)
      Queue.Status.say("ddplint: " + std::to_string(Known) +
                       " function summaries of the project's units in the "
                       "cache");
  }
  unsigned Jobs = std::max(1u, std::min<unsigned>(Options.Jobs, Files.size()));
  // A unit that calls a function of a unit analysed after it is analysed
  // again with that function's summary (twice at most: summaries that
  // depend on one another's settle by then).
  for (unsigned Round = 0; Round < 3 && (Round == 0 || Queue.nextRound());
       ++Round) {
    std::vector<std::thread> Workers;
    for (unsigned J = 1; J < Jobs; ++J)
      Workers.emplace_back([&Queue] { Queue.work(); });
    Queue.work();
    for (std::thread &T : Workers)
      T.join();
  }
  Queue.Status.end();
  Stats.Analysed = Queue.Analysed;
  Stats.FromCache = Queue.FromCache;
  return std::move(Queue.Results);
}

} // namespace ddplint
