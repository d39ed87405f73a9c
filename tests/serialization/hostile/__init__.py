"""Hostile weights files and the harness that loads them in memory-limited child processes.

- ``corpus``: files written as an attacker would (pickles assembled opcode by opcode, zip
  archives, ``.npz`` records, safetensors headers), one generator per kind of attack;
- ``isolated``: loads files in child processes with an address-space limit, each result
  classified (a clean CheckpointError, a load whose values are checked, a crash, another
  exception, a load over its memory budget);
- ``sweep`` (``python -m tests.serialization.hostile``): the sweep, with its counts
  (docs/testing.md).
"""
