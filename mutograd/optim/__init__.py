"""``mutograd.optim``: optimizers that update parameters in place, and learning-rate schedulers.

    >>> import mutograd as mg
    >>> net = mg.nn.Linear(4, 2)
    >>> opt = mg.optim.Adam(net.parameters(), lr=1e-2)
    >>> loss = net(mg.randn([8, 4])).square().mean()
    >>> opt.zero_grad(); loss.backward(); opt.step()
"""
from . import lr_scheduler, swa_utils
from .adam_family import Adamax, Lamb, NAdam, RAdam
from .algorithms import SGD, Adadelta, Adagrad, Adam, AdamW, RMSprop
from .lbfgs import LBFGS
from .matrix_optimizers import Adafactor, Muon
from .sgd_family import ASGD, Rprop
from .optimizer import Optimizer, OptimizerStateError

__all__ = [
           "ASGD",
           "SGD",
           "Adadelta",
           "Adafactor",
           "Adagrad",
           "Adam",
           "AdamW",
           "Adamax",
           "LBFGS",
           "Lamb",
           "Muon",
           "NAdam",
           "RAdam",
           "Rprop",
           "Optimizer",
           "OptimizerStateError",
           "RMSprop",
           "lr_scheduler",
           "swa_utils",
]
