"""Private numba kernels: arrays and scalars in, arrays out. Public wrappers live elsewhere and validate input."""
