// The registries of the CC regimes: each cc.marking and cc.reaction value names the class
// that implements it. A new regime: its class, its line here, its name in the scenario's
// kMarkings or kReactions (tests/net/test_regimes.cpp checks that every name has a class).
#include <stdexcept>
#include <string>

#include "net/fabric/ccti_reaction.h"
#include "net/fabric/dcqcn_reaction.h"
#include "net/fabric/ecn_marking.h"
#include "net/fabric/fecn_marking.h"
#include "net/fabric/nvidia_marking.h"

namespace ibcc::net {

const std::vector<MarkingClass>& marking_classes() {
  static const std::vector<MarkingClass> classes = {
      {"fecn", &FecnMarking::make},
      {"ecn", &EcnMarking::make},
      {"nvidia", &NvidiaMarking::make},
  };
  return classes;
}

const std::vector<ReactionClass>& reaction_classes() {
  static const std::vector<ReactionClass> classes = {
      {"ibcc", &CctiReaction::make},
      {"dcqcn", &DcqcnReaction::make},
      {"dcqcn_plus", &DcqcnReaction::make},
  };
  return classes;
}

namespace {
template <typename Class, typename Setup>
auto make_from(const std::vector<Class>& classes, std::string_view name, const Setup& setup, const char* what) {
  for (const Class& c : classes) {
    if (name == c.name) return c.make(setup);
  }
  throw std::invalid_argument(std::string(what) + ": no class named '" + std::string(name) + "'");
}
}  // namespace

std::unique_ptr<MarkingPoint> make_marking(std::string_view name, const MarkingSetup& setup) {
  return make_from(marking_classes(), name, setup, "cc.marking");
}

std::unique_ptr<ReactionPoint> make_reaction(std::string_view name, const ReactionSetup& setup) {
  return make_from(reaction_classes(), name, setup, "cc.reaction");
}

}  // namespace ibcc::net
