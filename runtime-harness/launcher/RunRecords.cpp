//===- RunRecords.cpp - What a launch was asked to do and how it ended ----===//

#include "RunRecords.h"

#include "Process.h"

using namespace ddpharness;

const char *ddpharness::processVerdictName(ProcessVerdict V) {
  switch (V) {
  case ProcessVerdict::Ok:
    return "ok";
  case ProcessVerdict::Hang:
    return "hang";
  case ProcessVerdict::Crash:
    return "crash";
  case ProcessVerdict::Interrupted:
    return "interrupted";
  }
  return "ok";
}

std::string RankStatus::describe() const {
  if (!Reaped)
    return "still running";
  std::string How = Signal ? "killed by " + signalName(Signal)
                           : "exited with code " + std::to_string(ExitCode);
  if (StoppedByHarness)
    return "stopped by the harness (" + How + ")";
  return How;
}
