"""`python -m assay.cli`: running the package has imported assay.cli first, so every command is registered on `app`."""

from assay.cli.common import main

if __name__ == "__main__":
    main()
