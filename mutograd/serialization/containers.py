"""The containers every format stores, mutograd's own and other tools': which dict keys a file
can hold, and how deep nests may go.
"""

MAX_DEPTH = 200                    # containers nested deeper are refused, in every format


def storable_items(d, path, sep, prefix=""):
    """``(key, value, key path)`` for each item of dict ``d``, whose keys a file can store
    (str, int, float, bool or None; a TypeError, starting with ``prefix``, names the first
    other key). ``path`` is the dict's own path, ``sep`` joins it to a key.

        >>> [p for _, _, p in storable_items({"w": 1, 2: 3}, "layer", ".")]
        ['layer.w', 'layer.2']
    """
    for k, v in d.items():
        if not (k is None or isinstance(k, (bool, int, float, str))):
            raise TypeError(f"{prefix}dict keys must be str, int, float, bool or None; got "
                            f"{type(k).__name__} at {path or 'the top level'}")
        yield k, v, f"{path}{sep}{k}" if path else str(k)
