//===- Options.cpp - Command-line parsing for the subcommands -------------===//

#include "Options.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <cstdlib>

using namespace ddpharness;

static llvm::Error usageError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

void OptionParser::addString(std::string Name, std::string *Out,
                             std::string ValueName, std::string Help) {
  Options.push_back({std::move(Name), Kind::String, Out, std::move(ValueName),
                     std::move(Help), {}});
}

void OptionParser::addChoice(std::string Name, std::string *Out,
                             std::vector<std::string> Choices,
                             std::string Help) {
  std::string ValueName = llvm::join(Choices, "|");
  Options.push_back({std::move(Name), Kind::Choice, Out, std::move(ValueName),
                     std::move(Help), std::move(Choices)});
}

void OptionParser::addInt(std::string Name, int *Out, int Min,
                          std::string ValueName, std::string Help) {
  Option O{std::move(Name), Kind::Int, Out, std::move(ValueName),
           std::move(Help), {}};
  O.Min = Min;
  Options.push_back(std::move(O));
}

void OptionParser::addSeconds(std::string Name, double *Out,
                              std::string Help) {
  Options.push_back(
      {std::move(Name), Kind::Seconds, Out, "S", std::move(Help), {}});
}

void OptionParser::addFlag(std::string Name, bool *Out, std::string Help) {
  Options.push_back({std::move(Name), Kind::Flag, Out, "", std::move(Help), {}});
}

void OptionParser::addPositional(std::string Name, std::string *Out,
                                 bool Required) {
  Positionals.push_back({std::move(Name), Out, Required});
}

void OptionParser::takeCommandAfterDashes(std::vector<std::string> *Out,
                                          bool Required) {
  Trailing = Out;
  TrailingRequired = Required;
}

const OptionParser::Option *OptionParser::find(const std::string &Name) const {
  for (const Option &O : Options)
    if (O.Name == Name)
      return &O;
  return nullptr;
}

llvm::Error OptionParser::setValue(const Option &O,
                                   const std::string &Value) const {
  switch (O.K) {
  case Kind::String:
    if (Value.empty())
      return usageError("option '--" + O.Name + "' needs a non-empty value");
    *static_cast<std::string *>(O.Out) = Value;
    return llvm::Error::success();
  case Kind::Choice:
    for (const std::string &C : O.Choices)
      if (C == Value) {
        *static_cast<std::string *>(O.Out) = Value;
        return llvm::Error::success();
      }
    return usageError("option '--" + O.Name + "' must be one of " +
                      O.ValueName + ", not '" + Value + "'");
  case Kind::Int: {
    long long N;
    if (llvm::StringRef(Value).getAsInteger(10, N) || N < O.Min ||
        N > 1000000)
      return usageError("option '--" + O.Name + "' needs an integer >= " +
                        llvm::Twine(O.Min) + ", not '" + Value + "'");
    *static_cast<int *>(O.Out) = static_cast<int>(N);
    return llvm::Error::success();
  }
  case Kind::Seconds: {
    char *End = nullptr;
    double S = std::strtod(Value.c_str(), &End);
    if (Value.empty() || *End != '\0' || !std::isfinite(S) || S <= 0)
      return usageError("option '--" + O.Name +
                        "' needs a positive number of seconds, not '" + Value +
                        "'");
    *static_cast<double *>(O.Out) = S;
    return llvm::Error::success();
  }
  case Kind::Flag:
    *static_cast<bool *>(O.Out) = true;
    return llvm::Error::success();
  }
  return llvm::Error::success();
}

llvm::Error OptionParser::parse(const std::vector<std::string> &Args) {
  size_t NextPositional = 0;
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "-h" || A == "--help") {
      HelpRequested = true;
      return llvm::Error::success();
    }
    if (A == "--") {
      if (!Trailing)
        return usageError("'" + Command + "' takes no program after '--'");
      Trailing->assign(Args.begin() + I + 1, Args.end());
      break;
    }
    if (llvm::StringRef(A).starts_with("--")) {
      std::string Name = A.substr(2);
      std::string Value;
      bool HasInlineValue = false;
      size_t Eq = Name.find('=');
      if (Eq != std::string::npos) {
        Value = Name.substr(Eq + 1);
        Name.resize(Eq);
        HasInlineValue = true;
      }
      const Option *O = find(Name);
      if (!O)
        return usageError("unknown option '--" + Name + "' for '" + Command +
                          "'");
      if (O->K == Kind::Flag) {
        if (HasInlineValue)
          return usageError("option '--" + Name + "' takes no value");
      } else if (!HasInlineValue) {
        if (I + 1 >= Args.size())
          return usageError("option '--" + Name + "' needs a value (" +
                            O->ValueName + ")");
        Value = Args[++I];
      }
      if (llvm::Error E = setValue(*O, Value))
        return E;
      continue;
    }
    if (A.size() > 1 && A[0] == '-')
      return usageError("unknown option '" + A + "' for '" + Command + "'");
    if (NextPositional >= Positionals.size())
      return usageError("unexpected argument '" + A + "' for '" + Command +
                        "'" +
                        (Trailing ? " (a program goes after '--')" : ""));
    *Positionals[NextPositional++].Out = A;
  }
  for (size_t I = NextPositional; I < Positionals.size(); ++I)
    if (Positionals[I].Required)
      return usageError("'" + Command + "' needs " + Positionals[I].Name);
  if (Trailing && TrailingRequired && Trailing->empty())
    return usageError("'" + Command + "' needs a program after '--'");
  return llvm::Error::success();
}

std::string OptionParser::usage() const {
  std::string Out = "usage: ddp-harness " + Synopsis + "\n";
  if (!Options.empty())
    Out += "\noptions:\n";
  for (const Option &O : Options) {
    std::string Left = "  --" + O.Name;
    if (!O.ValueName.empty())
      Left += " " + O.ValueName;
    if (Left.size() < 28)
      Left.resize(28, ' ');
    else
      Left += "  ";
    Out += Left + O.Help + "\n";
  }
  return Out;
}
