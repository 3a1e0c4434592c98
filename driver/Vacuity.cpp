//===--- Vacuity.cpp - analyses that saw nothing --------------------------===//

#include "Vacuity.h"

#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticLex.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace clang;
using namespace llvm;

namespace ddplint {
namespace {

/// Argument I of a diagnostic when it is a string, else "".
std::string stringArgument(const Diagnostic &Info, unsigned I) {
  if (I >= Info.getNumArgs())
    return "";
  switch (Info.getArgKind(I)) {
  case DiagnosticsEngine::ak_std_string:
    return Info.getArgStdStr(I);
  case DiagnosticsEngine::ak_c_string:
    return Info.getArgCStr(I);
  default:
    return "";
  }
}

/// Stops at the Limit-th function definition or lambda it meets.
class FunctionCounter : public RecursiveASTVisitor<FunctionCounter> {
public:
  explicit FunctionCounter(unsigned Limit) : Limit(Limit) {}

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() && !FD->isImplicit() &&
        !FD->isInvalidDecl())
      ++Count;
    return Count < Limit;
  }
  bool VisitLambdaExpr(LambdaExpr *) { return ++Count < Limit; }

  unsigned Count = 0;

private:
  unsigned Limit;
};

/// Roots of LibTorch's include tree where packages and the official
/// archive put it; the first directory of a LibTorch header ("torch/",
/// "ATen/", "c10/") lies under one of them.
constexpr llvm::StringLiteral IncludeRoots[] = {
    "/usr/include/torch/csrc/api/include",
    "/usr/local/include/torch/csrc/api/include",
    "/opt/libtorch/include/torch/csrc/api/include",
    "/opt/libtorch/include",
    "/usr/local/libtorch/include/torch/csrc/api/include",
    "/usr/local/libtorch/include",
    "/usr/local/cuda/include",
};

/// The headers ddplint's SDK fallback declares (SdkFallback.h): missing,
/// they mean the fallback was turned off.
bool isFallbackHeader(StringRef Header) {
  return Header == "mpi.h" || Header == "nccl.h" ||
         Header == "cuda_runtime.h" || Header == "cuda_runtime_api.h" ||
         Header == "boost/mpi.hpp";
}

bool isLibTorchHeader(StringRef Header) {
  StringRef First = Header.split('/').first;
  return Header.contains('/') &&
         (First == "torch" || First == "ATen" || First == "c10" ||
          First == "caffe2");
}

/// What NUL bytes among the first of File's say: none, text in UTF-16 or
/// UTF-32 without a byte order mark (the NULs every other byte, or more),
/// or binary data (an object file, an executable, an archive).
enum class NulBytes { None, WideText, Binary };
NulBytes nulBytes(StringRef File) {
  auto Buffer = MemoryBuffer::getFile(File, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return NulBytes::None;
  StringRef Head = (*Buffer)->getBuffer().take_front(4096);
  if (!Head.contains('\0'))
    return NulBytes::None;
  // ASCII text widened: the high bytes, at odd offsets (little-endian) or
  // even ones (big-endian), are nearly all zero.
  size_t Pairs = Head.size() / 2, ZeroOdd = 0, ZeroEven = 0;
  for (size_t I = 0; I + 1 < Head.size(); I += 2) {
    ZeroEven += Head[I] == '\0';
    ZeroOdd += Head[I + 1] == '\0';
  }
  bool Wide = Pairs && std::max(ZeroOdd, ZeroEven) * 10 >= Pairs * 9;
  return Wide ? NulBytes::WideText : NulBytes::Binary;
}

/// Records a header not found (Why empty) or not opened. A header that
/// could not be opened is then also not found: it is named once.
void addMissing(std::vector<VacuityFacts::MissingHeader> &Missing,
                std::string Name, std::string Why) {
  if (Name.empty())
    return;
  for (const VacuityFacts::MissingHeader &M : Missing)
    if (M.Name == Name ||
        (!M.Why.empty() && StringRef(M.Name).ends_with("/" + Name)))
      return;
  Missing.push_back({std::move(Name), std::move(Why)});
}

std::string missingHeaders(const VacuityFacts &Facts) {
  const std::vector<VacuityFacts::MissingHeader> &Missing =
      Facts.MissingHeaders;
  const VacuityFacts::MissingHeader &First = Missing.front();
  std::string Cause =
      First.Why.empty()
          ? "'" + First.Name + "' file not found " + includeAdvice(First.Name)
          : "cannot open '" + First.Name + "': " + First.Why;
  if (Missing.size() == 1)
    return Cause;
  constexpr size_t Named = 3;
  std::vector<std::string> Others;
  for (size_t I = 1; I < Missing.size() && I <= Named; ++I)
    Others.push_back("'" + Missing[I].Name + "'");
  Cause += "; not found or not opened either: " + join(Others, ", ");
  if (Missing.size() > Named + 1)
    Cause += " and " + std::to_string(Missing.size() - Named - 1) + " more";
  return Cause;
}

std::string unreadableEncoding(const VacuityFacts &Facts,
                               const UnitResult &Result) {
  std::string Where = Facts.EncodedFile == Result.File
                          ? "the file"
                          : "'" + Facts.EncodedFile + "'";
  StringRef Name = StringRef(Facts.Encoding).split(' ').first; // "UTF-16"
  return Where + " is encoded in " + Facts.Encoding +
         ", by its byte order mark; clang reads only UTF-8 (convert it, "
         "e.g. iconv -f " +
         Name.str() + " -t UTF-8)";
}

std::string nothingAnalysed(const UnitResult &Result) {
  size_t Errors = Result.CompileErrors.size();
  const Finding &First = Result.CompileErrors.front();
  std::string Cause = "no function definition was left to analyse after " +
                      std::to_string(Errors) + " compile error" +
                      (Errors == 1 ? "" : "s") + " (the first";
  if (First.Where.Line)
    Cause += ", line " + std::to_string(First.Where.Line) +
             (First.Where.File == Result.File
                  ? std::string()
                  : " of '" + First.Where.File + "'");
  Cause += ": " + First.Message + ")";
  switch (nulBytes(Result.File)) {
  case NulBytes::None:
    break;
  case NulBytes::WideText:
    Cause += "; the file holds NUL bytes: UTF-16 or UTF-32 text without a "
             "byte order mark? convert it to UTF-8";
    break;
  case NulBytes::Binary:
    Cause += "; the file holds binary data, not source code (an object "
             "file, an executable or an archive?)";
    break;
  }
  return Cause;
}

} // namespace

