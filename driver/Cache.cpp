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
constexpr int64_t EntryFormat = 3; // 2: a result may be "vacuous";
                                   // 3: dependency tables as text

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

namespace {

/// Describes each of Paths (sorted, without repeats) in a dependency
/// table: one row per file, "size mtime hash path", the path last (it may
/// hold spaces). One string rather than an array of objects: a warm run
/// reads thousands of rows, and building them as JSON objects was most of
/// its time. None when a file cannot be read or a path holds a line break.
std::optional<std::string> describe(std::vector<std::string> Paths) {
  std::sort(Paths.begin(), Paths.end());
  Paths.erase(std::unique(Paths.begin(), Paths.end()), Paths.end());
  std::string Table;
  raw_string_ostream OS(Table);
  for (const std::string &P : Paths) {
    if (P.find_first_of("\n\r") != std::string::npos)
      return std::nullopt; // A path no row can hold.
    sys::fs::file_status Status;
    std::optional<std::string> Hash = hashFile(P);
    if (sys::fs::status(P, Status) || !Hash)
      return std::nullopt; // A file that vanished mid-run.
    OS << Status.getSize() << ' ' << mtimeOf(Status) << ' ' << *Hash << ' '
       << P << '\n';
  }
  return Table;
}

/// One row of a dependency table.
struct DependencyRow {
  uint64_t Size = 0;
  int64_t MTime = 0;
  StringRef Hash;
  StringRef Path;
};

/// Parses Row; None when it is damaged.
std::optional<DependencyRow> parseRow(StringRef Row) {
  DependencyRow D;
  auto [Size, Rest] = Row.split(' ');
  auto [MTime, Rest2] = Rest.split(' ');
  std::tie(D.Hash, D.Path) = Rest2.split(' ');
  if (Size.getAsInteger(10, D.Size) || MTime.getAsInteger(10, D.MTime) ||
      D.Hash.empty() || D.Path.empty())
    return std::nullopt;
  return D;
}

} // namespace

FindingsCache::FileNow FindingsCache::fileNow(StringRef Path, bool WantHash) {
  std::lock_guard<std::mutex> Guard(NowLock);
  auto [It, New] = Now.try_emplace(Path.str());
  FileNow &F = It->second;
  if (New) {
    sys::fs::file_status Status;
    F.Exists = !sys::fs::status(Path, Status);
    F.Size = F.Exists ? Status.getSize() : 0;
    F.MTime = F.Exists ? mtimeOf(Status) : 0;
  }
  if (WantHash && F.Exists && !F.Hashed) {
    F.Hash = hashFile(Path);
    F.Hashed = true;
  }
  return F;
}

bool FindingsCache::unchanged(StringRef Table, std::string &Why) {
  while (!Table.empty()) {
    StringRef Row;
    std::tie(Row, Table) = Table.split('\n');
    std::optional<DependencyRow> D = parseRow(Row);
    if (!D) {
      Why = "unreadable cache entry";
      return false;
    }
    FileNow F = fileNow(D->Path, /*WantHash=*/false);
    bool Same = F.Exists && F.Size == D->Size;
    if (Same && F.MTime != D->MTime) {
      // Touched: the contents decide.
      F = fileNow(D->Path, /*WantHash=*/true);
      Same = F.Hash && *F.Hash == D->Hash;
    }
    if (!Same) {
      Why = D->Path.str() + " changed";
      return false;
    }
  }
  Why.clear();
  return true;
}

namespace {

/// True when none of the paths in Absent (if any) exists; otherwise Why
/// names the first that does.
bool stillAbsent(const json::Array *Absent, std::string &Why) {
  if (!Absent)
    return true;
  for (const json::Value &A : *Absent) {
    std::optional<StringRef> Path = A.getAsString();
    if (!Path) {
      Why = "unreadable cache entry";
      return false;
    }
    if (sys::fs::exists(*Path)) {
      Why = Path->str() + " appeared";
      return false;
    }
  }
  return true;
}

/// Reads an entry or a shared set: its payload, when the file parses and
/// its checksum matches.
std::optional<json::Value> readChecked(StringRef Path) {
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return std::nullopt;
  Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return std::nullopt;
  }
  json::Object *Entry = Parsed->getAsObject();
  if (!Entry || Entry->getInteger("format") != EntryFormat)
    return std::nullopt;
  json::Value *Payload = Entry->get("payload");
  std::optional<StringRef> Sum = Entry->getString("checksum");
  if (!Payload || !Sum || *Sum != checksum(*Payload))
    return std::nullopt;
  return std::move(*Payload);
}

