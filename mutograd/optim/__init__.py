"""``mutograd.optim``: optimizers that update parameters in place, and learning-rate schedulers.

    >>> import mutograd as mg
    >>> net = mg.nn.Linear(4, 2)
    >>> opt = mg.optim.Adam(net.parameters(), lr=1e-2)
    >>> loss = net(mg.randn([8, 4])).square().mean()
    >>> opt.zero_grad(); loss.backward(); opt.step()
"""
from . import lr_scheduler
from .algorithms import SGD, Adadelta, Adagrad, Adam, AdamW, RMSprop
from .lbfgs import LBFGS
from .torch_algorithms import ASGD, Adamax, NAdam, RAdam, Rprop
from .optimizer import Optimizer, OptimizerStateError

__all__ = [
           "ASGD",
           "Adamax",
           "NAdam",
           "RAdam",
           "Rprop",
           "SGD",
           "Adadelta",
           "Adagrad",
           "Adam",
           "AdamW",
           "LBFGS",
           "Optimizer",
           "OptimizerStateError",
           "RMSprop",
           "lr_scheduler",
]
