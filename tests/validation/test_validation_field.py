"""kcodec.validation.field against Go's apimachinery pkg/util/validation/field
(errors_test.go TestErrorFormatting, TestToAggregate, TestErrListFilter; path_test.go)."""
from __future__ import annotations

import pickle

import pytest

from kcodec.types import IntOrString, Quantity
from kcodec.validation import field
from kcodec.validation.field import ErrorList, ErrorType, Path


# path_test.go TestPath
@pytest.mark.parametrize(("build", "want"), [
    (lambda: Path("root"), "root"),
    (lambda: Path("root").index(42), "root[42]"),
    (lambda: Path("root").child("first", "second").index(42).child("third"), "root.first.second[42].third"),
    (lambda: Path("root").key("key"), "root[key]"),
    (lambda: Path("root", "first", "second"), "root.first.second"),
    (lambda: Path("spec").child("containers").index(0).child("image"), "spec.containers[0].image"),
    (lambda: Path("metadata", "labels").key("app"), "metadata.labels[app]"),
    (lambda: Path("").index(1), "[][1]"),  # Go prints an empty name as an empty subscript
])
def test_path_string(build, want):
    assert str(build()) == want


def test_path_root_and_immutability():
    base = Path("root", "first")
    a = base.child("x")
    b = base.child("y")
    assert (str(a), str(b), str(base)) == ("root.first.x", "root.first.y", "root.first")
    assert str(a.root()) == "root"
    assert str(Path("a", "b", "c").root()) == "a"


# errors_test.go TestErrorFormatting
@pytest.mark.parametrize(("err", "want"), [
    (field.Error(ErrorType.REQUIRED, "path.to.field", "the value", "the details"),
     "path.to.field: Required value: the details"),
    (field.required(Path("path.to.field"), "the details"), "path.to.field: Required value: the details"),
    (field.forbidden(Path("path.to.field"), "the details"), "path.to.field: Forbidden: the details"),
    (field.Error(ErrorType.TOO_LONG, "path.to.field", "the value", "the details"),
     "path.to.field: Too long: the details"),
    (field.too_long(Path("path.to.field"), "the value", 1), "path.to.field: Too long: may not be more than 1 byte"),
    (field.too_long(Path("path.to.field"), "the value", 2), "path.to.field: Too long: may not be more than 2 bytes"),
    (field.too_long(Path("path.to.field"), "the value", -1), "path.to.field: Too long: value is too long"),
    (field.Error(ErrorType.TOO_MANY, "path.to.field", "the value", "the details"),
     'path.to.field: Too many: "the value": the details'),
    (field.too_many(Path("path.to.field"), 2, 1), "path.to.field: Too many: 2: must have at most 1 item"),
    (field.too_many(Path("path.to.field"), 3, 2), "path.to.field: Too many: 3: must have at most 2 items"),
    (field.too_many(Path("path.to.field"), 2, -1), "path.to.field: Too many: 2: has too many items"),
    (field.too_many(Path("path.to.field"), -1, 1), "path.to.field: Too many: must have at most 1 item"),
    (field.Error(ErrorType.INTERNAL, "path.to.field", "the value", "the details"),
     "path.to.field: Internal error: the details"),
    (field.internal_error(Path("path.to.field"), RuntimeError("the error")),
     "path.to.field: Internal error: the error"),
    (field.invalid(Path("path.to.field"), "the value", "the details"),
     'path.to.field: Invalid value: "the value": the details'),
    (field.invalid(Path("path.to.field"), -42, "the details"), "path.to.field: Invalid value: -42: the details"),
    (field.invalid(Path("path.to.field"), True, "the details"), "path.to.field: Invalid value: true: the details"),
    (field.invalid(Path("path.to.field"), ["one", "two", "three"], "the details"),
     'path.to.field: Invalid value: ["one","two","three"]: the details'),
    (field.invalid(Path("path.to.field"), {"one": 1, "two": 2, "three": 3}, "the details"),
     'path.to.field: Invalid value: {"one":1,"three":3,"two":2}: the details'),
    (field.invalid(Path("path.to.field"), field.OMIT_VALUE, "the details"),
     "path.to.field: Invalid value: the details"),
    (field.invalid(Path("path.to.field"), None, "the details"), "path.to.field: Invalid value: null: the details"),
    (field.not_found(Path("path.to.field"), "the value"), 'path.to.field: Not found: "the value"'),
    (field.not_supported(Path("path.to.field"), "the value", ["val1", "val2"]),
     'path.to.field: Unsupported value: "the value": supported values: "val1", "val2"'),
    (field.not_supported(Path("path.to.field"), "the value", None), 'path.to.field: Unsupported value: "the value"'),
    (field.duplicate(Path("path.to.field"), "the value"), 'path.to.field: Duplicate value: "the value"'),
    (field.type_invalid(Path("path.to.field"), "the value", "the details"),
     'path.to.field: Invalid value: "the value": the details'),
    (field.too_short(Path("path.to.field"), "x", 2), 'path.to.field: Too short: must be at least 2 characters'),
    (field.too_few(Path("path.to.field"), 0, 1), "path.to.field: Too few: 0: must have at least 1 item"),
])
def test_error_formatting(err, want):
    assert str(err) == want
    assert err.error() == want
    assert err.error_body() == want.split(": ", 1)[1]


