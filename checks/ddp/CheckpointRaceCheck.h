//===--- CheckpointRaceCheck.h - ddp-checkpoint-race ----------------------===//
//
// Finds checkpoint files that the ranks of a distributed program race on:
// every rank writing the same file, one rank writing a file that the others
// read with no collective in between, and a checkpoint every rank loads onto
// one fixed GPU.
//
// docs/checks/ddp-checkpoint-race.md
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_CHECKPOINTRACECHECK_H
#define DDPLINT_CHECKS_CHECKPOINTRACECHECK_H

#include "ddp/GradientCheckBase.h"

namespace clang::tidy::ddp {

class CheckpointRaceCheck : public GradientCheckBase {
public:
  using GradientCheckBase::GradientCheckBase;

protected:
  void analyze(const GradientModel &Model) override;
};

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_CHECKPOINTRACECHECK_H
