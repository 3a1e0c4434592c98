//===--- VocabularyCheckpoints.cpp - torch::save, torch::load, devices ----===//
//
// The checkpoint part of the vocabulary: which calls write or read a
// checkpoint file, which argument names the file, and which device a load
// maps the tensors onto; and files handed between ranks with C stdio or
// streams.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::ddp {

namespace {

/// `torch::save` or `torch::load` (\p Name), called with a value and at
/// least one argument after it.
bool isSerializeCall(const CallExpr &Call, llvm::StringRef Name) {
  const FunctionDecl *FD = Call.getDirectCallee();
  return FD && Call.getNumArgs() >= 2 && qualifiedName(*FD) == Name;
}

/// A file name: a character array or pointer, `std::string`,
/// `std::string_view`, `std::filesystem::path`, not a stream or a buffer.
bool isPathType(QualType T) {
  T = T.getNonReferenceType();
  if (T->isArrayType() || T->isPointerType()) {
    QualType Element = T->isArrayType()
                           ? QualType(T->getArrayElementTypeNoTypeQual(), 0)
                           : T->getPointeeType();
    return Element->isCharType();
  }
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->isInStdNamespace())
    return false;
  llvm::StringRef Name = identifierName(RD);
  return Name == "basic_string" || Name == "basic_string_view" ||
         Name == "path";
}

const Expr *pathArgument(const CallExpr &Call) {
  const Expr *Path = Call.getArg(1);
  return isPathType(Path->getType()) ? Path : nullptr;
}

/// Whether \p E names the rank or a main-process flag (`rank`,
/// `context.rank`, `pg->getRank()`, `is_main`): a helper handed it decides
/// itself which ranks write.
bool namesRank(const Expr *E) {
  E = E ? stripObjectWrappers(E)->IgnoreParenImpCasts() : nullptr;
  const NamedDecl *D = nullptr;
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E))
    D = Ref->getDecl();
  else if (const auto *Member = dyn_cast_or_null<MemberExpr>(E))
    D = Member->getMemberDecl();
  else if (const auto *Call = dyn_cast_or_null<CallExpr>(E))
    D = Call->getDirectCallee();
  if (!D)
    return false;
  llvm::SmallVector<std::string, 4> Words = identifierWords(identifierName(D));
  return llvm::any_of(Words, [](const std::string &W) {
    return W == "rank" || W == "main" || W == "master" || W == "root";
  });
}

/// A checkpoint writer (\p Saves) or reader of the project whose body is
/// out of sight, named for what it does (`Checkpoint::save_checkpoint(model,
/// path)`, `loadModel(net, file)`), called with a file name: that name.
const Expr *outOfSightCheckpointPath(const CallExpr &Call, bool Saves) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || FD->isDefined() ||
      inSystemHeader(*FD))
    return nullptr;
  llvm::SmallVector<std::string, 4> Words = identifierWords(identifierName(FD));
  auto Has = [&](std::initializer_list<llvm::StringRef> Any) {
    return llvm::any_of(Words, [&](const std::string &W) {
      return llvm::is_contained(Any, llvm::StringRef(W));
    });
  };
  bool Verb = Saves ? Has({"save", "dump", "store"})
                    : Has({"load", "restore", "resume"});
  if (!Verb || !Has({"checkpoint", "ckpt", "model", "weights", "snapshot",
                     "state", "params", "parameters"}) ||
      llvm::any_of(Call.arguments(), namesRank))
    return nullptr;
  for (const Expr *Arg : Call.arguments())
    if (isPathType(Arg->getType()))
      return Arg;
  return nullptr;
}

/// The `c10::Device` construction an expression denotes, also through a
/// local variable's initialiser.
const CXXConstructExpr *deviceConstruction(const Expr *E, unsigned Depth = 0) {
  E = stripObjectWrappers(E);
  if (!E || Depth > 4)
    return nullptr;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return identifierName(Construct->getConstructor()->getParent()) == "Device"
               ? Construct
               : nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
        Var && Var->hasLocalStorage() && !Var->getType()->isReferenceType())
      return deviceConstruction(Var->getInit(), Depth + 1);
  return nullptr;
}

/// `"cuda:N"`: N; nullopt for other device strings.
std::optional<int64_t> cudaIndexOf(llvm::StringRef Spec) {
  if (!Spec.consume_front("cuda:"))
    return std::nullopt;
  int64_t Index;
  if (Spec.getAsInteger(10, Index) || Index < 0)
    return std::nullopt;
  return Index;
}

