//===--- Svg.cpp - SVG pictures safe to inline in a page ------------------===//
//
// A small strict XML parser (elements, attributes, text, CDATA, comments,
// processing instructions, a DOCTYPE without internal subset, the five
// predefined entities and character references) and a serialiser that keeps
// an allow-list of SVG drawing elements and attributes.
//
//===----------------------------------------------------------------------===//

#include "Svg.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FormatVariadic.h"

#include <vector>

using namespace llvm;

namespace ddplint {
namespace {

struct XmlNode {
  bool IsText = false;
  std::string Text; ///< Decoded text of a text node.
  std::string Name;
  std::vector<std::pair<std::string, std::string>> Attributes; ///< Decoded.
  std::vector<XmlNode> Children;
};

class XmlParser {
public:
  explicit XmlParser(StringRef Input) : All(Input), Rest(Input) {}

  std::optional<XmlNode> document(std::string &Why) {
    Rest.consume_front("\xEF\xBB\xBF");
    if (!misc(/*AllowDoctype=*/true) || !Rest.consume_front("<"))
      return fail(Why, Error.empty() ? "no root element" : Error);
    XmlNode Root;
    if (!element(Root, 0))
      return fail(Why, Error);
    if (!misc(/*AllowDoctype=*/false) || !Rest.empty())
      return fail(Why, Error.empty() ? "content after the root element"
                                     : Error);
    return Root;
  }

private:
  std::optional<XmlNode> fail(std::string &Why, const std::string &What) {
    unsigned Line = All.take_front(All.size() - Rest.size()).count('\n') + 1;
    Why = formatv("line {0}: {1}", Line, What).str();
    return std::nullopt;
  }

  bool error(const Twine &What) {
    if (Error.empty())
      Error = What.str();
    return false;
  }

  void skipSpace() { Rest = Rest.ltrim(" \t\r\n"); }

  bool skipPast(StringRef End, StringRef What) {
    size_t At = Rest.find(End);
    if (At == StringRef::npos)
      return error("unterminated " + What);
    Rest = Rest.drop_front(At + End.size());
    return true;
  }

  /// White space, comments and processing instructions (and, before the
  /// root, one DOCTYPE) outside the root element.
  bool misc(bool AllowDoctype) {
    while (true) {
      skipSpace();
      if (Rest.starts_with("<?")) {
        if (!skipPast("?>", "processing instruction"))
          return false;
      } else if (Rest.starts_with("<!--")) {
        if (!skipPast("-->", "comment"))
          return false;
      } else if (AllowDoctype && Rest.starts_with("<!DOCTYPE")) {
        size_t End = Rest.find('>');
        size_t Subset = Rest.find('[');
        if (End == StringRef::npos)
          return error("unterminated DOCTYPE");
        // An internal subset can declare entities; no picture needs one.
        if (Subset < End)
          return error("DOCTYPE with an internal subset");
        Rest = Rest.drop_front(End + 1);
        AllowDoctype = false;
      } else {
        return true;
      }
    }
  }

  static bool isNameStart(char C) {
    return isAlpha(C) || C == '_' || C == ':' ||
           static_cast<unsigned char>(C) >= 0x80;
  }
  static bool isNameChar(char C) {
    return isNameStart(C) || isDigit(C) || C == '-' || C == '.';
  }

  bool name(std::string &Out) {
    if (Rest.empty() || !isNameStart(Rest.front()))
      return error("expected a name");
    size_t N = 1;
    while (N < Rest.size() && isNameChar(Rest[N]))
      ++N;
    Out = Rest.take_front(N).str();
    Rest = Rest.drop_front(N);
    return true;
  }

  /// Decodes character data up to (not including) a character in Stop.
  bool characters(StringRef Stop, std::string &Out) {
    while (!Rest.empty() && Stop.find(Rest.front()) == StringRef::npos) {
      char C = Rest.front();
      if (C != '&') {
        Out += C;
        Rest = Rest.drop_front();
        continue;
      }
      size_t Semi = Rest.find(';');
      if (Semi == StringRef::npos || Semi > 12)
        return error("malformed entity reference");
      StringRef Entity = Rest.slice(1, Semi);
      Rest = Rest.drop_front(Semi + 1);
      if (Entity == "lt")
        Out += '<';
      else if (Entity == "gt")
        Out += '>';
      else if (Entity == "amp")
        Out += '&';
      else if (Entity == "quot")
        Out += '"';
      else if (Entity == "apos")
        Out += '\'';
      else if (Entity.consume_front("#")) {
        unsigned Code = 0;
        bool Bad = Entity.consume_front("x") ? Entity.getAsInteger(16, Code)
                                             : Entity.getAsInteger(10, Code);
        char Buffer[8];
        char *End = Buffer;
        if (Bad || Code == 0 || Code > 0x10FFFF ||
            (Code >= 0xD800 && Code <= 0xDFFF) ||
            !ConvertCodePointToUTF8(Code, End))
          return error("invalid character reference");
        Out.append(Buffer, End);
      } else {
        return error("unknown entity '&" + Entity + ";'");
      }
    }
    return true;
  }

