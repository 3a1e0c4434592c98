//===--- Randomness.h - random generators, their draws and their seeds ----===//
//
// Where a program draws random numbers outside LibTorch's own generator
// (C's `rand()`, the standard library's engines and distributions,
// cuRAND's host and device generators) and where it seeds them. A model
// written from scratch draws its initial weights this way; whether every
// rank draws the same ones depends on the generator's seed.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_CHECKS_VOCABULARY_RANDOMNESS_H
#define DDPLINT_CHECKS_VOCABULARY_RANDOMNESS_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

#include <optional>

namespace clang::tidy::ddp::randomness {

/// A generator a call advances or seeds: an object (an engine, a cuRAND
/// generator handle or device state; `Object` is the expression naming
/// it, without `&`), or C's one generator behind `rand()`.
struct Generator {
  const Expr *Object = nullptr;
  bool CLibrary = false;
};

/// The generator \p Call draws a number from, when the number is a value
/// (a weight, a noise sample): a floating-point distribution's
/// `operator()` (`std::normal_distribution`, `std::uniform_real_distribution`),
/// cuRAND's `curandGenerateUniform`/`Normal`/`LogNormal` and
/// `curand_uniform`/`curand_normal`, or an integer draw (`rand()`, an
/// engine's `operator()`, `curand(&state)`, an integer distribution) used
/// as a floating-point number (`rand() / (float)RAND_MAX`). Integer draws
/// used as integers (an index to swap, a shuffle, a coin) are not values.
/// \p InFloatingContext says whether the call's value is taken as a
/// floating-point number by the expression around it.
std::optional<Generator> drawnValue(const CallExpr &Call,
                                    bool InFloatingContext);

/// A call that seeds a generator: `srand(s)`, `srandom(s)`,
/// `srand48(s)`, `engine.seed(s)`, `curandSetPseudoRandomGeneratorSeed(g,
/// s)`, `curand_init(s, ...)`. \p Seed is the seed expression (null for
/// `engine.seed()`, the engine's default seed).
struct Seeding {
  Generator Of;
  const Expr *Seed = nullptr;
};
std::optional<Seeding> seedsGenerator(const CallExpr &Call);

/// Of an engine's construction (`std::mt19937 gen(seed)`,
/// `std::default_random_engine e;`): the seed expression (null for a
/// default-constructed engine, whose seed is a constant). None when \p E
/// makes no standard engine. `std::random_device` is one whose draws
/// differ in every process (\p PerProcess).
std::optional<const Expr *> engineSeed(const Expr &E, bool &PerProcess);

/// Whether \p T is (a pointer or reference to) a standard random engine,
/// `std::random_device`, or cuRAND's generator or state type.
bool isGeneratorType(QualType T);
/// Whether \p T is (a pointer or reference to) a standard distribution.
bool isDistributionType(QualType T);

} // namespace clang::tidy::ddp::randomness

#endif // DDPLINT_CHECKS_VOCABULARY_RANDOMNESS_H
