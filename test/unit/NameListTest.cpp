//===--- NameListTest.cpp - utils/NameList --------------------------------===//
//
// The option values that name declarations: `;`-separated entries,
// qualified or not, globs allowed.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/NameList.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

#include <memory>
#include <string>
#include <vector>

namespace clang::tidy::ddp {
namespace {

using namespace ast_matchers;

TEST(SplitListTest, TrimsAndDropsEmptyEntries) {
  std::vector<llvm::StringRef> Parts = splitList(" a ;; b::c ;  ;");
  ASSERT_EQ(Parts.size(), 2u);
  EXPECT_EQ(Parts[0], "a");
  EXPECT_EQ(Parts[1], "b::c");
  EXPECT_TRUE(splitList("").empty());
  EXPECT_TRUE(splitList(" ; ;").empty());
}

TEST(NameListTest, EmptyListMatchesNothing) {
  NameList Empty;
  EXPECT_FALSE(Empty.matchesName("Net", "ns::Net"));
  EXPECT_FALSE(NameList(";").matchesName("", ""));
}

TEST(NameListTest, KeepsItsSpec) {
  EXPECT_EQ(NameList("DDP; *DDP*").spec(), "DDP; *DDP*");
}

TEST(NameListTest, UnqualifiedEntryMatchesTheNameInAnyScope) {
  NameList Names("Net");
  EXPECT_TRUE(Names.matchesName("Net", "Net"));
  EXPECT_TRUE(Names.matchesName("Net", "ns::Net"));
  EXPECT_TRUE(Names.matchesName("Net", "a::b::Net"));
  EXPECT_FALSE(Names.matchesName("NetImpl", "ns::NetImpl"));
}

TEST(NameListTest, QualifiedEntryMatchesTheQualifiedNameOnly) {
  NameList Names("ns::Net");
  EXPECT_TRUE(Names.matchesName("Net", "ns::Net"));
  EXPECT_FALSE(Names.matchesName("Net", "other::Net"));
  EXPECT_FALSE(Names.matchesName("Net", "outer::ns::Net"));
  EXPECT_FALSE(Names.matchesName("Net", "Net"));
}

TEST(NameListTest, LeadingColonsAreOptional) {
  NameList Names("::ns::Net");
  EXPECT_TRUE(Names.matchesName("Net", "ns::Net"));
  EXPECT_FALSE(Names.matchesName("Net", "other::Net"));
}

TEST(NameListTest, GlobsInBothKindsOfEntries) {
  NameList Unqualified("*DDP*");
  EXPECT_TRUE(Unqualified.matchesName("DDP", "DDP"));
  EXPECT_TRUE(Unqualified.matchesName("MyDDPWrapper", "app::MyDDPWrapper"));
  EXPECT_FALSE(Unqualified.matchesName("Ddp", "app::Ddp"));

  NameList Qualified("torch::nn::*");
  EXPECT_TRUE(Qualified.matchesName("Linear", "torch::nn::Linear"));
  EXPECT_FALSE(Qualified.matchesName("SGD", "torch::optim::SGD"));
}

TEST(NameListTest, AnyEntryMatches) {
  NameList Names("ns::Net; Wrapper ;*Sampler");
  EXPECT_TRUE(Names.matchesName("Net", "ns::Net"));
  EXPECT_TRUE(Names.matchesName("Wrapper", "x::Wrapper"));
  EXPECT_TRUE(Names.matchesName("RandomSampler", "data::RandomSampler"));
  EXPECT_FALSE(Names.matchesName("Net", "x::Net"));
}

/// The record declaration of \p QualifiedName in \p AST.
const NamedDecl *record(ASTUnit &AST, llvm::StringRef QualifiedName) {
  auto Found = match(
      cxxRecordDecl(hasName(QualifiedName), isDefinition()).bind("decl"),
      AST.getASTContext());
  return Found.empty() ? nullptr : Found[0].getNodeAs<NamedDecl>("decl");
}

TEST(NameListTest, MatchesDeclarationsByTheirNames) {
  std::unique_ptr<ASTUnit> AST = tooling::buildASTFromCodeWithArgs(
      "namespace ns { struct Net {}; }\n"
      "namespace other { struct Net {}; }\n",
      {"-std=c++17"});
  ASSERT_TRUE(AST);
  const NamedDecl *NsNet = record(*AST, "::ns::Net");
  const NamedDecl *OtherNet = record(*AST, "::other::Net");
  ASSERT_TRUE(NsNet && OtherNet);

  EXPECT_TRUE(NameList("Net").matches(*NsNet));
  EXPECT_TRUE(NameList("Net").matches(*OtherNet));
  EXPECT_TRUE(NameList("ns::Net").matches(*NsNet));
  EXPECT_FALSE(NameList("ns::Net").matches(*OtherNet));
  EXPECT_TRUE(NameList("*::Net").matches(*OtherNet));
  EXPECT_FALSE(NameList("").matches(*NsNet));
}

TEST(NameListTest, DeclarationsWithoutAnIdentifierNeverMatch) {
  std::unique_ptr<ASTUnit> AST = tooling::buildASTFromCodeWithArgs(
      "struct S { bool operator==(const S &) const; };", {"-std=c++17"});
  ASSERT_TRUE(AST);
  auto Found = match(cxxMethodDecl(hasOverloadedOperatorName("==")).bind("op"),
                     AST->getASTContext());
  ASSERT_EQ(Found.size(), 1u);
  EXPECT_FALSE(NameList("*").matches(*Found[0].getNodeAs<NamedDecl>("op")));
}

} // namespace
} // namespace clang::tidy::ddp
