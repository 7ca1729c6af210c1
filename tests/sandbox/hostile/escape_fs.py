"""Try to write outside the work dir: argv holds host paths. Prints one 'path result' line each."""
import os
import sys

for path in sys.argv[1:]:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("escaped")
        print(path, "WROTE", flush=True)
    except OSError as exc:
        print(path, type(exc).__name__, flush=True)
