//===--- TensorMethods.cpp - LibTorch's tensor and module methods by name -===//

#include "vocabulary/TensorMethods.h"
#include "vocabulary/Vocabulary.h"

#include "clang/AST/DeclCXX.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp::tensors {

bool isCollectionView(llvm::StringRef Method) {
  return Method == "keys" || Method == "values" || Method == "items";
}

bool isModuleTensorCollection(llvm::StringRef Method) {
  return Method == "parameters" || Method == "named_parameters" ||
         Method == "buffers" || Method == "named_buffers";
}

bool isGradientAccessor(llvm::StringRef Method) {
  return Method == "grad" || Method == "mutable_grad";
}

bool yieldsSameTensor(llvm::StringRef Method) {
  return Method == "data" || Method == "detach" || Method == "value";
}

bool keepsShape(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("value", "detach", "data", "to", true)
      .Cases("view", "reshape", "flatten", "view_as", true)
      .Cases("contiguous", "clone", "at", true)
      .Default(false);
}

bool sharesStorage(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("data_ptr", "data", "detach", "view", "view_as", true)
      .Cases("reshape", "flatten", "slice", "narrow", "select", true)
      .Cases("squeeze", "unsqueeze", "t", "contiguous", "expand", true)
      .Cases("front", "back", "at", "value", true)
      .Default(false);
}

bool isDefinedQuery(llvm::StringRef Method) { return Method == "defined"; }

bool isElementCount(llvm::StringRef Method) { return Method == "numel"; }

bool readsNoElements(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("size", "empty", "numel", "dim", "sizes", "device", "dtype", true)
      .Cases("options", "defined", "scalar_type", "push_back", true)
      .Cases("emplace_back", "reserve", "capacity", true)
      .Default(false);
}

bool isHookRegistration(llvm::StringRef Function) {
  return Function == "register_hook";
}

bool isBackwardPass(const FunctionDecl &Callee) {
  if (identifierName(&Callee) != "backward")
    return false;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&Callee))
    return tensors::isTensorClass(*Method->getParent());
  return Callee.getQualifiedNameAsString() == "torch::autograd::backward";
}

bool isObjectFactory(llvm::StringRef Function) {
  return Function == "make_shared" || Function == "make_unique" ||
         Function == "make_intrusive";
}

bool isDeviceOptionsOrC10dType(llvm::StringRef QualifiedName) {
  return QualifiedName == "c10::Device" ||
         QualifiedName == "c10::TensorOptions" ||
         QualifiedName.starts_with("c10d::");
}

} // namespace clang::tidy::ddp::tensors
