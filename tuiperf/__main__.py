import sys

from tuiperf.cli import main

if __name__ == "__main__":
    sys.exit(main())
