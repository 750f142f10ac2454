"""Inside the agent's sandbox (no network of its own): a loopback port forwarded to the bridge's unix socket.

Run by bubblewrap as `python3 -I -S _forward.py PORT SOCKET -- CMD...`: binds 127.0.0.1:PORT, forks the
forwarder, and the parent becomes the agent's command (exec), so the agent is the process the harness
talks to and the sandbox ends with it. Standard library only: it runs on the system's Python.
"""
import os
import socket
import sys
import threading


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(262144)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        conn, _ = listener.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            up.connect(path)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=_pipe, args=(conn, up), daemon=True).start()
        threading.Thread(target=_pipe, args=(up, conn), daemon=True).start()


def main() -> None:
    port, path = int(sys.argv[1]), sys.argv[2]
    argv = sys.argv[4:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    if os.fork() == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1):
            os.dup2(devnull, fd)  # the agent's stdout must reach EOF when the agent ends
        _serve(listener, path)
        os._exit(0)
    listener.close()
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        sys.stderr.write(f"agent command could not start: {argv[0]}: {e.strerror}\n")
        os._exit(127)


if __name__ == "__main__":
    main()
