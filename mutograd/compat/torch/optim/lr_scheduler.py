"""``torch.optim.lr_scheduler``."""
from ....optim.lr_scheduler import (  # noqa: F401
                                    CosineAnnealingLR,
                                    LambdaLR,
                                    LinearLR,
                                    LinearWarmup,
                                    LRScheduler,
                                    MultiStepLR,
                                    StepLR,
)
