//===--- AtomicWrite.cpp - files that are complete or absent --------------===//

#include "AtomicWrite.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <optional>

using namespace llvm;

namespace ddplint {

std::string writeAtomically(StringRef Path,
                            function_ref<void(raw_ostream &)> Write) {
  // Through a symbolic link: its target is replaced, the link stays.
  SmallString<256> Target;
  if (sys::fs::real_path(Path, Target))
    Target = Path; // not there yet
  std::optional<sys::fs::perms> Existing;
  if (ErrorOr<sys::fs::perms> Mode = sys::fs::getPermissions(Target))
    Existing = *Mode;
  Expected<sys::fs::TempFile> Temp = sys::fs::TempFile::create(
      Target + ".tmp-%%%%%%",
      Existing.value_or(sys::fs::all_read | sys::fs::all_write));
  if (!Temp)
    return toString(Temp.takeError());
  {
    raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
    Write(OS);
    OS.flush();
    if (OS.has_error()) {
      std::string Why = OS.error().message();
      OS.clear_error();
      consumeError(Temp->discard());
      return Why;
    }
  }
  // The temporary was created with the umask applied: a file replaced keeps
  // its own mode, a new one gets the umask's.
  if (Existing)
    sys::fs::setPermissions(Temp->FD, *Existing);
  if (Error E = Temp->keep(Target)) {
    std::string Why = toString(std::move(E));
    consumeError(Temp->discard());
    return Why;
  }
  return "";
}

std::string unwritable(StringRef Path) {
  if (sys::fs::is_directory(Path))
    return "it is a folder";
  SmallString<256> Folder(sys::path::parent_path(Path));
  if (Folder.empty())
    Folder = ".";
  if (!sys::fs::is_directory(Folder))
    return ("there is no folder '" + Folder + "'").str();
  if (sys::fs::access(Folder, sys::fs::AccessMode::Write))
    return ("the folder '" + Folder + "' is not writable").str();
  return "";
}

} // namespace ddplint
