"""Tests of tools/gen_api.py and of the generated kcodec.api modules.

The generated field tables are checked against the Go-written fixtures without importing the
modules (so they hold even while the model layer changes): every JSON key must be a declared
JSON name of the corresponding class, in Go declaration order.
"""
from __future__ import annotations

import ast
import importlib
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
API_DIR = ROOT / "kcodec" / "api"
FIXTURES = ROOT.parent / "shared" / "fixtures" / "k8s-api-v0.36.3" / "HEAD"

sys.path.insert(0, str(ROOT / "tools"))
import gen_api  # noqa: E402


def generated_files() -> list[Path]:
    """Every generated version module (not the package __init__ files, not _values)."""
    return sorted(p for p in API_DIR.glob("*/*.py")
                  if re.fullmatch(r"v[0-9]+(?:(?:alpha|beta)[0-9]+)?", p.stem))


# --------------------------------------------------------------------------- snake_case

@pytest.mark.parametrize("go,py", [
    ("APIVersion", "api_version"), ("PodIPs", "pod_ips"), ("HostIPC", "host_ipc"),
    ("DeletionGracePeriodSeconds", "deletion_grace_period_seconds"), ("UID", "uid"),
    ("ServerAddressByClientCIDRs", "server_address_by_client_cidrs"),
    ("SELinuxOptions", "se_linux_options"), ("TTLSecondsAfterFinished",
                                             "ttl_seconds_after_finished"),
    ("FieldsV1", "fields_v1"), ("HTTPGet", "http_get"), ("TargetWWNs", "target_wwns"),
    ("WWIDs", "wwids"), ("Continue", "continue_"), ("From", "from_"), ("FSType", "fs_type"),
    ("ContainerID", "container_id"), ("ClusterIPs", "cluster_ips"), ("Type", "type"),
    ("IPFamilies", "ip_families"), ("ISCSIInterface", "iscsi_interface"), ("Items", "items"),
])
def test_snake_case(go: str, py: str) -> None:
    assert gen_api.snake_case(go) == py


# --------------------------------------------------------------------------- Go parsing

GO_SRC = '''
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Widget is a test kind.
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	// comment with `backticks` and a } brace
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec WidgetSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

/* block
comment */
type WidgetSpec struct {
	Inner `json:",inline" protobuf:"bytes,7,opt,name=inner"`
	A, B string
	Limits ResourceList `json:"limits,omitempty" protobuf:"bytes,3,rep,name=limits,casttype=ResourceList"`
	Data map[string][]byte `json:"data,omitzero" protobuf:"bytes,4,rep,name=data"`
	Ptr *int32 `json:"ptr,omitempty" protobuf:"varint,5,opt,name=ptr"`
	Extra map[string]ExtraValue `json:"extra" protobuf:"bytes,6,rep,name=extra"`
	Nested []*Inner `json:"nested"`
}

type Inner struct{}

type ResourceList map[ResourceName]resource.Quantity
type ResourceName string
type ExtraValue []string

func (w *Widget) Foo() { type local struct{ X int } }
'''


@pytest.fixture()
def toy_world(tmp_path: Path) -> gen_api.World:
    d = tmp_path / "toy" / "v1"
    d.mkdir(parents=True)
    (d / "types.go").write_text(GO_SRC)
    (d / "generated.proto").write_text("message ExtraValue {\n  repeated string items = 1;\n}\n")
    machinery = Path(os.environ.get("KCODEC_UPSTREAM_APIMACHINERY", "/tmp/upstream/apimachinery"))
    packages = {"k8s.io/api/toy/v1": gen_api.parse_package(d, "k8s.io/api/toy/v1")}
    if (machinery / "pkg/apis/meta/v1").is_dir():
        packages[gen_api.META_PKG] = gen_api.parse_package(machinery / "pkg/apis/meta/v1",
                                                           gen_api.META_PKG)
    return gen_api.World(packages)


