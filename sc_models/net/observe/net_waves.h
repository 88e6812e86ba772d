// Waveforms of the network model: for the switch output ports and flows asked for, every
// change of VoQ fills, credits, congestion state, FECN marks, CCTI and IRD, written as FST
// (or VCD; one timestamp per change, in ps) with a GTKWave save file that groups them per
// port and per flow and opens on the first congestion episode.
// `ibcc run --waves DIR --trace ports=S2/2,S1/36,flows=F1,F2`.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "common/gtkw.h"

#include "net/observe/probe.h"

namespace ibcc::net {

class Fabric;
class DumpWriter;

class NetWaves final : public Probe {
 public:
  // `ports`: "SWITCH/PORT" output ports; `flows`: flow names; both checked against the fabric
  // (ScenarioError naming the unknown one).
  // Only changes inside [from_ps, to_ps] are written (to_ps 0: to the end).
  // `vcd`: write network.vcd instead of network.fst. Only signals that can change are traced
  // (VLs some flow uses, VoQs some route passes through) unless `all_signals`.
  NetWaves(const std::string& dir, const Fabric& f, const std::vector<std::string>& ports,
           const std::vector<std::string>& flows, uint64_t from_ps = 0, uint64_t to_ps = 0, bool vcd = false,
           bool all_signals = false);
  ~NetWaves() override;

  // The Probe's hooks (a no-op for what is not traced).
  void credits(unsigned node, unsigned port, unsigned vl, uint32_t credits) override;
  void fill(unsigned node, unsigned out_port, unsigned in_port, unsigned vl, uint32_t credits) override;
  void congestion(unsigned node, unsigned port, uint32_t vl_mask) override;
  void departure(unsigned node, unsigned port, bool marked, uint64_t end_cycle) override;
  void flow_ccti(int flow, uint32_t ccti) override;
  void flow_ird(int flow, uint64_t ird_cycles) override;
  void flow_packet(int flow, uint64_t sent) override;
  void flow_becn(int flow, uint64_t becns) override;
  void flow_rate(int flow, uint64_t mbps) override;
  void drops(unsigned node, unsigned port, uint64_t count) override;

  // Ends the dump at the current time and writes the save file.
  void finish();

  // The first FECN mark at output `port` of switch `node` inside the window (any port, traced
  // or not: the RTL blocks' save files open on it), 0 if none.
  uint64_t first_mark_ps(unsigned node, unsigned port) const {
    const auto it = first_marks_.find({node, port});
    return it == first_marks_.end() ? 0 : it->second;
  }
  // The first time inside the window a flow's CCTI rose above 0, 0 if never.
  uint64_t first_ccti_ps(int flow) const {
    const auto it = first_ccti_.find(flow);
    return it == first_ccti_.end() ? 0 : it->second;
  }

  const std::string& vcd_path() const { return vcd_path_; }
  const std::string& gtkw_path() const { return gtkw_path_; }

 private:
  // What a var is to the save file's view (the first congestion episode, the first mark).
  enum class Role : uint8_t { kOther, kCongestion, kFecnMark };
  struct Var {
    unsigned width;
    uint64_t value;
    bool written;
    Role role;
  };
  unsigned add_var(const std::string& scope, const std::string& name, unsigned width);
  void change(unsigned var, uint64_t value, uint64_t t_ps);
  void advance(uint64_t t_ps);
  void set_time(uint64_t t_ps);
  void emit(unsigned var, uint64_t value);

  const Fabric& f_;
  std::string vcd_path_, gtkw_path_;  // (vcd_path_: the dump, .fst or .vcd)
  std::unique_ptr<DumpWriter> dump_;
  uint64_t first_cong_ps_ = 0, cong_end_ps_ = 0, first_mark_ps_ = 0;
  std::vector<Var> vars_;
  std::vector<std::string> names_;
  std::vector<std::pair<std::string, std::vector<unsigned>>> scopes_;  // declaration order
  uint64_t time_ps_ = 0;
  uint64_t from_ps_ = 0, to_ps_ = 0;
  bool started_ = false;  // the window has begun: changes are written
  uint64_t last_time_ = 0;
  // Traced output ports: (node, port) -> their vars.
  static constexpr unsigned kNoVar = ~0u;
  struct PortVars {
    unsigned cong = 0, fecn = 0, busy = 0;
    unsigned drops = kNoVar;  // lossy fabrics
    std::vector<unsigned> credit_var;                         // [vl], kNoVar: not traced
    std::map<std::pair<unsigned, unsigned>, unsigned> fill_var;  // (input port, vl) -> var
    unsigned trip_enter = kNoVar, trip_exit = kNoVar;            // the trip level (constant)
    std::vector<std::pair<unsigned, uint32_t>> trip_values;      // (var, credits) written at 0
  };
  std::map<std::pair<unsigned, unsigned>, PortVars> ports_;
  struct FlowVars {
    unsigned ccti, ird, sent, becn;
    unsigned rate = kNoVar;  // DCQCN
  };
  std::map<int, FlowVars> flows_;
  // Changes already decided for a later time (the end of a transmission, a mark's pulse).
  struct Pending {
    uint64_t t_ps;
    unsigned var;
    uint64_t value;
    bool operator>(const Pending& o) const { return t_ps > o.t_ps; }
  };
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
  struct GroupSpec {
    std::string name;
    std::vector<WaveSignal> signals;  // full names
    std::pair<unsigned, unsigned> port{0, 0};  // a port's group: its (node, port)
  };
  std::vector<GroupSpec> groups_;
  bool in_window(uint64_t t_ps) const { return t_ps >= from_ps_ && (to_ps_ == 0 || t_ps <= to_ps_); }
  std::map<std::pair<unsigned, unsigned>, uint64_t> first_marks_;  // (node, port) -> first mark in the window
  std::map<int, uint64_t> first_ccti_;                             // flow -> first CCTI > 0 in the window
};

}  // namespace ibcc::net
