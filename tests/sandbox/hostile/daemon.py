"""Double-fork, setsid, ignore SIGTERM/SIGHUP and exec a long sleeper named by argv[1]; the parent exits at once."""
import os
import signal
import sys

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        for fd in (0, 1, 2, 3):
            os.close(fd)
        os.execv(sys.executable, [sys.executable, "-I", "-S", "-c", "import time; time.sleep(120)", sys.argv[1]])
    os._exit(0)
os.wait()
print("parent done", flush=True)
