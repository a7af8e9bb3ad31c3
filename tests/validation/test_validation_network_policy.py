"""NetworkPolicy: k/k pkg/apis/networking/validation/validation.go ValidateNetworkPolicy,
ValidateNetworkPolicyPort, ValidateNetworkPolicyPeer, ValidateIPBlock,
ValidateNetworkPolicyUpdate (cases after validation_test.go TestValidateNetworkPolicy*)."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.networking import validation as nv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def np(spec: dict, name: str = "bar"):
    return internal({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                     "metadata": {"name": name, "namespace": "foo", "resourceVersion": "1"}, "spec": spec})


def msgs(errs):
    return [str(e) for e in errs]


def test_valid_policies():
    for spec in [
        {"podSelector": {}},
        {"podSelector": {"matchLabels": {"a": "b"}}, "ingress": [{}]},
        {"podSelector": {}, "ingress": [{"ports": [{"protocol": "TCP", "port": 80}, {"port": "http"},
                                                   {"protocol": "SCTP", "port": 7777, "endPort": 8888}]}]},
        {"podSelector": {}, "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"c": "d"}},
                                                   "podSelector": {"matchLabels": {"e": "f"}}}]}]},
        {"podSelector": {}, "egress": [{"to": [{"ipBlock": {"cidr": "192.168.0.0/16",
                                                             "except": ["192.168.3.0/24", "192.168.4.0/24"]}}]}],
         "policyTypes": ["Egress"]},
        {"podSelector": {}, "egress": [{"to": [{"ipBlock": {"cidr": "fd00:192:168::/48",
                                                             "except": ["fd00:192:168:3::/64"]}}]}],
         "policyTypes": ["Ingress", "Egress"]},
    ]:
        assert msgs(nv.validate_network_policy(np(spec))) == [], spec


def test_invalid_policies():
    cases = [
        ({"podSelector": {"matchLabels": {"a": "b"}}, "ingress": [{"ports": [{"protocol": "FOO", "port": 80}]}]},
         ['spec.ingress[0].ports[0].protocol: Unsupported value: "FOO": supported values: "TCP", "UDP", "SCTP"']),
        ({"podSelector": {}, "ingress": [{"ports": [{"port": 0}, {"port": "!@#$"}]}]},
         ["spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
          'spec.ingress[0].ports[1].port: Invalid value: "!@#$": must contain only alpha-numeric characters (a-z, '
          "0-9), and hyphens (-)",
          'spec.ingress[0].ports[1].port: Invalid value: "!@#$": must contain at least one letter (a-z)']),
        ({"podSelector": {}, "egress": [{"ports": [{"port": 35000, "endPort": 32768}, {"port": "p", "endPort": 9}]}]},
         ["spec.egress[0].ports[0].endPort: Invalid value: 32768: must be greater than or equal to `port`",
          "spec.egress[0].ports[1].endPort: Invalid value: 9: may not be specified when `port` is non-numeric"]),
        ({"podSelector": {}, "ingress": [{"from": [{}]}]},
         ["spec.ingress[0].from[0]: Required value: must specify a peer"]),
        ({"podSelector": {}, "ingress": [{"from": [{"podSelector": {}, "ipBlock": {"cidr": "10.0.0.0/8"}}]}]},
         ["spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer"]),
        ({"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": ""}}]}]},
         ["spec.ingress[0].from[0].ipBlock.cidr: Required value"]),
        ({"podSelector": {}, "egress": [{"to": [{"ipBlock": {"cidr": "192.168.0.0/16",
                                                              "except": ["192.169.0.0/16", "192.168.0.0/16",
                                                                         "bogus"]}}]}]},
         ['spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "192.169.0.0/16": must be a strict subset of `cidr`',
          'spec.egress[0].to[0].ipBlock.except[1]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
          'spec.egress[0].to[0].ipBlock.except[2]: Invalid value: "bogus": must be a valid CIDR value, (e.g. '
          "10.9.8.0/24 or 2001:db8::/64)"]),
        ({"podSelector": {}, "policyTypes": ["foo"]},
         ['spec.policyTypes[0]: Unsupported value: "foo": supported values: "Ingress", "Egress"']),
        ({"podSelector": {}, "policyTypes": ["Ingress", "Egress", "Ingress"]},
         ['spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two '
          "policyTypes"]),
        ({"podSelector": {"matchLabels": {"a": "b c"}}},
         ['spec.podSelector.matchLabels: Invalid value: "b c": a valid label must be an empty string or consist of '
          "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
          "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
          "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]),
    ]
    for spec, expected in cases:
        assert msgs(nv.validate_network_policy(np(spec))) == expected, spec


def test_update_keeps_old_cidrs_and_selectors():
    old = np({"podSelector": {"matchExpressions": [{"key": "a", "operator": "In", "values": ["b c"]}]},
              "ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.1/8"}}]}]})
    # Non-strict parsing accepts host bits; the old invalid label value stays allowed.
    new = np({"podSelector": {"matchExpressions": [{"key": "a", "operator": "In", "values": ["b c"]}]},
              "ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.1/8"}}]}]})
    assert msgs(nv.validate_network_policy_update(new, old)) == []
    assert msgs(nv.validate_network_policy(new))[0].startswith(
        'spec.podSelector.matchExpressions[0].values[0]: Invalid value: "b c"')
    renamed = np({"podSelector": {}}, name="other")
    assert msgs(nv.validate_network_policy_update(renamed, np({"podSelector": {}}))) == [
        'metadata.name: Invalid value: "other": field is immutable']
