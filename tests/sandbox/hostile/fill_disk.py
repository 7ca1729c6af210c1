"""Fill every writable place with files of 1 MiB until refused; print the MiB written per place."""
import errno
import os
import sys

block = b"\0" * (1024 * 1024)
for top in sys.argv[1:]:
    written, reason = 0, "none"
    try:
        for i in range(100000):
            with open(os.path.join(top, f"fill{i}"), "wb") as f:
                for _ in range(4):
                    f.write(block)
                    f.flush()
                    written += 1
    except OSError as exc:
        reason = errno.errorcode.get(exc.errno or 0, str(exc.errno))
    print(top, written, reason, flush=True)
