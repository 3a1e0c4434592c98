//===- ProgramProbe.cpp - Does a program record its own probe? ------------===//
//
// `run` preloads the auto-probe into a program that has no probe of its
// own. It decides from the executable's bytes, not from its source: a
// program linked with the harness library carries the probe's literal
// "DDP_HARNESS_PROBE_INTERVAL" (string literals survive stripping), and a
// program that uses LibTorch's optimizers names their symbols in its dynamic
// symbol table, which stripping keeps.
//
//===----------------------------------------------------------------------===//

#include "Programs.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace ddpharness;

ProbeKind ddpharness::inspectProgram(const std::string &Path) {
  auto File = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!File)
    return ProbeKind::NotElf;
  llvm::StringRef Bytes = (*File)->getBuffer();
  if (!Bytes.starts_with("\x7f" "ELF"))
    return ProbeKind::NotElf;
  if (Bytes.contains("DDP_HARNESS_PROBE_INTERVAL"))
    return ProbeKind::Own;
  if (Bytes.contains("_ZN5torch5optim"))
    return ProbeKind::NeedsAutoProbe;
  return ProbeKind::NoOptimizer;
}