def test_parse_declarations(toy_world: gen_api.World) -> None:
    pkg = toy_world.packages["k8s.io/api/toy/v1"]
    assert list(pkg.decls) == ["Widget", "WidgetSpec", "Inner", "ResourceList", "ResourceName",
                               "ExtraValue"]
    w = pkg.decls["Widget"]
    assert any("runtime.Object" in m for m in w.markers)
    fields = w.type.fields
    assert [f.embedded for f in fields] == [True, True, False]
    assert fields[1].tag.startswith('json:"metadata')
    spec = pkg.decls["WidgetSpec"].type.fields
    assert [f.name for f in spec] == ["", "A", "B", "Limits", "Data", "Ptr", "Extra", "Nested"]
    assert spec[4].type.kind == "map" and spec[4].type.elem.kind == "slice"
    assert pkg.proto_messages == {"ExtraValue"}


def test_build_class(toy_world: gen_api.World) -> None:
    if gen_api.META_PKG not in toy_world.packages:
        pytest.skip("apimachinery checkout absent (set KCODEC_UPSTREAM_APIMACHINERY)")
    pkg = toy_world.packages["k8s.io/api/toy/v1"]
    widget = toy_world.build_class(pkg, pkg.decls["Widget"])
    assert widget.is_object
    assert [(f.attr, f.json, f.number, f.omitempty) for f in widget.fields] == [
        ("metadata", "metadata", 1, True), ("spec", "spec", 2, False)]
    spec = toy_world.build_class(pkg, pkg.decls["WidgetSpec"])
    by = {f.attr: f for f in spec.fields}
    assert by["inner"].inline and by["inner"].number == 7 and by["inner"].json == ""
    assert by["a"].json == "A" and by["a"].number == 0
    assert by["data"].omitzero and by["data"].type == gen_api.T("map", elem=gen_api.T("bytes"))
    w = gen_api.ModuleWriter(toy_world, pkg)
    assert w.ann(by["limits"].type) == "dict[str, Quantity] | None"
    assert w.ann(by["ptr"].type) == "Int32 | None"
    assert w.ann(by["extra"].type) == "dict[str, ExtraValue] | None"
    assert w.ann(by["nested"].type) == "list[Inner | None] | None"
    inner = toy_world.build_class(pkg, pkg.decls["Inner"])
    assert inner.fields == [] and inner.protobuf is None


def test_go_type_names(toy_world: gen_api.World) -> None:
    """field(go=...) is written only where the annotation does not say Go's reflect name;
    field(go_field=...) only where the Go field name is not the JSON name capitalized."""
    if gen_api.META_PKG not in toy_world.packages:
        pytest.skip("apimachinery checkout absent (set KCODEC_UPSTREAM_APIMACHINERY)")
    pkg = toy_world.packages["k8s.io/api/toy/v1"]
    by = {f.attr: f for f in toy_world.build_class(pkg, pkg.decls["WidgetSpec"]).fields}
    assert by["limits"].go == "v1.ResourceList=map[v1.ResourceName]resource.Quantity"
    assert by["extra"].go == "map[string]v1.ExtraValue=[]string"
    assert by["ptr"].go is None and by["data"].go is None and by["nested"].go is None
    assert by["a"].go_field is None and by["limits"].go_field is None
    widget = {f.attr: f for f in toy_world.build_class(pkg, pkg.decls["Widget"]).fields}
    assert widget["metadata"].go_field == "ObjectMeta" and widget["spec"].go_field is None
    w = gen_api.ModuleWriter(toy_world, pkg)
    cls = toy_world.build_class(pkg, pkg.decls["WidgetSpec"])
    lines = gen_api.render_class(w, cls, "toy/v1", set())
    assert ('    limits: dict[str, Quantity] | None = field(3, "limits", omitempty=True, '
            'go="v1.ResourceList=map[v1.ResourceName]resource.Quantity")') in lines


def test_generated_go_names() -> None:
    """What encoding/json would name for a few real fields (reflect.Type.String())."""
    from kcodec.api.core import v1
    from kcodec.api.meta import v1 as metav1
    from kcodec.fieldtable import fields_of

    def f(cls, name):
        return {x.name: x for x in fields_of(cls)}[name]

    assert f(metav1.ObjectMeta, "uid").go_name() == "types.UID"
    assert f(v1.ContainerPort, "protocol").go_name() == "v1.Protocol"
    assert f(v1.ContainerPort, "container_port").go_field() == "ContainerPort"
    assert f(v1.Pod, "metadata").go_field() == "ObjectMeta"
    assert f(metav1.ObjectMeta, "uid").go_field() == "UID"
    limits = f(v1.ResourceRequirements, "limits")
    assert (limits.go_name(), limits.elem.go_name()) == ("v1.ResourceList", "resource.Quantity")
    modes = f(v1.PersistentVolumeSpec, "access_modes")
    assert (modes.go_name(), modes.elem.go_name()) == ("[]v1.PersistentVolumeAccessMode",
                                                      "v1.PersistentVolumeAccessMode")
    assert f(v1.PodSpec, "preemption_policy").go_name() == "*v1.PreemptionPolicy"
    assert f(v1.PodSpec, "containers").go_name() == "[]v1.Container"
    assert f(metav1.ObjectMeta, "creation_timestamp").go_name() == "v1.Time"


