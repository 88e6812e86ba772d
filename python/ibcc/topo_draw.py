"""`ibcc topo --draw FILE`: the fabric picture before a run, from the loads `ibcc topo` wrote
beside FILE as JSON (plots.plot_fabric_load).

  python3 -m ibcc.topo_draw SPEC.json FILE.png|.svg|.pdf
"""

import json
import sys
from pathlib import Path

from .results import ResultsError


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="ibcc topo --draw", description="internal: called by `ibcc topo --draw`")
    ap.add_argument("spec", type=Path, help="the JSON ibcc topo wrote")
    ap.add_argument("picture", type=Path)
    args = ap.parse_args(argv)
    from . import plots
    try:
        plots.plot_fabric_load(json.loads(args.spec.read_text()), args.picture, manifest=False)
    except (OSError, ValueError, KeyError, ResultsError) as e:
        print(f"ibcc topo: error: drawing {args.picture}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
