"""What crosses the process boundary: the run request and its options, the events a run streams,
the messages of the protocol and the shared cancel flag. Both sides import this; it imports
neither.
"""
