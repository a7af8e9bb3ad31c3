"""kcodec.schema: value types, parsing and group versioners (Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go; k8s.io/apimachinery/pkg/runtime/codec.go (GroupVersioner))."""
from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kcodec.errors import DecodeError
from kcodec.runtime.interfaces import GroupVersioner
from kcodec.schema import (
    APIVersionInternal,
    DISABLED_GROUP_VERSIONER,
    INTERNAL_GROUP_VERSIONER,
    GroupKind,
    GroupResource,
    GroupVersion,
    GroupVersionKind,
    GroupVersionResource,
    GroupVersions,
    MultiGroupVersioner,
    from_api_version_and_kind,
    new_coercing_multi_group_versioner,
    new_multi_group_versioner,
    parse_group_kind,
    parse_group_resource,
    parse_group_version,
    parse_kind_arg,
    parse_resource_arg,
)

GV = GroupVersion
GVK = GroupVersionKind
GK = GroupKind
GR = GroupResource
GVR = GroupVersionResource


# --- Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go parse_group_version -------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", GV("", "")),
        ("/", GV("", "")),
        ("v1", GV("", "v1")),
        ("v2", GV("", "v2")),
        ("apps/v1", GV("apps", "v1")),
        ("/v1", GV("", "v1")),
        ("v1/", GV("v1", "")),
        ("v1/a", GV("v1", "a")),
        ("ignored group/ignored version", GV("ignored group", "ignored version")),
    ],
)
def test_parse_group_version(text: str, expected: GroupVersion) -> None:
    assert parse_group_version(text) == expected


@pytest.mark.parametrize("text", ["/v1/", "a/b/c", "//"])
def test_parse_group_version_rejects_two_slashes(text: str) -> None:
    with pytest.raises(ValueError, match=f"^unexpected GroupVersion string: {text}$") as info:
        parse_group_version(text)
    assert isinstance(info.value, DecodeError)


# --- Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go string forms ------------------------------------------------------------------


def test_string_forms() -> None:
    assert str(GV("", "v1")) == "v1"
    assert str(GV("apps", "v1")) == "apps/v1"
    assert str(GV("apps", "")) == "apps/"
    assert str(GV()) == ""
    assert GV("apps", "v1").identifier() == "apps/v1"
    assert str(GVK("apps", "v1", "Deployment")) == "apps/v1, Kind=Deployment"
    assert str(GVK("", "v1", "Pod")) == "/v1, Kind=Pod"
    assert str(GVK()) == "/, Kind="
    assert str(GVR("", "v1", "pods")) == "/v1, Resource=pods"
    assert str(GVR("apps", "v1", "deployments")) == "apps/v1, Resource=deployments"
    assert str(GK("apps", "StatefulSet")) == "StatefulSet.apps"
    assert str(GK("", "Pod")) == "Pod"
    assert str(GK("mygroup", "")) == ".mygroup"
    assert str(GR("apps", "deployments")) == "deployments.apps"
    assert str(GR("", "pods")) == "pods"
    assert f"{GV('apps', 'v1')}" == "apps/v1"


def test_empty() -> None:
    assert GV().empty() and not GV("", "v1").empty() and not GV("g", "").empty()
    assert GVK().empty() and not GVK(kind="X").empty()
    assert GK().empty() and not GK("g", "").empty()
    assert GR().empty() and not GR("", "r").empty()
    assert GVR().empty() and not GVR(version="v").empty()


def test_projections() -> None:
    gvk = GVK("apps", "v1", "Deployment")
    assert GV("apps", "v1").with_kind("Deployment") == gvk
    assert gvk.group_version() == GV("apps", "v1")
    assert gvk.group_kind() == GK("apps", "Deployment")
    assert gvk.with_version("v2") == GVK("apps", "v2", "Deployment")
    assert gvk.with_kind("X") == GVK("apps", "v1", "X")
    assert GK("apps", "Deployment").with_version("v1") == gvk
    gvr = GVR("apps", "v1", "deployments")
    assert GV("apps", "v1").with_resource("deployments") == gvr
    assert gvr.group_version() == GV("apps", "v1")
    assert gvr.group_resource() == GR("apps", "deployments")
    assert gvr.with_resource("x") == GVR("apps", "v1", "x")
    assert GR("apps", "deployments").with_version("v1") == gvr


