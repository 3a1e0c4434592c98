//===--- HiddenCode.cpp ---------------------------------------------------===//

#include "model/HiddenCode.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::ddp {

bool HiddenCode::scan(SourceLocation Begin, SourceLocation End,
                      llvm::function_ref<bool(llvm::StringRef)> Matches,
                      llvm::function_ref<bool(SourceLocation)> Shown) const {
  const SourceManager &SM = Context.getSourceManager();
  Begin = SM.getFileLoc(Begin);
  End = SM.getFileLoc(End);
  FileID File = SM.getFileID(Begin);
  if (File != SM.getFileID(End))
    return false;
  llvm::StringRef Buffer = SM.getBufferData(File);
  Lexer Raw(SM.getLocForStartOfFile(File), Context.getLangOpts(),
            Buffer.begin(), Buffer.begin() + SM.getFileOffset(Begin),
            Buffer.end());
  unsigned Stop = SM.getFileOffset(End);
  // Names count where they are called (followed by `(` or a template's
  // `<`): a variable named `mean` is not a sync.
  Token Tok, Name;
  Name.startToken();
  while (!Raw.LexFromRawLexer(Tok) &&
         SM.getFileOffset(Tok.getLocation()) < Stop) {
    if (Name.is(tok::raw_identifier) && Tok.isOneOf(tok::l_paren, tok::less) &&
        Matches(Name.getRawIdentifier()) && !Shown(Name.getLocation()))
      return true;
    if (Tok.isOneOf(tok::slash, tok::slashequal) &&
        Matches(tok::getPunctuatorSpelling(Tok.getKind())) &&
        !Shown(Tok.getLocation()))
      return true;
    Name = Tok;
  }
  return false;
}

void HiddenCode::recordSpelledNames() const {
  const SourceManager &SM = Context.getSourceManager();
  for (const auto &Unit : Graph.units())
    for (const Stmt *S : Unit->Stmts) {
      SourceLocation Loc;
      if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
        Loc = DRE->getLocation();
      else if (const auto *ME = dyn_cast<MemberExpr>(S))
        Loc = ME->getMemberLoc();
      else if (const auto *Binary = dyn_cast<BinaryOperator>(S))
        Loc = Binary->getOperatorLoc();
      else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
        Loc = Op->getOperatorLoc();
      else if (const auto *Overload = dyn_cast<OverloadExpr>(S))
        Loc = Overload->getNameLoc();
      else if (const auto *Dependent = dyn_cast<CXXDependentScopeMemberExpr>(S))
        Loc = Dependent->getMemberLoc();
      if (Loc.isValid())
        Spelled.insert(SM.getSpellingLoc(Loc));
    }
}

bool HiddenCode::hides(const CodeUnit &U,
                       llvm::function_ref<bool(llvm::StringRef)> Matches,
                       const Stmt *Within) const {
  const SourceManager &SM = Context.getSourceManager();
  SourceRange Body = (Within ? Within : U.Body)->getSourceRange();
  if (!Context.getDiagnostics().hasErrorOccurred())
    return false;
  if (Spelled.empty())
    recordSpelledNames();
  // Code the preprocessor skipped is not built in this configuration: it
  // runs nothing, and it is not a statement clang dropped either.
  auto Skipped = [&](SourceLocation Loc) {
    return llvm::any_of(this->Skipped, [&](SourceRange R) {
      return SM.isPointWithin(Loc, R.getBegin(), R.getEnd());
    });
  };
  return scan(Body.getBegin(), Body.getEnd(), Matches, [&](SourceLocation Loc) {
    return Spelled.contains(Loc) || Skipped(Loc);
  });
}

} // namespace clang::tidy::ddp
