"""``torch.nn.parallel.DistributedDataParallel`` over MPI (see docs/distributed.md)."""
from ....distributed import DistributedDataParallel as _DDP


class DistributedDataParallel(_DDP):
    """PyTorch's signature; ``device_ids`` and the other CUDA/graph options are accepted and have
    no effect on the CPU (gradients are always views of the buckets)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 **kwargs):
        if process_group is not None:
            from ....errors import DistributedError
            raise DistributedError("only the default group (the whole world) is supported")
        super().__init__(module, bucket_cap_mb=bucket_cap_mb,
                         broadcast_buffers=broadcast_buffers)
