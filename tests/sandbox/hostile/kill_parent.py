"""Try to kill whatever started us, then everything we may signal."""
import os
import signal

print("ppid", os.getppid(), flush=True)
for target in (os.getppid(), 1, -1):
    try:
        os.kill(target, signal.SIGKILL)
    except OSError as exc:
        print("kill", target, type(exc).__name__, flush=True)
print("still alive", flush=True)
