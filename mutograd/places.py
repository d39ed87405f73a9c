"""Places (where a tensor's memory lives) and the backend namespace ``xp`` of each.

All array math goes through ``place.xp``: NumPy for the CPU. A GPU place plugs in here by giving
its ``xp`` (CuPy); nothing else in the framework names a backend module.
"""
import numpy as np

from .errors import PlaceError


class Place:
    __slots__ = ("kind", "index", "xp")

    def __init__(self, kind, index=0, xp=np):
        self.kind = kind
        self.index = index
        self.xp = xp

    def __repr__(self):
        return "Place(cpu)" if self.kind == "cpu" else f"Place({self.kind}:{self.index})"

    def __str__(self):
        return "cpu" if self.kind == "cpu" else f"{self.kind}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = get(other)
            except PlaceError:
                return False
        return isinstance(other, Place) and (self.kind, self.index) == (other.kind, other.index)

    def __hash__(self):
        return hash((self.kind, self.index))

    def is_cpu_place(self):
        return self.kind == "cpu"

    def is_gpu_place(self):
        return self.kind == "gpu"


CPU = Place("cpu")


def get(place):
    """The Place for ``None`` (the CPU), a Place, or a name: ``'cpu'``."""
    if place is None or place is CPU:
        return CPU
    if isinstance(place, Place):
        return place
    name = str(getattr(place, "type", place)).lower()
    if name == "cpu":
        return CPU
    raise PlaceError(f"unknown or unavailable place {place!r}; this build supports 'cpu'")
