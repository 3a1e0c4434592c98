//===--- ProjectFunctionsTest.cpp - vocabulary/ProjectFunctions -----------===//
//
// What a function of another unit does, in the one-line form the cache
// keeps: every effect survives the round trip, and text that is no
// encoding is refused rather than half read.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/ProjectFunctions.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace clang::tidy::ddp {
namespace {

using namespace ast_matchers;

TEST(FunctionEffectsTest, RoundTripsEveryEffect) {
  FunctionEffects E;
  E.Communicates = true;
  E.Collective = CollectiveKind::AllReduce;
  E.Op = ReduceOpKind::Sum;
  E.Returned = FunctionEffects::FromRank;
  E.Outputs[0] = FunctionEffects::FromRank;
  E.Outputs[1] = FunctionEffects::FromWorldSize;
  E.Seeds = FunctionEffects::Seeding::Parameter;
  E.SeedParameter = 2;
  E.SavesPath = 1;
  E.SavesPlainFile = true;
  E.LoadsPath = 3;
  E.StepsParameters = true;
  E.Groups = FunctionEffects::Group::Closes;
  std::string Text = E.encode();
  EXPECT_EQ(Text, "collective=allreduce;op=sum;returns=rank;out0=rank;"
                  "out1=world;seed=param2;saves=param1:file;loads=param3;"
                  "steps;group=close");
  std::optional<FunctionEffects> Back = FunctionEffects::decode(Text);
  ASSERT_TRUE(Back.has_value());
  EXPECT_EQ(*Back, E);
}

TEST(FunctionEffectsTest, AGroupLeftOpen) {
  std::optional<FunctionEffects> E = FunctionEffects::decode("group=open");
  ASSERT_TRUE(E.has_value());
  EXPECT_EQ(E->Groups, FunctionEffects::Group::Opens);
  EXPECT_EQ(E->encode(), "group=open");
}

TEST(FunctionEffectsTest, HowItDrawsRandomValues) {
  for (const char *Text : {"draws=rank", "draws=process", "draws=common",
                           "draws=param1", "draws=gen0"}) {
    std::optional<FunctionEffects> E = FunctionEffects::decode(Text);
    ASSERT_TRUE(E.has_value()) << Text;
    EXPECT_NE(E->Draws, FunctionEffects::Seeding::None) << Text;
    EXPECT_EQ(E->encode(), Text);
  }
  std::optional<FunctionEffects> Handed = FunctionEffects::decode("draws=gen3");
  ASSERT_TRUE(Handed.has_value());
  EXPECT_EQ(Handed->Draws, FunctionEffects::Seeding::Generator);
  EXPECT_EQ(Handed->DrawParameter, 3);
  EXPECT_FALSE(FunctionEffects::decode("draws=dice"));
}

TEST(FunctionEffectsTest, NothingIsTheEmptyText) {
  EXPECT_EQ(FunctionEffects().encode(), "");
  std::optional<FunctionEffects> Back = FunctionEffects::decode("");
  ASSERT_TRUE(Back.has_value());
  EXPECT_TRUE(Back->empty());
}

TEST(FunctionEffectsTest, ACollectiveOfUnknownKind) {
  std::optional<FunctionEffects> E = FunctionEffects::decode("collective=some");
  ASSERT_TRUE(E.has_value());
  EXPECT_TRUE(E->Communicates);
  EXPECT_FALSE(E->Collective.has_value());
  EXPECT_EQ(E->encode(), "collective=some");
}

TEST(FunctionEffectsTest, RefusesWhatIsNoEncoding) {
  EXPECT_FALSE(FunctionEffects::decode("collective=allsum"));
  EXPECT_FALSE(FunctionEffects::decode("returns=rnk"));
  EXPECT_FALSE(FunctionEffects::decode("saves=path"));
  EXPECT_FALSE(FunctionEffects::decode("flies"));
  EXPECT_FALSE(FunctionEffects::decode("group=maybe"));
}

TEST(ProjectFunctionsTest, AnswersByUSRAndRecordsTheQuestion) {
  std::unique_ptr<ASTUnit> AST = tooling::buildASTFromCode(
      "void reduce_elsewhere(float *g, int n);\n"
      "void defined_here() {}\n");
  ASSERT_TRUE(AST);
  ASTContext &Context = AST->getASTContext();
  auto Find = [&](llvm::StringRef Name) {
    return selectFirst<FunctionDecl>(
        "f", match(functionDecl(hasName(Name)).bind("f"), Context));
  };
  const FunctionDecl *Elsewhere = Find("reduce_elsewhere");
  const FunctionDecl *Here = Find("defined_here");
  ASSERT_TRUE(Elsewhere && Here);

  ProjectFunctions &Store = ProjectFunctions::instance();
  ProjectFunctions::takeQuestions();
  EXPECT_FALSE(Store.lookup(*Elsewhere).has_value());
  FunctionEffects Reduces;
  Reduces.Communicates = true;
  Reduces.Collective = CollectiveKind::AllReduce;
  Store.add({{functionUSR(*Elsewhere), Reduces}});
  std::optional<FunctionEffects> Found = Store.lookup(*Elsewhere);
  ASSERT_TRUE(Found.has_value());
  EXPECT_EQ(*Found, Reduces);
  // A function with a body here is summarised here, not looked up.
  EXPECT_FALSE(Store.lookup(*Here).has_value());

  // Asked before the summary arrived and again after: the first answer is
  // the one recorded, so the unit is analysed again (its answers changed).
  auto Asked = ProjectFunctions::takeQuestions();
  ASSERT_EQ(Asked.size(), 1u);
  EXPECT_EQ(Asked[0].first, functionUSR(*Elsewhere));
  EXPECT_EQ(Asked[0].second, "");
  EXPECT_TRUE(Store.lookup(*Elsewhere).has_value());
  Asked = ProjectFunctions::takeQuestions();
  ASSERT_EQ(Asked.size(), 1u);
  EXPECT_EQ(Asked[0].second, "collective=allreduce");
}

TEST(ProjectFunctionsTest, LoadsAFolderAndSkipsDamagedLines) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("summaries", Dir));
  llvm::SmallString<128> File(Dir);
  llvm::sys::path::append(File, "unit.summaries");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC);
    OS << "c:@F@loaded_rank#\treturns=rank\n"
       << "c:@F@garbled#\treturns=???\n"
       << "not a line\n";
  }
  ProjectFunctions &Store = ProjectFunctions::instance();
  size_t Before = Store.size();
  Store.loadFolder(Dir);
  EXPECT_EQ(Store.size(), Before + 1);
  EXPECT_EQ(Store.encodingOf("c:@F@loaded_rank#"), "returns=rank");
  EXPECT_EQ(Store.encodingOf("c:@F@garbled#"), "");
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
} // namespace clang::tidy::ddp
