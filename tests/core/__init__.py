"""The data model (mutograd/tensor.py, memory.py, places.py and backends/, random.py, printing.py,
parallel.py, errors.py): tensors, memory, creation, devices, generators."""
