import sys

from topocoll.reproduce import main

if __name__ == "__main__":
    sys.exit(main())
