"""The connect storages' pure parts: Go's SplitSchemeNamePort (k8s.io/apimachinery
pkg/util/net/http.go), JoinPreserveTrailingSlash (util/net/http.go: path.Join keeping the
trailing slash), net.IP.IsGlobalUnicast, and NodeConnectionInfoGetter's address choice
(k8s.io/kubernetes pkg/kubelet/client/kubelet_client.go, component-helpers
nodeutil.GetPreferredNodeAddress, kube-apiserver's default --kubelet-preferred-address-types)."""
from __future__ import annotations

import pytest

from kcodec.api import errors as apierrors
from kcodec.api.core import internal as core
from kcodec.registry.builtin.connect import (
    NodeConnectionInfoGetter,
    join_preserve_trailing_slash,
    split_scheme_name_port,
    validate_container,
)
from kcodec.registry.builtin import connect
from kcodec.registry.request import Context


@pytest.mark.parametrize("id_, want", [
    ("aoeu", ("", "aoeu", "", True)),
    ("aoeu:8080", ("", "aoeu", "8080", True)),
    ("http:aoeu:8080", ("http", "aoeu", "8080", True)),
    ("https:aoeu:", ("https", "aoeu", "", True)),
    ("https:aoeu", ("", "https", "aoeu", True)),
    (":8080", ("", "", "", False)),
    ("ftp:aoeu:8080", ("", "", "", False)),
    ("aoeu:8080:http:", ("", "", "", False)),
    ("", ("", "", "", False)),
])
def test_split_scheme_name_port(id_, want):
    assert split_scheme_name_port(id_) == want


@pytest.mark.parametrize("elem, more, want", [
    ("", "", ""),
    ("", "/a/b/", "/a/b/"),
    ("/x", "a//b/", "/x/a/b/"),
    ("", "a/../b", "b"),
    ("/", "/", "/"),
    ("/x/", "", "/x/"),
])
def test_join_preserve_trailing_slash(elem, more, want):
    assert join_preserve_trailing_slash(elem, more) == want


@pytest.mark.parametrize("ip, want", [
    ("10.1.2.3", True), ("192.0.2.1", True), ("2001:db8::1", True),
    ("127.0.0.1", False), ("::1", False), ("169.254.1.1", False), ("fe80::1", False),
    ("224.0.0.1", False), ("0.0.0.0", False), ("255.255.255.255", False), ("", False), ("x", False),
])
def test_is_global_unicast(ip, want):
    assert connect._is_global_unicast(ip) is want


class _Nodes:
    def __init__(self, node):
        self.node = node

    def get(self, ctx, name, options=None):
        return self.node


def _node(addresses, port=0):
    node = core.Node()
    node.metadata.name = "n1"
    node.status.addresses = [core.NodeAddress(type=t, address=a) for t, a in addresses]
    node.status.daemon_endpoints.kubelet_endpoint.port = port
    return node


def test_preferred_address_order_and_port():
    getter = NodeConnectionInfoGetter(_Nodes(_node([("ExternalIP", "192.0.2.9"), ("InternalIP", "10.0.0.5"),
                                                    ("Hostname", "node-1")], 11250)))
    info = getter.get_connection_info(Context(), "n1")
    assert (info.scheme, info.hostname, info.port) == ("https", "node-1", "11250")
    getter = NodeConnectionInfoGetter(_Nodes(_node([("ExternalIP", "192.0.2.9"), ("InternalIP", "10.0.0.5")])))
    info = getter.get_connection_info(Context(), "n1")
    assert (info.hostname, info.port) == ("10.0.0.5", "10250")


def test_no_preferred_address():
    getter = NodeConnectionInfoGetter(_Nodes(_node([("ExternalDNS", "a.example"), ("Other", "x")])),
                                      preferred_address_types=("InternalIP",))
    with pytest.raises(apierrors.StatusError) as err:
        getter.get_connection_info(Context(), "n1")
    assert (err.value.code, err.value.reason) == (500, "")
    assert str(err.value) == "no preferred addresses found; known addresses: [{ExternalDNS a.example} {Other x}]"


def test_validate_container_visits_all_containers():
    pod = core.Pod()
    pod.metadata.name = "p"
    pod.spec.init_containers = [core.Container(name="init")]
    pod.spec.containers = [core.Container(name="a"), core.Container(name="b")]
    pod.spec.ephemeral_containers = [core.EphemeralContainer(ephemeral_container_common=core.EphemeralContainerCommon(
        name="debug"))]
    with pytest.raises(apierrors.StatusError) as err:
        validate_container("", pod)
    assert str(err.value) == "a container name must be specified for pod p, choose one of: [init a b debug]"
    assert validate_container("init", pod) == "init"
    assert validate_container("debug", pod) == "debug"
    pod.spec.containers = []
    with pytest.raises(apierrors.StatusError) as err:
        validate_container("", pod)
    assert str(err.value) == "a container name must be specified for pod p"
