//===--- VocabularyDataFlow.cpp - how data moves through library calls ----===//
//
// Which LibTorch, standard-library and boost operations pass a tensor's data
// on (views, copies, pointers), share its storage, combine their arguments'
// data, store data into their object, or update it in place; the types a
// collective moves data through; raw copies; and which functions are a
// library's rather than the program's. The gradient model follows a
// gradient's role through exactly these.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"
#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp {

bool flow::keepsObjectData(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("data", "detach", "detach_", "view", "view_as", "reshape",
             "reshape_as", "flatten", "contiguous", true)
      .Cases("clone", "to", "cpu", "cuda", "slice", "narrow", "select",
             "index", "index_select", true)
      .Cases("data_ptr", "const_data_ptr", "mutable_data_ptr", "div", "div_",
             "mul", "mul_", "add_", "sub_", true)
      .Cases("copy_", "set_", "float", "double", "half", "bfloat16", "type",
             "toType", "squeeze", true)
      .Cases("unsqueeze", "chunk", "split", "unbind", "value", "front", "back",
             "at", "begin", true)
      .Cases("end", "get", "dptr", true)
      .Default(false);
}

bool flow::sharesObjectStorage(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("data", "detach", "view", "view_as", "narrow", "slice", true)
      .Cases("select", "squeeze", "unsqueeze", "as_strided", "expand", true)
      .Cases("t", "transpose", "permute", "diagonal", "unflatten", true)
      .Default(false);
}

bool flow::isTensorCopyMethod(llvm::StringRef Method) {
  return Method == "clone";
}

bool flow::copiesIntoNewTensor(llvm::StringRef Function) {
  return llvm::StringSwitch<bool>(Function)
      .Cases("cat", "concat", "concatenate", "stack", true)
      .Default(false);
}

bool flow::combinesArgumentData(llvm::StringRef Function) {
  if (flow::copiesIntoNewTensor(Function))
    return true;
  return llvm::StringSwitch<bool>(Function)
      .Case("flatten", true)
      .Cases("flatten_dense_tensors", "unflatten_dense_tensors", "div", "mul",
             true)
      .Cases("narrow", "reshape", "ref", "cref", "addressof", true)
      .Case("inplace", true) // boost::mpi::inplace(buffer)
      .Default(false);
}

bool flow::storesIntoObject(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("push_back", "emplace_back", "insert", "emplace", "assign", true)
      .Cases("copy_", "set_", "index_put_", "append", true)
      .Default(false);
}

bool flow::updatesInPlace(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("add_", "sub_", "addcdiv_", "addcmul_", "copy_", "set_", true)
      .Default(false);
}

bool flow::copiesIntoTensor(const CXXMemberCallExpr &Call) {
  const CXXMethodDecl *MD = Call.getMethodDecl();
  llvm::StringRef Name = identifierName(MD);
  return (Name == "copy_" || Name == "set_data" || Name == "set_") &&
         identifierName(MD->getParent()).contains("Tensor");
}

std::optional<TensorScaling> flow::tensorScaling(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<TensorScaling>>(Name)
      .Cases("div", "div_", "divide", "divide_", "true_divide",
             "true_divide_", TensorScaling::Division)
      .Cases("_foreach_div", "_foreach_div_", TensorScaling::Division)
      .Cases("mul", "mul_", "multiply", "multiply_", "_foreach_mul",
             "_foreach_mul_", TensorScaling::Product)
      .Default(std::nullopt);
}

bool flow::isInPlaceMethodName(llvm::StringRef Method) {
  return Method.ends_with("_");
}

bool flow::isTensorOfNumbers(llvm::StringRef Function) {
  return Function == "tensor" || Function == "scalar_tensor" ||
         Function == "full";
}

namespace {
/// `MPI_Comm`, `MPI_Datatype`, `MPI_Op`, `MPI_Group`, `MPI_Info`, `MPI_Win`
/// (through typedefs).
bool isMpiHandleType(QualType T) {
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    const auto *TT = T->getAs<TypedefType>();
    if (!TT)
      return false;
    llvm::StringRef Name = TT->getDecl()->getName();
    if (llvm::StringSwitch<bool>(Name)
            .Cases("MPI_Comm", "MPI_Datatype", "MPI_Op", "MPI_Group", true)
            .Cases("MPI_Info", "MPI_Win", "MPI_Errhandler", true)
            .Default(false))
      return true;
    T = TT->desugar();
  }
  return false;
}
} // namespace

