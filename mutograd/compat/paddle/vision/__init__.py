"""``paddle.vision``: image ``transforms`` and ``datasets`` that read local files."""
from . import datasets, transforms  # noqa: F401
