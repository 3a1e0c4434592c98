//===--- Fixes.cpp - applying and exporting fix-its -----------------------===//

#include "Fixes.h"
#include "AtomicWrite.h"
#include "Options.h"

#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;
namespace tooling = clang::tooling;

namespace ddplint {
namespace {

cl::opt<bool> Fix("fix", cl::desc(R"(
Apply the fix-its the checks mark safe (those on
warnings) to the source files. A file whose unit
then has more compile errors is restored.)"),
                  cl::init(false), cl::cat(optionCategory()));

cl::opt<bool> FixUnsafe("fix-unsafe", cl::desc(R"(
Like --fix, and also apply the suggestions the
checks offer on notes, which change behaviour
(clang-tidy's --fix-notes).)"),
                        cl::init(false), cl::cat(optionCategory()));

cl::alias FixNotes("fix-notes", cl::desc("Alias for --fix-unsafe (clang-tidy's name)"),
                   cl::aliasopt(FixUnsafe), cl::NotHidden);

cl::opt<bool> FixErrors("fix-errors", cl::desc(R"(
As clang-tidy's --fix-errors: --fix, in units
with compile errors too. ddplint's --fix already
applies there (and restores a file whose unit
then has more errors), so this is --fix.)"),
                        cl::init(false), cl::cat(optionCategory()));

cl::opt<std::string> FormatStyle("format-style", cl::desc(R"(
As clang-tidy's: the style the code around
applied fix-its is formatted in (a clang-format
style name, 'file' for the .clang-format above
the file, or 'none': left as it is, the
default).)"),
                                 cl::init("none"), cl::cat(optionCategory()));

cl::opt<std::string> ExportFixes("export-fixes", cl::desc(R"(
Write the fix-its --fix (or --fix-unsafe) would
apply to FILE as clang-apply-replacements YAML.)"),
                                 cl::value_desc("FILE"),
                                 cl::cat(optionCategory()));

tooling::Replacement toTooling(const Replacement &R) {
  return tooling::Replacement(R.Begin.File, R.Begin.Offset, R.Length, R.Text);
}

std::string position(const Location &L) {
  return L.File + ":" + std::to_string(L.Line) + ":" + std::to_string(L.Column);
}

/// The edits accepted so far, per file, and which files each unit's edits
/// touch.
struct FixPlan {
  /// Ordered by path, so that files are edited (and errors printed) in the
  /// same order on every run.
  std::map<std::string, tooling::Replacements> ByFile;
  std::vector<std::set<std::string>> FilesOfUnit;

  /// Adds all of F's edits or none: a fix-it half applied is a new bug.
  /// Edits already planned (a header's finding seen from two units) count
  /// once.
  bool add(const std::vector<Replacement> &Edits, size_t Unit) {
    StringMap<tooling::Replacements> Trial;
    for (const Replacement &R : Edits) {
      tooling::Replacement T = toTooling(R);
      const tooling::Replacements &Planned = ByFile[R.Begin.File];
      if (std::find(Planned.begin(), Planned.end(), T) != Planned.end())
        continue;
      auto It = Trial.try_emplace(R.Begin.File, Planned).first;
      if (Error E = It->second.add(T)) {
        consumeError(std::move(E));
        return false;
      }
    }
    for (auto &Entry : Trial)
      ByFile[Entry.getKey().str()] = std::move(Entry.getValue());
    for (const Replacement &R : Edits)
      FilesOfUnit[Unit].insert(R.Begin.File);
    return true;
  }
};

/// Replaces File's text by Text (AtomicWrite.h). Returns "" on success, else
/// why it failed.
std::string writeText(StringRef File, StringRef Text) {
  return writeAtomically(File, [&](raw_ostream &OS) { OS << Text; });
}

/// Prints that File could not be fixed (or restored) and why.
void fileError(StringRef What, StringRef File, const Twine &Why) {
  WithColor::error(errs(), "ddplint")
      << "cannot " << What << " '" << File << "': " << Why << "\n";
}

/// The fix-its of every unit's findings that fit together; a fix-it that
/// overlaps one planned before is left out, with a warning.
FixPlan planFixes(ArrayRef<UnitResult> Units) {
  FixPlan Plan;
  Plan.FilesOfUnit.resize(Units.size());
  for (size_t U = 0; U < Units.size(); ++U)
    for (const Finding &F : Units[U].Findings) {
      std::vector<Replacement> Edits = fixesOf(F, FixUnsafe);
      if (!Edits.empty() && !Plan.add(Edits, U))
        WithColor::warning(errs(), "ddplint")
            << position(F.Where) << ": fix-it not applied: it overlaps "
            << "another fix-it [" << F.Check << "]\n";
    }
  return Plan;
}

/// Edits, with the code around them formatted in --format-style (as
/// clang-tidy does: the edits' leftovers cleaned up, then their lines
/// formatted).
Expected<tooling::Replacements> formatted(StringRef File, StringRef Code,
                                          const tooling::Replacements &Edits) {
  if (FormatStyle == "none")
    return Edits;
  Expected<clang::format::FormatStyle> Style =
      clang::format::getStyle(FormatStyle, File, "none");
  if (!Style)
    return Style.takeError();
  Expected<tooling::Replacements> Cleaned =
      clang::format::cleanupAroundReplacements(Code, Edits, *Style);
  if (!Cleaned)
    return Cleaned.takeError();
  return clang::format::formatReplacements(Code, *Cleaned, *Style);
}

/// Applies Edits to File, keeping its old text in Originals when it changed.
/// Returns false after an error on stderr.
bool editFile(const std::string &File, const tooling::Replacements &Edits,
              std::map<std::string, std::string> &Originals) {
  auto Buffer = MemoryBuffer::getFile(File, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!Buffer) {
    fileError("fix", File, Buffer.getError().message());
    return false;
  }
  std::string Old = (*Buffer)->getBuffer().str();
  Expected<tooling::Replacements> Formatted = formatted(File, Old, Edits);
  if (!Formatted) {
    fileError("fix", File, toString(Formatted.takeError()));
    return false;
  }
  Expected<std::string> New = tooling::applyAllReplacements(Old, *Formatted);
  if (!New) {
    fileError("fix", File, toString(New.takeError()));
    return false;
  }
  if (*New == Old)
    return true; // already fixed: leave the file and its time stamp alone
  if (std::string Why = writeText(File, *New); !Why.empty()) {
    fileError("fix", File, Why);
    return false;
  }
  Originals[File] = std::move(Old);
  return true;
}

/// A fix-it that no longer compiles (a name shadowed at the call site, a
/// header that differs from what the check assumed) is worse than the
/// finding: parses each changed unit again and returns the files to restore
/// of those that got worse, with a warning for each.
std::set<std::string>
filesOfWorseUnits(ArrayRef<UnitResult> Units, const FixPlan &Plan,
                  const std::map<std::string, std::string> &Originals,
                  CompileErrorCounter CountErrors) {
  std::set<std::string> Restore;
  for (size_t U = 0; U < Units.size(); ++U) {
    bool Changed = llvm::any_of(Plan.FilesOfUnit[U], [&](const std::string &F) {
      return Originals.count(F);
    });
    if (!Changed)
      continue;
    size_t Before = Units[U].CompileErrors.size();
    std::optional<size_t> After = CountErrors(Units[U].File);
    if (After && *After <= Before)
      continue;
    raw_ostream &Warn = WithColor::warning(errs(), "ddplint");
    Warn << "fix-its for '" << Units[U].File << "' reverted: ";
    if (After)
      Warn << "the unit no longer compiles as before (" << *After
           << " compile error" << (*After == 1 ? "" : "s") << ", " << Before
           << " before)\n";
    else
      Warn << "the unit could not be analysed again\n";
    for (const std::string &F : Plan.FilesOfUnit[U])
      if (Originals.count(F))
        Restore.insert(F);
  }
  return Restore;
}

/// Writes back the old text of the files in Restore; the files restored
/// leave Originals. Returns false after an error on stderr.
bool restoreFiles(const std::set<std::string> &Restore,
                  std::map<std::string, std::string> &Originals) {
  bool Ok = true;
  for (const std::string &File : Restore) {
    if (std::string Why = writeText(File, Originals[File]); !Why.empty()) {
      fileError("restore", File, Why);
      Ok = false;
      continue;
    }
    Originals.erase(File);
  }
  return Ok;
}

/// Says which files the fix-its changed.
void printChangedFiles(const std::map<std::string, std::string> &Changed) {
  unsigned Files = Changed.size();
  WithColor::note(errs(), "ddplint")
      << (Files ? "fix-its applied to " + std::to_string(Files) + " file" +
                      (Files == 1 ? "" : "s")
                : std::string("no file changed"))
      << "\n";
  for (const auto &Entry : Changed)
    errs() << "  " << Entry.first << "\n";
}

} // namespace

std::vector<Replacement> fixesOf(const Finding &F, bool Unsafe) {
  std::vector<Replacement> Out = F.Fixes;
  if (Unsafe)
    for (const Note &N : F.Notes)
      Out.insert(Out.end(), N.Fixes.begin(), N.Fixes.end());
  return Out;
}

bool fixesRequested() { return Fix || FixUnsafe || FixErrors; }

bool exportFixesIfRequested(ArrayRef<Finding> Findings) {
  if (ExportFixes.empty())
    return true;
  // clang-tidy's --export-fixes document: every finding, its edits on the
  // diagnostic itself. Notes go without their edits, so that
  // clang-apply-replacements (which falls back to a note's fix-it) applies
  // exactly what ddplint --fix would.
  tooling::TranslationUnitDiagnostics TUD;
  SmallString<256> BuildDirectory;
  sys::fs::current_path(BuildDirectory);
  for (const Finding &F : Findings) {
    if (F.isCompileError())
      continue;
    tooling::DiagnosticMessage Message;
    Message.Message = F.Message;
    Message.FilePath = F.Where.File;
    Message.FileOffset = F.Where.Offset;
    for (const Replacement &R : fixesOf(F, FixUnsafe))
      consumeError(Message.Fix[R.Begin.File].add(toTooling(R)));
    SmallVector<tooling::DiagnosticMessage, 1> Notes;
    for (const Note &N : F.Notes) {
      tooling::DiagnosticMessage M;
      M.Message = N.Message;
      M.FilePath = N.Where.File;
      M.FileOffset = N.Where.Offset;
      Notes.push_back(std::move(M));
    }
    TUD.Diagnostics.emplace_back(
        F.Check, Message, Notes,
        F.Level == "error" ? tooling::Diagnostic::Error
                           : tooling::Diagnostic::Warning,
        BuildDirectory);
  }
  std::string Why = writeAtomically(ExportFixes, [&](raw_ostream &OS) {
    yaml::Output YAML(OS);
    YAML << TUD;
  });
  if (!Why.empty()) {
    WithColor::error(errs(), "ddplint")
        << "cannot write '" << ExportFixes << "': " << Why << "\n";
    return false;
  }
  return true;
}

bool applyFixesIfRequested(ArrayRef<UnitResult> Units,
                           CompileErrorCounter CountErrors) {
  if (!fixesRequested())
    return true;
  FixPlan Plan = planFixes(Units);
  // Edit the files, keeping what they held to restore a unit that breaks.
  std::map<std::string, std::string> Originals;
  bool Ok = true;
  for (auto &[File, Edits] : Plan.ByFile)
    if (!Edits.empty() && !editFile(File, Edits, Originals))
      Ok = false;
  std::set<std::string> Restore =
      filesOfWorseUnits(Units, Plan, Originals, CountErrors);
  if (!restoreFiles(Restore, Originals))
    Ok = false;
  printChangedFiles(Originals);
  return Ok;
}

} // namespace ddplint
