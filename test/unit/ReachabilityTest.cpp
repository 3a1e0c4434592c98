//===--- ReachabilityTest.cpp - utils/Reachability ------------------------===//
//
// reachable(from, to, avoid) and repeats(stmt, avoid) on small functions:
// straight code, branches, early exits, loops, and statements to avoid that
// the CFG evaluates as one element or as many.
//
//===----------------------------------------------------------------------===//

#include "analysis/Reachability.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

#include <memory>
#include <string>

namespace clang::tidy::ddp {
namespace {

using namespace ast_matchers;

/// Builds `void f(bool x, bool y)` with \p Body, next to the functions it
/// calls (a, b, c: markers whose calls the tests ask about), and answers
/// order questions on its CFG.
class ReachabilityTest : public ::testing::Test {
protected:
  void build(llvm::StringRef Body) {
    std::string Code = "void a(); void b(); void c();\n"
                       "void f(bool x, bool y) {\n" +
                       Body.str() + "\n}\n";
    AST = tooling::buildASTFromCodeWithArgs(Code, {"-std=c++17"});
    ASSERT_TRUE(AST);
    auto Found = match(functionDecl(hasName("f"), isDefinition()).bind("f"),
                       Context());
    ASSERT_EQ(Found.size(), 1u);
    F = Found[0].getNodeAs<FunctionDecl>("f");
    R = std::make_unique<Reachability>(F, F->getBody(), Context());
    ASSERT_TRUE(R->valid());
  }

  ASTContext &Context() { return AST->getASTContext(); }

  /// The \p Nth call of \p Callee in f.
  const Stmt *call(llvm::StringRef Callee, unsigned Nth = 0) {
    auto Found = match(
        findAll(callExpr(callee(functionDecl(hasName(Callee)))).bind("call")),
        *F->getBody(), Context());
    EXPECT_LT(Nth, Found.size()) << "no call " << Nth << " of " << Callee.str();
    return Nth < Found.size() ? Found[Nth].getNodeAs<Stmt>("call") : nullptr;
  }

  /// The first statement of class \p Matcher in f (a loop, an `if`).
  template <typename T> const Stmt *first(const T &Matcher) {
    auto Found = match(findAll(Matcher.bind("s")), *F->getBody(), Context());
    EXPECT_FALSE(Found.empty());
    return Found.empty() ? nullptr : Found[0].template getNodeAs<Stmt>("s");
  }

