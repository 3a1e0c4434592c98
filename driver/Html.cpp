//===--- Html.cpp - findings as one self-contained HTML page --------------===//
//
// A page to read a run's findings in a browser or attach to a CI job: a
// summary by check (with what each check finds, from its page), the analysis
// problems (compile errors, unreadable files), then the findings grouped by
// file, each with the code around it, its notes, its fix-its and, when the
// runtime harness annotated it, the verdict and the drift picture inlined.
// Everything is inline (CSS, pictures); the page fetches nothing.
//
//===----------------------------------------------------------------------===//

#include "CheckDocs.h"
#include "Output.h"
#include "OutputSupport.h"
#include "Svg.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;

namespace ddplint {
namespace {

/// Lines of code shown before and after a flagged line.
constexpr unsigned ContextLines = 3;
/// Larger pictures are not inlined.
constexpr uint64_t MaxSvgBytes = 2 << 20;

std::string escape(StringRef Text) {
  std::string Out;
  Out.reserve(Text.size());
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
      Out += "&quot;";
      break;
    case '\'':
      Out += "&#39;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

std::string plural(size_t N, StringRef One, StringRef Many) {
  return formatv("{0} {1}", N, N == 1 ? One : Many).str();
}

/// How a run-time verdict bears on the finding: "confirmed" when the run
/// showed the failure (divergence, a hang, a crash, a replayed order, a
/// gradient off by a factor), "clean" when it did not, else "neutral".
/// `ddp-harness confirm` writes "confirmed" (the buggy variant showed the
/// bug and the fix did not) or "not confirmed", which stays neutral: it
/// says the run did not show the bug, not that the code is right.
StringRef verdictClass(StringRef Verdict) {
  std::string V = Verdict.lower();
  StringRef Lower = V;
  for (StringRef Bad :
       {"confirmed", "diverged", "hang", "crash", "same-order", "overlap"})
    if (Lower.starts_with(Bad))
      return "confirmed";
  // "consistent, gradient 2.00x the average"
  size_t At = Lower.find("gradient ");
  if (At != StringRef::npos) {
    StringRef Factor = Lower.drop_front(At + 9);
    Factor = Factor.take_until([](char C) { return C == 'x' || C == ' '; });
    double X;
    if (!Factor.getAsDouble(X))
      return X > 1.01 || X < 0.99 ? "confirmed" : "clean";
  }
  for (StringRef Good : {"consistent", "reshuffled", "ok"})
    if (Lower.starts_with(Good))
      return "clean";
  return "neutral";
}

constexpr StringLiteral Style = R"css(
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#ffffff;
  --code:#f6f8fa; --warn:#9a6700; --warn-bg:#fff8c5; --err:#cf222e;
  --err-bg:#ffebe9; --ok:#1a7f37; --ok-bg:#dafbe1; --link:#0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI",
  Helvetica, Arial, sans-serif; color: var(--fg); background: var(--bg); }
header.page { padding: 20px 32px; border-bottom: 1px solid var(--line);
  background: var(--code); }
header.page h1 { margin: 0 0 4px; font-size: 24px; }
.totals { margin: 0; color: var(--muted); }
main { padding: 8px 32px 32px; max-width: 1200px; }
h2 { font-size: 19px; margin: 28px 0 10px; padding-bottom: 4px;
  border-bottom: 1px solid var(--line); }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 6px 10px;
  border-bottom: 1px solid var(--line); }
th { font-size: 13px; color: var(--muted); font-weight: 600; }
td.count { text-align: right; font-variant-numeric: tabular-nums;
  font-weight: 600; width: 5em; }
tr.none td { color: var(--muted); }
tr.none td.count { font-weight: normal; }
td.check, .check { font-family: ui-monospace, SFMono-Regular, Menlo,
  Consolas, monospace; font-size: 13px; white-space: nowrap; }
section.file { margin-top: 24px; }
h3.file-name { font: 600 15px ui-monospace, SFMono-Regular, Menlo, Consolas,
  monospace; margin: 0 0 8px; word-break: break-all; }
h3.file-name .file-count { font: 13px system-ui, sans-serif;
  color: var(--muted); margin-left: 8px; }
article.finding { border: 1px solid var(--line); border-left: 4px solid
  var(--warn); border-radius: 6px; margin: 0 0 16px; padding: 10px 14px; }
article.finding.error { border-left-color: var(--err); }
.finding-head { display: flex; flex-wrap: wrap; gap: 6px 12px;
  align-items: baseline; font-size: 13px; }
.level { font-weight: 700; text-transform: uppercase; font-size: 11px;
  letter-spacing: .04em; padding: 1px 6px; border-radius: 4px;
  background: var(--warn-bg); color: var(--warn); }
.error .level, .level.error { background: var(--err-bg); color: var(--err); }
.loc { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  color: var(--muted); word-break: break-all; }
p.message { margin: 6px 0 8px; font-weight: 600; white-space: pre-line; }
table.by-file { margin-top: 18px; }
pre.code { margin: 6px 0; padding: 6px 0; background: var(--code);
  border: 1px solid var(--line); border-radius: 6px; overflow-x: auto;
  font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  tab-size: 4; }
pre.code .line { display: block; padding: 0 12px 0 0; white-space: pre; }
pre.code .ln { display: inline-block; width: 4.5em; padding-right: 12px;
  text-align: right; color: var(--muted); user-select: none; }
pre.code .flagged { background: var(--warn-bg); }
.error pre.code .flagged { background: var(--err-bg); }
pre.code mark { background: none; color: inherit; text-decoration:
  underline wavy var(--warn); text-underline-offset: 3px; }
.error pre.code mark { text-decoration-color: var(--err); }
p.unavailable { color: var(--muted); font-style: italic; margin: 6px 0; }
h4 { margin: 10px 0 4px; font-size: 13px; color: var(--muted);
  text-transform: uppercase; letter-spacing: .04em; }
ul.notes, ul.fixes, ul.problems { margin: 0; padding-left: 20px; }
ul.notes li, ul.fixes li { margin: 4px 0; }
ul.notes pre.code { margin-top: 2px; }
ul.notes pre.code .flagged { background: none; }
code.old { background: var(--err-bg); padding: 0 3px; border-radius: 3px;
  white-space: pre-wrap; }
code.new { background: var(--ok-bg); padding: 0 3px; border-radius: 3px;
  white-space: pre-wrap; }
.runtime { margin: 10px 0; padding: 8px 12px; border-radius: 6px;
  background: var(--code); border: 1px solid var(--line); }
.runtime h4 { margin-top: 0; }
.verdict { font-weight: 700; padding: 1px 8px; border-radius: 10px;
  text-transform: none; letter-spacing: 0; font-size: 13px; }
.runtime.confirmed .verdict { background: var(--err-bg); color: var(--err); }
.runtime.clean .verdict { background: var(--ok-bg); color: var(--ok); }
.runtime.neutral .verdict { background: var(--line); color: var(--fg); }
p.evidence { margin: 4px 0; white-space: pre-line; }
table.collectives { border-collapse: collapse; margin: 6px 0; }
table.collectives td, table.collectives th { padding: 2px 8px;
  border-bottom: 1px solid var(--line); text-align: left; }
figure.drift { margin: 8px 0 0; }
figure.drift svg { display: block; max-width: 100%; height: auto;
  background: #fff; border: 1px solid var(--line); border-radius: 4px; }
p.svg-note { color: var(--muted); font-style: italic; margin: 4px 0; }
p.clean-run { font-size: 17px; color: var(--ok); }
footer { color: var(--muted); font-size: 12px; padding: 0 32px 24px; }
)css";

class HtmlWriter {
public:
  HtmlWriter(raw_ostream &OS, const OutputOptions &Opts) : OS(OS), Opts(Opts) {}

