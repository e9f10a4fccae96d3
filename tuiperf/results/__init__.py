"""The result document and everything done with it in any process: the typed model, its one writer,
statistics, result files, the run history, exports and comparisons.
"""
