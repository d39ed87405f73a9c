"""The GPU backend: CuPy (its kernels, cuBLAS, cuRAND, memory pool, ``cupyx.scipy.special``).

Imported only when a GPU place is first asked for, so ``import mutograd`` never imports CuPy.
"""
from ..errors import PlaceError

INSTALL_HINT = ("install CuPy with `pip install mutograd[gpu]` (the cupy-cuda13x wheel; with "
                "CUDA 12 drivers use `pip install cupy-cuda12x`)")


def register():
    """Import CuPy and register it as the ``'gpu'`` backend; PlaceError says what is missing."""
    try:
        import cupy
    except ImportError as e:
        raise PlaceError(f"a GPU place was requested but CuPy is not installed ({e}); "
                         f"{INSTALL_HINT}, or use place='cpu'") from None
    from .. import places

    def device_count():
        try:
            return cupy.cuda.runtime.getDeviceCount()
        except cupy.cuda.runtime.CUDARuntimeError:
            return 0     # no driver or no device: reported by places.get with the fix

    def to_device(arr, index):
        with cupy.cuda.Device(index):
            return cupy.array(arr, copy=True)

    def to_host(arr):
        return cupy.asnumpy(arr)

    def synchronize(index=None):
        if index is None:
            cupy.cuda.Device().synchronize()
        else:
            with cupy.cuda.Device(index):
                cupy.cuda.Device(index).synchronize()

    def memory(index):
        pool = cupy.get_default_memory_pool()
        return {"pool_used_bytes": pool.used_bytes(), "pool_total_bytes": pool.total_bytes(),
                "free_blocks": pool.n_free_blocks()}

    def empty_cache():
        cupy.get_default_memory_pool().free_all_blocks()

    b = places.register_backend("gpu", cupy, device_count=device_count, to_device=to_device,
                                to_host=to_host, special=_special(), synchronize=synchronize,
                                make_generator=lambda seed: cupy.random.default_rng(seed),
                                memory=memory, use_device=cupy.cuda.Device)
    b.empty_cache = empty_cache
    return b


def _special():
    import cupyx.scipy.special
    return cupyx.scipy.special