/// Writes Payload with its checksum, atomically.
bool writeChecked(StringRef Path, json::Value Payload) {
  std::string Sum = checksum(Payload);
  json::Object Entry{{"format", EntryFormat},
                     {"checksum", Sum},
                     {"payload", std::move(Payload)}};
  if (sys::fs::create_directories(sys::path::parent_path(Path)))
    return false;
  return writeAtomically(Path, [&](raw_ostream &OS) {
           OS << json::Value(std::move(Entry));
         }).empty();
}

/// Marks a file recently used: trim() evicts by modification time.
void touch(StringRef Path) {
  if (auto FD = sys::fs::openNativeFileForWrite(
          Path, sys::fs::CD_OpenExisting, sys::fs::OF_Append)) {
    (void)sys::fs::setLastAccessAndModificationTime(
        *FD, sys::toTimePoint(time(nullptr)));
    sys::fs::closeFile(*FD);
  } else {
    consumeError(FD.takeError());
  }
}

} // namespace

std::string FindingsCache::sharedPath(StringRef Name) const {
  SmallString<256> Path(Dir);
  sys::path::append(Path, "shared", Name.take_front(2), Name + ".json");
  return std::string(Path);
}

bool FindingsCache::sharedUnchanged(StringRef Name, std::string &Why) {
  std::lock_guard<std::mutex> Guard(SharedLock);
  auto [It, New] = SharedChecked.try_emplace(Name.str());
  if (New) {
    std::string Path = sharedPath(Name);
    std::optional<json::Value> Payload = readChecked(Path);
    std::optional<StringRef> Deps =
        Payload ? Payload->getAsString() : std::nullopt;
    if (!Deps)
      It->second = "unreadable cache entry";
    else if (unchanged(*Deps, It->second))
      touch(Path);
  }
  Why = It->second;
  return Why.empty();
}

std::optional<UnitResult> FindingsCache::lookup(StringRef Key,
                                                std::string &Why) {
  std::string Path = entryPath(Key);
  if (!sys::fs::exists(Path)) {
    Why = "not in the cache";
    return std::nullopt;
  }
  Why = "unreadable cache entry";
  std::optional<json::Value> Payload = readChecked(Path);
  const json::Object *P = Payload ? Payload->getAsObject() : nullptr;
  std::optional<StringRef> Deps =
      P ? P->getString("dependencies") : std::nullopt;
  const json::Value *Result = P ? P->get("result") : nullptr;
  if (!Deps || !Result)
    return std::nullopt;
  if (std::optional<StringRef> Shared = P->getString("shared"))
    if (!sharedUnchanged(*Shared, Why))
      return std::nullopt;
  if (!unchanged(*Deps, Why) || !stillAbsent(P->getArray("absent"), Why))
    return std::nullopt;

  UnitResult Out;
  json::Path::Root Root("result");
  if (!fromJSON(*Result, Out, Root)) {
    consumeError(Root.getError());
    Why = "unreadable cache entry";
    return std::nullopt;
  }
  touch(Path);
  Why.clear();
  return Out;
}

std::optional<std::string>
FindingsCache::storeShared(const std::vector<std::string> &Shared) {
  std::string Joined = join(Shared, StringRef("\0", 1));
  std::string ListKey = hex64(xxHash64(Joined));
  std::lock_guard<std::mutex> Guard(SharedLock);
  auto [It, New] = SharedStored.try_emplace(ListKey);
  if (New) {
    // Named by its contents: concurrent runs write the same bytes.
    if (std::optional<std::string> Deps = describe(Shared)) {
      json::Value Payload(std::move(*Deps));
      std::string Text;
      raw_string_ostream(Text) << Payload;
      std::string Name = toHex(SHA256::hash(arrayRefFromStringRef(Text)),
                               /*LowerCase=*/true)
                             .substr(0, 40);
      if (writeChecked(sharedPath(Name), std::move(Payload))) {
        It->second = Name;
        SharedChecked[Name].clear(); // Rewritten, if it was damaged.
      }
    }
  }
  if (It->second.empty())
    return std::nullopt;
  return It->second;
}

void FindingsCache::store(StringRef Key, const UnitResult &Result,
                          const std::vector<std::string> &Dependencies,
                          const std::vector<std::string> &Shared,
                          std::vector<std::string> Absent) {
  json::Object Payload;
  if (!Shared.empty()) {
    std::optional<std::string> Name = storeShared(Shared);
    if (!Name)
      return;
    Payload["shared"] = *Name;
  }
  std::optional<std::string> Deps = describe(Dependencies);
  if (!Deps)
    return; // Nothing safe to store.
  Payload["dependencies"] = std::move(*Deps);
  if (!Absent.empty()) {
    std::sort(Absent.begin(), Absent.end());
    Absent.erase(std::unique(Absent.begin(), Absent.end()), Absent.end());
    Payload["absent"] = json::Array(Absent);
  }
  Payload["result"] = toJSON(Result);
  (void)writeChecked(entryPath(Key), std::move(Payload));
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
