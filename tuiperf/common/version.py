"""tuiperf's version, in one place: results and caches record it."""

__version__ = "0.1.0"
