"""Look for secrets: an environment variable, host files named in argv, and a look around."""
import os
import sys

print("env", os.environ.get("ASSAY_TEST_SECRET"), flush=True)
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            print(path, "READ", f.read(), flush=True)
    except OSError as exc:
        print(path, type(exc).__name__, flush=True)
for top in ("/", "/root", "/home", "/work", "/tmp"):
    try:
        print("ls", top, sorted(os.listdir(top)), flush=True)
    except OSError as exc:
        print("ls", top, type(exc).__name__, flush=True)
