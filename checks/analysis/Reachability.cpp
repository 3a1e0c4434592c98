//===--- Reachability.cpp -------------------------------------------------===//

#include "analysis/Reachability.h"
#include "analysis/FunctionCFG.h"

#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::ddp {

Reachability::Reachability(const Decl *Function, const Stmt *Body,
                           ASTContext &Context)
    : Context(Context) {
  Cfg = buildFunctionCFG(Function, Body, Context);
  if (!Cfg)
    return;
  for (const CFGBlock *Block : *Cfg) {
    unsigned Idx = 0;
    for (const CFGElement &Element : *Block) {
      if (std::optional<CFGStmt> S = Element.getAs<CFGStmt>())
        Index.try_emplace(S->getStmt(), Block, Idx);
      ++Idx;
    }
  }
}

std::optional<Reachability::Position>
Reachability::locate(const Stmt *S) const {
  DynTypedNode Node = DynTypedNode::create(*S);
  // Climb to the nearest statement the CFG evaluates as an element. Implicit
  // variables (a range-for's __range) sit between expressions and their
  // DeclStmt, so declarations are climbed through too.
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    if (const auto *Current = Node.get<Stmt>()) {
      auto It = Index.find(Current);
      if (It != Index.end())
        return It->second;
    }
    DynTypedNodeList Parents = Context.getParents(Node);
    if (Parents.empty())
      return std::nullopt;
    Node = Parents[0];
  }
  return std::nullopt;
}

void Reachability::executing(const Stmt *S, llvm::DenseSet<Position> &Out) const {
  auto It = Index.find(S);
  if (It != Index.end()) {
    Out.insert(It->second);
    return;
  }
  // A compound statement: every element inside it.
  size_t Before = Out.size();
  llvm::SmallVector<const Stmt *, 16> Work(S->child_begin(), S->child_end());
  while (!Work.empty()) {
    const Stmt *Part = Work.pop_back_val();
    if (!Part)
      continue;
    auto Found = Index.find(Part);
    if (Found != Index.end())
      Out.insert(Found->second);
    Work.append(Part->child_begin(), Part->child_end());
  }
  if (Out.size() == Before)
    if (std::optional<Position> P = locate(S))
      Out.insert(*P);
}

bool Reachability::reachable(const Stmt *From, const Stmt *To,
                             llvm::ArrayRef<const Stmt *> Avoid) const {
  if (!Cfg)
    return false;
  std::optional<Position> Start = locate(From);
  std::optional<Position> Target = locate(To);
  if (!Start || !Target)
    return false;
  return search(Start, Target, Avoid);
}

bool Reachability::reachesExit(const Stmt *From,
                               llvm::ArrayRef<const Stmt *> Avoid) const {
  if (!Cfg)
    return false;
  std::optional<Position> Start = locate(From);
  return Start && search(Start, std::nullopt, Avoid);
}

std::optional<Reachability::Position>
Reachability::entering(const Stmt *S) const {
  for (unsigned Depth = 0; S && Depth < 16; ++Depth) {
    if (auto It = Index.find(S); It != Index.end())
      return It->second;
    if (const auto *Block = dyn_cast<CompoundStmt>(S))
      S = Block->body_empty() ? nullptr : Block->body_front();
    else if (const auto *If = dyn_cast<IfStmt>(S))
      S = If->getInit() ? If->getInit() : If->getCond();
    else if (const auto *For = dyn_cast<ForStmt>(S))
      S = For->getInit() ? For->getInit() : For->getCond();
    else if (const auto *While = dyn_cast<WhileStmt>(S))
      S = While->getCond();
    else if (const auto *Do = dyn_cast<DoStmt>(S))
      S = Do->getBody();
    else if (const auto *Range = dyn_cast<CXXForRangeStmt>(S))
      S = Range->getRangeStmt();
    else
      return locate(S);
  }
  return std::nullopt;
}

bool Reachability::exitsFromEntering(const Stmt *S,
                                     llvm::ArrayRef<const Stmt *> Avoid) const {
  if (!Cfg)
    return false;
  std::optional<Position> Start = entering(S);
  return Start && search(Start, std::nullopt, Avoid, /*FromStart=*/true);
}

bool Reachability::reachableFromEntry(const Stmt *To,
                                      llvm::ArrayRef<const Stmt *> Avoid) const {
  if (!Cfg)
    return false;
  std::optional<Position> Target = locate(To);
  return Target && search(std::nullopt, Target, Avoid);
}

bool Reachability::search(std::optional<Position> Start,
                          std::optional<Position> Target,
                          llvm::ArrayRef<const Stmt *> Avoid,
                          bool FromStart) const {
  llvm::DenseSet<Position> Blocked;
  for (const Stmt *A : Avoid)
    if (A)
      executing(A, Blocked);
  const CFGBlock *Exit = &Cfg->getExit();

  // Scans block B from element I on; true when the target is met before a
  // blocked element, and sets Open when the end of the block is reached.
  auto Scan = [&](const CFGBlock *B, unsigned I, bool &Open) {
    Open = false;
    if (!Target && B == Exit)
      return true;
    for (unsigned N = B->size(); I < N; ++I) {
      if (Target && B == Target->first && I == Target->second)
        return true;
      if (Blocked.contains({B, I}))
        return false;
    }
    Open = true;
    return false;
  };

  const CFGBlock *First = Start ? Start->first : &Cfg->getEntry();
  bool Open = false;
  if (Scan(First, Start ? Start->second + (FromStart ? 0 : 1) : 0, Open))
    return true;
  if (!Open)
    return false;

  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<const CFGBlock *, 16> Work;
  for (const CFGBlock::AdjacentBlock &Succ : First->succs())
    if (const CFGBlock *B = Succ.getReachableBlock())
      Work.push_back(B);
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    if (!Seen.insert(B).second)
      continue;
    if (Scan(B, 0, Open))
      return true;
    if (!Open)
      continue;
    for (const CFGBlock::AdjacentBlock &Succ : B->succs())
      if (const CFGBlock *Next = Succ.getReachableBlock())
        Work.push_back(Next);
  }
  return false;
}

} // namespace clang::tidy::ddp
