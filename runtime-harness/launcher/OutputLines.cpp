//===- OutputLines.cpp - Splitting a rank's output into lines -------------===//

#include "OutputLines.h"

#include <cstdio>

using namespace ddpharness;

/// Length of the valid UTF-8 sequence starting at \p I, or 0.
static size_t utf8SequenceLength(std::string_view S, size_t I) {
  auto Byte = [&](size_t K) { return static_cast<unsigned char>(S[K]); };
  unsigned char C = Byte(I);
  size_t Len;
  unsigned Min;
  if (C >= 0xC2 && C <= 0xDF) {
    Len = 2;
    Min = 0x80;
  } else if (C >= 0xE0 && C <= 0xEF) {
    Len = 3;
    Min = 0x800;
  } else if (C >= 0xF0 && C <= 0xF4) {
    Len = 4;
    Min = 0x10000;
  } else {
    return 0;
  }
  if (I + Len > S.size())
    return 0;
  unsigned CodePoint = C & (0x7F >> Len);
  for (size_t K = 1; K < Len; ++K) {
    if ((Byte(I + K) & 0xC0) != 0x80)
      return 0;
    CodePoint = (CodePoint << 6) | (Byte(I + K) & 0x3F);
  }
  if (CodePoint < Min || CodePoint > 0x10FFFF ||
      (CodePoint >= 0xD800 && CodePoint <= 0xDFFF))
    return 0;
  return Len;
}

std::string ddpharness::sanitizeLine(std::string_view Raw) {
  std::string Out;
  Out.reserve(Raw.size());
  for (size_t I = 0; I < Raw.size();) {
    unsigned char C = static_cast<unsigned char>(Raw[I]);
    if ((C >= 0x20 && C < 0x7F) || C == '\t') {
      Out.push_back(static_cast<char>(C));
      ++I;
      continue;
    }
    if (C >= 0x80) {
      if (size_t Len = utf8SequenceLength(Raw, I)) {
        Out.append(Raw.substr(I, Len));
        I += Len;
        continue;
      }
    }
    char Escape[8];
    std::snprintf(Escape, sizeof(Escape), "\\x%02x", C);
    Out += Escape;
    ++I;
  }
  return Out;
}

void LineSplitter::emitRaw(std::string_view Raw) {
  if (!Raw.empty() && Raw.back() == '\r')
    Raw.remove_suffix(1);
  Emit(sanitizeLine(Raw));
}

void LineSplitter::feed(const char *Data, size_t Size) {
  Pending.append(Data, Size);
  size_t Start = 0;
  while (true) {
    size_t Newline = Pending.find('\n', Start);
    size_t Available =
        (Newline == std::string::npos ? Pending.size() : Newline) - Start;
    if (Newline != std::string::npos && Available <= MaxLineBytes) {
      emitRaw(std::string_view(Pending).substr(Start, Available));
      Start = Newline + 1;
      continue;
    }
    if (Available <= MaxLineBytes)
      break;
    // Too long for one line: cut, but not inside a UTF-8 sequence.
    size_t Cut = MaxLineBytes;
    for (size_t Back = 0; Back < 3; ++Back) {
      unsigned char C = static_cast<unsigned char>(Pending[Start + Cut]);
      if ((C & 0xC0) != 0x80)
        break;
      --Cut;
    }
    emitRaw(std::string_view(Pending).substr(Start, Cut));
    Start += Cut;
  }
  Pending.erase(0, Start);
}

void LineSplitter::finish() {
  if (!Pending.empty())
    emitRaw(Pending);
  Pending.clear();
}

bool ddpharness::isBacktraceLine(std::string_view Line) {
  return Line.rfind("frame #", 0) == 0 ||
         Line.rfind("Exception raised from ", 0) == 0;
}
