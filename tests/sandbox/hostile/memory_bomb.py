"""Allocate and touch memory until refused; print how many MiB we got."""
import sys

chunks = []
try:
    while True:
        chunks.append(bytearray(16 * 1024 * 1024))  # bytearray zero-fills: the pages are touched
except MemoryError:
    print("MemoryError", 16 * len(chunks), flush=True)
    sys.exit(1)
