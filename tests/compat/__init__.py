"""mutograd/compat/: the PyTorch and Paddle dialects, their types, argument orders and API
coverage, and the recorded Paddle references."""
