// A CC regime's class as its registry lists it (regimes.cpp): the scenario's name for it and
// what makes one from its setup. MarkingClass (marking_point.h) and ReactionClass
// (reaction_point.h) are the two registries' entries.
#pragma once

#include <memory>

namespace ibcc::net {

template <typename Point, typename Setup>
struct RegimeClass {
  const char* name;  // the scenario's value (cc.marking, cc.reaction)
  std::unique_ptr<Point> (*make)(const Setup&);
};

}  // namespace ibcc::net