def test_value_semantics() -> None:
    a = GVK("apps", "v1", "Deployment")
    assert a == GVK("apps", "v1", "Deployment")
    assert hash(a) == hash(GVK("apps", "v1", "Deployment"))
    assert {a: 1}[GVK("apps", "v1", "Deployment")] == 1
    with pytest.raises(AttributeError):
        a.group = "x"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(a)) == a
    assert copy.deepcopy(a) == a
    assert a.group == "apps" and a.version == "v1" and a.kind == "Deployment"
    assert repr(a) == "GroupVersionKind(group='apps', version='v1', kind='Deployment')"
    # Keyword construction and zero values, as Go struct literals.
    assert GVK(kind="Pod") == GVK("", "", "Pod")


def test_distinct_types_never_equal() -> None:
    assert GV("a", "b") != GK("a", "b")
    assert GK("a", "b") != GR("a", "b")
    assert GV("a", "b") != ("a", "b")
    assert ("a", "b") != GV("a", "b")
    assert not (GV("a", "b") == GR("a", "b"))
    assert len({GV("a", "b"), GK("a", "b"), GR("a", "b")}) == 3
    with pytest.raises(TypeError):
        _ = GV("a", "b") < GK("a", "c")


def test_ordering() -> None:
    kinds = [GVK("b", "v1", "A"), GVK("a", "v2", "B"), GVK("a", "v1", "C")]
    assert sorted(kinds) == [GVK("a", "v1", "C"), GVK("a", "v2", "B"), GVK("b", "v1", "A")]
    assert GV("a", "v1") < GV("a", "v2") <= GV("a", "v2")
    assert GV("b", "") > GV("a", "z") >= GV("a", "z")


# --- Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go parsing group-kinds and args ----------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Pod", GK("", "Pod")),
        (".StatefulSet", GK("StatefulSet", "")),
        ("StatefulSet.apps", GK("apps", "StatefulSet")),
        ("Pod.", GK("", "Pod")),
        ("StatefulSet.v1.apps", GK("v1.apps", "StatefulSet")),
    ],
)
def test_parse_group_kind(text: str, expected: GroupKind) -> None:
    assert parse_group_kind(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("v1", GR("", "v1")),
        (".v1", GR("v1", "")),
        ("v1.", GR("", "v1")),
        ("v1.a", GR("a", "v1")),
        ("b.v1.a", GR("v1.a", "b")),
    ],
)
def test_parse_group_resource(text: str, expected: GroupResource) -> None:
    assert parse_group_resource(text) == expected


@pytest.mark.parametrize(
    "text, full, gk",
    [
        ("Pod", None, GK("", "Pod")),
        (".apps", None, GK("apps", "")),
        ("Pod.", None, GK("", "Pod")),
        ("StatefulSet.apps", None, GK("apps", "StatefulSet")),
        ("StatefulSet.v1.apps", GVK("apps", "v1", "StatefulSet"), GK("v1.apps", "StatefulSet")),
        ("a.b.c.d", GVK("c.d", "b", "a"), GK("b.c.d", "a")),
        ("..", GVK("", "", ""), GK(".", "")),
    ],
)
def test_parse_kind_arg(text: str, full: GroupVersionKind | None, gk: GroupKind) -> None:
    assert parse_kind_arg(text) == (full, gk)


@pytest.mark.parametrize(
    "text, full, gr",
    [
        ("pods", None, GR("", "pods")),
        ("deployments.apps", None, GR("apps", "deployments")),
        ("b.v1.a", GVR("a", "v1", "b"), GR("v1.a", "b")),
        ("a.b.c.d", GVR("c.d", "b", "a"), GR("b.c.d", "a")),
    ],
)
def test_parse_resource_arg(text: str, full: GroupVersionResource | None, gr: GroupResource) -> None:
    assert parse_resource_arg(text) == (full, gr)


