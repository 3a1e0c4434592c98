//===--- AtomicWrite.cpp - files that are complete or absent --------------===//

#include "AtomicWrite.h"

#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace ddplint {

std::string writeAtomically(StringRef Path,
                            function_ref<void(raw_ostream &)> Write) {
  Expected<sys::fs::TempFile> Temp = sys::fs::TempFile::create(
      Path + ".tmp-%%%%%%", sys::fs::all_read | sys::fs::all_write);
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
  if (Error E = Temp->keep(Path)) {
    std::string Why = toString(std::move(E));
    consumeError(Temp->discard());
    return Why;
  }
  return "";
}

} // namespace ddplint