  std::unique_ptr<ASTUnit> AST;
  const FunctionDecl *F = nullptr;
  std::unique_ptr<Reachability> R;
};

TEST_F(ReachabilityTest, StraightCodeRunsForwardOnly) {
  build("a(); b();");
  EXPECT_TRUE(R->reachable(call("a"), call("b")));
  EXPECT_FALSE(R->reachable(call("b"), call("a")));
  EXPECT_FALSE(R->repeats(call("a")));
}

TEST_F(ReachabilityTest, AvoidedStatementOnEveryPathBlocks) {
  build("a(); c(); b();");
  EXPECT_FALSE(R->reachable(call("a"), call("b"), {call("c")}));
  EXPECT_TRUE(R->reachable(call("a"), call("b"), {}));
}

TEST_F(ReachabilityTest, AvoidedStatementOnOneBranchDoesNotBlock) {
  build("a(); if (x) c(); b();");
  EXPECT_TRUE(R->reachable(call("a"), call("b"), {call("c")}));
}

TEST_F(ReachabilityTest, AvoidingABranchAsAWholeBlocks) {
  // An `if` is executed when any part of it is: every path enters it.
  build("a(); if (x) c(); b();");
  EXPECT_FALSE(R->reachable(call("a"), call("b"), {first(ifStmt())}));
}

TEST_F(ReachabilityTest, EarlyReturnOnOnePath) {
  build("a(); if (x) return; b();");
  EXPECT_TRUE(R->reachable(call("a"), call("b")));
  EXPECT_TRUE(R->reachesExit(call("a"), {call("b")}));
}

TEST_F(ReachabilityTest, ExitsFromEnteringABranchCountFromItsFirstStatement) {
  build("if (x) { a(); if (y) return; b(); } c();");
  const Stmt *Then = cast<IfStmt>(first(ifStmt()))->getThen();
  // Entering the branch runs a() first: avoiding it blocks every path.
  EXPECT_FALSE(R->exitsFromEntering(Then, {call("a")}));
  // The early return leaves before b().
  EXPECT_TRUE(R->exitsFromEntering(Then, {call("b")}));
  EXPECT_FALSE(R->exitsFromEntering(Then, {call("b"), first(returnStmt())}));
}

TEST_F(ReachabilityTest, ExitsFromEnteringOneElementCountsIt) {
  build("if (x) a(); c();");
  // reachesExit asks after a(); entering the branch executes a() itself.
  EXPECT_TRUE(R->reachesExit(call("a"), {call("a")}));
  EXPECT_FALSE(R->exitsFromEntering(call("a"), {call("a")}));
}

TEST_F(ReachabilityTest, CodeAfterAnUnconditionalReturnIsNeverReached) {
  build("a(); return; b();");
  EXPECT_FALSE(R->reachable(call("a"), call("b")));
  EXPECT_FALSE(R->reachableFromEntry(call("b")));
}

TEST_F(ReachabilityTest, ReachesExitOnlyAroundTheAvoidedStatements) {
  build("a(); c();");
  EXPECT_FALSE(R->reachesExit(call("a"), {call("c")}));
  EXPECT_TRUE(R->reachesExit(call("a")));
}

TEST_F(ReachabilityTest, StatementInALoopRepeats) {
  build("for (int i = 0; i < 3; ++i) a(); b();");
  EXPECT_TRUE(R->repeats(call("a")));
  EXPECT_TRUE(R->reachable(call("a"), call("a")));
  EXPECT_FALSE(R->repeats(call("b")));
  EXPECT_FALSE(R->reachable(call("b"), call("a")));
}

TEST_F(ReachabilityTest, LaterStatementOfALoopReachesAnEarlierOne) {
  build("while (x) { a(); b(); }");
  EXPECT_TRUE(R->reachable(call("b"), call("a")));
}

TEST_F(ReachabilityTest, RepeatsAvoidsStatementsOnEveryCycle) {
  build("while (x) { a(); c(); }");
  EXPECT_FALSE(R->repeats(call("a"), {call("c")}));
  EXPECT_TRUE(R->repeats(call("a")));
}

TEST_F(ReachabilityTest, RepeatsAroundAConditionalAvoidedStatement) {
  build("while (x) { if (y) c(); a(); }");
  EXPECT_TRUE(R->repeats(call("a"), {call("c")}));
}

TEST_F(ReachabilityTest, BreakEndsTheCycle) {
  build("while (x) { a(); break; }");
  EXPECT_FALSE(R->repeats(call("a")));
}

TEST_F(ReachabilityTest, ContinueKeepsTheCycle) {
  build("while (x) { a(); if (y) continue; c(); }");
  EXPECT_TRUE(R->repeats(call("a"), {call("c")}));
}

TEST_F(ReachabilityTest, AvoidingALoopAsAWholeBlocksThoughItsBodyMayNotRun) {
  build("a(); for (int i = 0; i < 3; ++i) c(); b();");
  EXPECT_FALSE(R->reachable(call("a"), call("b"), {first(forStmt())}));
  // Its body alone can be skipped (zero iterations).
  EXPECT_TRUE(R->reachable(call("a"), call("b"), {call("c")}));
}

TEST_F(ReachabilityTest, EntryReachesExitUnlessEveryPathIsAvoided) {
  build("if (x) a(); else b();");
  EXPECT_TRUE(R->entryReachesExit({call("a")}));
  EXPECT_FALSE(R->entryReachesExit({call("a"), call("b")}));
  EXPECT_TRUE(R->reachableFromEntry(call("b"), {call("a")}));
}

TEST_F(ReachabilityTest, CallsNestedInADeclarationAreOrdered) {
  build("a(); int n = (b(), 1); (void)n;");
  EXPECT_TRUE(R->reachable(call("a"), call("b")));
  EXPECT_FALSE(R->reachable(call("b"), call("a")));
}

} // namespace
} // namespace clang::tidy::ddp