/// Whether \p E is the CUDA device type (`torch::kCUDA`,
/// `c10::DeviceType::CUDA`).
bool isCudaType(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  if (!Ref)
    return false;
  const ValueDecl *D = Ref->getDecl();
  if (const auto *Var = dyn_cast<VarDecl>(D); Var && Var->getInit())
    if (const auto *Inner = dyn_cast<DeclRefExpr>(
            Var->getInit()->IgnoreParenImpCasts()))
      D = Inner->getDecl();
  const auto *Enumerator = dyn_cast<EnumConstantDecl>(D);
  return Enumerator && identifierName(Enumerator) == "CUDA" &&
         identifierName(cast<EnumDecl>(Enumerator->getDeclContext())) ==
             "DeviceType";
}

/// `std::basic_ofstream` (true) or `std::basic_ifstream` (false), by the
/// class of a stream object; None for other classes.
std::optional<bool> fileStreamWrites(const CXXRecordDecl *RD) {
  if (!RD || !RD->isInStdNamespace())
    return std::nullopt;
  llvm::StringRef Name = identifierName(RD);
  if (Name == "basic_ofstream")
    return true;
  if (Name == "basic_ifstream")
    return false;
  return std::nullopt;
}

/// fopen's mode: whether it writes (or appends); None for a mode that is
/// not a literal.
std::optional<bool> fopenModeWrites(const Expr *Mode) {
  const StringLiteral *Literal = spelledStringLiteral(Mode);
  if (!Literal)
    return std::nullopt;
  llvm::StringRef M = Literal->getString();
  return M.contains('w') || M.contains('a');
}

} // namespace

std::optional<FileAccess> checkpoints::fileAccess(const Expr &E) {
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(&E)) {
    std::optional<bool> Writes =
        fileStreamWrites(Construct->getConstructor()->getParent());
    if (Writes && Construct->getNumArgs() >= 1 &&
        isPathType(Construct->getArg(0)->getType()))
      return FileAccess{Construct->getArg(0), *Writes};
    return std::nullopt;
  }
  const auto *Call = dyn_cast<CallExpr>(&E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || Call->getNumArgs() < 1 || !isPathType(Call->getArg(0)->getType()))
    return std::nullopt;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    std::optional<bool> Writes =
        fileStreamWrites(Member->getRecordDecl());
    if (Writes && identifierName(FD) == "open")
      return FileAccess{Call->getArg(0), *Writes};
    return std::nullopt;
  }
  llvm::StringRef Name = identifierName(FD);
  if ((Name == "fopen" || Name == "fopen64") && Call->getNumArgs() == 2)
    if (std::optional<bool> Writes = fopenModeWrites(Call->getArg(1)))
      return FileAccess{Call->getArg(0), *Writes};
  return std::nullopt;
}

const Expr *checkpoints::checkpointSavePath(const CallExpr &Call) {
  if (isSerializeCall(Call, "torch::save"))
    return pathArgument(Call);
  return outOfSightCheckpointPath(Call, /*Saves=*/true);
}

const Expr *checkpoints::checkpointLoadPath(const CallExpr &Call) {
  if (isSerializeCall(Call, "torch::load"))
    return pathArgument(Call);
  return outOfSightCheckpointPath(Call, /*Saves=*/false);
}

std::optional<FixedDevice>
checkpoints::checkpointLoadDevice(const CallExpr &Call) {
  if (!isSerializeCall(Call, "torch::load") ||
      !checkpoints::checkpointLoadPath(Call) || Call.getNumArgs() < 3)
    return std::nullopt;
  const Expr *Arg = Call.getArg(2);
  const CXXConstructExpr *Device = deviceConstruction(Arg);
  if (!Device || Device->getNumArgs() < 1)
    return std::nullopt;
  // torch::Device("cuda:1")
  if (const StringLiteral *Spec = spelledStringLiteral(Device->getArg(0))) {
    if (std::optional<int64_t> Index = cudaIndexOf(Spec->getString()))
      return FixedDevice{Device, *Index};
    return std::nullopt;
  }
  // torch::Device(torch::kCUDA, 0); a defaulted index is the current device.
  const ASTContext &Context = Device->getConstructor()->getASTContext();
  if (Device->getNumArgs() < 2 || isa<CXXDefaultArgExpr>(Device->getArg(1)) ||
      !isCudaType(Device->getArg(0)))
    return std::nullopt;
  Expr::EvalResult Result;
  const Expr *IndexArg = Device->getArg(1);
  if (IndexArg->isValueDependent() ||
      !IndexArg->EvaluateAsInt(Result, Context) ||
      Result.Val.getInt().isNegative())
    return std::nullopt;
  return FixedDevice{Device, Result.Val.getInt().getExtValue()};
}

} // namespace clang::tidy::ddp
