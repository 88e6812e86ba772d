"""The two kinds of failure a campaign reports, as the CLI's exit codes (src/exit_codes.h),
and the entry point that maps them for a campaign started by the C++ CLI."""

import json
import signal
import sys

BAD_INPUT = 2      # cli::kBadInput: the command was wrong; nothing (more) was run
FAILED = 1         # cli::kFailed: a run or a backend failed, or a result could not be written
INTERRUPTED = 130  # cli::kStopped: SIGINT, SIGTERM or SIGHUP; the same command resumes


class CampaignError(Exception):
    """Bad input: the campaign's request, space, scenario or --out (exit 2)."""


class RunError(Exception):
    """A run or a backend failed, or a result could not be written (exit 1)."""


def request_main(prog, fn, argv=None):
    """The entry point of a campaign started by the C++ CLI with its parsed options as one JSON
    `--request`: SIGINT, SIGTERM and SIGHUP end the runs in progress, which write what they
    have (the same command resumes); bad input exits 2, a failed run or write exits 1."""
    import argparse
    from . import processes
    ap = argparse.ArgumentParser(prog=prog, description=f"internal: called by `{prog}` with its parsed options")
    ap.add_argument("--request", required=True, help="the options as JSON")
    args = ap.parse_args(argv)
    processes.install(processes.request_stop, (signal.SIGINT, signal.SIGTERM, signal.SIGHUP))
    try:
        return fn(json.loads(args.request))
    except CampaignError as e:
        print(f"{prog.split(' --')[0]}: error: {e}", file=sys.stderr)
        return BAD_INPUT
    except RunError as e:
        print(f"{prog.split(' --')[0]}: error: {e}", file=sys.stderr)
        return FAILED
