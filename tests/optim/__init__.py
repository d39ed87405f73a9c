"""mutograd/optim/: optimizers and schedulers."""
