"""A TCP proxy in front of a society that drops its first connection in the middle of a chosen
event, as a restart, a proxy or a network fault would, and passes every later one whole."""

import socket
import threading
import urllib.parse

# Bytes of the chosen event let through before the cut: past its `id:` line, short of its end.
BYTES_INTO_THE_EVENT = 8


class CuttingProxy:
    """proxy = CuttingProxy(society_url, b"id: 17\\n"); proxy.url; proxy.request_heads; proxy.close()"""

    def __init__(self, upstream_url, cut_inside):
        parts = urllib.parse.urlsplit(upstream_url)
        self.upstream = (parts.hostname, parts.port or 80)
        self.cut_inside = cut_inside
        self.request_heads = []  # each connection's request line and headers, as received
        self.cuts = 0
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._sockets = [self._listener]
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        for sock in self._sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _accept(self):
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            self._sockets.append(client)
            self.connections += 1
            threading.Thread(target=self._relay, args=(client, self.connections == 1), daemon=True).start()

    def _relay(self, client, cut):
        upstream = None
        try:
            upstream = socket.create_connection(self.upstream)
            self._sockets.append(upstream)
            head = b""
            while b"\r\n\r\n" not in head:
                data = client.recv(4096)
                if not data:
                    return
                head += data
            self.request_heads.append(head.decode("latin-1"))
            upstream.sendall(head)
            received, sent = b"", 0
            while True:
                data = upstream.recv(65536)
                if not data:
                    return
                if not cut:
                    client.sendall(data)
                    continue
                received += data
                at = received.find(self.cut_inside)
                if at >= 0:
                    client.sendall(received[sent:at + len(self.cut_inside) + BYTES_INTO_THE_EVENT])
                    self.cuts += 1
                    return
                client.sendall(received[sent:])
                sent = len(received)
        except OSError:
            return
        finally:
            client.close()
            if upstream is not None:
                upstream.close()