def test_unknown_construct_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "bad" / "v1"
    d.mkdir(parents=True)
    (d / "types.go").write_text("package v1\ntype Bad struct {\n\tX uint16 `json:\"x\"`\n}\n")
    world = gen_api.World({"k8s.io/api/bad/v1": gen_api.parse_package(d, "k8s.io/api/bad/v1")})
    pkg = world.packages["k8s.io/api/bad/v1"]
    with pytest.raises(gen_api.GenError, match="uint16"):
        world.build_class(pkg, pkg.decls["Bad"])


def test_unknown_hand_marshaller_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "odd" / "v1"
    d.mkdir(parents=True)
    (d / "types.go").write_text("package v1\ntype Odd struct {\n\tX string `json:\"x\"`\n}\n")
    (d / "marshal.go").write_text("package v1\n\nfunc (o Odd) MarshalJSON() ([]byte, error) {\n"
                                  "\treturn nil, nil\n}\n")
    world = gen_api.World({"k8s.io/api/odd/v1": gen_api.parse_package(d, "k8s.io/api/odd/v1")})
    assert world.packages["k8s.io/api/odd/v1"].marshallers == {"Odd"}
    with pytest.raises(gen_api.GenError, match="MarshalJSON/UnmarshalJSON on .'Odd'."):
        gen_api._ordered_classes(world, world.packages["k8s.io/api/odd/v1"])


def test_extra_source_modules() -> None:
    assert gen_api.module_of("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1") == (
        "kcodec.api.apiextensions", "v1beta1", "apiextensionsv1beta1")
    assert gen_api.module_of("k8s.io/kube-aggregator/pkg/apis/apiregistration") == (
        "kcodec.api.apiregistration", "internal", "apiregistration")


# --------------------------------------------------------------------------- generated files

@dataclass
class FieldRow:
    attr: str
    ann: str
    json: str
    number: int
    inline: bool


@dataclass
class ClassRow:
    name: str
    base: str
    fields: list[FieldRow]


@dataclass
class ModuleInfo:
    path: Path
    group: str
    version: str
    classes: dict[str, ClassRow]
    aliases: dict[str, str]           # module-level `X = ...`
    imports: dict[str, str]           # alias -> "api/<group>/<version>"
    registered: list[str]


_MODULES: dict[str, ModuleInfo] = {}


def load_module(rel: str) -> ModuleInfo:
    """Read a generated module's field tables with ast (no import)."""
    if rel in _MODULES:
        return _MODULES[rel]
    path = API_DIR / (rel.split("/", 1)[1] + ".py")
    tree = ast.parse(path.read_text())
    classes: dict[str, ClassRow] = {}
    aliases: dict[str, str] = {}
    imports: dict[str, str] = {}
    registered: list[str] = []
    group = version = ""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                "kcodec.api.") and not node.module.endswith("_values"):
            for a in node.names:
                imports[a.asname or a.name] = node.module.replace(".", "/")[len("kcodec/"):] + \
                    "/" + a.name
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name == "SCHEME_GROUP_VERSION":
                group, version = (a.value for a in node.value.args)
            else:
                aliases[name] = ast.unparse(node.value)
        elif isinstance(node, ast.ClassDef):
            rows = []
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.value, ast.Call):
                    args = st.value.args
                    kw = {k.arg: k.value.value for k in st.value.keywords}
                    rows.append(FieldRow(st.target.id, ast.unparse(st.annotation),
                                         args[1].value, args[0].value, bool(kw.get("inline"))))
            classes[node.name] = ClassRow(node.name, ast.unparse(node.bases[0]) if node.bases else "", rows)
        elif isinstance(node, ast.FunctionDef) and node.name == "add_to_scheme":
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == \
                        "add_known_types":
                    registered += [ast.unparse(a) for a in call.args[1:]]
    info = ModuleInfo(path, group, version, classes, aliases, imports, registered)
    _MODULES[rel] = info
    return info


