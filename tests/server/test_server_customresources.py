"""CustomResourceDefinitions served as apiextensions-apiserver serves them, used by real clients.

kubectl (v1.32) creates a CRD, waits for it to be Established, then works with its custom
resources: printer columns, the scale subresource, validation failures with Go's texts
(apiextensions-apiserver pkg/apiserver/validation), pruning of unknown fields, structural
defaults, labels and selectors, the 415 of a strategic merge patch, and deleting the CRD
deletes its instances. The official Python client uses CustomObjectsApi (CRUD, status,
watch); a kopf operator creates a ConfigMap per object and patches its status. On SQLite
and on a real etcd.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from _etcd import etcd_endpoints, require_etcd  # noqa: F401  (session fixture)
from kcodec.testing import APIServer
from _kubectl import kubectl, wait_established


CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [cronSpec]
            properties:
              cronSpec: {type: string, pattern: '^(\\S+ ){4}\\S+$'}
              image: {type: string}
              replicas: {type: integer, minimum: 0, default: 1}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
"""

CRONTAB = """
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: my-cron, namespace: default}
spec: {cronSpec: "* * * * */5", image: my-image, unknownField: 3}
"""


@pytest.fixture(scope="module", params=["sqlite", "etcd"])
def server(request):
    if request.param == "sqlite":
        with APIServer() as s:
            yield s
    else:
        require_etcd()
        endpoints = request.getfixturevalue("etcd_endpoints")
        with APIServer("etcd:" + ",".join(endpoints), etcd_prefix=f"/kcodec-{uuid.uuid4().hex[:8]}") as s:
            yield s


@pytest.fixture(scope="module")
def crd(server):
    kubectl(server, "apply", "-f", "-", stdin=CRD)
    wait_established(server, "crontabs.stable.example.com")
    yield
    kubectl(server, "delete", "crd", "crontabs.stable.example.com", "--ignore-not-found")


def test_crd_status_like_apiextensions(server, crd) -> None:
    out = json.loads(kubectl(server, "get", "crd", "crontabs.stable.example.com", "-o", "json").stdout)
    conditions = {c["type"]: (c["status"], c["reason"], c["message"]) for c in out["status"]["conditions"]}
    assert conditions["NamesAccepted"] == ("True", "NoConflicts", "no conflicts found")
    assert conditions["Established"] == ("True", "InitialNamesAccepted", "the initial names have been accepted")
    assert out["status"]["acceptedNames"] == {"plural": "crontabs", "singular": "crontab", "kind": "CronTab",
                                              "listKind": "CronTabList", "shortNames": ["ct"]}
    resources = kubectl(server, "api-resources", "--api-group=stable.example.com", "--no-headers").stdout.split()
    assert resources == ["crontabs", "ct", "stable.example.com/v1", "true", "CronTab"]


def test_kubectl_works_with_custom_resources(server, crd) -> None:
    assert kubectl(server, "apply", "-f", "-", stdin=CRONTAB).stdout.strip() == \
        "crontab.stable.example.com/my-cron created"
    obj = json.loads(kubectl(server, "get", "ct", "my-cron", "-o", "json").stdout)
    assert "unknownField" not in obj["spec"]          # pruned
    assert obj["spec"]["replicas"] == 1               # structural default
    assert obj["metadata"]["generation"] == 1
    table = kubectl(server, "get", "crontabs").stdout.splitlines()
    assert table[0].split() == ["NAME", "SPEC", "REPLICAS"]
    assert table[1].split()[0] == "my-cron" and table[1].split()[-1] == "1"
    assert kubectl(server, "scale", "crontab/my-cron", "--replicas=3").stdout.strip() == \
        "crontab.stable.example.com/my-cron scaled"
    assert kubectl(server, "get", "ct", "my-cron", "-o", "jsonpath={.spec.replicas}").stdout == "3"
    bad = kubectl(server, "patch", "ct", "my-cron", "--type=merge", "-p", '{"spec":{"replicas":"x"}}', ok=False)
    assert bad.returncode == 1
    assert bad.stderr.strip() == ('The CronTab "my-cron" is invalid: spec.replicas: Invalid value: "string": '
                                  'spec.replicas in body must be of type integer: "string"')
    smp = kubectl(server, "patch", "ct", "my-cron", "--type=strategic", "-p", '{"spec":{"replicas":2}}', ok=False)
    assert "the body of the request was in an unknown format - accepted media types include: " \
           "application/json-patch+json, application/merge-patch+json" in smp.stderr
    kubectl(server, "label", "ct", "my-cron", "tier=batch")
    assert kubectl(server, "get", "ct", "-l", "tier=batch", "-o", "name").stdout.strip() == \
        "crontab.stable.example.com/my-cron"
    kubectl(server, "delete", "ct", "my-cron")
    assert kubectl(server, "get", "ct", "-o", "name").stdout.strip() == ""


