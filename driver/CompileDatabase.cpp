//===--- CompileDatabase.cpp - where compile commands come from -----------===//

#include "CompileDatabase.h"

#include "clang/Driver/Types.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace ddplint {
namespace {

/// llvm::json's "[3:0, byte=83]: Expected , or ] after array element" as
/// "line 3, column 1: Expected , or ] after array element" (llvm::json
/// counts columns from 0, editors from 1).
std::string describeParseError(std::string Message) {
  StringRef Rest(Message);
  StringRef Line, Column;
  if (!Rest.consume_front("["))
    return Message;
  std::tie(Line, Rest) = Rest.split(':');
  std::tie(Column, Rest) = Rest.split(',');
  if (!Rest.contains("]: "))
    return Message;
  unsigned ColumnNumber;
  if (Column.getAsInteger(10, ColumnNumber))
    return Message;
  Rest = Rest.split("]: ").second;
  return "line " + Line.str() + ", column " + std::to_string(ColumnNumber + 1) +
         ": " + Rest.str();
}

/// The tool error for the JSON compile database at Path when it cannot be
/// read or is not valid JSON ("cannot use the compile database '...': it is
/// not valid JSON: line 3, column 1: Expected , or ] after array element"),
/// or "" when it parses.
std::string unusableJSON(StringRef Path) {
  auto Unusable = [&](const Twine &Why) {
    return ("cannot use the compile database '" + Path + "': " + Why).str();
  };
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return Unusable("cannot read it: " + Buffer.getError().message());
  Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed)
    return Unusable("it is not valid JSON: " +
                    describeParseError(toString(Parsed.takeError())));
  return "";
}

std::unique_ptr<tooling::CompilationDatabase> withoutFlags() {
  return std::make_unique<tooling::FixedCompilationDatabase>(
      ".", std::vector<std::string>());
}

/// After a database could not be used: the files named on the command
/// line are still analysed, with no flags.
std::unique_ptr<tooling::CompilationDatabase>
fallBack(ArrayRef<std::string> SourcePaths) {
  if (SourcePaths.empty())
    return nullptr;
  WithColor::warning(errs(), "ddplint")
      << "analysing the files named on the command line with no compiler "
         "flags\n";
  return withoutFlags();
}

/// -p: a database right in the build directory must load; only when there
/// is none are the other kinds searched for there, as clang tools do.
std::unique_ptr<tooling::CompilationDatabase>
fromBuildPath(StringRef BuildPath, ArrayRef<std::string> SourcePaths,
              function_ref<void(const std::string &)> Error) {
  std::string Why;
  // `-p build/compile_commands.json` means its folder.
  if (sys::path::filename(BuildPath) == "compile_commands.json" &&
      sys::fs::is_regular_file(BuildPath))
    BuildPath = sys::path::parent_path(BuildPath);
  if (BuildPath.empty())
    BuildPath = ".";
  if (!sys::fs::is_directory(BuildPath)) {
    Error("cannot use the compile database in '" + BuildPath.str() + "': " +
          (sys::fs::exists(BuildPath) ? "it is not a folder (-p names the "
                                        "build folder that holds "
                                        "compile_commands.json)"
                                      : "there is no such folder"));
    return fallBack(SourcePaths);
  }
  SmallString<256> Json(BuildPath);
  sys::path::append(Json, "compile_commands.json");
  std::unique_ptr<tooling::CompilationDatabase> DB;
  if (!sys::fs::exists(Json)) {
    DB = tooling::CompilationDatabase::autoDetectFromDirectory(BuildPath, Why);
  } else if (std::string Unusable = unusableJSON(Json); !Unusable.empty()) {
    Error(Unusable);
    return fallBack(SourcePaths);
  } else {
    DB = tooling::JSONCompilationDatabase::loadFromFile(
        Json, Why, tooling::JSONCommandLineSyntax::AutoDetect);
  }
  if (!DB) {
    Error("cannot use the compile database in '" + BuildPath.str() +
          "': " + Why);
    return fallBack(SourcePaths);
  }
  return tooling::inferMissingCompileCommands(std::move(DB));
}

/// The flags after '--' as given, when clang's driver rejects one of them
/// (an option of another compiler): the unit's parse then reports it as a
/// compile error, as it would from a compile database, and the analysis
/// goes on. Argc is cut before '--'.
std::unique_ptr<tooling::CompilationDatabase>
flagsAsGiven(int Argc, const char **Argv, int &OwnArgc) {
  std::vector<std::string> Flags;
  OwnArgc = Argc;
  for (int I = 1; I < Argc; ++I)
    if (StringRef(Argv[I]) == "--") {
      OwnArgc = I;
      Flags.assign(Argv + I + 1, Argv + Argc);
      break;
    }
  return std::make_unique<tooling::FixedCompilationDatabase>(".", Flags);
}

} // namespace