def strip_optional(ann: str) -> str:
    return ann[:-len(" | None")] if ann.endswith(" | None") else ann


def resolve(mod: ModuleInfo, ann: str) -> tuple[str, object]:
    """Classify an annotation: ('leaf', None), ('list'|'map', inner), ('class', (mod, cls))."""
    ann = strip_optional(ann)
    if ann.startswith("list["):
        return "list", ann[5:-1]
    if ann.startswith("dict[str, "):
        return "map", ann[len("dict[str, "):-1]
    if ann.startswith("Annotated["):
        return "list", ann[len("Annotated[list["):-len("], Wrapped]")]
    if "." in ann:
        alias, name = ann.split(".")
        target = load_module(mod.imports[alias])
        return resolve(target, name)
    if ann in mod.aliases:
        return resolve(mod, mod.aliases[ann])
    if ann in mod.classes:
        return "class", (mod, mod.classes[ann])
    return "leaf", None


def json_fields(mod: ModuleInfo, cls: ClassRow) -> list[tuple[str, ModuleInfo, str]]:
    """The JSON members of *cls* in order, inline structs expanded."""
    out: list[tuple[str, ModuleInfo, str]] = []
    if cls.base == "Object":
        out += [("kind", mod, "str"), ("apiVersion", mod, "str")]
    for f in cls.fields:
        if f.inline:
            kind, target = resolve(mod, f.ann)
            assert kind == "class", f"{cls.name}.{f.attr}: inline of non-struct"
            out += json_fields(*target)
        else:
            out.append((f.json, mod, f.ann))
    return out


def check_value(mod: ModuleInfo, ann: str, value: object, where: str) -> int:
    kind, inner = resolve(mod, ann)
    checked = 0
    if kind == "class" and isinstance(value, dict):
        checked += check_object(*inner, value, where)
    elif kind == "list" and isinstance(value, list):
        for i, item in enumerate(value):
            checked += check_value(mod, inner, item, f"{where}[{i}]")
    elif kind == "map" and isinstance(value, dict):
        for k, item in value.items():
            checked += check_value(mod, inner, item, f"{where}[{k}]")
    return checked


def check_object(mod: ModuleInfo, cls: ClassRow, obj: dict, where: str) -> int:
    """Assert every key of *obj* is declared, in declaration order; return keys checked."""
    table = json_fields(mod, cls)
    names = [n for n, _, _ in table]
    keys = list(obj)
    unknown = [k for k in keys if k not in names]
    assert not unknown, f"{where} ({cls.name}): undeclared JSON keys {unknown}"
    positions = [names.index(k) for k in keys]
    assert positions == sorted(positions), f"{where} ({cls.name}): order {keys} vs {names}"
    checked = len(keys)
    for k in keys:
        _, fmod, ann = table[names.index(k)]
        checked += check_value(fmod, ann, obj[k], f"{where}.{k}")
    return checked


def module_index() -> dict[tuple[str, str], str]:
    out = {}
    for p in generated_files():
        rel = f"api/{p.parent.name}/{p.stem}"
        info = load_module(rel)
        out[(info.group, info.version)] = rel
    return out


def fixture_cases() -> list[Path]:
    return sorted(FIXTURES.glob("*.json")) if FIXTURES.is_dir() else []


def test_generated_files_parse() -> None:
    files = generated_files()
    assert len(files) >= 59, "expected every k8s.io/api group/version plus meta/v1"
    for p in files:
        ast.parse(p.read_text(), filename=str(p))
        assert (p.parent / "__init__.py").exists()


def test_fixture_field_tables() -> None:
    cases = fixture_cases()
    if not cases:
        pytest.skip(f"fixtures not found at {FIXTURES}")
    index = module_index()
    meta = load_module("api/meta/v1")
    total = 0
    for path in cases:
        parts = path.stem.split(".")
        kind, version, group = parts[-1], parts[-2], ".".join(parts[:-2])
        group = "" if group == "core" else group
        mod = load_module(index[(group, version)])
        if kind in mod.classes:
            assert kind in mod.registered, f"{path.name}: {kind} not registered"
            cls_mod, cls = mod, mod.classes[kind]
        else:
            cls_mod, cls = meta, meta.classes[kind]  # added by metav1.add_to_group_version
        total += check_object(cls_mod, cls, json.loads(path.read_text()), path.stem)
    assert total > 10000


