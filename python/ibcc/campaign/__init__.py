"""The campaign layer: what `ibcc sweep` and `ibcc tune` share.

A campaign runs `ibcc run` many times over points of a parameter space and gathers what
the runs measured. Its parts, each a module:

- ``space``: the spaces (a sweep's grid axes, a tune's Optuna parameters) and their checks;
- ``ibcc``: the `ibcc` executable as the campaign sees it (version, key schema, a batch
  check of points, the arguments of a run, a finished run's results);
- ``processes``: child processes that end with the campaign (signals, kill -9 of the parent);
- ``local`` and ``slurm``: the two backends (processes here, a Slurm job array);
- ``storage``: the campaign's directory (its lock, identity file, atomic writes, CSV);
- ``progress``: the one-line progress bar of a terminal.

The samplers sit on top: ``ibcc.sweep`` (the grid's cross product) and ``ibcc.tune``
(Optuna). Both are started by the C++ CLI (src/sweep.cpp, src/tune.cpp), which parses the
options and passes them as one JSON request.
"""

from .errors import CampaignError, RunError  # noqa: F401
