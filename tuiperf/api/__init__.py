"""The scenario API: what a scenario file imports (``Scenario``, parameters, ``Bench``, ``Step``, jit levels).

Pure declarations: importing them starts no JAX backend, so the UI process can read parameter
declarations too. The package face, :mod:`tuiperf`, re-exports these names.
"""
