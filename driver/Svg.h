//===--- Svg.h - SVG pictures safe to inline in a page ------------*- C++ -*-===//
//
// The HTML report inlines the drift pictures the runtime harness draws. A
// picture is inlined only if it parses as an XML document whose root is
// <svg>; it is then rebuilt from the parse, keeping drawing elements and
// their presentation attributes only: no scripts, event handlers, external
// references, foreign content or style sheets, so the page stays
// self-contained and inert whatever the file held.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_SVG_H
#define DDPLINT_DRIVER_SVG_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace ddplint {

/// The sanitised <svg> element of the document Text, ready to inline in
/// HTML, with every id (and every reference to one) prefixed by IdPrefix so
/// that several pictures on one page do not clash. None, with Why set, when
/// Text is not an SVG document.
std::optional<std::string> sanitizeSVG(llvm::StringRef Text,
                                       llvm::StringRef IdPrefix,
                                       std::string &Why);

} // namespace ddplint

#endif // DDPLINT_DRIVER_SVG_H
