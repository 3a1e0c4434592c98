//===--- UserNames.h - what the names of user code suggest ----------------===//
//
// Code that wraps c10d, MPI or NCCL in classes and functions of its own
// names them after what they do. Where the call itself says nothing (an
// opaque helper defined in another unit, a member of a class the unit only
// declares), the model reads the name: these are the words it looks for.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_USERNAMES_H
#define DDPLINT_CHECKS_VOCABULARY_USERNAMES_H

#include "llvm/ADT/StringRef.h"

namespace clang::tidy::ddp::usernames {

/// A class named like a communicator or process group of its own: its name
/// contains "comm", "group", "dist", "collective", "mpi", "nccl", "gloo" or
/// "world".
bool namedLikeCommunicator(llvm::StringRef Name);

/// A class named like a communicator in the narrower sense whose methods'
/// short names (gather, broadcast, reduce, scatter, barrier) are
/// collectives: its name contains "comm", "mpi", "nccl", "gloo",
/// "collective" or "processgroup".
bool namedLikeCommunicatorClass(llvm::StringRef Name);

/// A function named like a gradient synchronisation: its name contains
/// "reduce", "sum", "avg", "average", "mean", "sync", "gather", "exchange",
/// "aggregate", "bcast" or "broadcast".
bool namedLikeSync(llvm::StringRef Name);

} // namespace clang::tidy::ddp::usernames

#endif // DDPLINT_CHECKS_VOCABULARY_USERNAMES_H
