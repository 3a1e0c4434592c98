//===- Svg.cpp - A plot of cross-rank drift over steps --------------------===//

#include "Svg.h"

#include "OutputLines.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

using namespace ddpharness;

namespace {

constexpr double Width = 720, Height = 420;
constexpr double Left = 90, Right = 180, Top = 50, Bottom = 60;
constexpr double PlotW = Width - Left - Right, PlotH = Height - Top - Bottom;
const char *const Colors[] = {"#d62728", "#2ca02c", "#1f77b4", "#ff7f0e",
                              "#9467bd", "#8c564b", "#e377c2", "#17becf"};

/// Text content for the SVG: valid UTF-8 without control bytes (via
/// sanitizeLine), with XML's special characters escaped.
std::string escapeXml(const std::string &Raw) {
  std::string S = sanitizeLine(Raw);
  std::string Out;
  for (char C : S) {
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
    default:
      Out += C;
    }
  }
  return Out;
}

std::string num(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.2f", V);
  return Buf;
}

std::string tickLabel(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%g", V);
  return Buf;
}

/// 1, 2 or 5 times a power of ten, at least \p Raw.
double niceStep(double Raw) {
  if (Raw <= 0)
    return 1;
  double Power = std::pow(10, std::floor(std::log10(Raw)));
  for (double M : {1.0, 2.0, 5.0, 10.0})
    if (M * Power >= Raw)
      return M * Power;
  return 10 * Power;
}

/// Maps drift values to y coordinates.
class YAxis {
public:
  explicit YAxis(const std::vector<double> &Values) {
    double MinPos = INFINITY, Max = 0;
    for (double V : Values) {
      Max = std::max(Max, V);
      if (V > 0)
        MinPos = std::min(MinPos, V);
      HasZero |= V == 0;
    }
    Log = MinPos != INFINITY && Max / MinPos >= 100;
    if (Log) {
      LoDecade = std::floor(std::log10(MinPos));
      HiDecade = std::ceil(std::log10(Max));
      if (HiDecade <= LoDecade)
        HiDecade = LoDecade + 1;
    } else {
      Step = niceStep((Max > 0 ? Max : 1) / 5);
      TopValue = Step * std::ceil((Max > 0 ? Max : 1) / Step);
    }
  }

  double y(double V) const {
    if (!Log)
      return Top + PlotH * (1 - V / TopValue);
    double ZeroBand = HasZero ? 0.1 * PlotH : 0;
    if (V <= 0)
      return Top + PlotH;
    double F = (std::log10(V) - LoDecade) / (HiDecade - LoDecade);
    return Top + (PlotH - ZeroBand) * (1 - F);
  }

  /// (value, label) of each tick.
  std::vector<std::pair<double, std::string>> ticks() const {
    std::vector<std::pair<double, std::string>> Out;
    if (!Log) {
      for (double V = 0; V <= TopValue + Step / 2; V += Step)
        Out.push_back({V, tickLabel(V)});
      return Out;
    }
    int Every = HiDecade - LoDecade > 8 ? 2 : 1;
    for (int D = static_cast<int>(LoDecade); D <= HiDecade; D += Every) {
      char Buf[16];
      if (D >= -3 && D <= 3)
        std::snprintf(Buf, sizeof(Buf), "%g", std::pow(10.0, D));
      else
        std::snprintf(Buf, sizeof(Buf), "1e%d", D);
      Out.push_back({std::pow(10.0, D), Buf});
    }
    if (HasZero)
      Out.push_back({0, "0"});
    return Out;
  }

  bool isLog() const { return Log; }

private:
  bool Log = false;
  bool HasZero = false;
  double LoDecade = 0, HiDecade = 1;
  double Step = 1, TopValue = 1;
};

} // namespace

DriftSeries ddpharness::driftSeries(const std::string &Label,
                                    const RunAnalysis &A) {
  DriftSeries S;
  S.Label = Label;
  std::set<int64_t> Seen;
  bool Unique = true;
  for (const StepAnalysis &Step : A.Steps)
    Unique &= Seen.insert(Step.Step).second;
  for (size_t I = 0; I < A.Steps.size(); ++I) {
    const StepAnalysis &Step = A.Steps[I];
    if (Step.MaxDrift && std::isfinite(*Step.MaxDrift))
      S.Points.push_back(
          {Unique ? static_cast<double>(Step.Step) : static_cast<double>(I),
           *Step.MaxDrift});
  }
  return S;
}