  void print(const Report &R) {
    std::set<std::string> Files;
    for (const Finding &F : R.Findings)
      Files.insert(F.Where.File);
    size_t Problems =
        R.CompileErrors.size() + R.ToolErrors.size() + R.Vacuous.size();

    OS << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
       << "<meta charset=\"utf-8\">\n"
       << "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n"
       << "<meta name=\"generator\" content=\"ddplint " DDPLINT_VERSION
          "\">\n"
       << "<title>ddplint: " << plural(R.Findings.size(), "finding", "findings")
       << "</title>\n<style>" << Style << "</style>\n</head>\n<body>\n";
    OS << "<header class=\"page\">\n<h1>ddplint report</h1>\n"
       << "<p class=\"totals\"><span id=\"total-findings\">"
       << plural(R.Findings.size(), "finding", "findings") << "</span> in "
       << plural(Files.size(), "file", "files");
    if (Problems)
      OS << " · <a href=\"#problems\">"
         << plural(Problems, "analysis problem", "analysis problems")
         << "</a>";
    OS << " · ddplint " DDPLINT_VERSION << "</p>\n</header>\n<main>\n";

    summary(R, Files);
    problems(R);
    findings(R);
    OS << "</main>\n<footer>Generated by ddplint " DDPLINT_VERSION
          ". Paths are relative to "
       << escape(Opts.SourceRoot) << ".</footer>\n</body>\n</html>\n";
  }

private:
  void summary(const Report &R, const std::set<std::string> &Files) {
    std::map<std::string, size_t> Counts;
    for (const std::string &Check : R.Checks)
      Counts[Check];
    for (const Finding &F : R.Findings)
      ++Counts[F.Check];
    std::vector<std::pair<std::string, size_t>> Rows(Counts.begin(),
                                                     Counts.end());
    std::stable_sort(Rows.begin(), Rows.end(), [](auto &A, auto &B) {
      return A.second > B.second;
    });

    OS << "<section id=\"summary\">\n<h2>Summary</h2>\n";
    if (R.Findings.empty())
      OS << "<p class=\"clean-run\">No findings.</p>\n";
    OS << "<table class=\"by-check\">\n<thead><tr><th>Check</th>"
          "<th>Findings</th><th>What it finds</th></tr></thead>\n<tbody>\n";
    for (const auto &[Check, Count] : Rows) {
      const CheckDoc *Doc = findCheckDoc(Check);
      OS << "<tr class=\"" << (Count ? "some" : "none")
         << "\" data-check=\"" << escape(Check) << "\"><td class=\"check\">"
         << "<a href=\"" << escape(docURL(Check, Opts)) << "\">"
         << escape(Check) << "</a></td><td class=\"count\">" << Count
         << "</td><td>" << escape(Doc ? Doc->Short : "") << "</td></tr>\n";
    }
    OS << "</tbody>\n</table>\n";

    if (!Files.empty()) {
      OS << "<table class=\"by-file\">\n<thead><tr><th>File</th>"
            "<th>Findings</th></tr></thead>\n<tbody>\n";
      unsigned Index = 0;
      for (const std::string &File : Files) {
        size_t Count = std::count_if(
            R.Findings.begin(), R.Findings.end(),
            [&](const Finding &F) { return F.Where.File == File; });
        OS << "<tr><td class=\"check\"><a href=\"#file-" << ++Index << "\">"
           << escape(displayPath(File, Opts)) << "</a></td>"
           << "<td class=\"count\">" << Count << "</td></tr>\n";
      }
      OS << "</tbody>\n</table>\n";
    }
    OS << "</section>\n";
  }

