"""mutograd/serialization/: checkpoints, weights of other tools, hostile files (``hostile/``)."""
