// Generators for regular fabric families. They emit the same switches/hcas/links a
// hand-written scenario has, so everything downstream (validation, routing) is shared.
#include <fmt/format.h>

#include "net/scenario/topology.h"

namespace ibcc::net {
namespace {

void add_link(Scenario* s, const LinkSpec& proto, const std::string& a, unsigned ap, const std::string& b, unsigned bp) {
  LinkSpec l = proto;
  l.a_node = a;
  l.a_port = ap;
  l.b_node = b;
  l.b_port = bp;
  l.line = 0;
  s->links.push_back(l);
}

}  // namespace

// Three-stage Clos (folded): `leaves` leaf switches, each with (switch_ports - spines) host
// ports 1.. and one uplink to every spine on the ports after them; `spines` spine switches
// with one port per leaf. 36/18/36 is the Sun Datacenter InfiniBand Switch 648.
void generate_clos3(const ClosParams& p, const LinkSpec& link, Scenario* s) {
  const unsigned hosts_per_leaf = p.switch_ports - p.spines;
  for (unsigned l = 0; l < p.leaves; ++l) s->switches.push_back({fmt::format("L{}", l + 1), p.switch_ports, 0, {}, 0});
  for (unsigned sp = 0; sp < p.spines; ++sp) s->switches.push_back({fmt::format("S{}", sp + 1), p.switch_ports, 0, {}, 0});
  for (unsigned l = 0; l < p.leaves; ++l) {
    for (unsigned h = 0; h < hosts_per_leaf; ++h) {
      const std::string name = fmt::format("H{}", l * hosts_per_leaf + h + 1);
      s->hcas.push_back({name, 0, 0});
      add_link(s, link, name, 1, fmt::format("L{}", l + 1), h + 1);
    }
    for (unsigned sp = 0; sp < p.spines; ++sp) {
      add_link(s, link, fmt::format("L{}", l + 1), hosts_per_leaf + sp + 1, fmt::format("S{}", sp + 1), l + 1);
    }
  }
  for (unsigned sp = 0; sp < p.spines; ++sp) s->fabric.updown_roots.push_back(fmt::format("S{}", sp + 1));
}

// k-ary n-tree: n levels of k^(n-1) switches with 2k ports (k down, k up; the top level
// uses only its k down ports), k^n hosts. Switch <level, w> with w written in base k.
void generate_kary_ntree(const KaryNtreeParams& p, const LinkSpec& link, Scenario* s) {
  unsigned per_level = 1;
  for (unsigned i = 1; i < p.n; ++i) per_level *= p.k;
  auto name = [](unsigned level, unsigned w) { return fmt::format("SW{}_{}", level, w); };
  for (unsigned level = 0; level < p.n; ++level) {
    for (unsigned w = 0; w < per_level; ++w) s->switches.push_back({name(level, w), 2 * p.k, 0, {}, 0});
  }
  // Hosts on level 0 (the leaves), down ports 1..k.
  for (unsigned w = 0; w < per_level; ++w) {
    for (unsigned h = 0; h < p.k; ++h) {
      const std::string hn = fmt::format("H{}", w * p.k + h + 1);
      s->hcas.push_back({hn, 0, 0});
      add_link(s, link, hn, 1, name(0, w), h + 1);
    }
  }
  // Level l switch w connects up-port j (k+1+j) to level l+1 switch w' that equals w with
  // digit l replaced by j, arriving on its down-port (digit l of w) + 1.
  unsigned digit_weight = 1;
  for (unsigned level = 0; level + 1 < p.n; ++level) {
    for (unsigned w = 0; w < per_level; ++w) {
      const unsigned digit = (w / digit_weight) % p.k;
      for (unsigned j = 0; j < p.k; ++j) {
        const unsigned up = w - digit * digit_weight + j * digit_weight;
        add_link(s, link, name(level, w), p.k + 1 + j, name(level + 1, up), digit + 1);
      }
    }
    digit_weight *= p.k;
  }
  for (unsigned w = 0; w < per_level; ++w) s->fabric.updown_roots.push_back(name(p.n - 1, w));
}

// Full fat tree (m-port n-tree) of radix r = 2h. A sub-tree of depth d has h sub-trees of
// depth d-1 below h^(d-1) switches of its top level; up-port u of sub-tree c goes to top
// switch u, down-port c+1. A depth-1 sub-tree is one edge switch with h hosts (ports 1..h).
// The whole tree joins 2h sub-trees of depth L-1 under h^(L-1) top switches that use all 2h
// ports downward. Up-ports of a switch are h+1..2h. Switches SW<level>_<index> (level 0:
// edge), hosts H1.. in order.
namespace {

struct FatTreeBuilder {
  const LinkSpec& link;
  Scenario* s;
  unsigned h;
  std::vector<unsigned> next_index;  // per level
  unsigned next_host = 0;

