"""``torch.nn.init``: in-place initialisers (``mutograd.nn.init``)."""
from ....nn.init import (  # noqa: F401
                         calculate_gain,
                         constant_,
                         kaiming_normal_,
                         kaiming_uniform_,
                         normal_,
                         ones_,
                         orthogonal_,
                         trunc_normal_,
                         uniform_,
                         xavier_normal_,
                         xavier_uniform_,
                         zeros_,
)
