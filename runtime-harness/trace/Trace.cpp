//===- Trace.cpp - The collective trace's file and call sites -------------===//

#include "Trace.h"

#include "ddpharness/LauncherEnv.h"

#include <dlfcn.h>
#include <elf.h>
#include <unwind.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace {

/// Frames in these libraries are the machinery, not the call site.
constexpr const char *LibraryPrefixes[] = {
    "libddpharness-trace", "libtorch", "libc10", "libmpi", "libopen-",
    "libnccl", "libgloo", "libstdc++", "libc.so", "libgcc", "libpthread",
    "libcuda", "libgomp", "libucc", "libucp", "libfabric", "libpmix"};
constexpr int MaxFrames = 8;
// Deep enough to climb out of LibTorch's autograd engine to the backward()
// call of the program.
constexpr int MaxDepth = 160;

std::string baseName(const char *Path) {
  const char *Slash = std::strrchr(Path, '/');
  return Slash ? Slash + 1 : Path;
}

bool isLibrary(const std::string &Base) {
  for (const char *Prefix : LibraryPrefixes)
    if (Base.rfind(Prefix, 0) == 0)
      return true;
  return false;
}

std::string selfExecutable() {
  char Buffer[4096];
  ssize_t N = readlink("/proc/self/exe", Buffer, sizeof(Buffer) - 1);
  return N > 0 ? std::string(Buffer, N) : std::string();
}

/// "module+0xoffset" for a return address outside the libraries, or "".
std::string frameOf(void *Address) {
  Dl_info Info;
  if (!dladdr(Address, &Info) || !Info.dli_fbase)
    return "";
  std::string Module = Info.dli_fname && *Info.dli_fname
                           ? Info.dli_fname
                           : selfExecutable();
  if (Module.empty() || isLibrary(baseName(Module.c_str())))
    return "";
  if (Module[0] != '/' || Module.find('/') == std::string::npos)
    Module = selfExecutable();
  // A non-PIE executable is symbolised by address, everything else by
  // offset from where it was loaded.
  auto *Header = static_cast<const Elf64_Ehdr *>(Info.dli_fbase);
  uintptr_t Base = Header->e_type == ET_EXEC
                       ? 0
                       : reinterpret_cast<uintptr_t>(Info.dli_fbase);
  char Offset[32];
  std::snprintf(Offset, sizeof(Offset), "+0x%lx",
                static_cast<unsigned long>(
                    reinterpret_cast<uintptr_t>(Address) - Base));
  return Module + Offset;
}

class TraceFile {
public:
  int64_t issued(const ddptrace::Collective &C);
  void event(char Kind, int64_t Id);

private:
  /// The file of this process's rank, opened after a fork anew; -1 when
  /// there is no run directory.
  int file();
  std::string callSite();
  void writeLine(const std::string &Line);

  /// At exit: "S records nanoseconds", the time this process spent in the
  /// trace (what bench/harness_probe.py reports as its cost).
  static void writeTotals();

  std::mutex Lock;
  pid_t Owner = -1;
  int Fd = -1;
  int64_t NextId = 0, SpentNs = 0, Records = 0;
  std::unordered_map<void *, std::string> Frames;
};

int64_t nowNanoseconds() {
  timespec T;
  clock_gettime(CLOCK_REALTIME, &T);
  return int64_t(T.tv_sec) * 1000000000 + T.tv_nsec;
}

int64_t cpuNanoseconds() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return int64_t(T.tv_sec) * 1000000000 + T.tv_nsec;
}

/// Adds the time from its construction to its end to \p Total.
struct Stopwatch {
  explicit Stopwatch(int64_t &Total) : Total(Total), Start(cpuNanoseconds()) {}
  ~Stopwatch() { Total += cpuNanoseconds() - Start; }
  int64_t &Total;
  int64_t Start;
};

TraceFile &traceFile();

/// This process's id, kept without a system call per record: read once,
/// and again in a child after fork (the forked ranks of ddp-scenario).
pid_t CurrentPid = getpid();
__attribute__((constructor)) void watchForks() {
  pthread_atfork(nullptr, nullptr, [] { CurrentPid = getpid(); });
}

/// The calling thread's id, read once per thread.
long threadId() {
  thread_local long Id = long(syscall(SYS_gettid));
  return Id;
}

