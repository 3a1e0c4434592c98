//===- ddpharness.h - Everything a program under the harness uses ---------===//

#ifndef DDPHARNESS_DDPHARNESS_H
#define DDPHARNESS_DDPHARNESS_H

#include "ddpharness/DistributedDataParallel.h"
#include "ddpharness/ProcessGroup.h"
#include "ddpharness/Probe.h"
#include "ddpharness/Reducer.h"

#endif