std::string compileDatabaseFolder(StringRef File) {
  SmallString<256> Path(File);
  if (sys::fs::make_absolute(Path))
    return "";
  for (StringRef Dir = sys::path::parent_path(Path); !Dir.empty();
       Dir = sys::path::parent_path(Dir))
    for (StringRef Inside : {"", "build"}) {
      SmallString<256> Folder(Dir);
      sys::path::append(Folder, Inside);
      for (StringRef Name : {"compile_commands.json", "compile_flags.txt"}) {
        SmallString<256> Candidate(Folder);
        sys::path::append(Candidate, Name);
        if (sys::fs::exists(Candidate))
          return std::string(Folder);
      }
    }
  return "";
}

std::unique_ptr<tooling::CompilationDatabase>
loadCompilations(int &Argc, const char **Argv, StringRef BuildPath,
                 ArrayRef<std::string> SourcePaths,
                 function_ref<void(const std::string &)> Error,
                 std::string *Found) {
  std::string Why;
  int Before = Argc;
  std::unique_ptr<tooling::CompilationDatabase> DB =
      tooling::FixedCompilationDatabase::loadFromCommandLine(Argc, Argv, Why);
  if (!Why.empty()) {
    if (StringRef(Why).contains("unknown argument"))
      return flagsAsGiven(Before, Argv, Argc);
    Error(Why);
    return nullptr;
  }
  if (DB)
    return DB;
  if (!BuildPath.empty()) {
    if (Found)
      *Found = BuildPath.str();
    return fromBuildPath(BuildPath, SourcePaths, Error);
  }

  if (std::string Folder = SourcePaths.empty()
                               ? std::string()
                               : compileDatabaseFolder(SourcePaths[0]);
      !Folder.empty()) {
    SmallString<256> Json(Folder);
    sys::path::append(Json, "compile_commands.json");
    if (std::string Unusable =
            sys::fs::exists(Json) ? unusableJSON(Json) : std::string();
        !Unusable.empty()) {
      Error(Unusable);
      return fallBack(SourcePaths);
    }
    DB = tooling::CompilationDatabase::autoDetectFromDirectory(Folder, Why);
    if (DB) {
      if (Found)
        *Found = Folder;
      return tooling::inferMissingCompileCommands(std::move(DB));
    }
  }
  // Nothing describes how to compile the files: parse them with no flags,
  // as clang-tidy does, and say so.
  WithColor::warning(errs(), "ddplint")
      << "no compile database found; parsing with no compiler flags "
         "(pass -p <build dir> or '-- <flags>')\n";
  return withoutFlags();
}

/// Whether clang knows Path's extension as a C-family source or header
/// (a Python script given by mistake is not).
namespace {

/// Extensions of C++ and CUDA headers clang's driver does not know.
bool isHeaderLikeExtension(StringRef Ext) {
  static constexpr StringLiteral Headers[] = {"cuh", "inl", "ipp", "tpp",
                                              "tcc", "txx", "inc"};
  return llvm::is_contained(Headers, Ext.lower());
}

} // namespace

bool isSourceFile(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return Ext.empty() || isHeaderLikeExtension(Ext.drop_front()) ||
         driver::types::lookupTypeForExtension(Ext.drop_front()) !=
             driver::types::TY_INVALID;
}

/// A header analysed alone is C++ (clang would take a .h for C): ddplint's
/// code is C++, and so is every header it is meant for.
tooling::CommandLineArguments
headersAsCpp(const tooling::CommandLineArguments &Args, StringRef File) {
  StringRef Ext = sys::path::extension(File);
  if (Ext.empty() ||
      (!isHeaderLikeExtension(Ext.drop_front()) &&
       !driver::types::onlyPrecompileType(
           driver::types::lookupTypeForExtension(Ext.drop_front()))) ||
      llvm::any_of(Args, [](StringRef A) { return A.starts_with("-x"); }))
    return Args;
  tooling::CommandLineArguments Adjusted = Args;
  Adjusted.insert(Adjusted.begin() + (Adjusted.empty() ? 0 : 1),
                  {"-x", "c++-header"});
  return Adjusted;
}

} // namespace ddplint
