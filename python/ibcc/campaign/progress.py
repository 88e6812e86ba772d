"""A one-line progress bar on stderr, as the C++ commands draw it (src/progress.h): shown
only on a terminal and not when quiet, redrawn at most five times a second, erased when done."""

import sys
import time


def format_seconds(s):
    if s < 60:
        return f"{s:.0f}s"
    if s < 3600:
        return f"{int(s) // 60}m{int(s) % 60:02d}s"
    return f"{int(s) // 3600}h{int(s) % 3600 // 60:02d}m"


class ProgressBar:
    def __init__(self, quiet, stream=None):
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.enabled = not quiet and self.stream.isatty()
        self.start = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def update(self, fraction, what):
        if not self.enabled:
            return
        now = time.monotonic()
        if self.drawn and now - self.last < 0.2 and fraction < 1.0:
            return
        self.last, self.drawn = now, True
        width = 30
        filled = int(fraction * width + 0.5)
        eta = format_seconds((now - self.start) * (1 - fraction) / fraction) if fraction > 0.01 else "--"
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {fraction * 100:3.0f}%  {what}  ETA {eta}   ")
        self.stream.flush()

    def say(self, line):
        """A line of its own above the bar (the bar is drawn again on the next update); none
        when quiet."""
        if self.quiet:
            return
        if self.enabled and self.drawn:
            self.stream.write("\r" + " " * 110 + "\r")
            self.drawn = False
        self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self):
        if self.enabled and self.drawn:
            self.stream.write("\r" + " " * 110 + "\r")
            self.stream.flush()
            self.drawn = False