def test_bad_value_formatting_go_rules():
    # %q of a string: control characters and bytes that are not UTF-8 escaped as strconv.Quote does.
    assert field.format_bad_value('a"b\n') == '"a\\"b\\n"'
    assert field.format_bad_value("\udcff") == '"\\xff"'
    # json.Marshal of maps: keys sorted, HTML characters escaped.
    assert field.format_bad_value({"b": "<x>", "a": "&"}) == '{"a":"\\u0026","b":"\\u003cx\\u003e"}'
    assert field.format_bad_value({"app": "y"}) == '{"app":"y"}'
    # Custom values in their JSON form; floats with %v.
    assert field.format_bad_value(Quantity("100m")) == '"100m"'
    assert field.format_bad_value(IntOrString(8080)) == "8080"
    assert field.format_bad_value(1.5) == "1.5"
    assert field.format_bad_value(1e21) == "1e+21"


def test_struct_bad_value_is_json():
    # k/k's internal structs have no JSON tags: json.Marshal writes Go field names, all fields.
    from kcodec.api.core import internal
    from kcodec.api.meta import v1 as metav1

    port = internal.ContainerPort(container_port=80, protocol="TCP")
    assert field.format_bad_value(port) == '{"Name":"","HostPort":0,"ContainerPort":80,"Protocol":"TCP","HostIP":""}'
    # meta.k8s.io structs keep their JSON tags.
    assert field.format_bad_value(metav1.LabelSelector(match_labels={"a": "b"})) == '{"matchLabels":{"a":"b"}}'


# errors_test.go TestToAggregate; apimachinery pkg/util/errors aggregate.Error
def test_to_aggregate():
    assert ErrorList().to_aggregate() is None
    one = field.invalid(Path("f"), "v", "d")
    assert ErrorList([one]).to_aggregate() == 'f: Invalid value: "v": d'
    assert ErrorList([one, field.invalid(Path("f"), "v", "d")]).to_aggregate() == 'f: Invalid value: "v": d'
    two = ErrorList([one, field.internal_error(Path(""), RuntimeError("e"))])
    assert two.to_aggregate() == '[f: Invalid value: "v": d, []: Internal error: e]'
    assert len(two.errors()) == 2


# errors_test.go TestErrListFilter
def test_filter():
    errs = ErrorList([
        field.invalid(Path("test.field"), "", ""),
        field.invalid(Path("field.test"), "", ""),
        field.duplicate(Path("test"), "value"),
    ])
    assert len(errs.filter(field.new_error_type_matcher(ErrorType.DUPLICATE))) == 2
    assert len(errs.filter(field.new_error_type_matcher(ErrorType.INVALID))) == 1


def test_error_type_values_and_origin():
    assert ErrorType.INVALID.value == "FieldValueInvalid"
    assert ErrorType.INVALID.description == "Invalid value"
    assert ErrorType("FieldValueTypeInvalid").description == "Invalid value"
    e = field.invalid(Path("field"), "value", "detail").with_origin("origin1")
    assert e.origin == "origin1"
    lst = ErrorList([field.required(Path("a"), ""), field.required(Path("b"), "")]).prefix_detail("x: ")
    assert [x.detail for x in lst] == ["x: ", "x: "]
    assert pickle.loads(pickle.dumps(e)) == e
    assert field.required(None, "").field == "<nil>"
