//===- Launcher.h - Starting and watching the ranks -----------------------===//
//
// launchRanks() starts N processes of one program with torchrun's
// environment, streams their output line by line, and ends the run the way a
// data-parallel job needs: a rank that crashes takes the others down after a
// short grace (they would wait in a collective forever), a run that outlives
// its timeout is killed, and nothing the ranks started survives the run.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_LAUNCHER_H
#define DDPHARNESS_LAUNCHER_LAUNCHER_H

#include "RunRecords.h"

#include "llvm/Support/Error.h"

namespace ddpharness {

/// Runs the ranks to their end. Fails only when the harness cannot do its
/// job (no port, no pipes, a program that cannot be executed); whatever the
/// ranks do is reported in the result.
llvm::Expected<LaunchResult> launchRanks(const LaunchOptions &Options);

} // namespace ddpharness

#endif
