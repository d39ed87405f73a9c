"""Array backends other than NumPy; each registers itself with ``places.register_backend``."""
