// The scenario reader's traffic section: explicit flows and the patterns (uniform, hotspot,
// incast, ring, all-to-all, permutation) expanded into flows.
#include <random>
#include <unordered_map>

#include "net/scenario/scenario_reader.h"

namespace ibcc::net {
namespace {

// HCA selections: "all", a list of names, a count, or a share range "0%..20%" of the HCAs in
// a seeded shuffled order (so that two patterns can split the nodes between them).
std::vector<std::string> select_hcas(const Reader& rd, const YAML::Node& n, const std::string& path,
                                     const std::vector<std::string>& shuffled) {
  std::vector<std::string> out;
  if (n.IsSequence()) {
    for (const auto& e : n) out.push_back(rd.str(e, path));
    return out;
  }
  const std::string v = rd.str(n, path);
  if (v == "all") return shuffled;
  const auto dots = v.find("..");
  if (dots != std::string::npos) {
    auto pct = [&](std::string t) {
      if (t.empty() || t.back() != '%') rd.fail(n, path, "expected a share range like 0%..20%, got '" + v + "'");
      t.pop_back();
      try {
        size_t used = 0;
        const double d = std::stod(t, &used);
        if (used == t.size() && d >= 0 && d <= 100) return d / 100;
      } catch (const std::exception&) {
      }
      rd.fail(n, path, "expected a share range like 0%..20%, got '" + v + "'");
    };
    const double lo = pct(v.substr(0, dots)), hi = pct(v.substr(dots + 2));
    if (hi < lo) rd.fail(n, path, "the range is empty: '" + v + "'");
    const size_t a = static_cast<size_t>(lo * shuffled.size() + 0.5), b = static_cast<size_t>(hi * shuffled.size() + 0.5);
    return std::vector<std::string>(shuffled.begin() + a, shuffled.begin() + b);
  }
  const auto count = rd.uint(n, path, 1, shuffled.size());
  return std::vector<std::string>(shuffled.begin(), shuffled.begin() + count);
}

void read_flow_common(const Reader& rd, const YAML::Node& n, const std::string& path, FlowSpec* f) {
  if (n["sl"]) f->sl = static_cast<unsigned>(rd.uint(n["sl"], path + ".sl"));
  if (n["message"]) f->message_bytes = rd.bytes(n["message"], path + ".message");
  if (n["start"]) f->start_ps = rd.time_ps(n["start"], path + ".start");
  if (n["stop"]) f->stop_ps = rd.time_ps(n["stop"], path + ".stop");
  if (n["rate"]) {
    if (rd.str(n["rate"], path + ".rate") == "saturate") f->rate_bps = 0;
    else f->rate_bps = rd.rate_bps(n["rate"], path + ".rate");
  }
  if (n["group"]) f->group = rd.name(n["group"], path + ".group");
  if (n["outstanding"]) f->outstanding = static_cast<unsigned>(rd.uint(n["outstanding"], path + ".outstanding"));
  if (n["qp_policy"]) {
    const std::string q = rd.choice(n["qp_policy"], path + ".qp_policy");
    f->qp_policy = q == "per_destination" ? QpPolicy::kPerDestination : q == "per_sl" ? QpPolicy::kPerSl : QpPolicy::kPerFlow;
  }
  if (f->stop_ps <= f->start_ps) rd.fail(n, path + ".stop", "must be after start");
}

}  // namespace

void read_traffic(LoaderState& st, const YAML::Node& n) {
  Reader& rd = st.rd;
  Scenario& s = *st.s;
  rd.expect_map(n, "traffic");
  if (const auto flows = n["flows"]) {
    if (!flows.IsSequence()) rd.fail(flows, "traffic.flows", "expected a list of flows");
    for (const auto& fl : flows) {
      rd.expect_map(fl, "traffic.flows[]");
      FlowSpec f;
      f.name = fl["name"] ? rd.name(fl["name"], "traffic.flows[].name") : fmt::format("F{}", s.flows.size() + 1);
      const std::string p = "traffic.flows[" + f.name + "]";
      f.src = rd.str(fl["src"], p + ".src");
      f.dst = rd.str(fl["dst"], p + ".dst");
      if (fl["qp"]) f.qp = static_cast<unsigned>(rd.uint(fl["qp"], p + ".qp"));
      read_flow_common(rd, fl, p, &f);
      if (f.qp_policy == QpPolicy::kPerDestination) {
        rd.fail(fl["qp_policy"], p + ".qp_policy", "a flow with one destination has one QP: expected per_flow or per_sl");
      }
      const std::string type = fl["type"] ? rd.choice(fl["type"], p + ".type") : "stream";
      if (type == "pingpong") {
        f.pingpong = true;
        if (!fl["message"]) f.message_bytes = 8;  // the seed's HPCC ping-pong latency: 8-byte messages
        if (fl["gap"]) f.pingpong_gap_ps = rd.time_ps(fl["gap"], p + ".gap");
        if (fl["rate"]) rd.fail(fl["rate"], p + ".rate", "a ping-pong flow sends one message per round trip; it has no rate");
      } else if (fl["gap"]) {
        rd.fail(fl["gap"], p + ".gap", "only a pingpong flow has a gap");
      }
      f.line = rd.line_of(fl);
      s.flows.push_back(f);
    }
  }
  if (const auto pats = n["patterns"]) {
    if (!pats.IsSequence()) rd.fail(pats, "traffic.patterns", "expected a list of patterns");
    std::vector<std::string> shuffled;
    for (const auto& h : s.hcas) shuffled.push_back(h.name);
    std::mt19937_64 rng(s.sim.seed ^ 0x5eedf00dULL);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    unsigned index = 0;
    for (const auto& pt : pats) {
      ++index;
      rd.expect_map(pt, "traffic.patterns[]");
      const std::string type = rd.choice(pt["type"], "traffic.patterns[].type");
      const std::string base = pt["name"] ? rd.name(pt["name"], "traffic.patterns[].name") : fmt::format("{}{}", type, index);
      const std::string p = "traffic.patterns[" + base + "]";
      FlowSpec proto;
      // Drawn destinations get a QP each unless told otherwise (a QP throttled toward a hot
      // node would hold up the sender's messages to every other node).
      if (type == "uniform" || type == "hotspot" || type == "all_to_all") proto.qp_policy = QpPolicy::kPerDestination;
      read_flow_common(rd, pt, p, &proto);
      if (proto.group.empty()) proto.group = base;
      const uint64_t skew = pt["skew"] ? rd.time_ps(pt["skew"], p + ".skew") : 0;
      if (pt["assignment"] && type != "hotspot") rd.fail(pt["assignment"], p + ".assignment", "only a hotspot pattern has an assignment");
      if (pt["order"] && type != "ring") rd.fail(pt["order"], p + ".order", "only a ring pattern has an order");
      if (pt["hot_share"] && type != "hotspot") rd.fail(pt["hot_share"], p + ".hot_share", "only a hotspot pattern has a hot_share");
      if (pt["hotspots"] && type != "hotspot") rd.fail(pt["hotspots"], p + ".hotspots", "only a hotspot pattern has hotspots");
      if (pt["dst"] && type != "incast") rd.fail(pt["dst"], p + ".dst", "only an incast pattern has a dst");
      const std::vector<std::string> sources =
          pt["sources"] ? select_hcas(rd, pt["sources"], p + ".sources", shuffled) : shuffled;
      std::vector<std::string> all_names;
      for (const auto& h : s.hcas) all_names.push_back(h.name);
      unsigned added = 0;
      const unsigned qps = pt["qps_per_source"] ? static_cast<unsigned>(rd.uint(pt["qps_per_source"], p + ".qps_per_source")) : 1;
      auto add = [&](const std::string& src, FlowSpec f) {
        f.name = base + "." + src;
        f.src = src;
        f.qp = 0x100 + index;
        f.line = rd.line_of(pt);
        // A start skew: the k-th source of the pattern starts k x skew after the others.
        f.start_ps += skew * added++;
        if (f.start_ps >= f.stop_ps) rd.fail(pt["skew"], p + ".skew", fmt::format("source {} would start after the pattern stops", src));
        if (f.qp_policy == QpPolicy::kPerDestination && !f.dst.empty()) f.qp_policy = QpPolicy::kPerFlow;
        if (qps == 1) {
          s.flows.push_back(std::move(f));
          return;
        }
        // Flow k of the source on QP 0x100 + pattern + 0x1000 k: distinct per HCA.
        for (unsigned k = 0; k < qps; ++k) {
          FlowSpec g = f;
          g.name = fmt::format("{}.{}", f.name, k);
          g.qp = f.qp + 0x1000 * k;
          s.flows.push_back(std::move(g));
        }
      };
      // Every other HCA, as a view of one list shared by the pattern's flows.
      const auto shared_names = std::make_shared<const std::vector<std::string>>(all_names);
      std::unordered_map<std::string, size_t> position;
      for (size_t i = 0; i < all_names.size(); ++i) position.emplace(all_names[i], i);
      auto all_but = [&](const std::string& src) {
        const auto it = position.find(src);
        return it == position.end() ? SharedSeq<std::string>(shared_names, 0, all_names.size())
                                    : SharedSeq<std::string>(shared_names, 0, all_names.size() - 1, it->second);
      };
      if (type == "uniform") {
        for (const auto& src : sources) {
          FlowSpec f = proto;
          f.uniform_dsts = all_but(src);
          add(src, f);
        }
      } else if (type == "hotspot") {
        if (!pt["hotspots"]) rd.fail(pt, p + ".hotspots", "missing (a count or a list of HCAs)");
        // Hot nodes are drawn from the end of the shuffled order so that a count does not pick the
        // same nodes as a source share starting at 0%.
        std::vector<std::string> rev(shuffled.rbegin(), shuffled.rend());
        const std::vector<std::string> hot = select_hcas(rd, pt["hotspots"], p + ".hotspots", rev);
        const double share = pt["hot_share"] ? rd.real(pt["hot_share"], p + ".hot_share") : 1.0;
        // fixed (the published fat-tree study): each source keeps sending to one hotspot, the
        // sources dealt out to the hotspots in turn; per_message: every message draws one.
        const std::string assignment = pt["assignment"] ? rd.choice(pt["assignment"], p + ".assignment") : "fixed";
        if (assignment != "fixed" && assignment != "per_message") {
          rd.fail(pt["assignment"], p + ".assignment", "expected fixed or per_message, got '" + assignment + "'");
        }
        size_t dealt = 0;
        for (const auto& src : sources) {
          FlowSpec f = proto;
          if (assignment == "fixed") {
            for (size_t k = 0; k < hot.size(); ++k) {
              const std::string& h = hot[(dealt + k) % hot.size()];
              if (h != src) {
                f.hot_dsts.push_back(h);
                dealt = (dealt + k + 1) % hot.size();
                break;
              }
            }
          } else {
            for (const auto& d : hot) if (d != src) f.hot_dsts.push_back(d);
          }
          if (share < 1) f.uniform_dsts = all_but(src);
          f.hot_share = share;
          if (f.hot_dsts.empty()) continue;
          if (f.hot_dsts.size() == 1 && f.uniform_dsts.empty()) f.dst = f.hot_dsts.front();
          add(src, f);
        }
      } else if (type == "incast") {
        if (!pt["dst"]) rd.fail(pt, p + ".dst", "missing: the node all sources send to");
        const std::string dst = rd.str(pt["dst"], p + ".dst");
        for (const auto& src : sources) {
          if (src == dst) continue;
          FlowSpec f = proto;
          f.dst = dst;
          add(src, f);
        }
      } else if (type == "ring") {
        // rank -> rank + 1 over the sources, in the fabric's order (natural: as an MPI job
        // placed in node order) or a seeded random order.
        std::vector<std::string> ranks;
        if (!pt["sources"] || rd.str(pt["sources"], p + ".sources") == "all") ranks = all_names;
        else ranks = sources;
        if (pt["order"] && rd.choice(pt["order"], p + ".order") == "random") {
          std::mt19937_64 prng(s.sim.seed * 104729 + index);
          std::shuffle(ranks.begin(), ranks.end(), prng);
        }
        if (ranks.size() < 2) rd.fail(pt, p + ".sources", "a ring needs at least two HCAs");
        for (size_t i = 0; i < ranks.size(); ++i) {
          FlowSpec f = proto;
          f.dst = ranks[(i + 1) % ranks.size()];
          add(ranks[i], f);
        }
      } else if (type == "all_to_all") {
        // Every source sends to every other source, one message at a time to each in turn,
        // starting after itself (the shifted all-to-all of MPI libraries).
        if (sources.size() < 2) rd.fail(pt, p + ".sources", "an all-to-all needs at least two HCAs");
        std::vector<std::string> ranks = sources;
        std::sort(ranks.begin(), ranks.end(), [&](const std::string& a, const std::string& b) {
          return position.at(a) < position.at(b);
        });
        const auto shared_ranks = std::make_shared<const std::vector<std::string>>(ranks);
        for (size_t i = 0; i < ranks.size(); ++i) {
          FlowSpec f = proto;
          f.uniform_dsts = SharedSeq<std::string>(shared_ranks, i + 1, ranks.size() - 1);
          f.dst_order = DstOrder::kSequence;
          add(ranks[i], f);
        }
      } else if (type == "permutation") {
        std::vector<std::string> dsts = sources;
        // A seeded derangement: rotate a shuffled copy by one.
        std::mt19937_64 prng(s.sim.seed * 7919 + index);
        std::shuffle(dsts.begin(), dsts.end(), prng);
        for (size_t i = 0; i < dsts.size() && dsts.size() > 1; ++i) {
          FlowSpec f = proto;
          f.dst = dsts[(i + 1) % dsts.size()];
          add(dsts[i], f);
        }
      }
    }
  }
}

// Flow names are how results name flows (throughput.F2): each may be used once.
void reject_duplicate_flow_names(const Scenario& s) {
  std::map<std::string, int> seen;
  for (const auto& f : s.flows) {
    const auto [it, fresh] = seen.emplace(f.name, f.line);
    if (fresh) continue;
    throw ScenarioError(fmt::format("{}:{}: traffic: flow name '{}' is used twice (first at line {}); results name "
                                    "flows by name, so each must be unique",
                                    s.file, f.line, f.name, it->second));
  }
}

}  // namespace ibcc::net
