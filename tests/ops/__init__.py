"""mutograd/ops/: the op table and its driver, and what only some ops need."""