# --- Go: k8s.io/apimachinery/pkg/runtime/schema/group_version.go apiVersion/kind ---------------------------------------------------------------


@pytest.mark.parametrize(
    "gvk, expected",
    [
        (GVK("", "V1", "pod"), ("V1", "pod")),
        (GVK("apps", "v1", "Deployment"), ("apps/v1", "Deployment")),
        (GVK(), ("", "")),
        (GVK("apps", "", "X"), ("apps/", "X")),
        (GVK("", "", "X"), ("", "X")),
    ],
)
def test_to_api_version_and_kind(gvk: GroupVersionKind, expected: tuple[str, str]) -> None:
    assert gvk.to_api_version_and_kind() == expected


@pytest.mark.parametrize(
    "api_version, kind, expected",
    [
        ("apps/v1", "Deployment", GVK("apps", "v1", "Deployment")),
        ("v1", "Pod", GVK("", "v1", "Pod")),
        ("a/b/c", "X", GVK("", "", "X")),
        ("", "X", GVK("", "", "X")),
        ("/", "X", GVK("", "", "X")),
    ],
)
def test_from_api_version_and_kind(api_version: str, kind: str, expected: GroupVersionKind) -> None:
    assert from_api_version_and_kind(api_version, kind) == expected
    # The second call is served from the parse cache and must agree.
    assert from_api_version_and_kind(api_version, kind) == expected


segment = st.text(alphabet=st.characters(blacklist_characters="/"), max_size=8)
dotless = st.text(alphabet=st.characters(blacklist_characters="."), max_size=8)


@given(segment, segment, st.text(max_size=8))
def test_api_version_round_trip(group: str, version: str, kind: str) -> None:
    gvk = GVK(group, version, kind)
    assert from_api_version_and_kind(*gvk.to_api_version_and_kind()) == gvk


@given(segment, segment)
def test_group_version_round_trip(group: str, version: str) -> None:
    gv = GV(group, version)
    if gv == GV("", "") or group or version:
        assert parse_group_version(str(gv)) == gv


@given(st.text(max_size=8), dotless)
def test_group_kind_round_trip(group: str, kind: str) -> None:
    gk = GK(group, kind)
    expected = gk if group else GK("", kind)
    assert parse_group_kind(str(gk)) == expected
    gr = GR(group, kind)
    assert parse_group_resource(str(gr)) == GR(group, kind)


# --- Go: k8s.io/apimachinery/pkg/runtime/codec.go (GroupVersioner) group versioners ----------------------------------------------------------------


def test_versioners_satisfy_protocol() -> None:
    for versioner in (
        GV("apps", "v1"),
        GroupVersions([GV("apps", "v1")]),
        INTERNAL_GROUP_VERSIONER,
        DISABLED_GROUP_VERSIONER,
        new_coercing_multi_group_versioner(GV("a", "b")),
    ):
        assert isinstance(versioner, GroupVersioner)


def test_group_version_as_versioner() -> None:
    gv = GV("apps", "v1")
    assert gv.kind_for_group_version_kinds([GVK("apps", "v1beta1", "Deployment")]) == GVK(
        "apps", "v1", "Deployment"
    )
    assert gv.kind_for_group_version_kinds([GVK("extensions", "v1beta1", "Deployment")]) is None
    assert gv.kind_for_group_version_kinds([]) is None
    # An exact group+version match wins over an earlier same-group kind.
    kinds = [GVK("apps", "v1beta1", "A"), GVK("apps", "v1", "B")]
    assert gv.kind_for_group_version_kinds(kinds) == GVK("apps", "v1", "B")
    # Otherwise the first kind of the group is rewritten.
    kinds = [GVK("x", "v1", "Z"), GVK("apps", "v1beta2", "A"), GVK("apps", "v1beta1", "B")]
    assert gv.kind_for_group_version_kinds(kinds) == GVK("apps", "v1", "A")