def test_regeneration_is_identical(tmp_path: Path) -> None:
    api = os.environ.get("KCODEC_UPSTREAM_API")
    machinery = os.environ.get("KCODEC_UPSTREAM_APIMACHINERY")
    if not api or not machinery:
        pytest.skip("set KCODEC_UPSTREAM_API and KCODEC_UPSTREAM_APIMACHINERY to k8s.io/api and "
                    "k8s.io/apimachinery v0.36.3 checkouts to check regeneration")
    # Groups from other repositories (EXTRA_SOURCES) are checked when their checkout is given.
    extra = {flag: Path(os.environ[env]) for flag, env, *_ in gen_api.EXTRA_SOURCES
             if os.environ.get(env)}
    files, _ = gen_api.generate(Path(api), Path(machinery), extra)
    again, _ = gen_api.generate(Path(api), Path(machinery), extra)
    assert files == again
    # The removed versions (REMOVED_SOURCES) are checked when their checkouts are given.
    removed_root = os.environ.get("KCODEC_UPSTREAM_REMOVED")
    if removed_root:
        files.update(gen_api.generate_removed(Path(removed_root), Path(machinery)))
    for rel, text in files.items():
        assert (ROOT / "kcodec" / rel).read_text() == text, f"{rel} differs from the generator"
    skipped = {f"api/{sub.rsplit('/', 1)[1]}" for flag, _env, _m, _t, _c, sub in gen_api.EXTRA_SOURCES
               if flag not in extra}
    committed = {f"api/{p.parent.name}/{p.name}" for p in API_DIR.glob("*/*.py")
                 if not (p.name == "__init__.py" and f"api/{p.parent.name}" in gen_api.HAND_WRITTEN_INITS)
                 and not (p.name.startswith("_") and p.name != "__init__.py")
                 and f"api/{p.parent.name}" not in skipped
                 and (removed_root or f"api/{p.parent.name}" != gen_api.REMOVED_DIR)}
    if not skipped:  # the descriptions file is written only from every source
        committed.add(gen_api.DOCS)
    committed.discard("api/meta/_values.py")
    committed.discard("api/meta/unstructured.py")  # hand-written (Go: apis/meta/v1/unstructured)
    assert committed == set(files)


def _model_ready() -> bool:
    try:
        model = importlib.import_module("kcodec.model")
        importlib.import_module("kcodec.runtime").Object  # noqa: B018
        importlib.import_module("kcodec.schema").GroupVersion  # noqa: B018
        importlib.import_module("kcodec.types").Quantity  # noqa: B018
        importlib.import_module("kcodec.api.meta._values").Time  # noqa: B018
        return all(hasattr(model, n) for n in ("Struct", "field", "Int32", "Int64", "Wrapped"))
    except (ImportError, AttributeError):
        return False


def test_import_every_module() -> None:
    if not _model_ready():
        pytest.skip("kcodec.model / runtime / types / meta._values not complete yet")
    names = [f"kcodec.api.{p.parent.name}.{p.stem}" for p in generated_files()]
    for name in names:
        mod = importlib.import_module(name)
        assert mod.SCHEME_GROUP_VERSION is not None
        for export in mod.__all__:
            assert hasattr(mod, export), f"{name}.{export}"


def test_import_time_budget(tmp_path: Path) -> None:
    if not _model_ready():
        pytest.skip("kcodec.model / runtime / types / meta._values not complete yet")
    import subprocess
    code = ("import time, importlib, pathlib; t=time.perf_counter(); "
            "[importlib.import_module(f'kcodec.api.{p.parent.name}.{p.stem}') for p in "
            f"sorted(pathlib.Path({str(API_DIR)!r}).glob('*/v*.py'))]; "
            "print(time.perf_counter()-t)")
    # Bytecode is cached (outside the tree) as in any installed package; the first run fills it.
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, check=True, env=env)
        runs.append(float(out.stdout))
    assert min(runs[1:]) < 0.5, f"importing every API module took {runs} s"


