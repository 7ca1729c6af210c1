"""Write to stdout (or fd 3 with argv[1] == 'channel') as fast as possible, forever."""
import os
import sys

fd = 3 if sys.argv[1:] == ["channel"] else 1
block = b"x" * 65536
while True:
    os.write(fd, block)
