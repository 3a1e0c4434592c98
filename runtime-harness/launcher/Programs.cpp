//===- Programs.cpp - Building a flagged program to run it ----------------===//

#include "Programs.h"

#include "Process.h"
#include "RunDirectory.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstdlib>
#include <regex>

using namespace ddpharness;

namespace {

/// `$DDP_HARNESS_PROGRAM_CMAKE`, or the file the build wrote beside the
/// harness: ../share/ddp-harness/program.cmake.
std::string programCMake() {
  if (const char *Env = std::getenv("DDP_HARNESS_PROGRAM_CMAKE"); Env && *Env)
    return Env;
  return executableDirectory() + "/../share/ddp-harness/program.cmake";
}

/// CMake's bracket argument, which needs no escaping.
std::string bracketed(const std::string &S) {
  std::string Eq;
  while (S.find("]" + Eq + "]") != std::string::npos)
    Eq += "=";
  return "[" + Eq + "[" + S + "]" + Eq + "]";
}

/// The first line of a failed build's log that says what failed.
std::string firstError(const std::string &Log) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  llvm::StringRef(Log).split(Lines, '\n');
  for (llvm::StringRef Line : Lines)
    if (Line.contains("error:") || Line.contains("Error:") ||
        Line.contains("undefined reference"))
      return Line.trim().str();
  for (auto I = Lines.rbegin(); I != Lines.rend(); ++I)
    if (!I->trim().empty())
      return I->trim().str();
  return "no output";
}

/// Ninja where it is installed (faster, and the only build tool of a
/// minimal root with CMake), else CMake's default; a CMAKE_GENERATOR in the
/// environment wins, as it does for cmake itself.
std::string generatorOption() {
  if (const char *Env = std::getenv("CMAKE_GENERATOR"); Env && *Env)
    return "";
  llvm::Expected<std::string> Ninja = resolveExecutable("ninja");
  if (!Ninja) {
    llvm::consumeError(Ninja.takeError());
    return "";
  }
  return "-G Ninja ";
}

} // namespace

bool ddpharness::definesMain(const std::string &Source) {
  static const std::regex Main(R"((^|[\s;}])int\s+main\s*\([^;]*\)\s*\{)");
  return std::regex_search(Source, Main);
}

bool ddpharness::usesHarnessLibrary(const std::string &Source) {
  static const std::regex Include(R"(#\s*include\s*[<"]ddpharness/)");
  return std::regex_search(Source, Include);
}

/// Runs CMake on the project in \p Dir, the whole output into
/// Dir/build.log; the error names the first compiler or linker error.
static llvm::Error runCMakeBuild(const std::string &Dir, double Timeout) {
  llvm::Expected<std::string> CMake = resolveExecutable("cmake");
  llvm::Expected<std::string> Shell = resolveExecutable("/bin/sh");
  if (!CMake)
    return CMake.takeError();
  if (!Shell)
    return Shell.takeError();
  std::string Log = Dir + "/build.log";
  // One shell line so that the whole build's output lands in the log.
  std::string Script = "exec >" + llvm::StringRef(Log).str() +
                       " 2>&1; \"$0\" -S \"$1\" -B \"$1/build\" " +
                       generatorOption() +
                       "-DCMAKE_BUILD_TYPE=Release && "
                       "\"$0\" --build \"$1/build\"";
  std::string Stderr;
  llvm::Expected<std::string> Ran =
      captureOutput({*Shell, "-c", Script, *CMake, Dir}, Timeout, Stderr);
  if (Ran)
    return llvm::Error::success();
  llvm::consumeError(Ran.takeError());
  auto LogText = llvm::MemoryBuffer::getFile(Log);
  return makeError("did not build: " +
                   (LogText ? firstError((*LogText)->getBuffer().str())
                            : std::string("no build log")) +
                   " (full log: " + Log + ")");
}

llvm::Expected<std::string> ddpharness::autoProbePreload() {
  const char *Env = std::getenv("DDP_HARNESS_AUTOPROBE");
  std::string Library =
      Env && *Env ? Env
                  : executableDirectory() + "/../lib/libddpharness-autoprobe.so";
  if (!llvm::sys::fs::exists(Library))
    return makeError("the auto-probe " + Library +
                     " is missing (build the ddpharness-autoprobe target, "
                     "or set DDP_HARNESS_AUTOPROBE)");
  return "LD_PRELOAD=" + Library;
}

