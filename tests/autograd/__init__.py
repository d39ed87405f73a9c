"""mutograd/autograd/: the engine and its hooks, gradients of gradients, saved-tensor policies,
views and in-place writes, diagnostics, derivatives of functions."""