def test_python_client_custom_objects(server, crd) -> None:
    pytest.importorskip("kubernetes")
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException

    cfg = client.Configuration()
    config.load_kube_config(config_file=server.kubeconfig, client_configuration=cfg)
    with client.ApiClient(cfg) as c:
        api = client.CustomObjectsApi(c)
        args = ("stable.example.com", "v1", "default", "crontabs")
        body = {"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "py"},
                "spec": {"cronSpec": "0 * * * *"}}
        created = api.create_namespaced_custom_object(*args, body)
        assert created["spec"] == {"cronSpec": "0 * * * *", "replicas": 1}
        with pytest.raises(ApiException) as err:
            api.create_namespaced_custom_object(*args, {**body, "metadata": {"name": "bad"},
                                                        "spec": {"cronSpec": "nope"}})
        assert err.value.status == 422
        status = json.loads(err.value.body)
        assert status["reason"] == "Invalid" and status["details"]["causes"][0]["field"] == "spec.cronSpec"
        # status goes through the status subresource only
        obj = api.get_namespaced_custom_object(*args, "py")
        obj["status"] = {"replicas": 7}
        api.replace_namespaced_custom_object_status(*args, "py", obj)
        assert api.get_namespaced_custom_object(*args, "py")["status"] == {"replicas": 7}
        obj = api.get_namespaced_custom_object(*args, "py")
        obj["status"] = {"replicas": 9}
        obj["spec"]["image"] = "x"
        updated = api.replace_namespaced_custom_object(*args, "py", obj)
        assert updated["status"] == {"replicas": 7} and updated["metadata"]["generation"] == 2
        rv = updated["metadata"]["resourceVersion"]
        w = watch.Watch()
        api.patch_namespaced_custom_object(*args, "py", {"spec": {"image": "y"}})
        events = []
        for e in w.stream(api.list_namespaced_custom_object, *args, resource_version=rv, timeout_seconds=5):
            events.append((e["type"], e["object"]["spec"].get("image")))
            if len(events) == 1:
                w.stop()
        assert events == [("MODIFIED", "y")]
        api.delete_namespaced_custom_object(*args, "py")


