"""What the http transport reads from its environment, as requests would: TLS trust (a
CA file, ``REQUESTS_CA_BUNDLE``, ``verify: false``, a client certificate), proxies and
``NO_PROXY``, Basic auth from the URL or ``~/.netrc``. Real servers on 127.0.0.1: an
HTTPS lineage server with a certificate made here, and a forwarding proxy."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import ssl
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from olsdk import DeliveryError
from olsdk.transports import AuthSettings, HttpSettings, HttpTransport, Payload, RetrySettings, SslContextSettings
from tests.support.client_testkit import LineageServer, run_event

# requests reads these; a developer's shell may set them
_ENVIRONMENT = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NETRC")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in _ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))


@dataclass
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _issue(
    subject: str, key: ec.EllipticCurvePrivateKey, issuer: tuple[str, ec.EllipticCurvePrivateKey] | None
) -> x509.Certificate:
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer[0] if issuer else subject))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
    )
    if issuer is None:
        builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        builder = builder.add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
    else:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
        )
    signer = issuer[1] if issuer else key
    return builder.sign(signer, hashes.SHA256())


def _write(path: Path, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey, key_path: Path) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """A test CA, a server certificate for 127.0.0.1 and a client certificate, both signed by it."""
    folder = tmp_path_factory.mktemp("pki")
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _issue("olsdk test CA", ca_key, None)
    files = Pki(*(folder / n for n in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key")))
    _write(files.ca, ca, ca_key, folder / "ca.key")
    for cert_path, key_path, subject in (
        (files.server_cert, files.server_key, "127.0.0.1"),
        (files.client_cert, files.client_key, "olsdk client"),
    ):
        key = ec.generate_private_key(ec.SECP256R1())
        _write(cert_path, _issue(subject, key, ("olsdk test CA", ca_key)), key, key_path)
    return files


def _https_server(pki: Pki, require_client_cert: bool = False) -> LineageServer:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki.server_cert, pki.server_key)
    if require_client_cert:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(pki.ca)
    return LineageServer(tls=context)


@pytest.fixture
def https_server(pki: Pki) -> Iterator[LineageServer]:
    server = _https_server(pki)
    yield server
    server.stop()


def _payload() -> Payload:
    return Payload.from_json(json.dumps(run_event()))


def _transport(url: str, **settings: Any) -> HttpTransport:
    return HttpTransport(HttpSettings(url=url, retry=RetrySettings(total=0), **settings))


def test_a_ca_file_from_ssl_context_verifies_the_server(https_server: LineageServer, pki: Pki) -> None:
    transport = _transport(https_server.url, ssl_context=SslContextSettings(ca_cert_path=str(pki.ca)))
    transport.send(_payload())
    transport.close()
    assert len(https_server.events) == 1


def test_an_unknown_certificate_is_a_tls_error_that_is_not_retried(https_server: LineageServer) -> None:
    transport = _transport(https_server.url)
    with pytest.raises(DeliveryError) as caught:
        transport.send(_payload())
    transport.close()
    assert caught.value.reason.startswith("TLS error") and "certificate verify failed" in caught.value.reason
    assert caught.value.retriable is False
    assert https_server.events == []


def test_requests_ca_bundle_variable_is_trusted(
    https_server: LineageServer, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(pki.ca))
    transport = _transport(https_server.url)
    transport.send(_payload())
    transport.close()
    assert len(https_server.events) == 1


def test_verify_false_skips_verification(https_server: LineageServer) -> None:
    transport = _transport(https_server.url, verify=False)
    with pytest.warns(Warning, match="Unverified HTTPS request"):
        transport.send(_payload())
    transport.close()
    assert len(https_server.events) == 1


def test_a_client_certificate_is_presented(pki: Pki) -> None:
    server = _https_server(pki, require_client_cert=True)
    try:
        anonymous = _transport(server.url, ssl_context=SslContextSettings(ca_cert_path=str(pki.ca)))
        with pytest.raises(DeliveryError):
            anonymous.send(_payload())
        anonymous.close()
        tls = SslContextSettings(
            ca_cert_path=str(pki.ca), client_cert_path=str(pki.client_cert), client_key_path=str(pki.client_key)
        )
        with_cert = _transport(server.url, ssl_context=tls)
        with_cert.send(_payload())
        with_cert.close()
    finally:
        server.stop()
    assert len(server.events) == 1


class ForwardProxy:
    """An HTTP proxy on 127.0.0.1: takes absolute-form requests, forwards them, records them."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str | None]] = []  # (request target, Proxy-Authorization)
        proxy = self
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                proxy.seen.append((self.path, self.headers.get("Proxy-Authorization")))
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                headers = {k: v for k, v in self.headers.items() if not k.lower().startswith("proxy-")}
                with direct.open(urllib.request.Request(self.path, body, headers, method="POST"), timeout=10) as answer:
                    data = answer.read()
                    self.send_response(answer.status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def proxy() -> Iterator[ForwardProxy]:
    forward = ForwardProxy()
    yield forward
    forward.stop()


def test_http_proxy_variable_routes_posts_through_the_proxy(
    server: LineageServer, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url.replace("http://", "http://ops:pr0xy-pass@"))
    transport = _transport(server.url)
    transport.send(_payload())
    transport.send(_payload())
    transport.close()
    assert [target for target, _ in proxy.seen] == [f"{server.url}/api/v1/lineage"] * 2
    assert {auth for _, auth in proxy.seen} == {"Basic b3BzOnByMHh5LXBhc3M="}  # ops:pr0xy-pass
    assert len(server.events) == 2


def test_no_proxy_sends_directly(server: LineageServer, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    transport = _transport(server.url)
    transport.send(_payload())
    transport.close()
    assert proxy.seen == []
    assert len(server.events) == 1


def test_netrc_gives_basic_auth(server: LineageServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login lineage password n3trc-secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    transport = _transport(server.url)
    transport.send(_payload())
    transport.close()
    (request,) = server.requests
    assert request.headers["Authorization"] == "Basic bGluZWFnZTpuM3RyYy1zZWNyZXQ="  # lineage:n3trc-secret


def test_user_and_password_in_the_url_give_basic_auth_and_stay_off_the_wire(server: LineageServer) -> None:
    transport = _transport(server.url.replace("http://", "http://lineage:url-secret@"))
    transport.send(_payload())
    transport.close()
    (request,) = server.requests
    assert request.headers["Authorization"] == "Basic bGluZWFnZTp1cmwtc2VjcmV0"  # lineage:url-secret
    assert request.path == "/api/v1/lineage"
    assert "url-secret" not in repr(transport)


def test_an_api_key_wins_over_netrc(server: LineageServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login lineage password n3trc-secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    transport = _transport(server.url, auth=AuthSettings(type="api_key", api_key="k-9"))
    transport.send(_payload())
    transport.close()
    (request,) = server.requests
    assert request.headers["Authorization"] == "Bearer k-9"
