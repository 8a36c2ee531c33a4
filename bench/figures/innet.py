"""The figures of docs/innet.md (topocoll.reproduce.canary_figures); `topocoll reproduce
canary-*` runs the figures with their claims. This wrapper keeps the old command working:

    .venv/bin/python bench/figures/innet.py fig7a --topology fattree:canary --jobs 2
"""

from topocoll.reproduce.canary_figures import main

if __name__ == "__main__":
    main()
