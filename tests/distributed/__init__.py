"""mutograd/distributed/: MPI jobs (``mpi_worker.py`` is one rank)."""