  void problems(const Report &R) {
    if (R.CompileErrors.empty() && R.ToolErrors.empty() && R.Vacuous.empty())
      return;
    OS << "<section id=\"problems\">\n<h2>Analysis problems</h2>\n";
    if (!R.CompileErrors.empty())
      OS << "<p>The checks ran on everything clang could build; findings "
            "that depend on the broken code may be missing.</p>\n";
    OS << "<ul class=\"problems\">\n";
    for (const std::string &E : R.ToolErrors)
      OS << "<li><span class=\"level error\">error</span> " << escape(E)
         << "</li>\n";
    for (const VacuousUnit &V : R.Vacuous)
      OS << "<li><span class=\"level error\">vacuous analysis</span> "
         << "<span class=\"loc\">" << escape(displayPath(V.File, Opts))
         << "</span> " << escape(V.Cause) << "</li>\n";
    for (const Finding &E : R.CompileErrors)
      OS << "<li><span class=\"level error\">compile error</span> "
         << "<span class=\"loc\">" << escape(where(E.Where)) << "</span> "
         << escape(E.Message) << "</li>\n";
    OS << "</ul>\n</section>\n";
  }

  void findings(const Report &R) {
    if (R.Findings.empty())
      return;
    OS << "<section id=\"findings\">\n<h2>Findings</h2>\n";
    unsigned FileIndex = 0, FindingIndex = 0;
    for (size_t I = 0; I < R.Findings.size();) {
      const std::string &File = R.Findings[I].Where.File;
      size_t End = I;
      while (End < R.Findings.size() && R.Findings[End].Where.File == File)
        ++End;
      OS << "<section class=\"file\" id=\"file-" << ++FileIndex << "\">\n"
         << "<h3 class=\"file-name\">" << escape(displayPath(File, Opts))
         << "<span class=\"file-count\">"
         << plural(End - I, "finding", "findings") << "</span></h3>\n";
      for (; I < End; ++I)
        finding(R.Findings[I], ++FindingIndex);
      OS << "</section>\n";
    }
    OS << "</section>\n";
  }

