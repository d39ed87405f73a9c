"""``torch.optim.lr_scheduler``."""
from ....optim.lr_scheduler import (  # noqa: F401
                                    CosineAnnealingLR,
                                    ExponentialLR,
                                    LambdaLR,
                                    LinearLR,
                                    LinearWarmup,
                                    LRScheduler,
                                    MultiStepLR,
                                    ReduceLROnPlateau,
                                    StepLR,
)
