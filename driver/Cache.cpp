//===--- Cache.cpp - findings reused across runs --------------------------===//

#include "Cache.h"

#include "AtomicWrite.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

using namespace llvm;

namespace ddplint {
namespace {

/// Bumped whenever the entry format or the meaning of a key changes.
constexpr int64_t EntryFormat = 1;

std::string hex64(uint64_t V) {
  return utohexstr(V, /*LowerCase=*/true, /*Width=*/16);
}

/// The binary's own identity: its path, size and modification time. A
/// rebuilt ddplint (new checks, same version number) invalidates the cache.
std::string binaryIdentity() {
  static const std::string Identity = [] {
    std::string Self =
        sys::fs::getMainExecutable(nullptr, reinterpret_cast<void *>(&hex64));
    sys::fs::file_status Status;
    if (Self.empty() || sys::fs::status(Self, Status))
      return std::string(DDPLINT_VERSION);
    return std::string(DDPLINT_VERSION) + "\n" + Self + "\n" +
           std::to_string(Status.getSize()) + "\n" +
           std::to_string(
               Status.getLastModificationTime().time_since_epoch().count());
  }();
  return Identity;
}

struct Dependency {
  std::string Path;
  uint64_t Size = 0;
  int64_t MTime = 0; ///< Nanoseconds since the epoch.
  std::string Hash;
};

int64_t mtimeOf(const sys::fs::file_status &S) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             S.getLastModificationTime().time_since_epoch())
      .count();
}

/// The entry's payload checksum: a truncated or edited entry that still
/// parses as JSON is caught here.
std::string checksum(const json::Value &Payload) {
  std::string Text;
  raw_string_ostream(Text) << Payload;
  return hex64(xxHash64(Text));
}

} // namespace

FindingsCache::FindingsCache(std::string Dir, uint64_t SizeLimit)
    : Dir(std::move(Dir)), SizeLimit(SizeLimit) {}

std::string FindingsCache::defaultDirectory() {
  if (std::optional<std::string> D = sys::Process::GetEnv("DDPLINT_CACHE_DIR"))
    if (!D->empty())
      return *D;
  SmallString<256> Path;
  if (std::optional<std::string> X = sys::Process::GetEnv("XDG_CACHE_HOME");
      X && !X->empty()) {
    Path = *X;
  } else if (!sys::path::home_directory(Path)) {
    return "";
  } else {
    sys::path::append(Path, ".cache");
  }
  sys::path::append(Path, "ddplint");
  return std::string(Path);
}

std::string FindingsCache::key(StringRef File, StringRef Directory,
                               const std::vector<std::string> &CommandLine,
                               StringRef Configuration) {
  SHA256 Hash;
  auto Add = [&](StringRef S) {
    Hash.update(S);
    Hash.update(StringRef("\0", 1));
  };
  Add("ddplint-cache-key/" + std::to_string(EntryFormat));
  Add(binaryIdentity());
  Add(File);
  Add(Directory);
  for (const std::string &Arg : CommandLine)
    Add(Arg);
  Add(Configuration);
  return toHex(Hash.final(), /*LowerCase=*/true).substr(0, 40);
}

std::optional<std::string> hashFile(StringRef Path) {
  auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  return hex64(xxHash64((*Buffer)->getBuffer()));
}

std::string FindingsCache::entryPath(StringRef Key) const {
  SmallString<256> Path(Dir);
  sys::path::append(Path, "units", Key.take_front(2), Key + ".json");
  return std::string(Path);
}

