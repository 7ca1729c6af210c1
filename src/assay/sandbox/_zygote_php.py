"""The zygote's side of the warm PHP launcher (_php_warm.php), standard library only.

Bound read-only at /zygote/php.py beside the zygote (_zygote_main.py), which loads it once at start. The
launcher is started once in the zygote's sandbox, on the first job that is one phase of `php FILE.php`, with
that job's environment; it runs such jobs as the C run init would, forking a started PHP instead of starting
one (12 ms). A job it cannot take (another environment, another php) goes to the run init.
"""

from __future__ import annotations

import os
import re
import socket
import struct
from collections.abc import Callable
from typing import Any

LAUNCHER = "/zygote/php-warm.php"
_PHP_NAME = re.compile(r"php[0-9.]*")


class WarmPhp:
    def __init__(self, native_spec: Callable[[dict[str, Any], bytes], bytes]) -> None:
        self.native_spec = native_spec  # the job as the C run init reads it, which the launcher reads too
        self.sock: socket.socket | None = None
        self.started_for: tuple[str, dict[str, str]] | None = None  # the php and environment it was started with
        self.broken = not os.path.exists(LAUNCHER)

    def eligible(self, header: dict[str, Any]) -> bool:
        phases = header.get("phases") or []
        if self.broken or not header.get("warm_php") or len(phases) != 1:
            return False
        argv = phases[0]["argv"]
        return len(argv) == 2 and bool(_PHP_NAME.fullmatch(os.path.basename(argv[0]))) and argv[1].endswith(".php") and not argv[1].startswith("-")

    def start(self, header: dict[str, Any], fds: list[int], blob: bytes) -> int | None:
        """Hand the job over (its spec and its descriptors); G's pid, 0 if none started, None if the launcher
        cannot take it (the run init runs it then)."""
        wanted = (header["phases"][0]["argv"][0], header["env"])
        if self.started_for is None and not self._spawn(*wanted, fds):
            return None
        if self.sock is None or wanted != self.started_for:
            return None
        try:
            spec = self.native_spec(header, blob)
        except (ValueError, KeyError):
            return None
        try:
            socket.send_fds(self.sock, [struct.pack("<Q", len(spec)) + spec[:65000]], fds[:5])
            self.sock.sendall(spec[65000:])
        except OSError:  # it is gone, and has not read this job: the run init runs it, and all later ones
            self.close()
            return None
        try:
            return int(self._reply())
        except (OSError, ValueError) as exc:  # it may have started G: this run is a sandbox error, later ones go to the run init
            self.close()
            os.write(fds[2], f"sandbox: the warm PHP launcher failed: {exc or 'it ended'}\n".encode())
            return 0

    def _spawn(self, php: str, env: dict[str, str], fds: list[int]) -> bool:
        """Start the launcher; whether it said it is ready (a php without FFI or pcntl ends at once)."""
        ours, theirs = socket.socketpair()
        for fd in fds:  # as received, inheritable: the launcher must hold no job's pipes but the ones it is sent
            os.set_inheritable(fd, False)
        os.set_inheritable(theirs.fileno(), True)
        self.started_for = (php, env)
        try:
            os.posix_spawn(php, [php, "-r", f"include '{LAUNCHER}';", str(theirs.fileno())], env)  # no script held open
        except OSError:
            ours.close()
            self.broken = True
            return False
        finally:
            theirs.close()
        self.sock = ours
        if self._reply() != b"ready\n":
            self.close()
            return False
        return True

    def _reply(self) -> bytes:
        """One line from the launcher (what it sent before it ended, if it ended)."""
        assert self.sock is not None
        data = b""
        while not data.endswith(b"\n"):
            chunk = self.sock.recv(64)
            if not chunk:
                return data
            data += chunk
        return data

    def close(self) -> None:
        """Stop using the launcher: every later job goes to the run init."""
        self.broken = True
        if self.sock is not None:
            self.sock.close()
            self.sock = None
