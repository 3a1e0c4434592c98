//===- Options.h - Command-line parsing for the subcommands ---------------===//
//
// A small parser for `--name value`, `--name=value` and `--flag` options,
// positional arguments, and the `--` that starts a program's own command
// line. Each subcommand declares its options on an OptionParser and gets a
// usage text for free.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_OPTIONS_H
#define DDPHARNESS_LAUNCHER_OPTIONS_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ddpharness {

class OptionParser {
public:
  OptionParser(std::string Command, std::string Synopsis)
      : Command(std::move(Command)), Synopsis(std::move(Synopsis)) {}

  void addString(std::string Name, std::string *Out, std::string ValueName,
                 std::string Help);
  /// Accepts one of \p Choices only.
  void addChoice(std::string Name, std::string *Out,
                 std::vector<std::string> Choices, std::string Help);
  void addInt(std::string Name, int *Out, int Min, std::string ValueName,
              std::string Help);
  /// A non-negative number of seconds; fractions are allowed.
  void addSeconds(std::string Name, double *Out, std::string Help);
  void addFlag(std::string Name, bool *Out, std::string Help);
  /// Positional arguments in order; \p Required ones must be present.
  void addPositional(std::string Name, std::string *Out, bool Required);
  /// Everything after `--` goes to \p Out; \p Required makes it mandatory.
  void takeCommandAfterDashes(std::vector<std::string> *Out, bool Required);

  /// Parses \p Args. `-h`/`--help` sets HelpRequested and stops.
  llvm::Error parse(const std::vector<std::string> &Args);
  bool helpRequested() const { return HelpRequested; }
  std::string usage() const;

private:
  enum class Kind { String, Choice, Int, Seconds, Flag };
  struct Option {
    std::string Name;
    Kind K;
    void *Out;
    std::string ValueName;
    std::string Help;
    std::vector<std::string> Choices;
    int Min = 0;
  };
  struct Positional {
    std::string Name;
    std::string *Out;
    bool Required;
  };

  llvm::Error setValue(const Option &O, const std::string &Value) const;
  const Option *find(const std::string &Name) const;

  std::string Command;
  std::string Synopsis;
  std::vector<Option> Options;
  std::vector<Positional> Positionals;
  std::vector<std::string> *Trailing = nullptr;
  bool TrailingRequired = false;
  bool HelpRequested = false;
};

} // namespace ddpharness

#endif
