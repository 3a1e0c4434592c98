//===--- StdIncludes.cpp - standard headers a unit forgot to include -----===//

#include "StdIncludes.h"

#include "clang/Tooling/Inclusions/StandardLibrary.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <optional>

namespace ddplint {
namespace {

/// The qualified std name an error message says is missing or incomplete:
/// "std::function" from "no template named 'function' in namespace 'std'",
/// "std::basic_ifstream" from "implicit instantiation of undefined template
/// 'std::basic_ifstream<char>'"; "" for other messages.
std::string missingName(llvm::StringRef Message) {
  static const llvm::Regex InNamespace(
      "^no (member|template|type) named '([A-Za-z_][A-Za-z0-9_]*)' in "
      "namespace '(std(::[A-Za-z_][A-Za-z0-9_]*)*)'");
  static const llvm::Regex Incomplete(
      "(undefined template|incomplete type) '(std(::[A-Za-z_][A-Za-z0-9_]*)+)");
  llvm::SmallVector<llvm::StringRef, 5> Groups;
  if (InNamespace.match(Message, &Groups))
    return (Groups[3] + "::" + Groups[2]).str();
  if (Incomplete.match(Message, &Groups))
    return Groups[2].str();
  return "";
}

/// The header of the standard library that declares Qualified, skipping
/// the library's inline namespaces (std::__cxx11::basic_stringstream).
std::optional<std::string> declaringHeader(llvm::StringRef Qualified) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Qualified.split(Parts, "::");
  std::string Scope;
  for (llvm::StringRef Part : llvm::ArrayRef(Parts).drop_back())
    if (!Part.starts_with("__"))
      Scope += (Part + "::").str();
  std::optional<clang::tooling::stdlib::Symbol> Symbol =
      clang::tooling::stdlib::Symbol::named(Scope, Parts.back());
  if (!Symbol)
    return std::nullopt;
  // A Header, or since LLVM 18 an optional one.
  std::optional<clang::tooling::stdlib::Header> Header = Symbol->header();
  if (!Header)
    return std::nullopt;
  return Header->name().trim("<>").str();
}

} // namespace

std::vector<std::string> missingStandardHeaders(llvm::ArrayRef<Finding> CompileErrors) {
  std::vector<std::string> Headers;
  for (const Finding &Error : CompileErrors) {
    std::string Name = missingName(Error.Message);
    if (Name.empty())
      continue;
    if (std::optional<std::string> Header = declaringHeader(Name))
      if (!llvm::is_contained(Headers, *Header))
        Headers.push_back(*Header);
  }
  return Headers;
}

std::vector<std::string> forcedIncludeArguments(llvm::ArrayRef<std::string> Headers) {
  std::vector<std::string> Arguments;
  for (const std::string &Header : Headers) {
    Arguments.push_back("-include");
    Arguments.push_back(Header);
  }
  return Arguments;
}

std::string describeAddedIncludes(llvm::ArrayRef<std::string> Headers) {
  std::vector<std::string> Bracketed;
  for (const std::string &Header : Headers)
    Bracketed.push_back("<" + Header + ">");
  return "uses standard names it never includes; analysed with " +
         llvm::join(Bracketed, ", ") +
         " added (as an older standard library included them)";
}

} // namespace ddplint
