"""What runs only in a measuring (or loading) process: the process's request loop (:mod:`.serve`),
loading scenario files, and one run start to end (set up, prepare, sample, break down, profile,
guard). This is the only package that imports JAX. The UI process never imports it (an import
contract test checks that).
"""
