# Placeholder: the compiled scalar engine goes here (included by _kernels.pyx).
