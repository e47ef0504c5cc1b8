"""``python -m lordsofwar``: the same as the ``lordsofwar`` command."""

from lordsofwar.cli import main

if __name__ == "__main__":
    main()