void VacuityRecorder::HandleDiagnostic(DiagnosticsEngine::Level Level,
                                       const Diagnostic &Info) {
  unsigned ID = Info.getID();
  if (ID == diag::err_pp_file_not_found) {
    addMissing(Facts.MissingHeaders, stringArgument(Info, 0), "");
  } else if (ID == diag::err_cannot_open_file) {
    addMissing(Facts.MissingHeaders, stringArgument(Info, 0),
               stringArgument(Info, 1));
  } else if (ID == diag::err_unsupported_bom) {
    if (Facts.Encoding.empty()) {
      Facts.Encoding = stringArgument(Info, 0);
      Facts.EncodedFile = stringArgument(Info, 1);
    }
  } else if (Level == DiagnosticsEngine::Fatal && Facts.Fatal.empty()) {
    SmallString<128> Message;
    Info.FormatDiagnostic(Message);
    Facts.Fatal = std::string(Message);
  }
  Target.HandleDiagnostic(Level, Info);
  // The counts are the target's, as if it were the client itself.
  NumWarnings = Target.getNumWarnings();
  NumErrors = Target.getNumErrors();
}

void VacuityRecorder::clear() {
  Target.clear();
  DiagnosticConsumer::clear();
}

unsigned countFunctions(ArrayRef<Decl *> Scope, unsigned Limit) {
  FunctionCounter Counter(Limit);
  for (Decl *D : Scope)
    if (!Counter.TraverseDecl(D))
      break;
  return Counter.Count;
}

std::string vacuityCause(const VacuityFacts &Facts, const UnitResult &Result) {
  if (!Facts.MissingHeaders.empty())
    return missingHeaders(Facts);
  if (!Facts.Encoding.empty())
    return unreadableEncoding(Facts, Result);
  if (!Facts.Fatal.empty())
    return "fatal error: " + Facts.Fatal;
  if (Result.CompileErrors.empty() || Facts.Functions)
    return "";
  return nothingAnalysed(Result);
}

std::string includeAdvice(StringRef Header) {
  for (StringRef Root : IncludeRoots) {
    SmallString<256> Path(Root);
    sys::path::append(Path, Header);
    if (sys::fs::exists(Path))
      return "(add its include path, e.g. -isystem " + Root.str() + ")";
  }
  if (isFallbackHeader(Header))
    return "(add the SDK's include path, or drop --no-sdk-fallback to use "
           "ddplint's own declarations)";
  if (isLibTorchHeader(Header))
    return "(add LibTorch's include paths: -isystem <libtorch>/include "
           "-isystem <libtorch>/include/torch/csrc/api/include)";
  return "(add the directory that holds it to the include path, -I<dir> "
         "after '--' or --extra-arg=-I<dir>; a header generated at build "
         "time must be generated first)";
}

} // namespace ddplint
