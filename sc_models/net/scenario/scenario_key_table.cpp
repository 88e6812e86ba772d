// The scenario key table (see scenario_keys.h): every key's type, unit, range, default and
// meaning. A key is added here and nowhere else: the reader rejects keys this table lacks;
// scenario_keys.cpp makes the reference, the schema and the listing from it.
#include "net/scenario/scenario_keys.h"

#include <string>
#include <utility>
#include <vector>

#include "cc/cc_policies.h"
#include "cc/ccti_block_regs.h"
#include "cc/fecn_marker_regs.h"
#include "net/scenario/scenario.h"
#include "net/scenario/units.h"

namespace ibcc::net {
namespace {

// A declaration under construction: K("cc.switch.threshold", KeyType::kUint).range(0, 15)...
struct K {
  KeyDecl d;
  K(std::string path, KeyType t) {
    d.path = std::move(path);
    d.type = t;
  }
  K& range(uint64_t lo, uint64_t hi) { d.ulo = lo; d.uhi = hi; return *this; }
  K& real(double lo, double hi) { d.rlo = lo; d.rhi = hi; return *this; }
  K& unit(std::string u) { d.unit = std::move(u); return *this; }
  K& choices(std::string c) { d.choices = std::move(c); return *this; }
  K& form(std::string f) { d.form = std::move(f); return *this; }
  K& schema(std::string s) { d.schema = std::move(s); return *this; }
  K& def(std::string v) { d.dflt = std::move(v); return *this; }
  K& def_doc(std::string v) { d.dflt_doc = std::move(v); return *this; }
  K& req() { d.required = true; return *this; }
  K& ref(std::string r) { d.ref = std::move(r); return *this; }
  K& doc(std::string m) { d.meaning = std::move(m); return *this; }
  K& only(std::string key, std::string values) {
    d.only_key = std::move(key);
    d.only_values = std::move(values);
    return *this;
  }
  operator KeyDecl() const { return d; }  // NOLINT: the table reads better without casts
};

K Map(std::string p) { return K(std::move(p), KeyType::kMap); }
K List(std::string p) { return K(std::move(p), KeyType::kList); }
K Str(std::string p) { return K(std::move(p), KeyType::kString); }
K Uint(std::string p, uint64_t lo, uint64_t hi) { return K(std::move(p), KeyType::kUint).range(lo, hi); }
K Real(std::string p, double lo, double hi) { return K(std::move(p), KeyType::kReal).real(lo, hi); }
K Bool(std::string p) { return K(std::move(p), KeyType::kBool); }
K Time(std::string p) { return K(std::move(p), KeyType::kTime); }
K Rate(std::string p) { return K(std::move(p), KeyType::kRate); }
K Bytes(std::string p, uint64_t lo, uint64_t hi) { return K(std::move(p), KeyType::kBytes).range(lo, hi); }
K Enum(std::string p, std::string c) { return K(std::move(p), KeyType::kEnum).choices(std::move(c)); }
K Form(std::string p, std::string f, std::string schema) {
  return K(std::move(p), KeyType::kForm).form(std::move(f)).schema(std::move(schema));
}

template <typename E, size_t N>
std::string choices_of(const cc::PolicyName<E> (&table)[N]) {
  std::string out;
  for (const auto& p : table) out += (out.empty() ? "" : "|") + std::string(p.name);
  return out;
}

// The names of a table whose entries have `name` (link speeds, encodings).
template <typename T, size_t N>
std::string names_of(const T (&table)[N]) {
  std::string out;
  for (const auto& t : table) out += (out.empty() ? "" : "|") + std::string(t.name);
  return out;
}

// The largest input buffer per VL: what the FECN marker's BUFFER_CAPACITY register holds.
constexpr uint64_t kMaxSwitchBufferBytes = ((uint64_t{1} << regs::fecn_marker::kBufferCapacityCredits.width) - 1) * 64;

constexpr const char* kEndpointSchema = R"({"type": "string", "pattern": "^[^/]+(/[0-9]+)?$"})";
constexpr const char* kSelectionSchema =
    R"({"anyOf": [{"const": "all"}, {"type": "integer", "minimum": 1},
                  {"type": "string", "pattern": "^[0-9.]+%\\.\\.[0-9.]+%$"},
                  {"type": "array", "items": {"type": "string"}}]})";
constexpr const char* kVlarbTableSchema =
    R"({"type": "array", "maxItems": 64,
        "items": {"type": "array", "minItems": 2, "maxItems": 2,
                  "prefixItems": [{"type": "integer", "minimum": 0, "maximum": 14},
                                  {"type": "integer", "minimum": 0, "maximum": 255}]}})";

}  // namespace

