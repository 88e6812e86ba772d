"""The two kinds of failure a campaign reports, as the CLI's exit codes (src/exit_codes.h)."""

BAD_INPUT = 2      # cli::kBadInput: the command was wrong; nothing (more) was run
FAILED = 1         # cli::kFailed: a run or a backend failed, or a result could not be written
INTERRUPTED = 130  # cli::kStopped: SIGINT, SIGTERM or SIGHUP; the same command resumes


class CampaignError(Exception):
    """Bad input: the campaign's request, space, scenario or --out (exit 2)."""


class RunError(Exception):
    """A run or a backend failed, or a result could not be written (exit 1)."""