  std::string new_switch(unsigned level, unsigned ports) {
    std::string name = fmt::format("SW{}_{}", level, next_index[level]++);
    s->switches.push_back({name, ports, 0, {}, 0});
    return name;
  }
  // `count` new hosts on ports 1..count of an edge switch.
  void add_hosts(const std::string& edge, unsigned count) {
    for (unsigned i = 0; i < count; ++i) {
      const std::string hn = fmt::format("H{}", ++next_host);
      s->hcas.push_back({hn, 0, 0});
      add_link(s, link, hn, 1, edge, i + 1);
    }
  }
  // The up-ports of a new sub-tree of depth d, in order: h^d of them.
  std::vector<std::pair<std::string, unsigned>> subtree(unsigned d) {
    std::vector<std::pair<std::string, unsigned>> ups;
    std::vector<std::string> tops;
    if (d == 1) {
      tops.push_back(new_switch(0, 2 * h));
      add_hosts(tops[0], h);
    } else {
      unsigned width = 1;
      for (unsigned i = 1; i < d; ++i) width *= h;
      for (unsigned u = 0; u < width; ++u) tops.push_back(new_switch(d - 1, 2 * h));
      join(tops, h, d - 1);
    }
    for (const auto& t : tops) {
      for (unsigned j = 0; j < h; ++j) ups.emplace_back(t, h + 1 + j);
    }
    return ups;
  }
  // `children` sub-trees of depth d, up-port u of each to tops[u].
  void join(const std::vector<std::string>& tops, unsigned children, unsigned d) {
    for (unsigned c = 0; c < children; ++c) {
      const auto ups = subtree(d);
      for (size_t u = 0; u < ups.size(); ++u) add_link(s, link, ups[u].first, ups[u].second, tops[u], c + 1);
    }
  }
};

}  // namespace

void generate_fattree(const FatTreeParams& p, const LinkSpec& link, Scenario* s) {
  FatTreeBuilder b{link, s, p.radix / 2, std::vector<unsigned>(p.levels, 0)};
  std::vector<std::string> tops;
  if (p.levels == 1) {
    tops.push_back(b.new_switch(0, p.radix));
    b.add_hosts(tops[0], p.radix);
  } else {
    unsigned width = 1;
    for (unsigned i = 1; i < p.levels; ++i) width *= b.h;
    for (unsigned u = 0; u < width; ++u) tops.push_back(b.new_switch(p.levels - 1, p.radix));
    b.join(tops, p.pods ? p.pods : p.radix, p.levels - 1);
  }
  for (const auto& t : tops) s->fabric.updown_roots.push_back(t);
}

// 2D mesh or torus of x*y switches, hcas_per_switch hosts on ports 1..; ports after them:
// +x, -x, +y, -y. Dimension-order routing uses mesh_x/mesh_y.
void generate_mesh(const MeshParams& p, const LinkSpec& link, Scenario* s) {
  const unsigned ports = p.hcas_per_switch + 4;
  auto name = [](unsigned x, unsigned y) { return fmt::format("SW{}_{}", x, y); };
  for (unsigned y = 0; y < p.y; ++y) {
    for (unsigned x = 0; x < p.x; ++x) s->switches.push_back({name(x, y), ports, 0, {}, 0});
  }
  unsigned host = 0;
  for (unsigned y = 0; y < p.y; ++y) {
    for (unsigned x = 0; x < p.x; ++x) {
      for (unsigned h = 0; h < p.hcas_per_switch; ++h) {
        const std::string hn = fmt::format("H{}", ++host);
        s->hcas.push_back({hn, 0, 0});
        add_link(s, link, hn, 1, name(x, y), h + 1);
      }
      const unsigned px = p.hcas_per_switch + 1, nx = px + 1, py = px + 2, ny = px + 3;
      if (x + 1 < p.x) add_link(s, link, name(x, y), px, name(x + 1, y), nx);
      else if (p.torus && p.x > 2) add_link(s, link, name(x, y), px, name(0, y), nx);
      if (y + 1 < p.y) add_link(s, link, name(x, y), py, name(x, y + 1), ny);
      else if (p.torus && p.y > 2) add_link(s, link, name(x, y), py, name(x, 0), ny);
    }
  }
  s->mesh_x = p.x;
  s->mesh_y = p.y;
  s->torus = p.torus;
}

}  // namespace ibcc::net
