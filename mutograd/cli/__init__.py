"""The programs that ``python -m mutograd`` runs and the examples beside them, outside the library
core (which never imports them):

- ``walkthrough``: ``python -m mutograd`` (or ``python -m mutograd walkthrough``), a measured
  walkthrough of views, in-place and ordinary ops;
- ``demo``: ``python -m mutograd demo``, a small CNN trained twice, in place and out of place;
- ``distributed_demo``: ``mpirun -n 2 python -m mutograd demo --distributed``, the demo's CNN
  trained data-parallel;
- ``check``: ``python -m mutograd check [--as torch|paddle] script.py``, a script run under
  strict and anomaly mode, its in-place misuse reported with the fix;
- ``distributed_example``: ``mpirun -n 2 python -m mutograd.cli.distributed_example``, a
  self-contained data-parallel run on synthetic data.

``mutograd/__main__.py`` maps the command names to these modules.
"""
