"""A threaded HTTP server on 127.0.0.1 (random port) that lives for one test.

The loopback Hub, PostgREST and OpenAI-compatible servers share this start/stop logic; each
gives the request-handler class its own protocol.
"""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackServer:
    """Subclasses implement `handler_class()`; `base_url` is http://127.0.0.1:<port>."""

    _httpd: ThreadingHTTPServer | None = None

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self):
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self.handler_class())
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