BATCH_GVS = GroupVersions([GV("batch", "v1"), GV("batch", "v2alpha1"), GV("policy", "v1beta1")])


@pytest.mark.parametrize(
    "kinds, expected",
    [
        ([GVK("batch", "v2alpha1", "ScheduledJob")], GVK("batch", "v2alpha1", "ScheduledJob")),
        ([GVK("batch", "v3alpha1", "CronJob")], GVK("batch", "v1", "CronJob")),
        (
            [GVK("policy", "v1beta1", "PodDisruptionBudget")],
            GVK("policy", "v1beta1", "PodDisruptionBudget"),
        ),
        ([GVK("apps", "v1alpha1", "StatefulSet")], None),
        ([], None),
    ],
)
def test_group_versions(kinds: list[GroupVersionKind], expected: GroupVersionKind | None) -> None:
    assert BATCH_GVS.kind_for_group_version_kinds(kinds) == expected


def test_group_versions_best_match() -> None:
    kinds = [GVK("", "V1", "pod"), GVK("", "V2", "pod")]
    assert GroupVersions([GV("", "V1")]).kind_for_group_version_kinds(kinds) == GVK("", "V1", "pod")
    assert GroupVersions([GV("", "V3"), GV("", "V4")]).kind_for_group_version_kinds(kinds) == GVK(
        "", "V3", "pod"
    )
    # With several targets, one equal to an input kind wins even if listed later.
    gvs = GroupVersions([GV("", "V3"), GV("", "V2")])
    assert gvs.kind_for_group_version_kinds(kinds) == GVK("", "V2", "pod")


def test_group_versions_identifier_and_value() -> None:
    assert GroupVersions([GV("apps", "v1"), GV("", "v1")]).identifier() == "[apps/v1,v1]"
    assert GroupVersions([]).identifier() == "[]"
    assert GroupVersions().identifier() == "[]"
    assert GroupVersions([GV("a", "b")]) == GroupVersions([GV("a", "b")])
    assert list(GroupVersions(iter([GV("a", "b")]))) == [GV("a", "b")]


def test_internal_versioner() -> None:
    v = INTERNAL_GROUP_VERSIONER
    assert v.identifier() == "internal"
    assert v.kind_for_group_version_kinds([GVK("apps", "v1", "Deployment")]) == GVK(
        "apps", APIVersionInternal, "Deployment"
    )
    kinds = [GVK("apps", "v1", "A"), GVK("apps", "__internal", "B")]
    assert v.kind_for_group_version_kinds(kinds) == GVK("apps", "__internal", "B")
    assert v.kind_for_group_version_kinds([]) is None
    assert APIVersionInternal == "__internal"


def test_disabled_versioner() -> None:
    assert DISABLED_GROUP_VERSIONER.identifier() == "disabled"
    assert DISABLED_GROUP_VERSIONER.kind_for_group_version_kinds([GVK("a", "v1", "K")]) is None


def test_multi_group_versioner_constructor_rule() -> None:
    target = GV("mygroup", "__internal")
    assert MultiGroupVersioner(target) is target
    assert MultiGroupVersioner(target, GK("mygroup", "Foo")) is target
    assert new_multi_group_versioner(target, GK("mygroup", "")) is target
    multi = MultiGroupVersioner(target, GK("other", "Foo"))
    assert isinstance(multi, MultiGroupVersioner)
    assert isinstance(MultiGroupVersioner(target, GK("mygroup", "A"), GK("mygroup", "B")), MultiGroupVersioner)
    # The coercing variant never collapses to the plain GroupVersion.
    assert isinstance(new_coercing_multi_group_versioner(target), MultiGroupVersioner)
    assert isinstance(MultiGroupVersioner(target, coerce=True), MultiGroupVersioner)


