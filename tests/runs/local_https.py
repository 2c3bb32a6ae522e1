"""A real HTTPS server on 127.0.0.1 for the cloud API fakes: a self-signed certificate made
for the test (trusted through ``REQUESTS_CA_BUNDLE``, as any private CA would be), a thread
per request, and a log of what it received."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any  # parsed JSON, form fields, or None


@dataclass
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


Route = Callable[[Request], Reply]


class LocalServer:
    """Serves ``route(request)`` over HTTPS (or plain HTTP with ``tls=False``) until closed."""

    def __init__(self, route: Route, cert: tuple[Path, Path] | None) -> None:
        self.received: list[Request] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body: Any = None
                if raw:
                    kind = self.headers.get("Content-Type", "")
                    if "json" in kind:
                        body = json.loads(raw)
                    else:
                        body = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                request = Request(
                    self.command,
                    parts.path,
                    {k: v[0] for k, v in parse_qs(parts.query).items()},
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                )
                with server._lock:
                    server.received.append(request)
                    reply = route(request)
                if isinstance(reply.body, bytes):  # as given (XML: the EC2 Query API)
                    payload, kind = reply.body, "text/xml"
                else:
                    payload = b"" if reply.body is None else json.dumps(reply.body).encode()
                    kind = "application/json"
                self.send_response(reply.status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            # http.server's names for the methods it serves.
            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the test reads ``received``

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.scheme = "http"
        if cert is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*cert)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
            self.scheme = "https"
        # A short poll: closing waits for it.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