def _upstream() -> tuple[Path, Path]:
    api = os.environ.get("KCODEC_UPSTREAM_API")
    machinery = os.environ.get("KCODEC_UPSTREAM_APIMACHINERY")
    if not api or not machinery:
        pytest.skip("set KCODEC_UPSTREAM_API and KCODEC_UPSTREAM_APIMACHINERY to the v0.36.3 "
                    "checkouts")
    return Path(api), Path(machinery)


_PROTO_FIELD = re.compile(r"(optional|repeated)?\s*(map<[^>]+>|[\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;")


def test_protobuf_numbers_match_generated_proto() -> None:
    """Every generated class agrees with its package's generated.proto message."""
    api, machinery = _upstream()
    packages = gen_api.discover(api, machinery)
    world = gen_api.World(packages)
    checked = 0
    for pkg in packages.values():
        text = (pkg.directory / "generated.proto").read_text()
        messages = {}
        for m in re.finditer(r"^message (\w+) \{(.*?)^\}", text, re.M | re.S):
            body = re.sub(r"//[^\n]*", "", m.group(2))
            messages[m.group(1)] = {int(f[3]): f for f in _PROTO_FIELD.findall(body)}
        for cls in gen_api._ordered_classes(world, pkg):
            mine = {f.number: f for f in cls.fields if f.number}
            if cls.name not in messages:
                assert not mine, f"{pkg.path}.{cls.name}: numbered fields but no message"
                continue
            assert set(mine) == set(messages[cls.name]), f"{pkg.path}.{cls.name}"
            for number, f in mine.items():
                label, typ, _, _ = messages[cls.name][number]
                t = f.type.elem if f.type.kind == "ptr" else f.type
                shape = "map" if typ.startswith("map<") else "list" if label == "repeated" else ""
                assert shape == {"map": "map", "list": "list"}.get(t.kind, ""), \
                    f"{pkg.path}.{cls.name}.{f.attr}"
                checked += 1
    assert checked > 3500


def test_fixture_json_round_trip() -> None:
    """Decode every JSON fixture into its registered class and re-encode it identically."""
    if not _model_ready() or not fixture_cases():
        pytest.skip("model layer or fixtures not available")
    try:
        from kcodec import gojson as _gojson
    except ImportError:
        pytest.skip("kcodec.gojson not available yet")
    from kcodec.model import from_tree, to_tree
    from kcodec.runtime import Scheme
    from kcodec.schema import GroupVersionKind
    scheme = Scheme()
    for p in generated_files():
        mod = importlib.import_module(f"kcodec.api.{p.parent.name}.{p.stem}")
        if hasattr(mod, "add_to_scheme"):
            mod.add_to_scheme(scheme)
    for path in fixture_cases():
        parts = path.stem.split(".")
        kind, version, group = parts[-1], parts[-2], ".".join(parts[:-2])
        gvk = GroupVersionKind("" if group == "core" else group, version, kind)
        data = path.read_bytes()
        obj = from_tree(type(scheme.new(gvk)), _gojson.loads(data))
        assert _gojson.dumps(to_tree(obj), pretty=True) == data.rstrip(b"\n"), path.name


def test_fixture_protobuf_round_trip() -> None:
    """Decode every protobuf fixture into its registered class and re-encode it byte-exactly."""
    if not _model_ready() or not fixture_cases():
        pytest.skip("model layer or fixtures not available")
    from kcodec.model import from_proto, to_proto
    from kcodec.runtime import Scheme
    from kcodec.schema import GroupVersionKind
    from kcodec.speedups import unmarshal_unknown
    scheme = Scheme()
    for p in generated_files():
        mod = importlib.import_module(f"kcodec.api.{p.parent.name}.{p.stem}")
        if hasattr(mod, "add_to_scheme"):
            mod.add_to_scheme(scheme)
    checked = 0
    for path in sorted(FIXTURES.glob("*.pb")):
        parts = path.stem.split(".")
        kind, version, group = parts[-1], parts[-2], ".".join(parts[:-2])
        gvk = GroupVersionKind("" if group == "core" else group, version, kind)
        data = path.read_bytes()
        assert data[:4] == b"k8s\x00"
        raw = unmarshal_unknown(data[4:])[2]
        obj = from_proto(type(scheme.new(gvk)), raw)
        assert to_proto(obj) == raw, path.name
        checked += 1
    assert checked == len(fixture_cases())


