"""Array backends other than NumPy (each registers itself with ``places.register_backend``), and
the special functions of whichever backend an array is on (special.py)."""