int TraceFile::file() {
  pid_t Pid = CurrentPid;
  if (Pid == Owner)
    return Fd;
  if (Fd >= 0)
    close(Fd);
  Owner = Pid;
  Fd = -1;
  NextId = 0;
  Frames.clear();
  const char *Dir = std::getenv("DDP_HARNESS_RUN_DIR");
  if (!Dir || !*Dir)
    return Fd;
  int Rank = ddpharness::launcher_ranks_or_single().rank;
  std::string Path = std::string(Dir) + "/collectives-rank" +
                     std::to_string(Rank) + ".tsv";
  Fd = open(Path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (Fd >= 0)
    std::atexit(writeTotals);
  if (Fd < 0)
    std::fprintf(stderr, "ddpharness-trace: cannot write %s: %s\n",
                 Path.c_str(), std::strerror(errno));
  return Fd;
}

/// The walk up the stack: it stops at MaxFrames of the program's own, or
/// MaxDepth frames in all, so a call from main costs a few frames.
struct StackWalk {
  std::unordered_map<void *, std::string> &Frames;
  std::string Out;
  int Found = 0, Depth = 0;
};

_Unwind_Reason_Code visitFrame(_Unwind_Context *Context, void *Data) {
  auto &Walk = *static_cast<StackWalk *>(Data);
  void *Address = reinterpret_cast<void *>(_Unwind_GetIP(Context));
  if (Walk.Depth++ == 0 || !Address)
    return _URC_NO_REASON; // this library's own frame
  auto Known = Walk.Frames.find(Address);
  if (Known == Walk.Frames.end())
    Known = Walk.Frames.emplace(Address, frameOf(Address)).first;
  if (!Known->second.empty())
    Walk.Out += (Walk.Found++ ? ";" : "") + Known->second;
  return Walk.Found >= MaxFrames || Walk.Depth >= MaxDepth
             ? _URC_END_OF_STACK
             : _URC_NO_REASON;
}

std::string TraceFile::callSite() {
  StackWalk Walk{Frames, "", 0, 0};
  _Unwind_Backtrace(visitFrame, &Walk);
  return Walk.Out.empty() ? "-" : Walk.Out;
}

void TraceFile::writeLine(const std::string &Line) {
  // One write: a crash loses this line or nothing.
  if (::write(Fd, Line.data(), Line.size()) != ssize_t(Line.size())) {
    close(Fd);
    Fd = -1;
  }
}

void TraceFile::writeTotals() {
  TraceFile &T = traceFile();
  std::lock_guard<std::mutex> Guard(T.Lock);
  if (T.Fd >= 0 && T.Owner == getpid())
    T.writeLine("S\t" + std::to_string(T.Records) + "\t" +
                std::to_string(T.SpentNs) + "\n");
}

int64_t TraceFile::issued(const ddptrace::Collective &C) {
  std::lock_guard<std::mutex> Guard(Lock);
  Stopwatch Watch(SpentNs);
  if (file() < 0)
    return -1;
  ++Records;
  int64_t Id = NextId++;
  std::string Line = "C\t" + std::to_string(Id) + "\t" + C.group + "\t" +
                     C.kind + "\t" + C.op + "\t" + std::to_string(C.count) +
                     "\t" + C.dtype + "\t" + std::to_string(C.root) + "\t" +
                     (C.blocking ? "1" : "0") + "\t" +
                     std::to_string(threadId()) + "\t" +
                     std::to_string(nowNanoseconds()) + "\t" + callSite() +
                     "\n";
  writeLine(Line);
  return Fd < 0 ? -1 : Id;
}

void TraceFile::event(char Kind, int64_t Id) {
  if (Id < 0)
    return;
  std::lock_guard<std::mutex> Guard(Lock);
  Stopwatch Watch(SpentNs);
  if (file() < 0)
    return;
  ++Records;
  writeLine(std::string(1, Kind) + "\t" + std::to_string(Id) + "\t" +
            std::to_string(nowNanoseconds()) + "\n");
}

TraceFile &traceFile() {
  // Never destroyed: collectives issued from other threads or from static
  // destructors after main returns are still recorded.
  static TraceFile *File = new TraceFile;
  return *File;
}

} // namespace

int64_t ddptrace::issued(const Collective &C) {
  return traceFile().issued(C);
}

void ddptrace::waiting(int64_t Id) { traceFile().event('W', Id); }

void ddptrace::done(int64_t Id) { traceFile().event('D', Id); }
