"""Scenario files on disk, as the parent sees them: the folders, discovery, the last catalog kept on
disk, the last good copy of a broken file, templates for new ones. Nothing here imports a scenario
file: that happens only in a measuring or loading process (:mod:`tuiperf.measuring.loading`).
"""
