// Included by replay_helper.cpp only: changing it must re-analyse that unit
// and no other.
#pragma once
constexpr unsigned long kEpochs = 3;
