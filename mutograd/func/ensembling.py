"""Model ensembling with the function transforms: ``stack_module_state`` stacks the parameters
and buffers of several models of one architecture, so that :func:`vmap` of
:func:`functional_call` runs them all at once; ``replace_all_batch_norm_modules_`` makes batch
norm layers usable under vmap by dropping their running statistics.

    >>> import mutograd as mg
    >>> from mutograd.func import functional_call, stack_module_state, vmap
    >>> models = [mg.nn.Linear(3, 2) for _ in range(4)]
    >>> params, buffers = stack_module_state(models)
    >>> x = mg.ones(5, 3)
    >>> run = lambda p, b: functional_call(models[0], (p, b), (x,))
    >>> vmap(run)(params, buffers).shape
    [4, 5, 2]
"""
__all__ = ["replace_all_batch_norm_modules_", "stack_module_state"]


def stack_module_state(models):
    """``(params, buffers)``: for each dotted name of the models' ``named_parameters()`` and
    ``named_buffers()``, the models' tensors stacked along a new first dimension. The stacked
    parameters are new leaves, requiring grad when the models' parameters do (to train the
    ensemble as one); the buffers are stacked as they are.

        >>> import mutograd as mg
        >>> from mutograd.func import stack_module_state
        >>> params, _ = stack_module_state([mg.nn.Linear(3, 2), mg.nn.Linear(3, 2)])
        >>> params["weight"].shape, params["weight"].is_leaf
        ([2, 2, 3], True)
    """
    from ..ops.shaping import stack
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked_leaf(name, tensors):
        rg = {t.requires_grad for t in tensors}
        if len(rg) > 1:
            raise RuntimeError(f"Expected {name} from each model to have the same "
                               f".requires_grad")
        out = stack(tensors).detach()
        return out.requires_grad_() if rg.pop() else out

    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: stacked_leaf(k, [p[k] for p in all_params]) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: stack([b[k] for b in all_buffers]) for k in all_buffers[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """Make every batch norm layer in ``root`` stop tracking running statistics, in place:
    ``running_mean``, ``running_var`` and ``num_batches_tracked`` become None and
    ``track_running_stats`` False, so the layer normalises with the batch's statistics in
    training and evaluation alike (under :func:`vmap`, a running statistic would be one buffer
    written by every sample). Instance norm layers are left as they are. Returns ``root``.

        >>> import mutograd as mg
        >>> from mutograd.func import replace_all_batch_norm_modules_
        >>> net = replace_all_batch_norm_modules_(mg.nn.Sequential(mg.nn.BatchNorm1d(3)))
        >>> net[0].running_mean is None, net[0].track_running_stats
        (True, False)
    """
    from ..nn.modules.batchnorm import _BatchNorm, _InstanceNorm
    for m in root.modules():
        if isinstance(m, _BatchNorm) and not isinstance(m, _InstanceNorm):
            m.running_mean = m.running_var = m.num_batches_tracked = None
            m.track_running_stats = False
    return root
