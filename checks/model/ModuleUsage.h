//===--- ModuleUsage.h - which registered members a module's forward uses -===//
//
// For ddp-unused-parameters: the submodules and parameters a module class
// registers into fields, and whether its forward() uses each on every
// path, on some paths only, or never.
//
// - A *registered member* is a field of the class that a registration
//   initialises or receives (`fc(register_module("fc", Linear(4, 2)))`,
//   `w = register_parameter("w", t)`), or a field handed to one
//   (`register_module("head", head_)`). Buffers are kept, marked as such.
// - A member is *used* where forward(), or a member function of the class
//   that forward() calls on `this` (transitively), names its field. A use
//   inside a loop counts as made when the loop is reached. It is used on
//   every path when no return of forward() is reachable from its entry
//   without passing a use (or a call that uses it on every path).
// - A forward() that walks the module's own members without naming them
//   (`children()`, `parameters()`, `apply`), or hands `this` elsewhere,
//   is not analysed: any member may be used.
// - Used submodules of classes defined in user code are followed: their
//   own unused members are reported with a path (`block->gate`).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_MODULEUSAGE_H
#define DDPLINT_CHECKS_MODULEUSAGE_H

#include "vocabulary/Vocabulary.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::ddp {

enum class MemberUse { Never, SomePaths, EveryPath };

struct RegisteredMember {
  /// The field, and the fields of the enclosing submodules that lead to it
  /// (outermost first, the member's own last).
  llvm::SmallVector<const FieldDecl *, 2> Chain;
  RegistrationKind Kind;
  /// The registration call.
  const CallExpr *Registration = nullptr;
  /// Registered without a gradient, or frozen by the class's own code.
  bool Frozen = false;
  MemberUse Use = MemberUse::Never;

  const FieldDecl *field() const { return Chain.back(); }
  /// `fc`, or `block->gate` for a member of a submodule.
  std::string path() const;
};

class ModuleUsage {
public:
  explicit ModuleUsage(ASTContext &Context) : Context(Context) {}

  /// The registered members of \p Class and of the user-defined submodules
  /// its forward() uses on every path; nullopt when the class cannot be
  /// analysed (no forward() in user code, or one that walks its members).
  std::optional<std::vector<RegisteredMember>>
  members(const CXXRecordDecl &Class, unsigned Depth = 0);

private:
  using UseMap = llvm::DenseMap<const FieldDecl *, MemberUse>;
  struct Summary {
    UseMap Uses;
    /// Members reached without their names: nothing can be said.
    bool Opaque = false;
  };

  class SiteWalker;

  std::vector<RegisteredMember> registrations(const CXXRecordDecl &Class);
  /// Marks members frozen by the class's own code.
  void markFrozen(const CXXRecordDecl &Class,
                  std::vector<RegisteredMember> &Members);
  /// How \p Method (a member function of \p Class) uses the fields.
  const Summary &summary(const FunctionDecl &Method,
                         const CXXRecordDecl &Class, unsigned Depth);
  Summary summarise(const FunctionDecl &Method, const CXXRecordDecl &Class,
                    unsigned Depth);

  ASTContext &Context;
  llvm::DenseMap<const FunctionDecl *, Summary> Summaries;
};

/// The first field of \p Fields that \p E is reached through: the field of
/// `model->w`, of `extra->parameters()`, of the variable of a loop over
/// `model->extra->parameters()`, or of a local bound to one of those.
const FieldDecl *fieldReachedBy(const Expr *E,
                                llvm::ArrayRef<const FieldDecl *> Fields,
                                ASTContext &Context);

} // namespace clang::tidy::ddp

#endif // DDPLINT_CHECKS_MODULEUSAGE_H
