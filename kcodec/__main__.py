"""``python -m kcodec``: the same command line as the ``kcodec`` console script."""
import sys

from kcodec.cli import main

if __name__ == "__main__":
    sys.exit(main())
