"""Fork argv[1] times; children park themselves. Prints 'forked failed'; with 'forever' in argv, then forks forever.

Other arguments (a marker) only tag the command line, so the test can look for survivors."""
import contextlib
import os
import sys
import time

forked = failed = 0
for _ in range(int(sys.argv[1])):
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        continue
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    forked += 1
print(forked, failed, flush=True)
if "forever" in sys.argv:  # and then the classic: every process forks forever
    while True:
        with contextlib.suppress(OSError):
            os.fork()
