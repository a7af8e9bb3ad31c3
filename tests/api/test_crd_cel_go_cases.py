"""The cases of k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel/validation_test.go
(TestValidationExpressions), rebuilt with Go's outcomes: every rule of a case's ``valid`` list
holds for its object, every rule of ``errors`` fails with a text containing Go's.

Rules whose outcome differs with cel-python are listed in DIVERGES with the reason, and
are expected to keep failing (xfail strict: a rule that starts passing must leave the list).
"""
from __future__ import annotations

import pytest

pytest.importorskip("celpy", reason="cel-python (kcodec[cel]) is not installed: CEL rules are not evaluated")

from kcodec.api.apiextensions import cel  # noqa: E402
from kcodec.validation.field import Path  # noqa: E402

INT = {"type": "integer"}
NUM = {"type": "number"}
STR = {"type": "string"}
BOOL = {"type": "boolean"}
BYTES = {"type": "string", "format": "byte"}
DURATION = {"type": "string", "format": "duration"}
DATE = {"type": "string", "format": "date"}
DATETIME = {"type": "string", "format": "date-time"}
INT_OR_STRING = {"x-kubernetes-int-or-string": True}


def lst(items):
    return {"type": "array", "items": items}


def set_list(items):
    return {"type": "array", "items": items, "x-kubernetes-list-type": "set"}


