"""``mutograd.nn.modules``: the layers of ``mutograd.nn``, one module per concern.

``containers`` (Sequential, ModuleList, ...), ``linear`` (Identity, Linear, Bilinear), ``conv``,
``pooling``, ``padding``, ``batchnorm`` (batch and instance norms), ``normalization`` (layer,
group, RMS, local response), ``activation``, ``dropout``, ``loss``, ``distance``, ``flatten``,
``sparse`` (embeddings), ``vision`` (shuffles, fold, upsampling), ``recurrent``, ``transformer``,
``adaptive`` (adaptive softmax) and ``lazy`` (modules that infer their input size). The base
class ``Module`` and ``Parameter`` live in ``mutograd.nn.module``; every public name is also
``mutograd.nn.<Name>``.

    >>> import mutograd as mg
    >>> from mutograd.nn.modules.linear import Linear
    >>> Linear is mg.nn.Linear
    True
"""