def test_registry_table_is_reproduced() -> None:
    """kcodec/api/_registry.py is what tools/gen_api.py writes from the generated modules."""
    committed = (ROOT / "kcodec" / gen_api.REGISTRY).read_text()
    assert gen_api.render_registry(ROOT / "kcodec") == committed


def test_codecs_import_loads_no_group_module() -> None:
    """``from kcodec.api import codecs`` and one decode import only the modules they need."""
    from conftest import fixtures_dir

    fixtures_dir()  # skips, naming it, without ../shared
    code = (
        "import sys\n"
        "from kcodec.api import codecs, scheme\n"
        "loaded = lambda: sorted(m for m in sys.modules if m.count('.') == 3 and m.startswith('kcodec.api.') and not m.rsplit('.', 1)[1].startswith('_'))\n"
        "assert loaded() == [], loaded()\n"
        f"data = open({str(ROOT.parent / 'shared' / 'fixtures' / 'k8s-api-v0.36.3' / 'HEAD' / 'apps.v1.Deployment.yaml')!r}, 'rb').read()\n"
        "obj, gvk = codecs.universal_deserializer().decode(data)\n"
        "assert type(obj).__module__ == 'kcodec.api.apps.v1', obj\n"
        "assert loaded() == ['kcodec.api.apps.v1', 'kcodec.api.core.v1', 'kcodec.api.meta.v1'], loaded()\n"
        "assert len(scheme.all_known_types()) == 797\n"  # 757 of k8s.io/api, 40 of apiextensions and apiregistration
    )
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_lazy_api_scheme_answers_as_an_eager_one() -> None:
    """kcodec.api.scheme (loading group modules on first use) answers every query as a
    Scheme with every module registered up front does."""
    import importlib
    import subprocess

    code = (
        "import importlib\n"
        "from kcodec.api import api_modules, scheme as lazy\n"
        "from kcodec.runtime import Scheme\n"
        "from kcodec.schema import GroupVersionKind, GroupVersion\n"
        "eager = Scheme('eager')\n"
        "for name in api_modules():\n"
        "    importlib.import_module(name).add_to_scheme(eager)\n"
        "import kcodec.api.apps.v1 as apps\n"
        # by kind and by object first, while the lazy scheme has loaded nothing else
        "gvk = GroupVersionKind('batch', 'v1', 'Job')\n"
        "assert type(lazy.new(gvk)) is type(eager.new(gvk))\n"
        "assert lazy.object_kinds(apps.Deployment()) == eager.object_kinds(apps.Deployment())\n"
        "import kcodec.api.meta.v1 as meta\n"
        "assert lazy.object_kinds(meta.InternalEvent()) == eager.object_kinds(meta.InternalEvent())\n"
        "assert lazy.object_kinds(meta.ListOptions()) == eager.object_kinds(meta.ListOptions())\n"
        "assert lazy.recognizes(GroupVersionKind('', 'v1', 'Status')) == eager.recognizes(GroupVersionKind('', 'v1', 'Status'))\n"
        "assert not lazy.recognizes(GroupVersionKind('nope', 'v1', 'Nope'))\n"
        "assert lazy.all_known_types() == eager.all_known_types()\n"
        "assert lazy.prioritized_versions_all_groups() == eager.prioritized_versions_all_groups()\n"
        "assert lazy.known_types(GroupVersion('apps', 'v1')) == eager.known_types(GroupVersion('apps', 'v1'))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert importlib.import_module("kcodec.api").scheme.converter is not None


def test_extra_sources_protobuf_numbers_match_generated_proto() -> None:
    """apiextensions / apiregistration classes agree with their generated.proto; the
    hand-marshalled classes' messages are the ones kcodec/api/apiextensions/_values.py writes."""
    api, machinery = _upstream()
    extra = {flag: Path(os.environ[env]) for flag, env, *_ in gen_api.EXTRA_SOURCES
             if os.environ.get(env)}
    if len(extra) != len(gen_api.EXTRA_SOURCES):
        pytest.skip("set KCODEC_UPSTREAM_APIEXTENSIONS and KCODEC_UPSTREAM_KUBE_AGGREGATOR")
    packages = gen_api.discover(api, machinery, extra)
    world = gen_api.World(packages)
    hand_messages = {
        "JSON": {1: "raw"},
        "JSONSchemaPropsOrArray": {1: "schema", 2: "jSONSchemas"},
        "JSONSchemaPropsOrBool": {1: "allows", 2: "schema"},
        "JSONSchemaPropsOrStringArray": {1: "schema", 2: "property"},
    }
    checked = 0
    for path, pkg in packages.items():
        if not any(path.startswith(m) for _f, _e, m, *_ in gen_api.EXTRA_SOURCES):
            continue
        proto = pkg.directory / "generated.proto"
        if not proto.exists():
            assert all(not f.number for c in gen_api._ordered_classes(world, pkg) for f in c.fields)
            continue
        messages = {}
        for m in re.finditer(r"^message (\w+) \{(.*?)^\}", proto.read_text(), re.M | re.S):
            body = re.sub(r"//[^\n]*", "", m.group(2))
            messages[m.group(1)] = {int(f[3]): f for f in _PROTO_FIELD.findall(body)}
        for cls in gen_api._ordered_classes(world, pkg):
            if cls.hand:
                assert {n: f[2] for n, f in messages[cls.name].items()} == hand_messages[cls.name]
                continue
            mine = {f.number: f for f in cls.fields if f.number}
            assert set(mine) == set(messages.get(cls.name, {})), f"{path}.{cls.name}"
            checked += len(mine)
    assert checked > 100


# --------------------------------------------------------------------------- shared internal types

SHARE_SRC = '''package v1

type A struct {
	X string `json:"x" protobuf:"bytes,1,opt,name=x"`
	B B `json:"b" protobuf:"bytes,2,opt,name=b"`
}

type B struct {
	Y *int32 `json:"y,omitempty" protobuf:"varint,1,opt,name=y"`
}

type C struct {
	D []D `json:"d" protobuf:"bytes,1,rep,name=d"`
}

type D struct {
	W string `json:"w" protobuf:"bytes,1,opt,name=w"`
}

type E struct {
	V string `json:"v" protobuf:"bytes,1,opt,name=v"`
}

type R struct {
	Next *R `json:"next,omitempty" protobuf:"bytes,1,opt,name=next"`
	Kids map[string]R `json:"kids" protobuf:"bytes,2,rep,name=kids"`
}
'''


def test_internal_types_shared_with_the_preferred_version(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "toy" / "v1"
    d.mkdir(parents=True)
    (d / "types.go").write_text(SHARE_SRC)
    path = "k8s.io/api/toy/v1"
    pkg = gen_api.parse_package(d, path)
    world = gen_api.World({path: pkg})
    internal = gen_api.INTERNAL_PREFIX + "toy"

    def internalize(t: gen_api.T) -> gen_api.T:
        if t.kind in ("ptr", "list", "map"):
            return gen_api.T(t.kind, elem=internalize(t.elem))
        if t.kind == "class":
            return gen_api.T("class", t.name, internal)
        return t

    classes = {}
    for name in pkg.decls:
        ext = world.build_class(pkg, pkg.decls[name])
        fields = [gen_api.Field(f.attr, f.json, 0, f.omitempty, f.omitzero, f.inline,
                                internalize(f.type)) for f in ext.fields]
        classes[name] = gen_api.ClassDef(internal, name, fields, ext.is_object, None, ("0", 0))
    # D's internal field loses omitempty-equality: D differs, so C (which holds D) differs too
    classes["D"].fields[0].omitempty = True
    monkeypatch.setattr(gen_api, "INTERNAL_HAND_CONVERTED", {("toy", "E")})
    plan = {"toy": [(pkg, list(pkg.decls))]}
    shared = gen_api._shared_with_preferred(world, plan, {"toy": (classes, [])}, {"toy": []})
    # A and B line up (protobuf numbers aside); R is recursive and qualifies with itself
    assert shared == {"toy": {"A": path, "B": path, "R": path}}
    # a registered kind is never shared
    shared = gen_api._shared_with_preferred(world, plan, {"toy": (classes, [])}, {"toy": ["B"]})
    assert shared == {"toy": {"R": path}}

    text = gen_api._render_internal(world, "toy", "toy.example.com", list(classes.values()), [], {},
                                    "test", [], {"A": path, "B": path, "R": path})
    assert "A = toyv1.A\nB = toyv1.B\nR = toyv1.R\n" in text
    assert "class A(" not in text and "class C(Struct):" in text
    assert "from kcodec.api.toy import v1 as toyv1" in text