bool flow::isCollectiveBufferType(QualType T) {
  T = T.getNonReferenceType();
  // MPI's handles (`MPI_Comm`, `MPI_Datatype`, `MPI_Op`, ...) are pointers
  // in Open MPI, but name what the library holds, not data.
  if (T->isPointerType())
    return !isMpiHandleType(T);
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  std::string Name = qualifiedName(*RD);
  return Name == "at::Tensor" || Name == "std::vector" ||
         Name == "c10::ArrayRef" || Name == "boost::mpi::inplace_t";
}

std::optional<RawCopy> flow::rawDataCopy(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || Call.getNumArgs() < 2)
    return std::nullopt;
  llvm::StringRef Name = identifierName(FD);
  if (Name == "memcpy" || Name == "memmove")
    return RawCopy{Call.getArg(0), Call.getArg(1)};
  if ((Name == "copy" || Name == "copy_n") && Call.getNumArgs() == 3)
    return RawCopy{Call.getArg(2), Call.getArg(0)};
  return std::nullopt;
}

bool flow::returnsGradients(const FunctionDecl &FD) {
  return qualifiedName(FD) == "torch::autograd::grad";
}

bool flow::namesGradientStorage(llvm::StringRef Name) {
  llvm::SmallVector<std::string, 4> Words = identifierWords(Name);
  auto IsGradientWord = [](llvm::StringRef W) {
    // Not a school's grades, nor a gradual warm-up.
    if (W.starts_with("grade") || W.starts_with("gradu") || W.starts_with("grada"))
      return false;
    return W.starts_with("grad") || W.starts_with("nabla");
  };
  // What is about gradients without holding one: `requires_grad_`,
  // `grad_fn_`, `grad_hooks_`, `grad_scaler_`, `grad_mode_`.
  auto IsAboutGradients = [](llvm::StringRef W) {
    return llvm::StringSwitch<bool>(W)
        .Cases("requires", "fn", "func", "function", "hook", "hooks", true)
        .Cases("mode", "enabled", "enable", "scaler", "clip", "norm", true)
        .Default(false);
  };
  if (llvm::any_of(Words, IsAboutGradients))
    return false;
  if (llvm::any_of(Words, IsGradientWord))
    return true;
  // `dw_`, `d_weight`, `dW`, `dbias`: the derivative of one weight tensor.
  std::string Joined;
  for (const std::string &W : Words)
    Joined += W;
  return llvm::StringSwitch<bool>(Joined)
      .Cases("dw", "db", "dweight", "dweights", "dbias", "dbiases", true)
      .Default(false);
}

bool flow::isLibraryFunction(const FunctionDecl &FD) {
  const NamespaceDecl *Outermost = nullptr;
  for (const DeclContext *DC = FD.getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Outermost = NS;
  return Outermost && llvm::StringSwitch<bool>(identifierName(Outermost))
                          .Cases("std", "torch", "at", "c10", "c10d", "boost",
                                 true)
                          .Default(false);
}

bool flow::isNumberType(QualType T) {
  T = T.getNonReferenceType();
  if (T->isArithmeticType() || T->isEnumeralType())
    return true;
  // What `item()` reads a tensor down to.
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD && RD->getName() == "Scalar";
}

bool flow::releasesStorage(const Stmt &Parent) {
  if (isa<CXXDeleteExpr>(Parent))
    return true;
  const auto *Call = dyn_cast<CallExpr>(&Parent);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  const DeclContext *Where = FD ? FD->getDeclContext()->getRedeclContext() : nullptr;
  return Where && (Where->isTranslationUnit() || Where->isStdNamespace()) &&
         identifierName(FD) == "free" && Call->getNumArgs() == 1;
}

} // namespace clang::tidy::ddp
