"""Connect to a TCP port on the host's loopback and report what happened."""
import socket
import sys

try:
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2) as conn:
        conn.sendall(b"leak")
        print("CONNECTED", flush=True)
except OSError as exc:
    print("refused", type(exc).__name__, exc.errno, flush=True)