def map_list(keys, items):
    return {"type": "array", "items": items, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": keys}


def obj(props):
    return {"type": "object", "properties": props}


def mapping(values):
    return {"type": "object", "additionalProperties": values}


def vals(*schemas):
    return obj({f"val{i + 1}": s for i, s in enumerate(schemas)})


def objs(*values):
    return {f"val{i + 1}": v for i, v in enumerate(values)}


def same(a, b, literal):
    """validation_test.go ValsEqualThemselvesAndDataLiteral."""
    return f"{a} == {literal} && {literal} == {a} && {a} == {b}"


CASES = [
    ("integers", objs(2**63 - 1, 2**63 - 1), vals(INT, INT),
     [same("self.val1", "self.val2", str(2**63 - 1)), "type(self.val1) == int"],
     {"self.val1 + 1 == 0": "integer overflow", "1 / 0 == 1 / 0": "division by zero"}),
    ("numbers", objs(1.7976931348623157e308, 1.7976931348623157e308, 1), vals(NUM, NUM, NUM),
     ["self.val1 == self.val2", "type(self.val1) == double", "type(self.val3) == double", "self.val3 == 1.0"], {}),
    ("unicode strings", objs("Rook takes 👑", "Rook takes 👑"), vals(STR, STR),
     [same("self.val1", "self.val2", "'Rook takes 👑'"), "self.val1.startsWith('Rook')",
      "!self.val1.startsWith('knight')", "self.val1.contains('takes')", "!self.val1.contains('gives')",
      "self.val1.endsWith('👑')", "!self.val1.endsWith('pawn')", "self.val1.matches('^[^0-9]*$')",
      "!self.val1.matches('^[0-9]*$')", "type(self.val1) == string", "size(self.val1) == 12",
      "self.val1.charAt(3) == 'k'", "self.val1.indexOf('o') == 1", "self.val1.indexOf('o', 2) == 2",
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'", "self.val1.replace(' ', 'x', 1) == 'Rookxtakes 👑'",
      "self.val1.split(' ') == ['Rook', 'takes', '👑']", "self.val1.split(' ', 2) == ['Rook', 'takes 👑']",
      "self.val1.substring(5) == 'takes 👑'", "self.val1.substring(0, 4) == 'Rook'",
      "self.val1.substring(4, 10).trim() == 'takes'", "self.val1.upperAscii() == 'ROOK TAKES 👑'",
      "self.val1.lowerAscii() == 'rook takes 👑'",
      "'%d %s %f %s %s'.format([1, 'abc', 1.0, duration('1m'), timestamp('2000-01-01T00:00:00.000Z')]) == "
      "'1 abc 1.000000 60s 2000-01-01T00:00:00Z'",
      "'%e'.format([3.14]) == '3.140000×10⁰⁰'", "'%o %o %o'.format([7, 8, 9]) == '7 10 11'",
      "'%b %b %b'.format([7, 8, 9]) == '111 1000 1001'"],
     {"self.val1.matches(')')": "compilation failed: ERROR: <input>:1:19: invalid matches argument"}),
    ("escaped strings", objs("l1\nl2", "l1\nl2"), vals(STR, STR),
     [same("self.val1", "self.val2", "'l1\\nl2'"), "self.val1 == '''l1\nl2'''"], {}),
    ("bytes", objs("QUI=", "QUI="), vals(BYTES, BYTES),
     ["self.val1 == self.val2", "self.val1 == b'AB'", "self.val1 == bytes('AB')", "self.val1 == b'\\x41\\x42'",
      "type(self.val1) == bytes", "size(self.val1) == 2"], {}),
    ("booleans", objs(True, True, False, False), vals(BOOL, BOOL, BOOL, BOOL),
     [same("self.val1", "self.val2", "true"), same("self.val3", "self.val4", "false"), "self.val1 != self.val4",
      "type(self.val1) == bool"], {}),
    ("duration format", objs("1h2m3s4ms", "1h2m3s4ms"), vals(DURATION, DURATION),
     [same("self.val1", "self.val2", "duration('1h2m3s4ms')"), "self.val1 == duration('1h2m') + duration('3s4ms')",
      "self.val1.getHours() == 1", "self.val1.getMinutes() == 62", "self.val1.getSeconds() == 3723",
      "self.val1.getMilliseconds() == 3723004"],
     {"duration('1') == duration('1h')": "compilation failed: ERROR: <input>:1:10: invalid duration argument",
      "duration('1d') == duration('1h')": "compilation failed: ERROR: <input>:1:10: invalid duration argument",
      "duration('1us') < duration('1nns')": "compilation failed: ERROR: <input>:1:28: invalid duration argument"}),
    ("date format", objs("1997-07-16", "1997-07-16"), vals(DATE, DATE),
     [same("self.val1", "self.val2", "timestamp('1997-07-16T00:00:00.000Z')"), "self.val1.getDate() == 16",
      "self.val1.getMonth() == 06", "self.val1.getFullYear() == 1997"], {}),
    ("date-time format", objs("2011-08-18T19:03:37.010000000+01:00", "2011-08-18T19:03:37.010000000+01:00"),
     vals(DATETIME, DATETIME),
     [same("self.val1", "self.val2", "timestamp('2011-08-18T19:03:37.010+01:00')"),
      "self.val1 == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
      "self.val1.getDate('01:00') == 18", "self.val1.getMonth('01:00') == 7",
      "self.val1.getFullYear('01:00') == 2011", "self.val1.getHours('01:00') == 19",
      "self.val1.getMinutes('01:00') == 03", "self.val1.getSeconds('01:00') == 37",
      "self.val1.getMilliseconds('01:00') == 10", "self.val1.getHours('UTC') == 18"],
     {"timestamp('1000-00-00T00:00:00Z') == self.val1": "compilation failed: ERROR: <input>:1:11: invalid timestamp",
      "timestamp('1000-01-01T00:00:00ZZ') == self.val1": "compilation failed: ERROR: <input>:1:11: invalid timestamp",
      "timestamp(-62135596801) == self.val1": "compilation failed: ERROR: <input>:1:11: invalid timestamp"}),
    ("lists", objs([1, 2, 3], [1, 2, 3]), vals(lst(INT), lst(INT)),
     [same("self.val1", "self.val2", "[1, 2, 3]"), "1 in self.val1", "self.val2[0] in self.val1", "!(0 in self.val1)",
      "self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]", "self.val1 + [4, 5] == [1, 2, 3, 4, 5]"],
     {"[1, 'a', false].filter(x, string(x) == 'a')": "expected type 'int' but found 'string'"}),
    ("ext lists version 3", objs([1, 2, 3], [1, 2, 3]), vals(lst(INT), lst(INT)),
     ["lists.range(4) == [0,1,2,3]", "lists.range(0) == []", "[5,1,2,3].reverse() == [3,2,1,5]", "[].reverse() == []",
      "[1,2,3,4].slice(0, 4) == [1,2,3,4]", "[1,2,3,4].slice(1, 3) == [2, 3]", "[1,2,3,4].slice(4, 4) == []",
      "dyn([1,2,3,4]).flatten() == [1,2,3,4]", "[4, 3, 2, 1].sort() == [1, 2, 3, 4]",
      "[\"d\", \"a\", \"b\", \"c\"].sort() == [\"a\", \"b\", \"c\", \"d\"]",
      "[-2, 5, -2, 1, 1, 5, -2, 1].distinct() == [-2, 5, 1]", "[[1], [1], [2]].distinct() == [[1], [2]]",
      "[[1],[2],[3,4]].flatten() == [1,2,3,4]", "[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]",
      "[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e)) == [-10, 8, -6, -4, 2]",
      "lists.range(3).sortBy(e, -e) == [2, 1, 0]",
      "[\"a\", \"c\", \"b\", \"first\"].sortBy(e, e == \"first\" ? \"\" : e) == [\"first\", \"a\", \"b\", \"c\"]"],
     {"[1,2,3,4].slice(3, 0) != [1,2]": "cannot slice(3, 0), start index must be less than or equal to end index",
      "[1,2,3,4].slice(0, 10) != [1,2]": "cannot slice(0, 10), list is length 4",
      "[1,2,3,4].slice(-5, 10) != [1,2]": "cannot slice(-5, 10), negative indexes not supported",
      "[[1],[2],[3,4]].flatten(-1) == [1,2,3,4]": "level must be non-negative"}),
    ("string lists", objs(["a", "b", "c"]), vals(lst(STR)),
     ["self.val1.join('-') == 'a-b-c'", "['a', 'b', 'c'].join('-') == 'a-b-c'", "self.val1.join() == 'abc'"], {}),
    ("listSets", objs(["a", "b", "c"], ["a", "c", "b"]), vals(set_list(STR), set_list(STR)),
     ["self.val1 == ['c', 'b', 'a']", "self.val1 == self.val2", "'a' in self.val1", "self.val2[0] in self.val1",
      "!('x' in self.val1)", "self.val1 + self.val2 == ['a', 'b', 'c']",
      "self.val1 + ['c', 'd'] == ['a', 'b', 'c', 'd']", "sets.contains(['a', 'b'], [])",
      "sets.contains(['a', 'b'], ['b'])", "!sets.contains(['a', 'b'], ['c'])", "sets.equivalent([], [])",
      "sets.equivalent(['c', 'b', 'a'], ['b', 'c', 'a'])", "!sets.equivalent(['a', 'b'], ['b', 'c'])",
      "sets.intersects(['a', 'b'], ['b', 'c'])", "!sets.intersects([], [])", "!sets.intersects(['a', 'b'], [])",
      "sets.contains([1.25, 1.5], [1.5])", "sets.contains([{'a': 1}, {'b': 2}], [{'b': 2}])",
      "sets.contains([duration('1h'), duration('2h')], [duration('2h')])",
      "sets.intersects([[1, 2], [3, 4]], [[3, 4]])"], {}),
    ("listMaps", {"objs": [[{"k": "a", "v": "1"}, {"k": "b", "v": "2"}], [{"k": "b", "v": "2"}, {"k": "a", "v": "1"}],
                           [{"k": "b", "v": "3"}, {"k": "a", "v": "1"}], [{"k": "c", "v": "4"}]]},
     obj({"objs": lst(map_list(["k"], obj({"k": STR, "v": STR})))}),
     ["self.objs[0] == self.objs[1]", "self.objs[0] + self.objs[2] == self.objs[2]",
      "self.objs[2] + self.objs[0] == self.objs[0]", "self.objs[0] == [self.objs[0][0], self.objs[0][1]]",
      "self.objs[0] == [self.objs[0][1], self.objs[0][0]]",
      "self.objs[2] + [self.objs[0][0], self.objs[0][1]] == self.objs[0]",
      "size(self.objs[0] + [self.objs[3][0]]) == 3"],
     {"self.objs[0] == {'k': 'a', 'v': '1'}": "no matching overload for '_==_'"}),
    ("maps", objs({"k1": "a", "k2": "b"}, {"k2": "b", "k1": "a"}), vals(mapping(STR), mapping(STR)),
     ["self.val1 == self.val2", "'k1' in self.val1", "!('k3' in self.val1)", "self.val1 == {'k1': 'a', 'k2': 'b'}"],
     {"{'k1': 'a', 'k2': 1, 'k2': false}.size() == 2": "expected type 'string' but found 'int'"}),
    ("object access", {"a": {"b": 1, "d": None}, "a1": {"b1": {"c1": 4}}, "a3": {}},
     obj({"a": obj({"b": INT, "c": INT, "d": {**INT, "nullable": True}}),
          "a1": obj({"b1": obj({"c1": INT}), "d2": obj({"e2": INT})})}),
     ["has(self.a.b)", "!has(self.a.c)", "!has(self.a.d)", "has(self.a1.b1.c1)",
      "!(has(self.a1.d2) && has(self.a1.d2.e2))", "!has(self.a1.d2)"],
     {"has(self.a.z)": "undefined field 'z'", "self.a['b'] == 1": "no matching overload for '_[_]'",
      "has(self.a1.d2.e2)": "no such key: d2"}),
    ("map access", {"val": {"b": 1, "d": 2}}, obj({"val": mapping(INT)}),
     ["!('a' in self.val)", "'b' in self.val", "!('c' in self.val)", "'d' in self.val", "!has(self.val.a)",
      "has(self.val.b)", "!has(self.val.c)", "has(self.val.d)", "self.val.all(k, self.val[k] > 0)",
      "self.val.exists(k, self.val[k] > 1)", "self.val.exists_one(k, self.val[k] == 2)",
      "!self.val.exists(k, self.val[k] > 2)", "!self.val.exists_one(k, self.val[k] > 0)", "size(self.val) == 2",
      "self.val.map(k, self.val[k]).exists(v, v == 1)", "size(self.val.filter(k, self.val[k] > 1)) == 1",
      "self.val.all(k, v, v > 0)", "self.val.exists(k, v, v == 2)", "self.val.existsOne(k, v, v == 2)",
      "self.val.transformMap(k, v, v > 1, v + 1).size() == 1", "self.val.transformMap(k, v, v + 1).size() == 2",
      "self.val.transformMapEntry(k, v, v > 1, {k + '2': v + 1}).size() == 1",
      "self.val.transformMapEntry(k, v, {k + '2': v + 1}).size() == 2"],
     {"self.val['c'] == 1": "no such key: c"}),
    ("listMap access", {"listMap": [{"k": "a1", "v": "b1"}, {"k": "a2", "v": "b2"}, {"k": "a3", "v": "b3", "v2": "z"}]},
     obj({"listMap": map_list(["k"], obj({"k": STR, "v": STR, "v2": STR}))}),
     ["has(self.listMap[0].v)", "self.listMap.all(m, m.k.startsWith('a'))",
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')", "self.listMap.exists(m, m.k.endsWith('1'))",
      "self.listMap.exists_one(m, m.k == 'a3')", "!self.listMap.all(m, m.k.endsWith('1'))",
      "!self.listMap.exists(m, m.v == 'x')", "!self.listMap.exists_one(m, m.k.startsWith('a'))",
      "size(self.listMap.filter(m, m.k == 'a1')) == 1", "self.listMap.exists(m, m.k == 'a1' && m.v == 'b1')",
      "self.listMap.map(m, m.v).exists(v, v == 'b1')", "self.listMap.exists(m, has(m.v2) && m.v2 == 'z')",
      "!self.listMap.all(m, has(m.v2) && m.v2 != 'z')", "self.listMap.exists_one(m, has(m.v2) && m.v2 == 'z')",
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').size() == 1",
      "self.listMap.exists(m, m.v2 == 'z')", "!self.listMap.all(m, m.v2 != 'z')",
      "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1",
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').map(m, m.v2).size() == 1",
      "!self.listMap.all(i, m, has(m.v2) && m.v2 != 'z')", "self.listMap.exists(i, m, has(m.v2) && m.v2 == 'z')",
      "self.listMap.existsOne(i, m, has(m.v2) && m.v2 == 'z')",
      "self.listMap.transformList(i, m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1",
      "self.listMap.transformList(i, m, m.v).size() == 3"],
     {"self.listMap.all(m, m.v2 == 'z')": "no such key: v2",
      "self.listMap.exists_one(m, m.v2 == 'z')": "no such key: v2",
      "self.listMap.filter(m, m.v2 == 'z').size() == 1": "no such key: v2",
      "self.listMap.map(m, m.v2).size() == 1": "no such key: v2",
      "self.listMap.map(m, m.v2 == 'z', m.v2).size() == 1": "no such key: v2"}),
    ("list access", {"array": [1, 1, 2, 2, 3, 3, 4, 5]}, obj({"array": lst(INT)}),
     ["2 in self.array", "self.array.all(e, e > 0)", "self.array.exists(e, e > 2)", "self.array.exists_one(e, e > 4)",
      "!self.array.all(e, e < 2)", "!self.array.exists(e, e < 0)", "!self.array.exists_one(e, e == 2)",
      "size(self.array.filter(e, e%2 == 0)) == 3",
      "self.array.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)", "size(self.array) == 8",
      "self.array.all(i, e, e > 0)", "self.array.exists(i, e, e > 2)", "self.array.existsOne(i, e, e > 4)",
      "self.array.transformList(i, e, e > 2, e * 2).size() > 0", "self.array.transformList(i, e, e * 2).size() > 0"],
     {"self.array[100] == 0": "index out of bounds: 100"}),
    ("typemeta and objectmeta access specified",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo", "generateName": "pickItForMe", "namespace": "xyz"}},
     obj({"kind": STR, "apiVersion": STR, "metadata": obj({"name": STR, "generateName": STR})}),
     ["self.kind == 'Pod'", "self.apiVersion == 'v1'", "self.metadata.name == 'foo'",
      "self.metadata.generateName == 'pickItForMe'"],
     {"has(self.metadata.namespace)": "undefined field 'namespace'"}),
    ("embedded object",
     {"embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo", "generateName": "pickItForMe",
                                                                   "namespace": "xyz"}, "spec": {"field1": "a"}}},
     obj({"embedded": {"type": "object", "x-kubernetes-embedded-resource": True}}),
     ["self.embedded.kind == 'Pod'", "self.embedded.apiVersion == 'v1'", "self.embedded.metadata.name == 'foo'",
      "self.embedded.metadata.generateName == 'pickItForMe'"],
     {"has(self.embedded.metadata.namespace)": "undefined field 'namespace'",
      "has(self.embedded.spec)": "undefined field 'spec'"}),
    ("embedded object with properties",
     {"embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo", "generateName": "pickItForMe",
                                                                   "namespace": "xyz"}, "spec": {"field1": "a"}}},
     obj({"embedded": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
         "kind": STR, "apiVersion": STR, "metadata": obj({"name": STR, "generateName": STR}),
         "spec": obj({"field1": STR})}}}),
     ["self.embedded.kind == 'Pod'", "self.embedded.metadata.generateName == 'pickItForMe'",
      "self.embedded.spec.field1 == 'a'"],
     {"has(self.embedded.metadata.namespace)": "undefined field 'namespace'"}),
    ("embedded object with usage of reserved keywords",
     {"embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {
         "name": "foo", "generateName": "pickItForMe", "namespace": "reserved_keyword_namespace"},
         "spec": {"if": "reserved_keyword_if"}}},
     obj({"embedded": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
         "kind": STR, "apiVersion": STR, "metadata": obj({"name": STR, "generateName": STR, "namespace": STR}),
         "spec": obj({"if": STR})}}}),
     ["has(self.embedded.metadata.namespace)",
      "self.embedded.metadata.namespace == 'reserved_keyword_namespace'",
      "has(self.embedded.spec.if)", "self.embedded.spec.if == 'reserved_keyword_if'"], {}),
    ("embedded object with preserve unknown",
     {"embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo", "generateName": "pickItForMe"},
                   "spec": {"field1": "a"}}},
     obj({"embedded": {"type": "object", "x-kubernetes-embedded-resource": True,
                       "x-kubernetes-preserve-unknown-fields": True}}),
     ["self.embedded.kind == 'Pod'", "self.embedded.metadata.name == 'foo'", "has(self.embedded)"],
     {"has(self.embedded.spec)": "undefined field 'spec'"}),
    ("preserve unknown fields",
     {"withUnknown": {"field1": "a", "field2": "b"},
      "withUnknownList": [{"field1": "a", "field2": "b"}, {"field1": "x", "field2": "y"}, {"field1": "x", "field2": "y"},
                          {}, {}],
      "withUnknownFieldList": [{"fieldOfUnknownType": "a"}, {"fieldOfUnknownType": 1}, {"fieldOfUnknownType": 1}],
      "anyvalList": ["a", 2], "anyvalMap": {"k": "1"}, "anyvalField1": 1, "anyvalField2": "a"},
     obj({"withUnknown": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
          "withUnknownList": lst({"type": "object", "x-kubernetes-preserve-unknown-fields": True}),
          "withUnknownFieldList": lst(obj({"fieldOfUnknownType": {"x-kubernetes-preserve-unknown-fields": True}})),
          "anyvalList": lst({"x-kubernetes-preserve-unknown-fields": True}),
          "anyvalMap": mapping({"x-kubernetes-preserve-unknown-fields": True}),
          "anyvalField1": {"x-kubernetes-preserve-unknown-fields": True},
          "anyvalField2": {"x-kubernetes-preserve-unknown-fields": True}}),
     ["has(self.withUnknown)", "self.withUnknownList.size() == 5",
      "self.withUnknownList[0] != self.withUnknownList[1]", "self.withUnknownList[1] == self.withUnknownList[2]",
      "self.withUnknownList[3] == self.withUnknownList[4]",
      "self.withUnknownFieldList[0] != self.withUnknownFieldList[1]",
      "self.withUnknownFieldList[1] == self.withUnknownFieldList[2]"],
     {"has(self.withUnknown.field1)": "undefined field 'field1'", "has(self.anyvalList)": "undefined field 'anyvalList'",
      "has(self.anyvalMap)": "undefined field 'anyvalMap'", "has(self.anyvalField1)": "undefined field 'anyvalField1'",
      "has(self.anyvalField2)": "undefined field 'anyvalField2'"}),
    ("known and unknown fields",
     {"withUnknown": {"known": 1, "unknown": "a"},
      "withUnknownList": [{"known": 1, "unknown": "a"}, {"known": 1, "unknown": "b"}, {"known": 1, "unknown": "b"},
                          {"known": 1}, {"known": 1}, {"known": 2}]},
     obj({"withUnknown": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {"known": INT}},
          "withUnknownList": lst({"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                                  "properties": {"known": INT}})}),
     ["self.withUnknown.known == 1", "self.withUnknownList[0] != self.withUnknownList[1]",
      "self.withUnknownList[1] == self.withUnknownList[2]", "self.withUnknownList[0] != self.withUnknownList[3]",
      "self.withUnknownList[0] != self.withUnknownList[5]", "self.withUnknownList[3] == self.withUnknownList[4]",
      "self.withUnknownList[4] != self.withUnknownList[5]"],
     {"has(self.withUnknown.unknown)": "undefined field 'unknown'"}),
    ("field nullability",
     {"setPlainStr": "v1", "setDefaultedStr": "v2", "setNullableStr": "v3", "setToNullNullableStr": None,
      "unsetDefaultedStr": "default value"},
     obj({"unsetPlainStr": STR, "unsetDefaultedStr": {**STR, "default": "default value"},
          "unsetNullableStr": {**STR, "nullable": True}, "setPlainStr": STR,
          "setDefaultedStr": {**STR, "default": "default value"}, "setNullableStr": {**STR, "nullable": True},
          "setToNullNullableStr": {**STR, "nullable": True}}),
     ["!has(self.unsetPlainStr)", "has(self.unsetDefaultedStr) && self.unsetDefaultedStr == 'default value'",
      "!has(self.unsetNullableStr)", "has(self.setPlainStr) && self.setPlainStr == 'v1'",
      "has(self.setNullableStr) && self.setNullableStr == 'v3'", "type(self.setNullableStr) != null_type",
      "!has(self.setToNullNullableStr)"],
     {"self.unsetPlainStr == null": "no matching overload for '_==_' applied to '(string, null)",
      "self.setNullableStr != null": "no matching overload for '_!=_' applied to '(string, null)"}),
    ("null values in container types",
     {"m": {"a": None, "b": "not-nil"}, "l": [None, "not-nil"], "s": [None, "not-nil"]},
     obj({"m": mapping({**STR, "nullable": True}), "l": lst({**STR, "nullable": True}),
          "s": set_list({**STR, "nullable": True})}),
     ["self.m.size() == 2", "'a' in self.m", "type(self.m['a']) == null_type", "self.l.size() == 2",
      "type(self.l[0]) == null_type", "self.s.size() == 2", "type(self.s[0]) == null_type"], {}),
    ("container type composition",
     {"obj": {"field": "a"}, "mapOfMap": {"x": {"y": "b"}}, "mapOfObj": {"k": {"field2": "c"}},
      "mapOfListMap": {"o": [{"k": "1", "v": "d"}]}, "mapOfList": {"l": ["e"]},
      "listMapOfObj": [{"k2": "2", "v2": "f"}], "listOfMap": [{"z": "g"}], "listOfObj": [{"field3": "h"}],
      "listOfListMap": [[{"k3": "3", "v3": "i"}]]},
     obj({"obj": obj({"field": STR}), "mapOfMap": mapping(mapping(STR)), "mapOfObj": mapping(obj({"field2": STR})),
          "mapOfListMap": mapping(map_list(["k"], obj({"k": STR, "v": STR}))), "mapOfList": mapping(lst(STR)),
          "listMapOfObj": map_list(["k2"], obj({"k2": STR, "v2": STR})), "listOfMap": lst(mapping(STR)),
          "listOfObj": lst(obj({"field3": STR})), "listOfListMap": lst(map_list(["k3"], obj({"k3": STR, "v3": STR})))}),
     ["self.obj.field == 'a'", "self.mapOfMap['x']['y'] == 'b'", "self.mapOfObj['k'].field2 == 'c'",
      "self.mapOfListMap['o'].exists(e, e.k == '1' && e.v == 'd')", "self.mapOfList['l'][0] == 'e'",
      "self.listMapOfObj.exists(e, e.k2 == '2' && e.v2 == 'f')", "self.listOfMap[0]['z'] == 'g'",
      "self.listOfObj[0].field3 == 'h'", "self.listOfListMap[0].exists(e, e.k3 == '3' && e.v3 == 'i')"], {}),
    ("invalid data",
     {"o": [], "m": [], "l": {}, "s": {}, "lm": {}, "intorstring": True, "nullable": [None]},
     obj({"o": obj({"field": STR}), "m": mapping(STR), "l": lst(STR), "s": set_list(STR),
          "lm": map_list(["k"], obj({"k": STR, "v": STR})), "intorstring": INT_OR_STRING, "nullable": lst(STR)}),
     [],
     {"has(self.o)": "invalid data, expected a map for the provided schema with type=object",
      "has(self.m)": "invalid data, expected a map for the provided schema with type=object",
      "has(self.l)": "invalid data, expected an array for the provided schema with type=array",
      "has(self.s)": "invalid data, expected an array for the provided schema with type=array",
      "has(self.lm)": "invalid data, expected an array for the provided schema with type=array",
      "has(self.intorstring)": "invalid data, expected XIntOrString value to be either a string or integer",
      "self.nullable[0] == 'x'": "invalid data, got null for schema with nullable=false"}),
    ("string in intOrString", {"something": "25%"}, obj({"something": INT_OR_STRING}),
     ["self.something == '25%'", "self.something != 1", "self.something == 1 || self.something == '25%'",
      "self.something == '25%' || self.something == 1", "type(self.something) == string && self.something == '25%'",
      "type(self.something) == int ? self.something == 1 : self.something == '25%'",
      "self.something != ['anything']"], {}),
    ("int in intOrString", {"something": 1}, obj({"something": INT_OR_STRING}),
     ["self.something == 1", "self.something != 'some string'", "self.something == 1 || self.something == '25%'",
      "type(self.something) == int && self.something == 1", "self.something != ['anything']"], {}),
    ("null in intOrString", {"something": None}, obj({"something": {**INT_OR_STRING, "nullable": True}}),
     ["!has(self.something)"], {"type(self.something) == int": "no such key"}),
    ("percent comparison using intOrString", {"min": "50%", "current": 5, "available": 10},
     obj({"min": INT_OR_STRING, "current": INT, "available": INT}),
     ["type(self.min) == string && self.min.matches(r'(\\d+(\\.\\d+)?%)')",
      "type(self.min) == int ? self.current <= self.min : double(self.current) / double(self.available) >= "
      "double(self.min.replace('%', '')) / 100.0"], {}),
    ("escaping", {"true": 1, "in": 4, "namespace": 17, "int": 101, "self": 201, "all": 203, "size": "204",
                  "_true": 301, "dot.dot": 401, "dash-dash": 402, "slash/slash": 403, "underscore_underscore": 404,
                  "doubleunderscore__doubleunderscore": 405},
     obj({"true": INT, "in": INT, "namespace": INT, "int": INT, "self": INT, "all": INT, "size": STR, "_true": INT,
          "dot.dot": INT, "dash-dash": INT, "slash/slash": INT, "underscore_underscore": INT,
          "doubleunderscore__doubleunderscore": INT}),
     ["self.__true__ == 1", "self.__in__ == 4", "self.__namespace__ == 17", "self.int == 101", "self.self == 201",
      "self.all == 203", "self.size == '204'", "self._true == 301", "self.__true__ != 301",
      "self.dot__dot__dot == 401", "self.dash__dash__dash == 402", "self.slash__slash__slash == 403",
      "self.underscore_underscore == 404", "self.doubleunderscore__underscores__doubleunderscore == 405"],
     {"self.__illegal__ == 301": "undefined field '__illegal__'", "self.true == 1": "Syntax error"}),
    ("map keys are not escaped", {"m": {"@": 1, "9": 2, "int": 3, "./-": 4, "👑": 5}}, obj({"m": mapping(INT)}),
     ["self.m['@'] == 1", "self.m['9'] == 2", "self.m['int'] == 3", "self.m['./-'] == 4", "self.m['👑'] == 5"], {}),
    ("stdlib list functions",
     {"ints": [1, 2, 2, 3], "unsortedInts": [2, 1], "emptyInts": [], "doubles": [1.0, 2.0, 2.0, 3.0],
      "durations": ["1s", "1m", "1m", "1h"], "strings": ["a", "b", "b", "c"], "unsortedStrings": ["b", "a"],
      "emptyStrings": [], "dates": ["2000-01-01", "2000-02-01", "2000-02-01", "2010-01-01"],
      "objs": [{"f1": "a", "f2": "a"}, {"f1": "a", "f2": "b"}, {"f1": "a", "f2": "b"}, {"f1": "a", "f2": "c"}]},
     obj({"ints": lst(INT), "unsortedInts": lst(INT), "emptyInts": lst(INT), "doubles": lst(NUM),
          "durations": lst(DURATION), "strings": lst(STR), "unsortedStrings": lst(STR), "emptyStrings": lst(STR),
          "dates": lst(DATE), "objs": lst(obj({"f1": STR, "f2": STR}))}),
     ["self.ints.sum() == 8", "self.ints.min() == 1", "self.ints.max() == 3", "self.emptyInts.sum() == 0",
      "self.ints.isSorted()", "!self.unsortedInts.isSorted()", "self.ints.indexOf(2) == 1",
      "self.ints.lastIndexOf(2) == 2", "self.ints.indexOf(10) == -1", "self.doubles.sum() == 8.0",
      "self.durations.sum() == duration('1h2m1s')", "self.durations.min() == duration('1s')",
      "self.durations.isSorted()", "self.strings.min() == 'a'", "self.strings.max() == 'c'",
      "self.strings.isSorted()", "!self.unsortedStrings.isSorted()", "self.strings.indexOf('b') == 1",
      "self.dates.min() == timestamp('2000-01-01T00:00:00.000Z')", "self.dates.isSorted()",
      "self.objs.indexOf(self.objs[1]) == 1", "self.objs.lastIndexOf(self.objs[1]) == 2",
      "([0] + self.emptyInts).min() == 0", "dyn([]).sum() == 0", "dyn([1, 2]).sum() == 3", "[].sum() == 0"],
     {"self.emptyInts.min() == 1": "min called on empty list", "self.emptyInts.max() == 3": "max called on empty list",
      "self.emptyStrings.max() == 'c'": "max called on empty list",
      "['a', 'b'].sum() == 'c'": "found no matching overload for 'sum' applied to 'list(string).()",
      "[[1], [2]].min() == [1]": "found no matching overload for 'min' applied to 'list(list(int)).()",
      "[{'a': 1}, {'b': 2}].max() == {'b': 2}":
      "found no matching overload for 'max' applied to 'list(map(string, int)).()"}),
    ("stdlib regex functions", {"str": "this is a 123 string 456"}, obj({"str": STR}),
     ["self.str.find('[0-9]+') == '123'", "self.str.find('[0-9]+') != '456'", "self.str.find('xyz') == ''",
      "self.str.findAll('[0-9]+') == ['123', '456']", "self.str.findAll('[0-9]+', 0) == []",
      "self.str.findAll('[0-9]+', 1) == ['123']", "self.str.findAll('[0-9]+', 2) == ['123', '456']",
      "self.str.findAll('[0-9]+', 3) == ['123', '456']", "self.str.findAll('[0-9]+', -1) == ['123', '456']",
      "self.str.findAll('xyz') == []", "self.str.findAll('xyz', 1) == []"],
     {"self.str.find(')') == ''": "error parsing regexp: unexpected ): `)`"}),
    ("URL parsing", {"url": "https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor"}, obj({"url": STR}),
     ["url('/path').getScheme() == ''", "url('https://example.com/').getScheme() == 'https'",
      "url('https://example.com:80/').getHost() == 'example.com:80'",
      "url('https://example.com/').getHost() == 'example.com'", "url('https://[::1]:80/').getHost() == '[::1]:80'",
      "url('https://[::1]/').getHost() == '[::1]'", "url('/path').getHost() == ''",
      "url('https://example.com:80/').getHostname() == 'example.com'",
      "url('https://127.0.0.1/').getHostname() == '127.0.0.1'", "url('https://[::1]/').getHostname() == '::1'",
      "url('/path').getHostname() == ''", "url('https://example.com:80/').getPort() == '80'",
      "url('https://example.com/').getPort() == ''", "url('/path').getPort() == ''",
      "url('https://example.com/path').getEscapedPath() == '/path'",
      "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
      "url('https://example.com').getEscapedPath() == ''",
      "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
      "url('https://example.com/path?key with spaces=value with spaces').getQuery() == "
      "{ 'key with spaces': ['value with spaces']}",
      "url('https://example.com/path?').getQuery() == {}", "url('https://example.com/path').getQuery() == {}",
      "url(self.url).getScheme() == 'https'", "url(self.url).getHost() == 'kubernetes.io:80'",
      "url(self.url).getHostname() == 'kubernetes.io'", "url(self.url).getPort() == '80'",
      "url(self.url).getEscapedPath() == '/docs/home'",
      "url(self.url).getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
      "isURL('https://user:pass@example.com:80/path?query=val#fragment')", "isURL('/path') == true",
      "isURL('https://a:b:c/') == false", "isURL('../relative-path') == false"], {}),
    ("authorizer is not supported for CRD Validation Rules", {}, obj({}), [],
     {"authorizer.path('/healthz').check('get').allowed()": "undeclared reference to 'authorizer'"}),
    ("optionals", {"presentObj": {"presentStr": "value"}, "m": {"k": "v"}, "l": ["a"]},
     obj({"presentObj": obj({"presentStr": STR}), "absentObj": obj({"absentStr": STR}), "m": mapping(STR),
          "l": lst(STR)}),
     ["self.?presentObj.?presentStr == optional.of('value')",
      "self.presentObj.?presentStr == optional.of('value')",
      "self.presentObj.?presentStr.or(optional.of('nope')) == optional.of('value')",
      "self.presentObj.?presentStr.orValue('') == 'value'", "self.presentObj.?presentStr.hasValue() == true",
      "self.presentObj.?presentStr.optMap(v, v == 'value').hasValue()",
      "self.?absentObj.?absentStr == optional.none()",
      "self.?absentObj.?absentStr.or(optional.of('nope')) == optional.of('nope')",
      "self.?absentObj.?absentStr.orValue('nope') == 'nope'", "self.?absentObj.?absentStr.hasValue() == false",
      "self.?absentObj.?absentStr.optMap(v, v == 'value').hasValue() == false",
      "self.m[?'k'] == optional.of('v')", "self.m[?'k'].or(optional.of('nope')) == optional.of('v')",
      "self.m[?'k'].orValue('') == 'v'", "self.m[?'k'].hasValue() == true",
      "self.m[?'k'].optMap(v, v == 'v').hasValue()", "self.m[?'x'] == optional.none()",
      "self.m[?'x'].or(optional.of('nope')) == optional.of('nope')", "self.m[?'x'].orValue('nope') == 'nope'",
      "self.m[?'x'].hasValue() == false",
      "self.l[?0] == optional.of('a')", "self.l[?1] == optional.none()", "self.l[?0].orValue('') == 'a'",
      "self.l[?0].hasValue() == true", "self.l[?0].optMap(v, v == 'a').hasValue()",
      "self.l[?1].or(optional.of('nope')) == optional.of('nope')", "self.l[?1].orValue('nope') == 'nope'",
      "self.l[?1].hasValue() == false",
      "optional.ofNonZeroValue(1).hasValue()", "optional.ofNonZeroValue(uint(1)).hasValue()",
      "optional.ofNonZeroValue(1.1).hasValue()", "optional.ofNonZeroValue('a').hasValue()",
      "optional.ofNonZeroValue(true).hasValue()", "optional.ofNonZeroValue(['a']).hasValue()",
      "optional.ofNonZeroValue({'k': 'v'}).hasValue()",
      "optional.ofNonZeroValue(timestamp('2011-08-18T00:00:00.000+01:00')).hasValue()",
      "optional.ofNonZeroValue(duration('19h3m37s10ms')).hasValue()",
      "optional.ofNonZeroValue(null) == optional.none()", "optional.ofNonZeroValue(0) == optional.none()",
      "optional.ofNonZeroValue(uint(0)) == optional.none()", "optional.ofNonZeroValue(0.0) == optional.none()",
      "optional.ofNonZeroValue('') == optional.none()", "optional.ofNonZeroValue(false) == optional.none()",
      "optional.ofNonZeroValue([]) == optional.none()", "optional.ofNonZeroValue({}) == optional.none()",
      "optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00.000+00:00')) == optional.none()",
      "optional.ofNonZeroValue(duration('0s')) == optional.none()",
      "{?'k': optional.none(), 'k2': 'v2'} == {'k2': 'v2'}",
      "{?'k': optional.of('v'), 'k2': 'v2'} == {'k': 'v', 'k2': 'v2'}",
      "['a', ?optional.none(), 'c'] == ['a', 'c']", "['a', ?optional.of('v'), 'c'] == ['a', 'v', 'c']"],
     # the first selection without ?. is an error when the field is absent
     {"self.absentObj.?absentStr == optional.none()": "no such key: absentObj"}),
    ("quantity", objs("20", "200M"), vals(STR, STR),
     ["isQuantity(self.val1)", "isQuantity(self.val2)", "isQuantity(\"20Mi\")",
      "quantity(self.val2) == quantity(\"0.2G\") && quantity(\"0.2G\") == quantity(\"200M\")",
      "quantity(\"2M\") == quantity(\"0.002G\") && quantity(\"2000k\") == quantity(\"2M\") && "
      "quantity(\"0.002G\") == quantity(\"2000k\")",
      "quantity(self.val1).isLessThan(quantity(\"100M\"))", "quantity(self.val2).isGreaterThan(quantity(\"50M\"))",
      "quantity(self.val2).compareTo(quantity(\"0.2G\")) == 0",
      "quantity(\"50k\").add(quantity(self.val1)) == quantity(\"50.02k\")",
      "quantity(\"50k\").sub(quantity(self.val1)) == quantity(\"49980\")", "quantity(self.val1).isInteger()"], {}),
    ("IP and CIDR", objs("20", "200M"), vals(STR, STR),
     ["isIP(\"192.168.0.1\")", "ip.isCanonical(\"127.0.0.1\")", "ip(\"192.168.0.1\").family() > 0",
      "ip(\"0.0.0.0\").isUnspecified()", "ip(\"127.0.0.1\").isLoopback()", "ip(\"224.0.0.1\").isLinkLocalMulticast()",
      "ip(\"192.168.0.1\").isGlobalUnicast()", "cidr(\"192.168.0.0/24\").containsIP(ip(\"192.168.0.1\"))",
      "cidr(\"192.168.0.0/24\").containsCIDR(\"192.168.0.0/25\")",
      "cidr(\"2001:db8::/32\").containsCIDR(cidr(\"2001:db8::/33\"))",
      "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()", "cidr('192.168.0.0/16').prefixLength() == 16",
      "cidr('::1/128').ip().family() == 6", "type(ip(\"192.168.0.1\")) == net.IP",
      "type(cidr(\"2001:db8::/32\").ip()) == net.IP"], {}),
    ("format", objs("20", "200M"), vals(STR, STR),
     ['format.dns1123Label().validate("my-label-name") == optional.none()',
      'format.dns1123Subdomain().validate("apiextensions.k8s.io") == optional.none()',
      'format.qualifiedName().validate("apiextensions.k8s.io/v1beta1") == optional.none()',
      'format.dns1123LabelPrefix().validate("my-label-prefix-") == optional.none()',
      'format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-") == optional.none()',
      'format.dns1035LabelPrefix().validate("my-label-prefix-") == optional.none()',
      'format.uri().validate("http://example.com") == optional.none()',
      'format.uuid().validate("123e4567-e89b-12d3-a456-426614174000") == optional.none()',
      'format.byte().validate("aGVsbG8=") == optional.none()',
      'format.date().validate("2021-01-01") == optional.none()',
      'format.datetime().validate("2021-01-01T00:00:00Z") == optional.none()',
      'format.named("dns1123Label").value().validate("my-name") == optional.none()',
      'format.dns1123Label().validate("contains a space").value()[0] == "a lowercase RFC 1123 label must consist '
      "of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
      "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"",
      '!format.named("unknown").hasValue()'], {}),
]

# rule -> why cel-python gives another outcome than cel-go
DIVERGES = {
}


def _run(value, schema, rule):
    s = {**schema, "x-kubernetes-validations": [{"rule": rule}]}
    compiled = cel.compile_rule({"rule": rule}, s, False)
    if compiled.error:
        return [compiled.error]
    v = cel.Validator(s, False)
    return [str(e) for e in v.validate(value)]


def _params():
    for name, value, schema, valid, errors in CASES:
        for rule in valid:
            marks = [pytest.mark.xfail(strict=True, reason=DIVERGES[rule])] if rule in DIVERGES else []
            yield pytest.param(value, schema, rule, None, id=f"{name}: {rule}"[:90], marks=marks)
        for rule, want in errors.items():
            marks = [pytest.mark.xfail(strict=True, reason=DIVERGES[rule])] if rule in DIVERGES else []
            yield pytest.param(value, schema, rule, want, id=f"{name}: {rule}"[:90], marks=marks)


@pytest.mark.parametrize("value,schema,rule,error", list(_params()))
def test_go_validation_expressions(value, schema, rule, error) -> None:
    out = _run(value, schema, rule)
    if error is None:
        assert out == []
    else:
        assert len(out) == 1 and error in out[0], out


# validation_test.go TestValidateFieldPath: fieldPath -> the path it names, or Go's error
FIELD_PATH_SCHEMA = obj({
    "foo": mapping(obj({"subAdd": NUM})), "white space": NUM, "'foo'bar": NUM,
    "a": obj({"foo's": NUM, "test\a": NUM, "bb[b": NUM, "bbb": obj({"c": NUM, "34": NUM}),
              "bbb.c": obj({"a-b.3'4": NUM})}),
    "list": lst(obj({"a": NUM, "a-b.3'4": NUM}))})


@pytest.mark.parametrize("field_path,want", [
    (".a", "a"), ("['\\'foo\\'bar']", "'foo'bar"), (".\\'foo\\'bar", "does not refer to a valid field"),
    (". a", "does not refer to a valid field"), (".white space", "white space"), ("['white space']", "white space"),
    (".a.bb[b", "does not refer to a valid field"), (".a['bbb.c']", "a.bbb.c"),
    (".a['bbb.c'", "unexpected end of JSON path"), (".", "unexpected end of JSON path"),
    (".foo.subAdd", "foo[subAdd]"), (".foo['subAdd']", "foo[subAdd]"), (".a.foo's", "a.foo's"),
    (".a['foo\\'s']", "a.foo's"), (".a['test\\a']", "a.test\a"), (".a.foo", "does not refer to a valid field"),
    (".a.bbb[0]", "expected single quoted string but got 0"), (".a.bbb.34", "a.bbb.34"),
    (".a.bbb['34']", "a.bbb.34"), (".list", "list"), (".list[0]", "expected single quoted string but got 0"),
    (".list. a", "does not refer to a valid field"), (".list['a']", "does not refer to a valid field"),
    ("a", "expected [ or . but got: a"), (".c", "does not refer to a valid field"),
    (".a..b", "does not refer to a valid field"), (".list.a-b.34", "does not refer to a valid field"),
])
def test_go_valid_field_path(field_path, want) -> None:
    try:
        got = str(cel.valid_field_path(field_path, FIELD_PATH_SCHEMA)[0])
    except ValueError as exc:
        got = str(exc)
    assert got == want


# validation_test.go TestMessageExpression (the cases without cost budgets) and TestReasonAndFldPath
@pytest.mark.parametrize("message,expression,want", [
    ("", '"static string"', "root: Invalid value: static string"),
    ("invisible", '"this is messageExpression"', "root: Invalid value: this is messageExpression"),
    ("", "true", "root: Invalid value: failed rule: false"),
    ("", '"str1 " + self.str', "root: Invalid value: str1 a string"),
    ("message not messageExpression", '"str1 " + ["a", "b", "c", "d"][4]',
     "root: Invalid value: message not messageExpression"),
    ("", '"str1 " + ["a", "b", "c", "d"][4]', "root: Invalid value: failed rule: false"),
    ("message not messageExpression", '"str with \\na newline"', "root: Invalid value: message not messageExpression"),
    ("message not messageExpression", '"' + "a" * 5121 + '"', "root: Invalid value: message not messageExpression"),
    ("message not messageExpression", 'string("")', "root: Invalid value: message not messageExpression"),
    ("message not messageExpression", 'string("     ")', "root: Invalid value: message not messageExpression"),
])
def test_go_message_expression(message, expression, want) -> None:
    rule = {"rule": "false", "messageExpression": expression, **({"message": message} if message else {})}
    schema = {**obj({"str": STR}), "x-kubernetes-validations": [rule]}
    errs = cel.Validator(schema, False).validate({"str": "a string"}, None, Path("root"))
    assert [str(e) for e in errs] == [want]


def test_go_reason_and_field_path() -> None:
    def schema(reason, field_path):
        rule = {"rule": "self.m == 2", **({"reason": reason} if reason else {}),
                **({"fieldPath": field_path} if field_path else {})}
        return {**obj({"f": {**obj({"m": INT}), "x-kubernetes-validations": [rule]}}),
                "x-kubernetes-validations": [{"rule": "1 == 1"}]}

    def errs(s):
        return [(e.type.value, e.field) for e in cel.Validator(s, False).validate({"f": {"m": 1}}, None,
                                                                                   Path("root"))]

    assert errs(schema("FieldValueForbidden", "")) == [("FieldValueForbidden", "root.f")]
    assert errs(schema(None, "")) == [("FieldValueInvalid", "root.f")]
    assert errs(schema("FieldValueForbidden", ".m")) == [("FieldValueForbidden", "root.f.m")]
    # multiple rules with custom reason and field path
    s = {**obj({"field1": STR, "field2": STR, "field3": STR}), "x-kubernetes-validations": [
        {"rule": "self.field2 != 'value2'", "reason": "FieldValueDuplicate", "fieldPath": ".field2"},
        {"rule": "self.field3 != 'value3'", "reason": "FieldValueRequired", "fieldPath": ".field3"},
        {"rule": "self.field1 != 'value1'", "reason": "FieldValueForbidden", "fieldPath": ".field1"}]}
    assert [(e.type.value, e.field) for e in cel.Validator(s, False).validate(
        {"field1": "value1", "field2": "value2", "field3": "value3"}, None, Path("root"))] == [
        ("FieldValueDuplicate", "root.field2"), ("FieldValueRequired", "root.field3"),
        ("FieldValueForbidden", "root.field1")]


def _with_rule(schema, rule):
    return {**schema, "x-kubernetes-validations": [{"rule": rule}]}


# validation_test.go TestValidationExpressionsAtSchemaLevels: a rule that does not compile is
# reported where it is (rule compile error), wherever the schema node is
@pytest.mark.parametrize("schema,value", [
    (obj({"f": lst(_with_rule(INT, "self == 'abc'"))}), {"f": [1]}),
    (obj({"f": _with_rule(lst(_with_rule(INT, "self == 'abc'")), "1 == 1")}), {"f": [1]}),
    (obj({"f": mapping(_with_rule(INT, "self == 'abc'"))}), {"f": {"k": 1}}),
    (obj({"f": _with_rule(mapping(_with_rule(INT, "self == 'abc'")), "1 == 1")}), {"f": {"k": 1}}),
    (obj({"f": _with_rule(obj({"m": INT}), "self.m == 'abc'")}), {"f": {"m": 1}}),
    (_with_rule(obj({"f": _with_rule(obj({"m": INT}), "self.m == 'abc'")}), "1 == 1"), {"f": {"m": 1}}),
])
def test_go_rule_errors_at_schema_levels(schema, value) -> None:
    errs = [str(e) for e in cel.Validator(schema, True).validate(value, None, Path("root"))]
    assert len(errs) == 1 and "rule compile error: compilation failed: " in errs[0] and \
        "found no matching overload for '_==_' applied to '(int, string)'" in errs[0]


def test_go_all_of_rules() -> None:
    schema = {**obj({"key": STR, "key2": STR}), "allOf": [
        {"x-kubernetes-validations": [{"rule": "self.key == 'value' && self.key2 == 'value2'",
                                       "message": "key must be 'value' and key2 must be 'value2'"}]},
        {"x-kubernetes-validations": [{"rule": "self.key != self.key2", "message": "key must not be equal to key2"}]}]}
    errs = [str(e) for e in cel.Validator(schema, True).validate({"key": "value", "key2": "value"}, None, Path("root"))]
    assert errs == ["root: Invalid value: key must be 'value' and key2 must be 'value2'",
                    "root: Invalid value: key must not be equal to key2"]
    # allOf.items: the rules apply to the node's items
    schema = {**lst(STR), "allOf": [{"items": {"x-kubernetes-validations": [
        {"rule": "self.size() == 5", "message": "len must be 5"}]}}]}
    errs = [str(e) for e in cel.Validator(schema, False).validate(["12345", "1234"], None, Path("root"))]
    assert errs == ['root[1]: Invalid value: "1234": len must be 5']
