"""Ignore every polite signal and spin (argv[1] == 'cpu') or sleep (anything else) forever."""
import signal
import sys
import time

for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGXCPU):
    signal.signal(sig, signal.SIG_IGN)
print("started", flush=True)
if sys.argv[1] == "cpu":
    while True:
        pass
while True:
    time.sleep(1)