def test_multi_group_versioner_matching() -> None:
    target = GV("mygroup", "__internal")
    v = MultiGroupVersioner(target, GK("mygroup", "Foo"), GK("anothergroup", ""))
    assert v.kind_for_group_version_kinds(
        [GVK("yetanother", "v1", "Baz"), GVK("anothergroup", "v1", "Bar")]
    ) == GVK("mygroup", "__internal", "Bar")
    assert v.kind_for_group_version_kinds([GVK("mygroup", "v1", "Other")]) is None
    assert v.kind_for_group_version_kinds([GVK("mygroup", "v1", "Foo")]) == GVK(
        "mygroup", "__internal", "Foo"
    )
    assert v.kind_for_group_version_kinds([GVK("yetanother", "v1", "Baz")]) is None
    assert v.kind_for_group_version_kinds([]) is None
    # Outer loop is over input kinds: the first input that matches any group-kind wins.
    v = MultiGroupVersioner(target, GK("b", ""), GK("a", ""))
    assert v.kind_for_group_version_kinds([GVK("a", "v1", "A"), GVK("b", "v1", "B")]) == GVK(
        "mygroup", "__internal", "A"
    )


@pytest.mark.parametrize(
    "accepted, kinds, expected",
    [
        (
            [GK("mygroup", "Foo"), GK("anothergroup", "Bar")],
            [GVK("yetanother", "v1", "Baz"), GVK("anothergroup", "v1", "Bar")],
            GVK("mygroup", "__internal", "Bar"),
        ),
        (
            [GK("mygroup", ""), GK("anothergroup", "")],
            [GVK("yetanother", "v1", "Baz"), GVK("anothergroup", "v1", "Bar")],
            GVK("mygroup", "__internal", "Bar"),
        ),
        (
            [GK("mygroup", ""), GK("anothergroup", "")],
            [GVK("yetanother", "v1", "Baz"), GVK("yetanother", "v1", "Bar")],
            GVK("mygroup", "__internal", "Baz"),
        ),
        ([GK("mygroup", "")], [], None),
    ],
)
def test_coercing_multi_group_versioner(
    accepted: list[GroupKind], kinds: list[GroupVersionKind], expected: GroupVersionKind | None
) -> None:
    v = new_coercing_multi_group_versioner(GV("mygroup", "__internal"), *accepted)
    assert v.kind_for_group_version_kinds(kinds) == expected


def test_multi_group_versioner_identifier() -> None:
    target = GV("mygroup", "__internal")
    coercing = new_coercing_multi_group_versioner(target, GK("mygroup", "Foo"), GK("anothergroup", "Bar"))
    assert coercing.identifier() == (
        '{"accepted":"Foo.mygroup,Bar.anothergroup","coerce":"true","name":"multi",'
        '"target":"mygroup/__internal"}'
    )
    plain = MultiGroupVersioner(target, GK("mygroup", ""), GK("anothergroup", ""))
    assert plain.identifier() == (
        '{"accepted":".mygroup,.anothergroup","coerce":"false","name":"multi",'
        '"target":"mygroup/__internal"}'
    )
    # Go's json.Marshal escapes HTML characters.
    odd = MultiGroupVersioner(GV("a<b", "v&1"), GK("x>y", "K"), GK("z", ""))
    assert odd.identifier() == (
        '{"accepted":"K.x\\u003ey,.z","coerce":"false","name":"multi",'
        '"target":"a\\u003cb/v\\u00261"}'
    )
    assert MultiGroupVersioner(target).identifier() == "mygroup/__internal"


def test_multi_group_versioner_value() -> None:
    a = MultiGroupVersioner(GV("g", "v"), GK("a", ""), GK("b", ""))
    b = MultiGroupVersioner(GV("g", "v"), GK("a", ""), GK("b", ""))
    assert a == b and hash(a) == hash(b)
    assert a != new_coercing_multi_group_versioner(GV("g", "v"), GK("a", ""), GK("b", ""))
    assert "MultiGroupVersioner" in repr(a)
