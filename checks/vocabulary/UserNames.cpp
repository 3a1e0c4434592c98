//===--- UserNames.cpp - what the names of user code suggest --------------===//

#include "vocabulary/UserNames.h"
#include "vocabulary/VocabularyHelpers.h"

namespace clang::tidy::ddp::usernames {

bool namedLikeCommunicator(llvm::StringRef Name) {
  return nameContainsAny(Name, {"comm", "group", "dist", "collective", "mpi",
                                "nccl", "gloo", "world"});
}

bool namedLikeCommunicatorClass(llvm::StringRef Name) {
  return nameContainsAny(Name, {"comm", "mpi", "nccl", "gloo", "collective",
                                "processgroup"});
}

bool namedLikeSync(llvm::StringRef Name) {
  return nameContainsAny(Name, {"reduce", "sum", "avg", "average", "mean",
                                "sync", "gather", "exchange", "aggregate",
                                "bcast", "broadcast"});
}

} // namespace clang::tidy::ddp::usernames