  bool element(XmlNode &Node, unsigned Depth) {
    if (Depth > 64)
      return error("elements nested too deeply");
    if (!name(Node.Name))
      return false;
    bool Empty = false;
    if (!attributes(Node, Empty))
      return false;
    return Empty || content(Node, Depth);
  }

  /// The attributes of a start tag, through its `>`, or its `/>` (Empty).
  bool attributes(XmlNode &Node, bool &Empty) {
    while (true) {
      size_t Before = Rest.size();
      skipSpace();
      if (Rest.consume_front("/>")) {
        Empty = true;
        return true;
      }
      if (Rest.consume_front(">"))
        return true;
      if (Rest.size() == Before)
        return error("expected white space between attributes");
      if (!attribute(Node))
        return false;
    }
  }

  /// One `name="value"` (or `name='value'`) of a start tag.
  bool attribute(XmlNode &Node) {
    std::string Key, Value;
    if (!name(Key))
      return false;
    skipSpace();
    if (!Rest.consume_front("="))
      return error("expected '=' after attribute '" + Key + "'");
    skipSpace();
    if (Rest.empty() || (Rest.front() != '"' && Rest.front() != '\''))
      return error("expected a quoted value for '" + Key + "'");
    char Quote = Rest.front();
    Rest = Rest.drop_front();
    if (!characters(StringRef(Quote == '"' ? "\"<" : "'<"), Value))
      return false;
    if (!Rest.consume_front(StringRef(&Quote, 1)))
      return error("unterminated value of '" + Key + "'");
    for (const auto &A : Node.Attributes)
      if (A.first == Key)
        return error("attribute '" + Key + "' given twice");
    Node.Attributes.emplace_back(std::move(Key), std::move(Value));
    return true;
  }

  /// An element's content, through the end tag that matches it.
  bool content(XmlNode &Node, unsigned Depth) {
    while (true) {
      if (Rest.empty())
        return error("no end tag for <" + Node.Name + ">");
      if (Rest.consume_front("</"))
        return endTag(Node);
      if (!contentItem(Node, Depth))
        return false;
    }
  }

  /// The rest of an end tag after its `</`, which must close Node.
  bool endTag(const XmlNode &Node) {
    std::string End;
    if (!name(End))
      return false;
    if (End != Node.Name)
      return error("</" + End + "> closes <" + Node.Name + ">");
    skipSpace();
    if (!Rest.consume_front(">"))
      return error("malformed end tag");
    return true;
  }

  /// One piece of content: a comment or processing instruction (skipped),
  /// a CDATA section or character data (text), or a child element.
  bool contentItem(XmlNode &Node, unsigned Depth) {
    if (Rest.starts_with("<!--"))
      return skipPast("-->", "comment");
    if (Rest.consume_front("<![CDATA[")) {
      size_t End = Rest.find("]]>");
      if (End == StringRef::npos)
        return error("unterminated CDATA section");
      XmlNode Text;
      Text.IsText = true;
      Text.Text = Rest.take_front(End).str();
      Node.Children.push_back(std::move(Text));
      Rest = Rest.drop_front(End + 3);
      return true;
    }
    if (Rest.starts_with("<?"))
      return skipPast("?>", "processing instruction");
    if (Rest.starts_with("<!"))
      return error("unexpected markup declaration");
    XmlNode Child;
    if (Rest.consume_front("<")) {
      if (!element(Child, Depth + 1))
        return false;
    } else {
      Child.IsText = true;
      if (!characters("<", Child.Text))
        return false;
    }
    Node.Children.push_back(std::move(Child));
    return true;
  }