std::vector<std::string>
ddpharness::traceLibraries(const std::string &Program) {
  if (inspectProgram(Program) == ProbeKind::NotElf)
    return {};
  const char *Env = std::getenv("DDP_HARNESS_TRACE");
  std::string Trace = Env && *Env
                          ? Env
                          : executableDirectory() +
                                "/../lib/libddpharness-trace.so";
  if (!llvm::sys::fs::exists(Trace)) {
    static bool Warned = false;
    if (!Warned)
      std::fprintf(stderr,
                   "ddp-harness: warning: the collective trace %s is "
                   "missing; collectives are not recorded\n",
                   Trace.c_str());
    Warned = true;
    return {};
  }
  std::string C10d = llvm::sys::path::parent_path(Trace).str() +
                     "/libddpharness-trace-c10d.so";
  auto File = llvm::MemoryBuffer::getFile(Program, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (File && (*File)->getBuffer().contains("_ZN4c10d") &&
      llvm::sys::fs::exists(C10d))
    return {C10d, Trace};
  return {Trace};
}

void ddpharness::addPreload(std::vector<std::string> &Environment,
                            const std::vector<std::string> &Libraries) {
  if (Libraries.empty())
    return;
  std::string Joined;
  for (const std::string &L : Libraries)
    Joined += (Joined.empty() ? "" : ":") + L;
  for (std::string &Entry : Environment)
    if (llvm::StringRef(Entry).starts_with("LD_PRELOAD=")) {
      Entry += ":" + Joined;
      return;
    }
  if (const char *Old = std::getenv("LD_PRELOAD"); Old && *Old)
    Joined += std::string(":") + Old;
  Environment.push_back("LD_PRELOAD=" + Joined);
}

/// The generated project: the program's units as one CMake list, the
/// flagged file's include directories and definitions from the database.
static std::string programLists(const std::string &Config,
                                const ProgramSources &Sources, bool OwnProbe) {
  std::string Files, Extra;
  for (const std::string &F : Sources.Files)
    Files += (Files.empty() ? "" : ";") + F;
  for (const std::string &I : Sources.IncludeDirs)
    Extra += "target_include_directories(program PRIVATE " + bracketed(I) +
             ")\n";
  for (const std::string &D : Sources.Definitions)
    Extra += "target_compile_definitions(program PRIVATE " + bracketed(D) +
             ")\n";
  return "# Generated by ddp-harness confirm: builds one flagged program.\n"
         "cmake_minimum_required(VERSION 3.16)\n"
         "include(" + bracketed(Config) + ")\n"
         "project(ddp_harness_program CXX)\n"
         "ddp_harness_program(program " + bracketed(Files) + " " +
         (OwnProbe ? "ON" : "OFF") + ")\n" + Extra;
}

llvm::Expected<BuiltProgram>
ddpharness::buildProgram(const std::string &File, const std::string &Dir,
                         double Timeout) {
  std::string Config = programCMake();
  if (!llvm::sys::fs::exists(Config))
    return makeError("cannot build programs: " + Config +
                     " is missing (this ddp-harness was built without "
                     "LibTorch; set DDP_HARNESS_PROGRAM_CMAKE)");
  BuiltProgram Out;
  Out.Sources = programSources(File);
  for (const std::string &Source : Out.Sources.Files) {
    auto Text = llvm::MemoryBuffer::getFile(Source);
    if (!Text)
      return makeError("cannot read " + Source + ": " +
                       Text.getError().message());
    Out.OwnProbe |= usesHarnessLibrary((*Text)->getBuffer().str());
  }
  std::string Lists = programLists(Config, Out.Sources, Out.OwnProbe);
  if (llvm::Error E = writeFileAtomically(Dir + "/CMakeLists.txt", Lists))
    return std::move(E);
  if (llvm::Error E = runCMakeBuild(Dir, Timeout))
    return std::move(E);
  Out.Path = Dir + "/build/program";
  if (!Out.OwnProbe) {
    llvm::Expected<std::string> Preload = autoProbePreload();
    if (!Preload)
      return Preload.takeError();
    Out.Environment.push_back(*Preload);
  }
  addPreload(Out.Environment, traceLibraries(Out.Path));
  return std::move(Out);
}