std::vector<KeyDecl> scenario_key_table() {
  return {
      // --- top level
      Map("").doc("a scenario: one YAML document"),
      Str("name").def_doc("the file's path").doc("the scenario's name (in summaries and plot titles)"),
      Str("description").doc("free text, not read by the model"),
      Map("sim").doc("how long and how the run goes"),
      Map("fabric").doc("hardware parameters shared by every switch, HCA and link"),
      Map("topology").req().doc("switches, HCAs and links, or a generator"),
      Map("cc").doc("congestion control settings (what OpenSM would program)"),
      Map("traffic").doc("the flows, given one by one or as patterns"),
      Map("debug").doc("model self-tests"),

      // --- sim
      Time("sim.time").def("1ms").doc("simulated time"),
      Time("sim.log_interval").def("1ms").doc("statistics interval (flows.csv, ports.csv, ccti.csv)"),
      Uint("sim.seed", 0, UINT64_MAX).def("1").doc("seed of all random choices"),
      Time("sim.deadlock_timeout").def("0s").def_doc("0s: 1ms (+ `fabric.hca.sink_hiccup.duration`), or 4 packet times at the fabric's lowest rate if longer")
          .doc("no packet moved for this long while some wait: deadlock, exit 1; a switch input buffer that sent "
               "nothing for this long while holding packets, in a wait-for cycle of such buffers: partial deadlock, "
               "exit 1 naming the cycle (checked every quarter of this time at the log ticks)"),
      Time("sim.stall_timeout").def("0s").def_doc("0s: 10 × `sim.deadlock_timeout`")
          .doc("a flow with packets in flight delivered nothing for this long: the run fails (exit 1) naming the "
               "stalled flows and, for a partial deadlock, the cycle of switch input buffers that can never send "
               "(checked every quarter of this time at the log ticks)"),

      // --- fabric
      K("fabric.core_clock", KeyType::kFreq).range(1000000, 10000000000ull).def("250MHz")
          .doc("the model's time resolution; the CC cores' 1.024 µs tick is derived from it"),
      Bytes("fabric.mtu", 256, 4096).form("256, 512, 1024, 2048 or 4096").def("2048").doc("payload bytes per packet"),
      Uint("fabric.vls", 2, 15).def("2").doc("data VLs per port"),
      List("fabric.sl_to_vl").range(0, 16).def_doc("SL mod `vls`").doc("SL to VL mapping, one VL per SL (up to 16)"),
      Uint("fabric.sl_to_vl[]", 0, 14).form("0..`vls` − 1").doc("the VL of this SL"),
      Enum("fabric.routing", "shortest|updown|dor|explicit").def("shortest")
          .doc("how forwarding tables are made (`explicit`: `topology.switches[].lft`)"),
      List("fabric.updown_roots").only("fabric.routing", "updown").def_doc("the generator's top level, else the first switch").doc("roots of up*/down* ranking"),
      Str("fabric.updown_roots[]").doc("a switch name"),
      Enum("fabric.adaptive_routing", "static|least_occupancy|bounded").def("static")
          .doc("adaptive routing, as IB switches do it (needs `routing: updown`; `static`: the forwarding tables only): each packet's output is chosen at "
               "its arrival among the switch's AR group for its destination (the equal-cost ports up*/down* allows, "
               "so AR keeps the routing's deadlock freedom), by the bytes queued for each on the packet's VL; "
               "`least_occupancy`: the least occupied (ties: the forwarding table's port, then the lowest); "
               "`bounded`: the forwarding table's port unless it holds more than `ar_bound` over the least occupied. "
               "Receivers count packets that arrive out of order (`out_of_order_packets`)"),
      Bytes("fabric.ar_bound", 0, uint64_t{1} << 40).only("fabric.adaptive_routing", "bounded").def("4KiB")
          .doc("bounded AR: how much more the forwarding table's port may hold before a packet goes elsewhere"),
      Enum("fabric.flow_control", "credits|pfc|none").def("credits")
          .doc("link-level flow control: IB's credits (a sender never sends what the buffer cannot take), "
               "Ethernet's PFC (a buffer past its XOFF threshold pauses its upstream sender on that VL, one below XON "
               "resumes it; the pause frame takes the link's propagation and its own serialisation), or none: a lossy "
               "fabric whose switches and HCAs drop, and count, what their buffers cannot take (drop-tail)"),
      Map("fabric.pfc").only("fabric.flow_control", "pfc").doc("PFC thresholds of every input buffer (per VL), with `fabric.flow_control: pfc`"),
      Bytes("fabric.pfc.xoff", 0, uint64_t{1} << 32).def("0")
          .def_doc("0: the buffer less the headroom of its link (2 MTU packets + the bytes a round trip of the link and "
                   "a pause frame lets through)")
          .doc("at or above, the buffer pauses its upstream sender; above the buffer less the headroom, a pause can "
               "come too late and the buffer overflows (the run fails: a lossless fabric loses no packet)"),
      Bytes("fabric.pfc.xon", 0, uint64_t{1} << 32).def("0").def_doc("0: XOFF less 2 MTU packets")
          .doc("at or below (after a pause), the buffer resumes its upstream sender"),
      Bytes("fabric.pfc.pause_frame", 64, 1500).def("64").doc("size of a pause frame on the wire"),
      Map("fabric.switch").doc("every switch"),
      Time("fabric.switch.latency").def("100ns").doc("head arrival to earliest departure"),
      Bytes("fabric.switch.buffer_per_vl", 4096, kMaxSwitchBufferBytes).def("16KiB")
          .doc("input buffer per port and VL (shared by its VoQs); also the FECN marker's BUFFER_CAPACITY, whose "
               "16-bit CREDITS field sets the upper end (65535 credits)"),
      Enum("fabric.switch.buffering", "input|output|shared").def("input")
          .doc("where a lossy switch (`fabric.flow_control: none`) limits its buffer: each input's VL "
               "(`buffer_per_vl`), each output's VL (`output_buffer`: the bytes waiting for it in every input's VoQ), "
               "or a pool for the whole switch (`shared_buffer`, each output's VL still at most `output_buffer`); "
               "a packet whose head finds no room is dropped"),
      Bytes("fabric.switch.output_buffer", 0, uint64_t{1} << 40).only("fabric.switch.buffering", "output|shared").def("0").def_doc("0: `buffer_per_vl`")
          .doc("output-buffered and shared switches: bytes one output's VL may hold"),
      Bytes("fabric.switch.shared_buffer", 0, uint64_t{1} << 40).only("fabric.switch.buffering", "shared").def("0").def_doc("0: `buffer_per_vl` × ports")
          .doc("shared switches: bytes the whole switch may hold"),
      Real("fabric.switch.crossbar_speedup", 1.0, 16.0).def("1").doc("an input may feed outputs up to this × its link rate at once"),
      Form("fabric.switch.vl_arbitration", "`round_robin` or a map {high, low, high_limit}", R"({"const": "round_robin"})")
          .def("round_robin")
          .doc("output arbitration between VLs: round robin, or IB's VLArbitration tables"),
      Form("fabric.switch.vl_arbitration.high", "list of up to 64 `[vl, weight]`", kVlarbTableSchema)
          .doc("high-priority table; weights in 64-byte units"),
      Form("fabric.switch.vl_arbitration.low", "list of up to 64 `[vl, weight]`", kVlarbTableSchema).req()
          .doc("low-priority table (not empty)"),
      Uint("fabric.switch.vl_arbitration.high_limit", 0, 255).def("0").unit("4 KiB")
          .doc("high-priority bytes before a low-priority packet may go (255: unlimited)"),
      Enum("fabric.switch.fill_count", "tail|head").def("tail")
          .doc("when a packet counts in its VoQ's fill for the FECN marker: `tail` once fully received and until it "
               "starts to leave (a lower bound), `head` from its head's arrival (an upper bound)"),
      Enum("fabric.switch.credit_order", "first_fit|in_order").def("first_fit")
          .doc("when the head the round-robin pointer reaches lacks credits on its VL: `first_fit` lets a later head "
               "that fits (a small packet) go first, and from then on keeps the credits the passed head needs for it "
               "(the others use only the credits beyond them: a large packet is never starved); `in_order` holds the "
               "VL until that head's credits are back (a small packet waits its turn, as in the seed hardware's "
               "ping-pong under congestion)"),
      Enum("fabric.switch.input_arbitration", "round_robin|oldest_first").def("round_robin")
          .doc("which waiting packet an output serves next among its inputs (within the VL that VL arbitration "
               "chose): `round_robin` over (input, VL) pairs, or `oldest_first`, the head that arrived first (the "
               "service order of an output-queued switch, so a lightly loaded input's packets wait in line like "
               "everyone's)"),
      Map("fabric.packet_bytes").doc("bytes on the wire besides the payload"),
      Bytes("fabric.packet_bytes.data_header", 8, 512).def("26")
          .doc("bytes a data packet carries besides its payload (LRH 8 + BTH 12 + ICRC 4 + VCRC 2)"),
      Bytes("fabric.packet_bytes.cnp", 8, 512).def("32").doc("size of a CNP on the wire (26 + padding)"),
      Bytes("fabric.packet_bytes.ack", 8, 512).def("30")
          .doc("size of an ACK carrying BECN (`cc.ca.becn: ack`): LRH + BTH + AETH + CRCs"),
      Map("fabric.hca").doc("every HCA"),
      Bytes("fabric.hca.buffer_per_vl", 4096, 4u << 20).def("16KiB").doc("HCA receive buffer per VL"),
      Rate("fabric.hca.inject_rate").def_doc("the link's data rate").doc("host interface limit on sending (wire bytes)"),
      Rate("fabric.hca.sink_rate").def_doc("the link's data rate").doc("drain rate of the receiver (wire bytes)"),
      Map("fabric.hca.sink_hiccup").def_doc("none").doc("the sink stops every `period` for `duration`"),
      Time("fabric.hca.sink_hiccup.period").req().doc("time between the starts of two stops"),
      Time("fabric.hca.sink_hiccup.duration").req().form("shorter than `period`").doc("length of a stop"),
      Enum("fabric.hca.transport", "none|gbn|simple_gbn").def("none")
          .doc("the transport of data flows: none (the fabric is trusted), or Go-Back-N per QP: the receiver takes "
               "packets in order only, ACKs each, and (`gbn`) NACKs the first out-of-order packet of a gap, on which "
               "the sender goes back (fast retransmit); a sender with a full window stalls; when its oldest "
               "unacknowledged packet has waited `gbn_timeout` since it was last sent, it goes back to that packet "
               "(`simple_gbn`: timeouts only). "
               "Ping-pong answers are not under it"),
      Uint("fabric.hca.gbn_window", 1, 65536).only("fabric.hca.transport", "gbn|simple_gbn").unit("packets").def("16").doc("Go-Back-N: packets sent and not acknowledged per QP"),
      Time("fabric.hca.gbn_timeout").only("fabric.hca.transport", "gbn|simple_gbn").def("100us").doc("Go-Back-N: retransmission timeout, per packet from its last send (the oldest "
                                                              "unacknowledged packet's expires first)"),
      Time("fabric.hca.send_jitter").def("0s")
          .doc("host timing noise: a data packet's successor leaves a uniform, seeded draw in [0, this] later (a "
               "real host's per-packet overhead varies); without it, identical senders into a drop-tail queue stay in "
               "lock step and the same ones always lose (phase effects)"),
      Time("fabric.hca.completion_latency").def("0s")
          .doc("from a message's last packet drained to the completion its application sees (host interface, "
               "driver, MPI); counts in message completion times and ping-pong round trips, not in packet latency"),
      Map("fabric.link_defaults").ref("$link").def_doc("4x QDR, 5ns").doc("defaults for every link"),

      // --- link keys (topology.links[], fabric.link_defaults, topology.generate.link)
      Map("$link").doc("a link's parameters: width × speed, or rate (+ encoding); propagation"),
      Enum("$link.width", "1x|4x|8x|12x").def("4x").doc("link width"),
      Enum("$link.speed", names_of(kSpeeds)).def("QDR").doc("lane rate and encoding (SDR–QDR 8b10b, FDR10–EDR 64b66b, HDR–XDR 256b257b_rs544)"),
      Rate("$link.rate").doc("signalling rate instead of width × speed"),
      Enum("$link.encoding", names_of(kEncodings)).def("8b10b")
          .def_doc("`link_defaults`' encoding (8b10b there); with width + speed, the speed's")
          .doc("with `rate`"),
      Time("$link.propagation").def("5ns").doc("propagation delay"),

      // --- topology
      List("topology.switches").doc("the switches (with `hcas` and `links`; not with `generate`)"),
      Map("topology.switches[]").doc("a switch"),
      Str("topology.switches[].name").req().doc("unique name"),
      Uint("topology.switches[].ports", 2, 254).req().doc("number of ports (1-based)"),
      Uint("topology.switches[].lid", 1, 0xbfff).def_doc("assigned after the HCAs").doc("LID"),
      Form("topology.switches[].lft", "map LID → port",
           R"({"type": "object", "patternProperties": {"^[0-9]+$": {"type": "integer", "minimum": 1, "maximum": 254}},
               "additionalProperties": false})")
          .doc("explicit forwarding table (with `routing: explicit`)"),
      List("topology.hcas").doc("the HCAs (one port each); LIDs assigned from 1 in order unless given"),
      Form("topology.hcas[]", "a name, or {name, lid}", R"({"type": "string"})").doc("an HCA"),
      Str("topology.hcas[].name").req().doc("unique name"),
      Uint("topology.hcas[].lid", 1, 0xbfff).def_doc("the next free LID").doc("LID"),
      List("topology.links").doc("the links"),
      Map("topology.links[]").ref("$link").doc("a link: its ends and (defaulting to `fabric.link_defaults`) its parameters"),
      Form("topology.links[].a", "`NODE` or `NODE/PORT` (PORT 1..254)", kEndpointSchema).req().doc("one end (port 1 if not given)"),
      Form("topology.links[].b", "`NODE` or `NODE/PORT` (PORT 1..254)", kEndpointSchema).req().doc("the other end"),
      Map("topology.generate").doc("a generated family instead of switches/hcas/links"),
      Enum("topology.generate.family", "clos3|fattree|kary_ntree|mesh|torus").req()
          .doc("`clos3`: leaves with (ports − spines) hosts each, one uplink to every spine (36/18/36 = Sun DCS 648), "
               "hosts `H1..`, leaves `L1..`, spines `S1..`; `fattree`: the full fat tree of `radix`-port switches in "
               "`levels` levels, 2(r/2)^L hosts and (2L−1)(r/2)^(L−1) switches `SW<level>_<index>` (36 ports, 3 levels: "
               "11,664 hosts, 1,620 switches); `kary_ntree`: k^n hosts, n levels of k^(n−1) switches with "
               "2k ports, switches `SW<level>_<index>`; `mesh`/`torus`: switches `SW<x>_<y>`, ports: hosts, then +x, "
               "−x, +y, −y"),
      Uint("topology.generate.leaves", 1, 254).def("36").form("≤ `switch_ports`").doc("`clos3`: leaf switches"),
      Uint("topology.generate.spines", 1, 253).def("18").form("< `switch_ports`").doc("`clos3`: spine switches"),
      Uint("topology.generate.switch_ports", 2, 254).def("36").doc("`clos3`: ports per switch"),
      Uint("topology.generate.radix", 2, 254).def("36").form("even, 2..254").doc("`fattree`: ports per switch"),
      Uint("topology.generate.levels", 1, 4).def("3").doc("`fattree`: switch levels"),
      Uint("topology.generate.pods", 1, 254).def_doc("`radix` (the full tree)").form("1..`radix`, levels ≥ 2")
          .doc("`fattree`: the top switches' sub-trees (pods) present, each of (r/2)^(L−1) hosts: fewer than `radix` "
               "leave the top switches' other down-ports unused (a partly built tree, or one within an IB subnet's "
               "49,151 LIDs: 64 ports, 3 levels, 44 pods = 45,056 hosts; an Ethernet fabric, `fabric.flow_control` "
               "`pfc` or `none`, has no such limit)"),
      Uint("topology.generate.k", 2, 32).def("4").doc("`kary_ntree`: arity"),
      Uint("topology.generate.n", 1, 4).def("2").doc("`kary_ntree`: levels"),
      Uint("topology.generate.x", 2, 64).def("4").doc("`mesh`/`torus`: switches along x"),
      Uint("topology.generate.y", 1, 64).def("4").doc("`mesh`/`torus`: switches along y"),
      Uint("topology.generate.hcas_per_switch", 1, 16).def("1").doc("`mesh`/`torus`: hosts per switch"),
      Map("topology.generate.link").ref("$link").def_doc("`fabric.link_defaults`").doc("the generated links"),

      // --- cc
      Bool("cc.enabled").def("true").doc("CC units active (off: no marking, no CNPs, no IRD)"),
      Enum("cc.marking", choices_of(kMarkings)).def("fecn")
          .doc("how switches mark congestion: IB CC's FECN marker (`cc.switch`) or DCQCN's ECN on the egress queue (`cc.ecn`)"),
      Enum("cc.reaction", choices_of(kReactions)).def("ibcc")
          .doc("what sources do with congestion notices, and how destinations send them: IB CC (`cc.ca`), DCQCN or "
               "DCQCN+ (`cc.dcqcn`)"),
      Map("cc.ecn").only("cc.marking", "ecn").doc("DCQCN's congestion point (`cc.marking: ecn`): a departing data packet is marked with a "
                        "probability that rises linearly from 0 above Kmin to Pmax at Kmax, 1 above Kmax; the queue is "
                        "the bytes waiting in all VoQs for that output and VL, the packet included"),
      Bytes("cc.ecn.kmin", 0, uint64_t{1} << 40).def("5KB").doc("Kmin: at or below, no mark"),
      Bytes("cc.ecn.kmax", 1, uint64_t{1} << 40).def("200KB").doc("Kmax (above Kmin): above, every data packet marked"),
      Real("cc.ecn.pmax", 1.0 / 65536, 1.0).def("0.01").doc("Pmax: the marking probability at Kmax"),
      Map("cc.nvidia").only("cc.marking", "nvidia")
          .doc("the switch settings of the congestion control NVIDIA's OpenSM configures (`cc.marking: nvidia`; its "
               "aqs_weight, aqs_time and per-VL marking profiles): each output VL averages its queue (the bytes of "
               "packets received for it in every input's VoQs) once per `aqs_time`, and a departing data packet is "
               "marked with a probability 0 up to `min`, rising linearly to `percent` % at `max`, 1 above `max`; "
               "defaults are DCQCN's Kmin/Kmax/Pmax, not NVIDIA's (which its documentation does not give)"),
      Uint("cc.nvidia.aqs_weight", 0, 15).def("3").doc("AQS ← AQS + (queue − AQS) / 2^aqs_weight at each sample (0: no averaging)"),
      Time("cc.nvidia.aqs_time").def("1024ns").doc("one averaging sample per this (at least one core cycle)"),
      Map("cc.nvidia.profile").doc("every VL's marking profile (unless `vl_profiles` gives it one)"),
      Uint("cc.nvidia.profile.percent", 1, 100).def("1").doc("the marking probability at `max`, %"),
      Bytes("cc.nvidia.profile.min", 0, uint64_t{1} << 40).def("5KB").doc("at or below this average, no mark"),
      Bytes("cc.nvidia.profile.max", 1, uint64_t{1} << 40).def("200KB").doc("above `min`; above this average, every data packet marked"),
      List("cc.nvidia.vl_profiles").doc("VLs with a profile of their own (NVIDIA's VL → profile map)"),
      Map("cc.nvidia.vl_profiles[]").doc("one VL's profile"),
      Uint("cc.nvidia.vl_profiles[].vl", 0, 14).req().doc("the VL (below `fabric.vls`)"),
      Uint("cc.nvidia.vl_profiles[].percent", 1, 100).def_doc("`cc.nvidia.profile.percent`").doc("as in `profile`"),
      Bytes("cc.nvidia.vl_profiles[].min", 0, uint64_t{1} << 40).def_doc("`cc.nvidia.profile.min`").doc("as in `profile`"),
      Bytes("cc.nvidia.vl_profiles[].max", 1, uint64_t{1} << 40).def_doc("`cc.nvidia.profile.max`").doc("as in `profile`"),
      Map("cc.dcqcn").only("cc.reaction", "dcqcn|dcqcn_plus").doc("DCQCN's and DCQCN+'s NIC parameters (`cc.reaction: dcqcn|dcqcn_plus`); defaults are the "
                          "DCQCN paper's (ConnectX-4 firmware: rate_timer 300us, byte_counter 2MB, ai_rate 5Mb/s, "
                          "hai_rate 40Mb/s, cnp_interval 0s, reduce_period 4us)"),
      Time("cc.dcqcn.cnp_interval").def("50us").doc("NP: at most one CNP per flow per this (DCQCN+: the floor of the adaptive interval)"),
      Time("cc.dcqcn.cnp_generation").def("1us")
          .doc("NP: the NIC makes at most one CNP per this (ConnectX-4 ≈ 1us, ConnectX-5 ≈ 0.33us; 0s: unlimited); a "
               "marked packet the generator cannot answer at once gets no CNP"),
      Time("cc.dcqcn.active_window").only("cc.reaction", "dcqcn_plus").def("100us")
          .doc("NP, DCQCN+: a flow counts among the N congested flows this long after its last marked packet; the CNP "
               "interval is max(cnp_interval, N × cnp_generation) and travels in the CNP"),
      Time("cc.dcqcn.alpha_timer").def("55us").doc("RP: alpha ← (1 − g) alpha each time this passes without a cut"),
      Time("cc.dcqcn.rate_timer").only("cc.reaction", "dcqcn").def("55us").doc("RP: T, the rate-increase timer (DCQCN+: K = lambda × max(tau, MTU / Rc) instead)"),
      Bytes("cc.dcqcn.byte_counter", 0, uint64_t{1} << 40).only("cc.reaction", "dcqcn").def("10MB").doc("RP: B, a rate-increase event per B bytes sent (0: none; DCQCN+ has none)"),
      Uint("cc.dcqcn.fast_recovery_steps", 1, 64).def("5").doc("RP: F, increase events of fast recovery before additive increase"),
      Rate("cc.dcqcn.ai_rate").only("cc.reaction", "dcqcn").def("40Mb/s").doc("RP: R_AI, the additive increase step"),
      Rate("cc.dcqcn.hai_rate").only("cc.reaction", "dcqcn").def("100Mb/s").doc("RP: R_HAI, the hyper increase step"),
      Rate("cc.dcqcn.min_rate").def("10Mb/s").doc("RP: no cut goes below this rate"),
      Uint("cc.dcqcn.g_shift", 1, 16).def("8").doc("RP: g = 1 / 2^g_shift (8: 1/256)"),
      Real("cc.dcqcn.alpha_init", 0.0, 1.0).def("1").doc("RP: alpha before the first CNP"),
      Time("cc.dcqcn.reduce_period").def("0s").doc("RP: at most one cut per this; a CNP inside it cuts at its end (0s: every CNP cuts)"),
      Uint("cc.dcqcn.cnp_sl", 0, 15).def_doc("the flow's SL")
          .doc("NP: every CNP travels on this SL, in its VL (`fabric.sl_to_vl`), instead of its flow's (NVIDIA's cnp_sl "
               "with cnp_sl_mode TRUE)"),
      Time("cc.dcqcn.rtt_probe_interval").def("0s")
          .doc("RP: each flow that sent data since its last probe sends an RTT probe this long after that data "
               "(a control packet of `fabric.packet_bytes.cnp` bytes on the flow's SL, to its last destination); the destination "
               "answers at once and the source records the round trip (metrics `probe_rtt_*`, latency.csv kind "
               "`probe_rtt`; 0s: no probes)"),
      Uint("cc.dcqcn.rtt_resp_sl", 0, 15).def_doc("the probe's SL")
          .doc("NP: every RTT response travels on this SL, in its VL (`fabric.sl_to_vl`; NVIDIA's rtt_resp_sl with "
               "rtt_sl_mode TRUE); needs `cc.dcqcn.rtt_probe_interval`"),
      Uint("cc.dcqcn.gd_log2", 0, 16).def("1")
          .doc("RP: a cut takes Rc × alpha / 2^gd_log2 (1: the DCQCN paper's alpha / 2; NVIDIA's rpg_gd is gd_log2 + 10)"),
      Real("cc.dcqcn.min_dec_factor", 0.0, 1.0).def("0")
          .doc("RP: a cut leaves at least Rc × this (NVIDIA's rpg_min_dec_fac / 100; 0: no floor; at gd_log2 1 a cut "
               "never takes more than half, so only values above 0.5 act)"),
      Rate("cc.dcqcn.first_cnp_rate").def_doc("none")
          .doc("RP: a flow's first cut sets Rc to this rate instead (never raising it; NVIDIA's rate_to_set_on_first_cnp)"),
      Rate("cc.dcqcn.max_rate").def_doc("the line rate")
          .doc("RP: the flow starts at and never exceeds this rate (NVIDIA's rpg_max_rate)"),
      Real("cc.dcqcn.lambda", 1.0 / 256, 64.0).only("cc.reaction", "dcqcn_plus").def("1").doc("RP, DCQCN+: lambda of K = lambda × max(tau, MTU / Rc)"),
      Rate("cc.dcqcn.increase_bound").only("cc.reaction", "dcqcn_plus").def_doc("the line rate")
          .doc("RP, DCQCN+: R_l, which bounds the additive (R_l / 100) and hyper ((S − 4F) R_l / 100) steps"),
      Map("cc.switch").only("cc.marking", "fecn").doc("every switch port's CC setting (SwitchCongestionSetting) and the FECN marker's choices"),
      Uint("cc.switch.threshold", 0, 15).def("0").doc("Threshold (0 never marks; 15 trips at 1/16 of the buffer)"),
      Uint("cc.switch.packet_size", 0, 255).unit("64-byte credits").def("0").doc("smaller packets are never marked"),
      Uint("cc.switch.marking_rate", 0, 0xffff).def("0").doc("eligible packets skipped between marks"),
      Enum("cc.switch.mapping", choices_of(cc::kThresholdMappings)).def("per_voq")
          .doc("how VoQ fills are compared with the threshold"),
      Enum("cc.switch.marking_mode", choices_of(cc::kMarkingModes)).def("counter")
          .doc("Marking_Rate as a counter or a random draw with that mean"),
      Uint("cc.switch.hysteresis", 0, 15).unit("sixteenths of the buffer").def("0")
          .doc("leave the congestion state this far below the trip level"),
      Form("cc.switch.victim_mask", "`hca_ports`, `none` or a list of port numbers 0..255",
           R"({"anyOf": [{"enum": ["hca_ports", "none"]},
                         {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}}]})")
          .def("hca_ports")
          .doc("Victim_Mask bits: set on ports facing CAs, on none, or on these ports of every switch (as OpenSM's "
               "256-bit mask)"),
      List("cc.ports").only("cc.marking", "fecn").doc("per-port overrides (SwitchPortCongestionSetting)"),
      Map("cc.ports[]").doc("one port's override"),
      Form("cc.ports[].port", "`SWITCH/PORT`", kEndpointSchema).req().doc("the port"),
      Uint("cc.ports[].threshold", 0, 15).def_doc("`cc.switch.threshold`").doc("this port's Threshold"),
      Uint("cc.ports[].packet_size", 0, 255).unit("64-byte credits").def_doc("`cc.switch.packet_size`").doc("this port's Packet_Size"),
      Uint("cc.ports[].marking_rate", 0, 0xffff).def_doc("`cc.switch.marking_rate`").doc("this port's Marking_Rate"),
      Bool("cc.ports[].victim_mask").def_doc("from `cc.switch.victim_mask`").doc("this port's Victim_Mask bit"),
      List("cc.rtl").def_doc("none: the C++ cores everywhere")
          .doc("RTL in the loop: the switch output ports (`SWITCH/PORT`: the Verilated FECN marker) and HCAs (a name: the "
               "Verilated CCTI block) where the RTL decides in place of the C++ core, clocked every cycle (needs "
               "verilator; much slower); `ibcc run --rtl` sets it"),
      Form("cc.rtl[]", "`SWITCH/PORT` or an HCA name", kEndpointSchema).doc("one block in the loop"),
      Map("cc.ca").ref("$sl").only("cc.reaction", "ibcc").doc("every HCA's CC (CACongestionSetting, CongestionControlTable); the SL keys set every SL"),
      Enum("cc.ca.control", "qp|sl").def("qp").doc("CCTI per QP or per SL (Port_Control)"),
      Uint("cc.ca.control_map", 0, 0xffff).def("0xffff").unit("bit mask").doc("SLs with CC"),
      Uint("cc.ca.ccti_limit", 0, 0x3fff).form("0..CCT entries − 1").def_doc("entries − 1 of the CCT (127 by default)")
          .doc("CCTI_Limit; beyond the CCT's last index is an error naming both"),
      Enum("cc.ca.ird_formula", choices_of(cc::kIrdFormulas)).def("omnipath")
          .doc("IRD = (MTU time >> shift) × multiplier, or multiplier << shift cycles"),
      // (the CCTI block's FLOW_CCTI window: its most flows)
      Uint("cc.ca.num_qps", 16, regs::ccti_block::kFlowCctiCount)
          .form("a power of 2, 16.." + std::to_string(regs::ccti_block::kFlowCctiCount)).def("64")
          .doc("CCTI table entries; QP q uses entry q mod num_qps (QPs of one HCA that share an entry share one CCTI: "
               "said in the run's notes)"),
      Enum("cc.ca.becn", "cnp|ack").def("cnp").doc("how the destination returns BECN"),
      List("cc.ca.per_sl").doc("per-SL overrides of the SL keys"),
      Map("cc.ca.per_sl[]").ref("$sl").doc("one SL's settings (unset keys: `cc.ca`'s)"),
      Uint("cc.ca.per_sl[].sl", 0, 15).req().doc("the SL"),
      Form("cc.ca.cct", "list of 1..128 `\"SHIFT:MULT\"`, or `{linear|quadratic: {shift, max_multiplier, entries}}`",
           R"({"type": "array", "minItems": 1, "maxItems": 128,
               "items": {"type": "string", "pattern": "^[0-3]:[0-9]+$"}})")
          .def_doc("linear, shift 3, multiplier = index, 128 entries")
          .doc("the CCT; a shape sets CCTI_Limit to its last index unless given"),
      Map("cc.ca.cct.linear").ref("$cct_shape").doc("multiplier rising linearly to max_multiplier"),
      Map("cc.ca.cct.quadratic").ref("$cct_shape").doc("multiplier rising with the square of the index"),
      Map("$cct_shape").doc("a generated CCT"),
      Uint("$cct_shape.shift", 0, 3).def("0").doc("CCT_Shift of every entry"),
      Uint("$cct_shape.max_multiplier", 0, 0x3fff).def("127").doc("multiplier of the last entry"),
      Uint("$cct_shape.entries", 2, 128).def("128").doc("entries"),

      // --- SL keys (cc.ca, cc.ca.per_sl[])
      Map("$sl").doc("a service level's CC settings (CACongestionSetting entry)"),
      Form("$sl.ccti_timer", "0..65535 units of 1.024 µs, or a time (`20us`, `1.5ms`)",
           R"({"anyOf": [{"type": "integer", "minimum": 0, "maximum": 65535},
                         {"type": "string", "pattern": "^[0-9.]+ *(ns|us|ms)$"}]})")
          .def("0")
          .doc("CCTI_Timer; a time is rounded to the nearest unit and the rounding reported (`ibcc run: note:`, "
               "`summary.json` `notes`); a non-zero time that rounds to 0 or beyond 65535 units is an error"),
      Uint("$sl.ccti_increase", 0, 255).def("0").doc("CCTI_Increase"),
      Uint("$sl.trigger_threshold", 0, 255).def("0").doc("Trigger_Threshold (CA CongestionLog events)"),
      Uint("$sl.ccti_min", 0, 255).def("0").doc("CCTI_Min"),

      // --- traffic
      List("traffic.flows").doc("flows given one by one"),
      Map("traffic.flows[]").ref("$flow").doc("one flow: a QP on its source HCA"),
      Str("traffic.flows[].name").def_doc("`F<n>`").doc("flow name (in outputs; unique)"),
      Str("traffic.flows[].src").req().doc("source HCA"),
      Str("traffic.flows[].dst").req().doc("destination HCA"),
      Enum("traffic.flows[].type", "stream|pingpong").def("stream")
          .doc("`pingpong`: one message at a time to `dst`, which answers each with a message of the same size; "
               "round trips measured (`pingpong` in summary.json, `pingpong_*_us.<group>` metrics); `message` "
               "defaults to 8 B"),
      Time("traffic.flows[].gap").def("0s").doc("`pingpong`: wait between an answer's completion and the next ping"),
      Uint("traffic.flows[].qp", 0, 0xffffff).def("0").doc("QP (CCTI entry with `control: qp`)"),
      List("traffic.patterns").doc("generated flows, one per source"),
      Map("traffic.patterns[]").ref("$flow").doc("a traffic pattern"),
      Enum("traffic.patterns[].type", "uniform|hotspot|incast|permutation|ring|all_to_all").req().doc("the pattern"),
      Str("traffic.patterns[].name").def_doc("`<type><n>`").doc("prefix of the flow names (`name.SRC`)"),
      Form("traffic.patterns[].sources", "`all`, a count, a list of HCAs, or a share range `\"0%..20%\"`", kSelectionSchema)
          .def("all").doc("sources, from a seeded shuffle of the HCAs (two ranges split the nodes)"),
      Form("traffic.patterns[].hotspots", "a count or a list of HCAs", kSelectionSchema).def_doc("required for `hotspot`")
          .doc("hot destinations (a count picks from the other end of the shuffle)"),
      Real("traffic.patterns[].hot_share", 0, 1).def("1").doc("chance that a message goes to a hotspot (else uniform)"),
      Enum("traffic.patterns[].assignment", "fixed|per_message").def("fixed")
          .doc("`hotspot`: each source keeps to one hotspot, sources dealt out to the hotspots in turn (the published "
               "fat-tree study); `per_message`: every message draws one of the hotspots"),
      Str("traffic.patterns[].dst").def_doc("required for `incast`").doc("the incast target"),
      Enum("traffic.patterns[].order", "natural|random").def("natural")
          .doc("`ring`: rank → rank + 1 over the sources in the fabric's HCA order, or in a seeded random order (the "
               "HPCC naturally / randomly ordered ring)"),
      Uint("traffic.patterns[].qps_per_source", 1, 4096).def("1")
          .doc("flows per source, each on its own QP (`name.SRC.k`): many connections from one HCA, as the DCQCN "
               "incast studies run them"),
      Uint("traffic.patterns[].outstanding", 1, 64).def("1").doc("messages in progress at once from each source (drawn destinations: one QP each)"),
      Time("traffic.patterns[].skew").def("0s").doc("the k-th source of the pattern starts k × skew after `start`"),

      // --- flow keys (traffic.flows[], traffic.patterns[])
      Map("$flow").doc("what flows and patterns share"),
      Uint("$flow.sl", 0, 15).def("0").doc("service level"),
      Bytes("$flow.message", 1, uint64_t{1} << 32).def("64KiB").doc("message size; packets are MTU-sized, the last one shorter"),
      Time("$flow.start").def("0s").doc("when the flow starts sending"),
      Time("$flow.stop").def_doc("end of run").form("after `start`").doc("when it stops"),
      Form("$flow.rate", "a rate or `saturate`",
           R"({"anyOf": [{"const": "saturate"}, {"type": "string", "pattern": "^[0-9.eE+-]+ *[KMGT]?b/s$"}]})")
          .def("saturate")
          .doc("offered payload rate: the application creates a message every `message` bytes at this rate (open "
               "loop; a message the source cannot send yet waits, and the wait counts in its latency)"),
      Str("$flow.group").def_doc("the pattern's name").doc("group for metrics (e.g. `victim`, `contributors`)"),
      Enum("$flow.qp_policy", "per_flow|per_destination|per_sl")
          .def_doc("`per_destination` for `uniform`, `hotspot` (per-message assignment) and `all_to_all`, else `per_flow`")
          .doc("which QP a message uses: the flow's, one per (flow, destination), or one per SL shared by all the "
               "HCA's flows of that SL. The IRD spaces the packets of a CCTI entry, however many messages or flows "
               "share it"),

      // --- debug
      List("debug.faults").def_doc("none").doc("faults built in on purpose, for tests of the invariant checks"),
      Enum("debug.faults[]", "leak_credit_return|ignore_credits|lose_packet").doc("a fault"),
  };
}

}  // namespace ibcc::net