  StringRef All, Rest;
  std::string Error;
};

// What a drift picture may contain: shapes, text, grouping, gradients,
// clipping and markers. Everything else (script, foreignObject, image, a,
// style, animation, use of external resources) is dropped with its content.
const StringSet<> &allowedElements() {
  static const StringSet<> Allowed = {
      "svg",      "g",           "defs",           "title",
      "desc",     "symbol",      "use",            "path",
      "line",     "polyline",    "polygon",        "rect",
      "circle",   "ellipse",     "text",           "tspan",
      "textPath", "clipPath",    "mask",           "linearGradient",
      "radialGradient", "stop",  "marker",         "pattern"};
  return Allowed;
}

std::string escapeHTML(StringRef Text, bool InAttribute) {
  std::string Out;
  for (char C : Text) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += InAttribute ? "&quot;" : "\"";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

class Sanitizer {
public:
  explicit Sanitizer(StringRef Prefix) : Prefix(Prefix.str()) {}

  std::string element(const XmlNode &Node, bool Root) {
    std::string Out = "<" + Node.Name;
    bool HasViewBox = false;
    std::string Width, Height;
    for (const auto &[Key, Value] : Node.Attributes) {
      std::optional<std::string> Kept = attribute(Key, Value);
      if (!Kept)
        continue;
      if (Key == "viewBox")
        HasViewBox = true;
      if (Key == "width")
        Width = *Kept;
      if (Key == "height")
        Height = *Kept;
      Out += " " + Key + "=\"" + escapeHTML(*Kept, true) + "\"";
    }
    // A picture with a fixed size only scales to the page with a viewBox.
    if (Root && !HasViewBox) {
      StringRef W = StringRef(Width).trim(), H = StringRef(Height).trim();
      W.consume_back("px");
      H.consume_back("px");
      double WV, HV;
      if (!W.getAsDouble(WV) && !H.getAsDouble(HV) && WV > 0 && HV > 0)
        Out += formatv(" viewBox=\"0 0 {0} {1}\"", W, H).str();
    }
    if (Root)
      Out += " role=\"img\"";
    Out += ">";
    for (const XmlNode &Child : Node.Children) {
      if (Child.IsText)
        Out += escapeHTML(Child.Text, false);
      else if (allowedElements().contains(Child.Name))
        Out += element(Child, false);
    }
    Out += "</" + Node.Name + ">";
    return Out;
  }

private:
  /// "url(#a)" -> "url(#P-a)"; None when the value points anywhere but into
  /// this picture.
  std::optional<std::string> localReferences(StringRef Value) {
    std::string Out;
    while (true) {
      size_t At = Value.find_insensitive("url(");
      if (At == StringRef::npos)
        break;
      Out += Value.take_front(At + 4).str();
      Value = Value.drop_front(At + 4).ltrim(" \t'\"");
      if (!Value.consume_front("#"))
        return std::nullopt;
      Out += "#" + Prefix + "-";
    }
    return Out + Value.str();
  }

  std::optional<std::string> attribute(StringRef Key, StringRef Value) {
    std::string Lower = Key.lower();
    StringRef LowerKey = Lower;
    // Event handlers run script.
    if (LowerKey.starts_with("on"))
      return std::nullopt;
    // Namespaced attributes other than links and xml:* are editor data.
    if (LowerKey.contains(':') && LowerKey != "xlink:href" &&
        !LowerKey.starts_with("xml:") && !LowerKey.starts_with("xmlns"))
      return std::nullopt;
    std::string Compact;
    for (char C : Value)
      if (!isSpace(C))
        Compact += toLower(C);
    if (StringRef(Compact).contains("javascript:") ||
        StringRef(Compact).contains("data:"))
      return std::nullopt;
    if (LowerKey == "id")
      return Prefix + "-" + Value.str();
    if (LowerKey == "href" || LowerKey == "xlink:href") {
      if (!Value.starts_with("#"))
        return std::nullopt;
      return "#" + Prefix + "-" + Value.drop_front().str();
    }
    // CSS escapes and at-rules could hide a fetch from the check below.
    if (LowerKey == "style" && (Value.contains('\\') || Value.contains('@') ||
                                StringRef(Compact).contains("expression(")))
      return std::nullopt;
    return localReferences(Value);
  }

  std::string Prefix;
};

} // namespace

std::optional<std::string> sanitizeSVG(StringRef Text, StringRef IdPrefix,
                                       std::string &Why) {
  XmlParser Parser(Text);
  std::optional<XmlNode> Root = Parser.document(Why);
  if (!Root)
    return std::nullopt;
  if (Root->Name != "svg") {
    Why = "the root element is <" + Root->Name + ">, not <svg>";
    return std::nullopt;
  }
  for (const auto &[Key, Value] : Root->Attributes)
    if (Key == "xmlns" && Value != "http://www.w3.org/2000/svg") {
      Why = "the root element is not in the SVG namespace";
      return std::nullopt;
    }
  return Sanitizer(IdPrefix).element(*Root, /*Root=*/true);
}

} // namespace ddplint