  std::string where(const Location &L) {
    std::string Out = displayPath(L.File, Opts);
    if (L.Line)
      Out += formatv(":{0}:{1}", L.Line, L.Column).str();
    return Out;
  }

  void finding(const Finding &F, unsigned Index) {
    bool Error = F.Level == "error";
    OS << "<article class=\"finding " << (Error ? "error" : "warning")
       << "\" id=\"finding-" << Index << "\" data-check=\""
       << escape(F.Check) << "\">\n<div class=\"finding-head\">"
       << "<span class=\"level\">" << (Error ? "error" : "warning")
       << "</span><a class=\"check\" href=\"" << escape(docURL(F.Check, Opts))
       << "\">" << escape(F.Check) << "</a><a class=\"loc\" href=\"#finding-"
       << Index << "\">" << escape(where(F.Where)) << "</a></div>\n"
       << "<p class=\"message\">" << escape(F.Message) << "</p>\n";
    code(F.Where, ContextLines);
    if (F.Runtime)
      runtime(*F.Runtime, Index);
    if (!F.Notes.empty()) {
      OS << "<h4>Notes</h4>\n<ul class=\"notes\">\n";
      for (const Note &N : F.Notes) {
        OS << "<li><span class=\"loc\">" << escape(where(N.Where))
           << "</span> " << escape(N.Message);
        code(N.Where, 0);
        OS << "</li>\n";
      }
      OS << "</ul>\n";
    }
    if (!F.Fixes.empty()) {
      OS << "<h4>Fix-it</h4>\n<ul class=\"fixes\">\n";
      for (const Replacement &R : F.Fixes)
        fix(R);
      OS << "</ul>\n";
    }
    OS << "</article>\n";
  }

  /// The flagged line with Context lines around it; the flagged line is
  /// highlighted and the token at the column marked.
  void code(const Location &L, unsigned Context) {
    unsigned Count = Sources.lineCount(L.File);
    if (!L.Line || L.Line > Count) {
      if (Context)
        OS << "<p class=\"unavailable\">Source not available.</p>\n";
      return;
    }
    unsigned First = L.Line > Context ? L.Line - Context : 1;
    unsigned Last = std::min(Count, L.Line + Context);
    OS << "<pre class=\"code\"><code>";
    for (unsigned N = First; N <= Last; ++N) {
      StringRef Line = *Sources.line(L.File, N);
      bool Flagged = N == L.Line;
      OS << "<span class=\"line" << (Flagged ? " flagged" : "")
         << "\" data-line=\"" << N << "\"><span class=\"ln\">" << N
         << "</span>";
      if (Flagged && L.Column >= 1 && L.Column <= Line.size()) {
        StringRef Before = Line.take_front(L.Column - 1);
        StringRef At = Line.drop_front(L.Column - 1);
        size_t Length = 1;
        auto IsWord = [](char C) { return isAlnum(C) || C == '_'; };
        if (IsWord(At.front()))
          while (Length < At.size() && IsWord(At[Length]))
            ++Length;
        OS << escape(Before) << "<mark>" << escape(At.take_front(Length))
           << "</mark>" << escape(At.drop_front(Length));
      } else {
        OS << escape(Line);
      }
      OS << "</span>";
    }
    OS << "</code></pre>\n";
  }