std::optional<UnitResult> FindingsCache::lookup(StringRef Key,
                                                std::string &Why) {
  std::string Path = entryPath(Key);
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer) {
    Why = "not in the cache";
    return std::nullopt;
  }
  Why = "unreadable cache entry";
  Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return std::nullopt;
  }
  const json::Object *Entry = Parsed->getAsObject();
  if (!Entry || Entry->getInteger("format") != EntryFormat)
    return std::nullopt;
  const json::Value *Payload = Entry->get("payload");
  std::optional<StringRef> Sum = Entry->getString("checksum");
  if (!Payload || !Sum || *Sum != checksum(*Payload))
    return std::nullopt;
  const json::Object *P = Payload->getAsObject();
  const json::Array *Deps = P ? P->getArray("dependencies") : nullptr;
  const json::Value *Result = P ? P->get("result") : nullptr;
  if (!Deps || !Result)
    return std::nullopt;

  for (const json::Value &D : *Deps) {
    const json::Object *O = D.getAsObject();
    std::optional<StringRef> DepPath = O ? O->getString("path") : std::nullopt;
    std::optional<int64_t> Size = O ? O->getInteger("size") : std::nullopt;
    std::optional<int64_t> MTime = O ? O->getInteger("mtime") : std::nullopt;
    std::optional<StringRef> Hash = O ? O->getString("hash") : std::nullopt;
    if (!DepPath || !Size || !MTime || !Hash)
      return std::nullopt;
    Why = DepPath->str() + " changed";
    sys::fs::file_status Status;
    if (sys::fs::status(*DepPath, Status) ||
        Status.getSize() != static_cast<uint64_t>(*Size))
      return std::nullopt;
    if (mtimeOf(Status) == *MTime)
      continue;
    // Touched: the contents decide.
    std::optional<std::string> Now = hashFile(*DepPath);
    if (!Now || *Now != *Hash)
      return std::nullopt;
  }

  UnitResult Out;
  json::Path::Root Root("result");
  if (!fromJSON(*Result, Out, Root)) {
    consumeError(Root.getError());
    Why = "unreadable cache entry";
    return std::nullopt;
  }
  // Recently used: trim() evicts by modification time.
  if (auto FD = sys::fs::openNativeFileForWrite(
          Path, sys::fs::CD_OpenExisting, sys::fs::OF_Append)) {
    (void)sys::fs::setLastAccessAndModificationTime(*FD,
                                                    sys::toTimePoint(time(nullptr)));
    sys::fs::closeFile(*FD);
  } else {
    consumeError(FD.takeError());
  }
  Why.clear();
  return Out;
}

void FindingsCache::store(StringRef Key, const UnitResult &Result,
                          const std::vector<std::string> &Dependencies) {
  std::vector<std::string> Paths = Dependencies;
  std::sort(Paths.begin(), Paths.end());
  Paths.erase(std::unique(Paths.begin(), Paths.end()), Paths.end());
  json::Array Deps;
  for (const std::string &P : Paths) {
    sys::fs::file_status Status;
    std::optional<std::string> Hash = hashFile(P);
    if (sys::fs::status(P, Status) || !Hash)
      return; // A file that vanished mid-run: nothing safe to store.
    Deps.push_back(json::Object{{"path", P},
                                {"size", static_cast<int64_t>(Status.getSize())},
                                {"mtime", mtimeOf(Status)},
                                {"hash", *Hash}});
  }
  json::Value Payload = json::Object{{"dependencies", std::move(Deps)},
                                     {"result", toJSON(Result)}};
  std::string Sum = checksum(Payload);
  json::Object Entry{{"format", EntryFormat},
                     {"checksum", Sum},
                     {"payload", std::move(Payload)}};

  std::string Path = entryPath(Key);
  if (sys::fs::create_directories(sys::path::parent_path(Path)))
    return;
  (void)writeAtomically(Path, [&](raw_ostream &OS) {
    OS << json::Value(std::move(Entry));
  });
}

void FindingsCache::trim() {
  struct Item {
    std::string Path;
    uint64_t Size;
    sys::TimePoint<> Used;
  };
  std::vector<Item> Items;
  uint64_t Total = 0;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC)) {
    sys::fs::file_status Status;
    if (sys::fs::status(I->path(), Status) ||
        Status.type() != sys::fs::file_type::regular_file)
      continue;
    Items.push_back({I->path(), Status.getSize(),
                     Status.getLastModificationTime()});
    Total += Status.getSize();
  }
  if (Total <= SizeLimit)
    return;
  std::sort(Items.begin(), Items.end(), [](const Item &A, const Item &B) {
    return A.Used < B.Used;
  });
  for (const Item &I : Items) {
    if (Total <= SizeLimit)
      break;
    if (!sys::fs::remove(I.Path))
      Total -= I.Size;
  }
}

} // namespace ddplint
