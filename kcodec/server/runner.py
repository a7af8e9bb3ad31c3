"""Starting and stopping a server: backend, registry, HTTP(S) listener, bootstrap, kubeconfig.

Go: k8s.io/apiserver pkg/server (PrepareRun/Run, the post-start hooks that create the system
namespaces before /readyz is ok, genericapiserver's self-signed serving certificate) and
client-go's kubeconfig format for the file kubectl and client libraries read.
"""
from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import os
import ssl
import tempfile
from typing import Any

from kcodec.server.options import Backend, ServerOptions, build_rest_options_getter, parse_storage

__all__ = ["ServerRunner", "self_signed_certificate", "kubeconfig_text", "SYSTEM_NAMESPACES"]

#: The namespaces kube-apiserver's system namespaces controller keeps (pkg/controlplane).
SYSTEM_NAMESPACES: tuple[str, ...] = ("default", "kube-system", "kube-public", "kube-node-lease")


def self_signed_certificate(host: str) -> tuple[bytes, bytes]:
    """A self-signed serving certificate and its key (PEM) for ``host``, ``localhost`` and 127.0.0.1.

    Like genericapiserver's ``MaybeDefaultWithSelfSignedCerts``: the certificate is its own CA,
    so the kubeconfig's ``certificate-authority-data`` is the certificate itself.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{host}@kcodec")])
    alt: list[Any] = [x509.DNSName("localhost")]
    ips = {"127.0.0.1", "::1"}
    try:
        ipaddress.ip_address(host)
        ips.add(host)
    except ValueError:
        alt.append(x509.DNSName(host))
    alt.extend(x509.IPAddress(ipaddress.ip_address(i)) for i in sorted(ips))
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=False, content_commitment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .sign(key, hashes.SHA256()))
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert_pem, key_pem


def kubeconfig_text(url: str, *, token: str = "", ca_pem: bytes | None = None, namespace: str = "default") -> str:
    """A kubeconfig (clientcmd v1 Config) whose current context ``kcodec`` reaches ``url``."""
    lines = ["apiVersion: v1", "kind: Config", "clusters:", "- name: kcodec", "  cluster:",
             f"    server: {url}"]
    if ca_pem is not None:
        lines.append(f"    certificate-authority-data: {base64.b64encode(ca_pem).decode()}")
    lines += ["contexts:", "- name: kcodec", "  context:", "    cluster: kcodec", "    user: kcodec",
              f"    namespace: {namespace}", "current-context: kcodec", "preferences: {}", "users:",
              "- name: kcodec", "  user:"]
    lines.append(f"    token: {token}" if token else "    {}")
    return "\n".join(lines) + "\n"


class ServerRunner:
    """One running ``kcodec serve``: call :meth:`start` then :meth:`stop` on one event loop.

    ``url`` is known after start; ``kubeconfig`` is the path written (``options.kubeconfig``).
    ``api_group_infos(rest_options_getter) -> list[APIGroupInfo]`` replaces the built-in
    groups (:func:`kcodec.registry.builtin.api_group_infos`), e.g. to serve a custom API.
    """

    def __init__(self, options: ServerOptions, *, api_group_infos: Any = None) -> None:
        self.options = options
        self.api_group_infos = api_group_infos
        self.url = ""
        self.kubeconfig = options.kubeconfig
        self.server: Any = None
        self.ca_pem: bytes | None = None
        self._backend: Backend | None = None
        self._getter: Any = None
        self._runner: Any = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def __repr__(self) -> str:
        return f"ServerRunner(url={self.url!r}, storage={self.options.storage!r})"

    def _build(self) -> Any:
        from kcodec.server.server import GenericAPIServer

        build = self.api_group_infos
        if build is None:
            from kcodec.registry.builtin import api_group_infos as build
        self._backend = parse_storage(self.options.storage)
        self._getter = build_rest_options_getter(self.options, self._backend)
        token = self.options.token

        def authenticate(candidate: str) -> Any:
            # TokenReviews answer as the server authenticates its own requests
            return GenericAPIServer.authenticate_token(token, candidate)

        infos = build(self._getter) if self.api_group_infos is not None else build(
            self._getter, authenticator=authenticate, event_ttl=self.options.event_ttl)
        return GenericAPIServer(infos, token=token, cbor=self.options.cbor)

    def _ssl_context(self) -> ssl.SSLContext:
        cert, key = self_signed_certificate(self.options.bind)
        self.ca_pem = cert
        self._tmp = tempfile.TemporaryDirectory(prefix="kcodec-tls-")
        cf = os.path.join(self._tmp.name, "tls.crt")
        kf = os.path.join(self._tmp.name, "tls.key")
        with open(cf, "wb") as f:
            f.write(cert)
        fd = os.open(kf, os.O_WRONLY | os.O_CREAT, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key)
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(cf, kf)
        return ctx

    def _bootstrap(self) -> None:
        """Create the system namespaces (the SystemNamespaces controller's first pass)."""
        if "system-namespaces" not in self.options.controllers:
            return
        from kcodec.api import errors as apierrors
        from kcodec.api.core import internal as core
        from kcodec.api.meta import v1 as metav1
        from kcodec.registry.request import Context
        from kcodec.schema import GroupVersion

        routes = self.server.routes.get(GroupVersion("", "v1"))
        scope = routes.scopes["namespaces"][""] if routes is not None else None
        if scope is None:
            return
        for name in SYSTEM_NAMESPACES:
            ns = core.Namespace(metadata=metav1.ObjectMeta(name=name))
            try:
                scope.storage.create(Context(), ns, None, metav1.CreateOptions())
            except apierrors.StatusError as err:
                if not apierrors.is_already_exists(err):
                    raise

    async def start(self) -> str:
        """Build everything, listen, bootstrap, write the kubeconfig; the URL once /readyz is ok."""
        from aiohttp import web

        loop = asyncio.get_running_loop()
        self.server = await loop.run_in_executor(None, self._build)
        from kcodec.server.controllers import CONTROLLERS, ControllerManager

        self._controllers = ControllerManager(self.server, [c for c in self.options.controllers if c in CONTROLLERS])
        self._controllers.install()
        app = self.server.make_app()
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await self._runner.setup()
        ssl_ctx = self._ssl_context() if self.options.tls else None
        site = web.TCPSite(self._runner, self.options.bind, self.options.port, ssl_context=ssl_ctx,
                           reuse_address=True)
        await site.start()
        sock = site._server.sockets[0]  # type: ignore[union-attr]
        port = sock.getsockname()[1]
        host = self.options.bind
        host_part = f"[{host}]" if ":" in host else host
        self.url = f"{'https' if ssl_ctx else 'http'}://{host_part}:{port}"
        self.server.discovery.address = f"{host_part}:{port}"
        await loop.run_in_executor(None, self._bootstrap)
        await loop.run_in_executor(None, self._start_custom_resources)
        self._controllers.start()
        self.server.ready = True
        if self.kubeconfig:
            text = kubeconfig_text(self.url, token=self.options.token, ca_pem=self.ca_pem)
            tmp = self.kubeconfig + ".tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.replace(tmp, self.kubeconfig)
        return self.url

    def _start_custom_resources(self) -> None:
        """Serve the stored CRDs' custom resources and follow CRD changes (apiextensions-apiserver)."""
        from kcodec.server.customresources import CustomResourceDefinitions

        self._crds = CustomResourceDefinitions(self.server, self._getter, wrap=self._controllers.wrap_scope)
        self._crds.start()

    async def stop(self) -> None:
        """Stop listening, end watches, close the storage."""
        if self.server is not None:
            self.server.ready = False
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        controllers = getattr(self, "_controllers", None)
        if controllers is not None:
            self._controllers = None
            await asyncio.get_running_loop().run_in_executor(None, controllers.stop)
        crds = getattr(self, "_crds", None)
        if crds is not None:
            self._crds = None
            await asyncio.get_running_loop().run_in_executor(None, crds.stop)
        if self.server is not None:
            await asyncio.get_running_loop().run_in_executor(None, _destroy_storages, self.server)
        if self._getter is not None:
            getter, self._getter = self._getter, None
            await asyncio.get_running_loop().run_in_executor(None, _close_getter, getter)
        if self._backend is not None:
            self._backend.cleanup()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def _destroy_storages(server: Any) -> None:
    seen: set[int] = set()
    for routes in server.routes.values():
        for subs in routes.scopes.values():
            for scope in subs.values():
                destroy = getattr(scope.storage, "destroy", None)
                if callable(destroy) and id(scope.storage) not in seen:
                    seen.add(id(scope.storage))
                    destroy()
    for store in getattr(server, "owned_stores", ()):
        if id(store) not in seen:
            seen.add(id(store))
            store.destroy()


def _close_getter(getter: Any) -> None:
    getter.close()