def test_kopf_operator(server, crd, tmp_path) -> None:
    pytest.importorskip("kopf")
    operator = tmp_path / "operator.py"
    operator.write_text(textwrap.dedent("""
        import kopf
        import kubernetes


        @kopf.on.create("stable.example.com", "v1", "crontabs")
        def create_fn(spec, name, namespace, patch, **kwargs):
            kubernetes.config.load_kube_config()
            body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-cm"},
                    "data": {"cronSpec": spec.get("cronSpec", "")}}
            kopf.adopt(body)
            kubernetes.client.CoreV1Api().create_namespaced_config_map(namespace, body)
            patch.status["configmap"] = f"{name}-cm"
    """))
    env = dict(os.environ, KUBECONFIG=server.kubeconfig)
    name = f"op-{uuid.uuid4().hex[:6]}"
    proc = subprocess.Popen([sys.executable, "-m", "kopf", "run", "--standalone", "-n", "default", str(operator)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        kubectl(server, "apply", "-f", "-", stdin=CRONTAB.replace("my-cron", name))
        deadline = time.monotonic() + 30
        status = None
        while time.monotonic() < deadline:
            obj = json.loads(kubectl(server, "get", "ct", name, "-o", "json").stdout)
            status = obj.get("status")
            if status:
                break
            time.sleep(0.3)
        assert status == {"configmap": f"{name}-cm"}, _output(proc)
        cm = json.loads(kubectl(server, "get", "cm", f"{name}-cm", "-o", "json").stdout)
        assert cm["data"] == {"cronSpec": "* * * * */5"}
        assert cm["metadata"]["ownerReferences"][0]["uid"] == obj["metadata"]["uid"]
        kubectl(server, "delete", "ct", name, "--timeout=20s")
        # the garbage collector follows owner references to custom resources too
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and kubectl(server, "get", "cm", f"{name}-cm", ok=False).returncode == 0:
            time.sleep(0.3)
        assert kubectl(server, "get", "cm", f"{name}-cm", ok=False).returncode != 0
    finally:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert "Handler 'create_fn' succeeded" in out, out[-3000:]


def _output(proc: subprocess.Popen) -> str:
    proc.terminate()
    try:
        out, _ = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out[-4000:]


def test_deleting_the_crd_deletes_its_instances(server) -> None:
    crd = CRD.replace("crontabs", "snapshots").replace("crontab", "snapshot").replace("CronTab", "Snapshot") \
        .replace("[ct]", "[snap]")
    kubectl(server, "apply", "-f", "-", stdin=crd)
    wait_established(server, "snapshots.stable.example.com")
    kubectl(server, "apply", "-f", "-", stdin=CRONTAB.replace("CronTab", "Snapshot").replace("my-cron", "s1"))
    kubectl(server, "delete", "crd", "snapshots.stable.example.com")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        r = kubectl(server, "get", "--raw", "/apis/stable.example.com/v1", ok=False)
        if "snapshots" not in r.stdout:
            break
        time.sleep(0.2)
    assert "snapshots" not in kubectl(server, "get", "--raw", "/apis/stable.example.com/v1", ok=False).stdout
    # Created again, the CRD serves an empty collection: the instances went with it.
    kubectl(server, "apply", "-f", "-", stdin=crd)
    wait_established(server, "snapshots.stable.example.com")
    assert kubectl(server, "get", "snapshots", "-A", "-o", "name").stdout.strip() == ""
    kubectl(server, "delete", "crd", "snapshots.stable.example.com")


def _kind_name(prefix: str) -> str:
    """A fresh lower-case kind name per test run (a CRD is not re-created under one name)."""
    return prefix + "".join(chr(ord("a") + int(c, 16) % 26) for c in uuid.uuid4().hex[:6])


def _versions_crd(name: str, conversion: str) -> str:
    schema = "schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}"
    return f"""
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: {name}s.conv.example.com}}
spec:
  group: conv.example.com
  scope: Namespaced
  names: {{plural: {name}s, singular: {name}, kind: {name.capitalize()}}}
  {conversion}
  versions:
  - {{name: v1, served: true, storage: true, {schema}}}
  - {{name: v2, served: true, storage: false, {schema}}}
"""


def test_versions_without_conversion(server) -> None:
    """Strategy None (apiextensions-apiserver nop_converter.go): every served version reads
    the same objects, only apiVersion changes; they are stored in the storage version."""
    name = _kind_name("gadget")
    kubectl(server, "apply", "-f", "-", stdin=_versions_crd(name, ""))
    wait_established(server, f"{name}s.conv.example.com")
    obj = (f"apiVersion: conv.example.com/v2\nkind: {name.capitalize()}\nmetadata: {{name: g1, namespace: default}}\n"
           "spec: {size: 3}\n")
    kubectl(server, "apply", "-f", "-", stdin=obj)
    base = f"/apis/conv.example.com/{{}}/namespaces/default/{name}s/g1"
    as_v1 = json.loads(kubectl(server, "get", "--raw", base.format("v1")).stdout)
    as_v2 = json.loads(kubectl(server, "get", "--raw", base.format("v2")).stdout)
    assert as_v1["apiVersion"] == "conv.example.com/v1" and as_v2["apiVersion"] == "conv.example.com/v2"
    assert as_v1["spec"] == as_v2["spec"] == {"size": 3}
    kubectl(server, "delete", "crd", f"{name}s.conv.example.com", "--ignore-not-found")


class _ConversionWebhook:
    """A conversion webhook on loopback: v1 ``spec.cronSpec`` is v2 ``spec.schedule``."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.reviews: list[dict] = []
        hook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                hook.reviews.append(review)
                request = review["request"]
                out = []
                for o in request["objects"]:
                    o = dict(o, apiVersion=request["desiredAPIVersion"])
                    spec = dict(o.get("spec") or {})
                    if request["desiredAPIVersion"].endswith("/v2") and "cronSpec" in spec:
                        spec["schedule"] = spec.pop("cronSpec")
                    elif request["desiredAPIVersion"].endswith("/v1") and "schedule" in spec:
                        spec["cronSpec"] = spec.pop("schedule")
                    o["spec"] = spec
                    out.append(o)
                body = json.dumps({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                                   "response": {"uid": request["uid"], "convertedObjects": out,
                                                "result": {"status": "Success"}}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # apiextensions validation requires https for conversion webhooks (webhook.ValidateWebhookURL
        # with forceHttps); the CRD's caBundle carries this self-signed certificate.
        import base64
        import ssl
        import tempfile

        from kcodec.server.runner import self_signed_certificate

        cert, key = self_signed_certificate("127.0.0.1")
        self._tmp = tempfile.TemporaryDirectory(prefix="kcodec-hook-")
        cf, kf = os.path.join(self._tmp.name, "tls.crt"), os.path.join(self._tmp.name, "tls.key")
        with open(cf, "wb") as f:
            f.write(cert)
        with open(kf, "wb") as f:
            f.write(key)
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(cf, kf)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.ca_bundle = base64.b64encode(cert).decode()
        self.url = f"https://127.0.0.1:{self.httpd.server_address[1]}/convert"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._tmp.cleanup()


def test_conversion_webhook(server) -> None:
    """Strategy Webhook (webhook_converter.go): a ConversionReview per object not in the
    wanted version; objects are stored in the storage version (v1) whatever version wrote them."""
    hook = _ConversionWebhook()
    try:
        conversion = ("conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], "
                      f"clientConfig: {{url: '{hook.url}', caBundle: '{hook.ca_bundle}'}}}}}}")
        name = _kind_name("widget")
        kubectl(server, "apply", "-f", "-", stdin=_versions_crd(name, conversion))
        wait_established(server, f"{name}s.conv.example.com")
        kubectl(server, "apply", "-f", "-", stdin=f"apiVersion: conv.example.com/v2\nkind: {name.capitalize()}\n"
                "metadata: {name: w1, namespace: default}\nspec: {schedule: '*/5 * * * *'}\n")
        base = f"/apis/conv.example.com/{{}}/namespaces/default/{name}s/w1"
        as_v1 = json.loads(kubectl(server, "get", "--raw", base.format("v1")).stdout)
        as_v2 = json.loads(kubectl(server, "get", "--raw", base.format("v2")).stdout)
        assert as_v1["apiVersion"] == "conv.example.com/v1" and as_v1["spec"] == {"cronSpec": "*/5 * * * *"}
        assert as_v2["apiVersion"] == "conv.example.com/v2" and as_v2["spec"] == {"schedule": "*/5 * * * *"}
        assert as_v1["metadata"]["uid"] == as_v2["metadata"]["uid"]
        review = hook.reviews[0]
        assert review["apiVersion"] == "apiextensions.k8s.io/v1" and review["kind"] == "ConversionReview"
        assert review["request"]["desiredAPIVersion"] == "conv.example.com/v1"  # stored as v1
        kubectl(server, "delete", "crd", f"{name}s.conv.example.com", "--ignore-not-found")
    finally:
        hook.close()
