//===--- Cache.h - findings reused across runs --------------------*- C++ -*-===//
//
// A unit's findings depend on its main file, every header it includes, its
// compile command, the effective configuration of the checks and the ddplint
// binary; when none of these changed, the last run's findings are still the
// answer. The cache stores one entry per unit:
//
//   <dir>/units/<k0k1>/<key>.json
//
// where <key> hashes the compile command, the configuration and the binary,
// and the entry lists every file the unit read with its size, modification
// time and content hash, a text row each. A lookup re-checks each file
// (stat first, content hash when the stat changed), so touching a file
// without changing it costs a hash, not an analysis. A unit that took a header from the SDK fallback
// (SdkFallback.h) also lists the paths where the real header was looked for
// and missing; the entry is stale once one of them exists.
//
// The headers of a shared preamble (thousands, for <torch/torch.h>) are
// listed once, in a set every unit that used the preamble names:
//
//   <dir>/shared/<n0n1>/<name>.json
//
// named by the hash of its contents; a run checks each set once, however
// many units name it, which keeps a warm run's cost to a few stats per unit.
//
// Entries are written to a temporary file and renamed into place, so
// concurrent runs never see half an entry; an entry that does not parse, or
// whose own checksum does not match, is ignored and rebuilt. After a run the
// cache is trimmed to its size limit, least recently used entries first.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_CACHE_H
#define DDPLINT_DRIVER_CACHE_H

#include "Finding.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ddplint {

class FindingsCache {
public:
  /// Dir is created when the first entry is stored.
  FindingsCache(std::string Dir, uint64_t SizeLimit);

  /// The default location: $DDPLINT_CACHE_DIR, else $XDG_CACHE_HOME/ddplint,
  /// else ~/.cache/ddplint.
  static std::string defaultDirectory();

  /// Identifies what a unit's findings depend on besides the files it reads:
  /// the main file's path, its compile command (directory and arguments),
  /// the checks' effective configuration and this ddplint binary.
  static std::string key(llvm::StringRef File, llvm::StringRef Directory,
                         const std::vector<std::string> &CommandLine,
                         llvm::StringRef Configuration);

  /// The stored result for Key, when every file it depends on is unchanged.
  /// Otherwise None, with Why saying what changed ("no entry",
  /// "src/a.h changed", "unreadable entry").
  std::optional<UnitResult> lookup(llvm::StringRef Key, std::string &Why);

  /// Stores Result under Key with the files it was computed from: its own
  /// Dependencies and the Shared ones of its preamble (may be empty), and
  /// the Absent paths whose appearance would change it (where a header the
  /// SDK fallback provided was looked for first). Failures (a read-only
  /// directory, a full disk) only cost the next run its reuse.
  void store(llvm::StringRef Key, const UnitResult &Result,
             const std::vector<std::string> &Dependencies,
             const std::vector<std::string> &Shared,
             std::vector<std::string> Absent = {});

  /// Removes the least recently used entries (and preambles, which live
  /// under the same directory) until the cache fits its size limit.
  void trim();

  const std::string &directory() const { return Dir; }

private:
  std::string entryPath(llvm::StringRef Key) const;
  std::string sharedPath(llvm::StringRef Name) const;
  /// Whether the files of shared set Name are unchanged, checked once a run.
  bool sharedUnchanged(llvm::StringRef Name, std::string &Why);
  /// The name of the set describing Shared, written once a run.
  std::optional<std::string>
  storeShared(const std::vector<std::string> &Shared);

  /// A file as this run first saw it; its hash once one was asked for.
  struct FileNow {
    bool Exists = false;
    uint64_t Size = 0;
    int64_t MTime = 0;
    bool Hashed = false;
    std::optional<std::string> Hash;
  };
  /// Stats Path once a run (and hashes it once, when WantHash): the
  /// units of a project share most of their headers.
  FileNow fileNow(llvm::StringRef Path, bool WantHash);
  /// True when every file of the dependency table is as it was (stat first,
  /// content hash when the stat changed); otherwise Why names the first
  /// that is not.
  bool unchanged(llvm::StringRef Table, std::string &Why);

  std::string Dir;
  uint64_t SizeLimit;
  std::mutex NowLock;
  std::map<std::string, FileNow> Now;
  std::mutex SharedLock;
  /// Set name -> why it is out of date ("" when it is not).
  std::map<std::string, std::string> SharedChecked;
  /// Hash of a dependency list -> the name of its set ("" when not stored).
  std::map<std::string, std::string> SharedStored;
};

/// Hash of a file's contents (hex), or None when it cannot be read.
std::optional<std::string> hashFile(llvm::StringRef Path);

} // namespace ddplint

#endif // DDPLINT_DRIVER_CACHE_H
