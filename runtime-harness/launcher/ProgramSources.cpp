//===- ProgramSources.cpp - The translation units of a flagged program ----===//
//
// A flagged file that defines main is often one of several files of its
// program. When a compile database (compile_commands.json) is found, the
// program's units are taken from it by this rule:
//
//   the flagged file, and every other unit of the database in the same
//   directory that does not define main itself (other programs' mains in
//   that directory are left out).
//
// The flagged file's own -I, -isystem and -D flags from the database are
// kept. The database is looked for as clang's tools do, from the file's
// directory upwards, in each directory and its build/ subdirectory;
// $DDP_HARNESS_COMPILE_COMMANDS names one explicitly. Without a database, or
// with the first one found not listing the flagged file, the program is the
// flagged file alone.
//
//===----------------------------------------------------------------------===//

#include "Programs.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace ddpharness;
namespace json = llvm::json;

namespace {

std::string findCompileDatabase(const std::string &File) {
  if (const char *Env = std::getenv("DDP_HARNESS_COMPILE_COMMANDS");
      Env && *Env)
    return Env;
  llvm::StringRef Dir = llvm::sys::path::parent_path(File);
  for (; !Dir.empty(); Dir = llvm::sys::path::parent_path(Dir))
    for (const char *Sub : {"", "/build"}) {
      std::string Candidate = Dir.str() + Sub + "/compile_commands.json";
      if (llvm::sys::fs::exists(Candidate))
        return Candidate;
    }
  return "";
}

/// An entry's arguments: "arguments", or "command" split at blanks.
std::vector<std::string> entryArguments(const json::Object &Entry) {
  std::vector<std::string> Args;
  if (const json::Array *A = Entry.getArray("arguments")) {
    for (const json::Value &V : *A)
      if (auto S = V.getAsString())
        Args.push_back(S->str());
    return Args;
  }
  llvm::SmallVector<llvm::StringRef, 32> Parts;
  Entry.getString("command").value_or("").split(Parts, ' ', -1, false);
  for (llvm::StringRef P : Parts)
    Args.push_back(P.str());
  return Args;
}

/// -I/-isystem (made absolute against \p Dir) and -D flags of \p Args.
void keepFlags(const std::vector<std::string> &Args, const std::string &Dir,
               ProgramSources &Out) {
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    for (llvm::StringRef Flag : {"-isystem", "-I", "-D"}) {
      if (!A.starts_with(Flag))
        continue;
      std::string Value = A.size() > Flag.size() ? A.substr(Flag.size()).str()
                          : I + 1 < Args.size() ? Args[++I]
                                                : "";
      if (Flag == "-D") {
        Out.Definitions.push_back(Value);
      } else if (!Value.empty()) {
        llvm::SmallString<256> Path(Value);
        llvm::sys::fs::make_absolute(Dir, Path);
        llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
        Out.IncludeDirs.push_back(std::string(Path));
      }
      break;
    }
  }
}

bool fileDefinesMain(const std::string &Path) {
  auto Text = llvm::MemoryBuffer::getFile(Path);
  return Text && definesMain((*Text)->getBuffer().str());
}

} // namespace

ProgramSources ddpharness::programSources(const std::string &File) {
  ProgramSources Out;
  Out.Files.push_back(File);
  Out.Database = findCompileDatabase(File);
  if (Out.Database.empty())
    return Out;
  auto Text = llvm::MemoryBuffer::getFile(Out.Database);
  if (!Text)
    return Out;
  llvm::Expected<json::Value> Doc = json::parse((*Text)->getBuffer());
  if (!Doc || !Doc->getAsArray()) {
    llvm::consumeError(Doc.takeError());
    return Out;
  }
  llvm::SmallString<256> Flagged(File);
  llvm::sys::path::remove_dots(Flagged, /*remove_dot_dot=*/true);
  llvm::StringRef FileDir = llvm::sys::path::parent_path(Flagged);
  bool Listed = false;
  for (const json::Value &V : *Doc->getAsArray()) {
    const json::Object *Entry = V.getAsObject();
    if (!Entry)
      continue;
    std::string Dir = Entry->getString("directory").value_or("").str();
    llvm::SmallString<256> Path(Entry->getString("file").value_or(""));
    llvm::sys::fs::make_absolute(Dir, Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
    if (Path == Flagged) {
      Listed = true;
      keepFlags(entryArguments(*Entry), Dir, Out);
      continue;
    }
    if (llvm::sys::path::parent_path(Path) != FileDir ||
        llvm::is_contained(Out.Files, std::string(Path)) ||
        Path == Flagged ||
        fileDefinesMain(std::string(Path)))
      continue;
    Out.Files.push_back(std::string(Path));
  }
  // A database that does not list the flagged file describes another
  // project (an enclosing one): the file is built alone.
  if (!Listed) {
    Out.Files.resize(1);
    Out.Database.clear();
  }
  return Out;
}
