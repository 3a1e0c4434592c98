//===--- Checkpoints.h - torch::save, torch::load and files ---------------===//
//
// The paths and devices of `torch::save` and `torch::load`, and files opened
// outside them (free functions in `checkpoints`).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_CHECKPOINTS_H
#define DDPLINT_CHECKS_VOCABULARY_CHECKPOINTS_H

#include "vocabulary/VocabularyTypes.h"

#include "clang/AST/Expr.h"

#include <optional>

namespace clang::tidy::ddp {

namespace checkpoints {

/// For `torch::save(value, path)`: the path argument (a string or
/// character array); null for other calls and for saves into a stream or
/// a writer function.
const Expr *checkpointSavePath(const CallExpr &Call);

/// For `torch::load(value, path, ...)`: the path argument; null for other
/// calls and for loads from a stream or a buffer.
const Expr *checkpointLoadPath(const CallExpr &Call);

/// For `torch::load(value, path, device)`: the device when it is CUDA
/// with a constant index, `torch::Device("cuda:0")` or
/// `torch::Device(torch::kCUDA, 0)`, also through a local initialised
/// with one. Nullopt without a device argument, for another device type,
/// for an index that is not a constant, and for a device without an index
/// (`torch::kCUDA`: the current device, which each rank sets to its own).
std::optional<FixedDevice> checkpointLoadDevice(const CallExpr &Call);

/// A file opened outside torch::save/load: `fopen(path, mode)` (a write
/// for a mode with 'w' or 'a'), `std::ofstream f(path)`,
/// `std::ifstream f(path)`, `f.open(path)` on either. Nullopt otherwise.
std::optional<FileAccess> fileAccess(const Expr &E);

} // namespace checkpoints

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_VOCABULARY_CHECKPOINTS_H