  void fix(const Replacement &R) {
    std::string Old;
    if (std::optional<StringRef> Text = Sources.text(R.Begin.File))
      if (R.Begin.Offset + R.Length <= Text->size())
        Old = Text->substr(R.Begin.Offset, R.Length).str();
    OS << "<li><span class=\"loc\">" << escape(where(R.Begin)) << "</span> ";
    if (R.Length == 0)
      OS << "insert <code class=\"new\">" << escape(R.Text) << "</code>";
    else if (R.Text.empty())
      OS << "delete "
         << (Old.empty() ? plural(R.Length, "byte", "bytes")
                         : "<code class=\"old\">" + escape(Old) + "</code>");
    else
      OS << "replace "
         << (Old.empty() ? plural(R.Length, "byte", "bytes")
                         : "<code class=\"old\">" + escape(Old) + "</code>")
         << " with <code class=\"new\">" << escape(R.Text) << "</code>";
    OS << "</li>\n";
  }

  void runtime(const RuntimeEvidence &E, unsigned Index) {
    OS << "<div class=\"runtime " << verdictClass(E.Verdict) << "\">\n"
       << "<h4>At run time <span class=\"verdict\">" << escape(E.Verdict)
       << "</span></h4>\n";
    if (!E.Evidence.empty())
      OS << "<p class=\"evidence\">" << escape(E.Evidence) << "</p>\n";
    collectives(E.Collectives);
    if (!E.Svg.empty()) {
      std::string Why;
      std::optional<std::string> Picture = picture(E.Svg, Index, Why);
      if (Picture)
        OS << "<figure class=\"drift\">" << *Picture << "</figure>\n";
      else
        OS << "<p class=\"svg-note\">Drift picture " << escape(E.Svg)
           << " not shown: " << escape(Why) << ".</p>\n";
    }
    OS << "</div>\n";
  }

  /// Where the ranks' collectives parted: a row per rank.
  void collectives(const std::vector<RankCollective> &Rows) {
    if (Rows.empty())
      return;
    OS << "<table class=\"collectives\">\n<tr><th>rank</th><th>collective "
          "where the ranks parted</th><th>call site</th><th>blocked</th>"
          "</tr>\n";
    for (const RankCollective &R : Rows)
      OS << "<tr><td>" << R.Rank << "</td><td>" << escape(R.Collective)
         << "</td><td><code>" << escape(R.Site) << "</code></td><td>"
         << escape(R.Blocked) << "</td></tr>\n";
    OS << "</table>\n";
  }

  std::optional<std::string> picture(const std::string &Path, unsigned Index,
                                     std::string &Why) {
    uint64_t Size;
    if (std::error_code EC = sys::fs::file_size(Path, Size)) {
      Why = "cannot read it (" + EC.message() + ")";
      return std::nullopt;
    }
    if (Size > MaxSvgBytes) {
      Why = formatv("it is larger than {0} MiB", MaxSvgBytes >> 20).str();
      return std::nullopt;
    }
    auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buffer) {
      Why = "cannot read it (" + Buffer.getError().message() + ")";
      return std::nullopt;
    }
    std::string Parse;
    std::optional<std::string> Svg = sanitizeSVG(
        (*Buffer)->getBuffer(), formatv("f{0}", Index).str(), Parse);
    if (!Svg)
      Why = "it is not an SVG document (" + Parse + ")";
    return Svg;
  }

  raw_ostream &OS;
  const OutputOptions &Opts;
  SourceCache Sources;
};

} // namespace

void printHTML(raw_ostream &OS, const Report &R, const OutputOptions &Opts) {
  HtmlWriter(OS, Opts).print(R);
}

} // namespace ddplint
