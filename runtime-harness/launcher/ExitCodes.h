//===- ExitCodes.h - ddp-harness exit statuses ----------------------------===//
//
// One place for what ddp-harness's exit status means, shared by every
// subcommand (docs/harness.md lists them).
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_EXITCODES_H
#define DDPHARNESS_LAUNCHER_EXITCODES_H

namespace ddpharness {

enum ExitCode : int {
  /// Every rank exited 0. What the replicas did is in the report, not here.
  ExitOk = 0,
  /// A usage error, an unusable run directory, a program that cannot be
  /// executed, unreadable evidence: the harness could not do its job.
  ExitHarnessError = 2,
  /// The ranks did not finish within the timeout and were killed.
  ExitHang = 3,
  /// A rank died from a signal or exited nonzero.
  ExitCrash = 4,
};

} // namespace ddpharness

#endif
