"""The parent's side of the measuring processes: start them, ask them, stop them, survive them
(:mod:`.process`), the runner the CLI and the app use (:mod:`.runner`), scenario description in a
loader process (:mod:`.loader`) and one result from several processes (:mod:`.repeat`).
"""