namespace {

/// The x axis: steps from MinX to MaxX across the plot's width.
struct XAxis {
  double MinX = INFINITY, MaxX = -INFINITY;
  double x(double V) const { return Left + PlotW * (V - MinX) / (MaxX - MinX); }
};

XAxis xAxisOf(const std::vector<DriftSeries> &Series,
              std::vector<double> &Values) {
  XAxis X;
  for (const DriftSeries &S : Series)
    for (const auto &[PX, V] : S.Points) {
      Values.push_back(V);
      X.MinX = std::min(X.MinX, PX);
      X.MaxX = std::max(X.MaxX, PX);
    }
  if (Values.empty()) {
    X.MinX = 0;
    X.MaxX = 1;
  }
  if (X.MaxX == X.MinX) {
    X.MinX -= 0.5;
    X.MaxX += 0.5;
  }
  return X;
}

/// The grid, the ticks of both axes, the axes and their titles.
void drawAxes(std::string &Out, const XAxis &X, const YAxis &Y) {
  for (const auto &[V, Label] : Y.ticks()) {
    double YY = Y.y(V);
    Out += "  <line x1=\"" + num(Left) + "\" y1=\"" + num(YY) + "\" x2=\"" +
           num(Left + PlotW) + "\" y2=\"" + num(YY) +
           "\" stroke=\"#dddddd\"/>\n";
    Out += "  <text x=\"" + num(Left - 8) + "\" y=\"" + num(YY + 4) +
           "\" text-anchor=\"end\">" + escapeXml(Label) + "</text>\n";
  }
  // x ticks: whole steps.
  double XStep = std::max(1.0, niceStep((X.MaxX - X.MinX) / 8));
  for (double V = std::ceil(X.MinX / XStep) * XStep; V <= X.MaxX; V += XStep) {
    double XX = X.x(V);
    Out += "  <line x1=\"" + num(XX) + "\" y1=\"" + num(Top + PlotH) +
           "\" x2=\"" + num(XX) + "\" y2=\"" + num(Top + PlotH + 5) +
           "\" stroke=\"black\"/>\n";
    Out += "  <text x=\"" + num(XX) + "\" y=\"" + num(Top + PlotH + 20) +
           "\" text-anchor=\"middle\">" + tickLabel(V) + "</text>\n";
  }
  Out += "  <line x1=\"" + num(Left) + "\" y1=\"" + num(Top) + "\" x2=\"" +
         num(Left) + "\" y2=\"" + num(Top + PlotH) + "\" stroke=\"black\"/>\n";
  Out += "  <line x1=\"" + num(Left) + "\" y1=\"" + num(Top + PlotH) +
         "\" x2=\"" + num(Left + PlotW) + "\" y2=\"" + num(Top + PlotH) +
         "\" stroke=\"black\"/>\n";
  Out += "  <text x=\"" + num(Left + PlotW / 2) + "\" y=\"" +
         num(Height - 15) + "\" text-anchor=\"middle\">step</text>\n";
  std::string YTitle = std::string("max |W_rank0 - W_rankK|") +
                       (Y.isLog() ? " (log scale)" : "");
  Out += "  <text transform=\"translate(20 " + num(Top + PlotH / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + escapeXml(YTitle) +
         "</text>\n";
}

/// Series \p I as a line with dots, and its legend entry.
void drawSeries(std::string &Out, const DriftSeries &S, size_t I,
                const XAxis &X, const YAxis &Y) {
  const char *Color = Colors[I % std::size(Colors)];
  std::string Points;
  for (const auto &[PX, PV] : S.Points)
    Points += (Points.empty() ? "" : " ") + num(X.x(PX)) + "," + num(Y.y(PV));
  if (S.Points.size() > 1)
    Out += "  <polyline fill=\"none\" stroke=\"" + std::string(Color) +
           "\" stroke-width=\"2\" points=\"" + Points + "\"/>\n";
  for (const auto &[PX, PV] : S.Points)
    Out += "  <circle cx=\"" + num(X.x(PX)) + "\" cy=\"" + num(Y.y(PV)) +
           "\" r=\"3\" fill=\"" + Color + "\"/>\n";
  double LY = Top + 10 + 20 * I;
  Out += "  <line x1=\"" + num(Left + PlotW + 15) + "\" y1=\"" + num(LY) +
         "\" x2=\"" + num(Left + PlotW + 40) + "\" y2=\"" + num(LY) +
         "\" stroke=\"" + Color + "\" stroke-width=\"2\"/>\n";
  Out += "  <text x=\"" + num(Left + PlotW + 46) + "\" y=\"" + num(LY + 4) +
         "\">" + escapeXml(S.Label) + "</text>\n";
}

} // namespace

std::string ddpharness::driftSvg(const std::string &Title,
                                 const std::vector<DriftSeries> &Series) {
  std::vector<double> Values;
  XAxis X = xAxisOf(Series, Values);
  YAxis Y(Values);

  std::string Out;
  Out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  Out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(Width) +
         "\" height=\"" + num(Height) + "\" viewBox=\"0 0 " + num(Width) +
         " " + num(Height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  Out += "  <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  Out += "  <text x=\"" + num(Left) + "\" y=\"28\" font-size=\"15\">" +
         escapeXml(Title) + "</text>\n";
  drawAxes(Out, X, Y);
  if (Values.empty())
    Out += "  <text x=\"" + num(Left + PlotW / 2) + "\" y=\"" +
           num(Top + PlotH / 2) +
           "\" text-anchor=\"middle\">no drift data</text>\n";
  for (size_t I = 0; I < Series.size(); ++I)
    drawSeries(Out, Series[I], I, X, Y);
  Out += "</svg>\n";
  return Out;
}
