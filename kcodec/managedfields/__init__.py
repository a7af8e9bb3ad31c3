"""Server-side apply and managed fields (sigs.k8s.io/structured-merge-diff v6 and
k8s.io/apimachinery ``pkg/util/managedfields``).

:mod:`~kcodec.managedfields.fieldpath` (field paths, sets, FieldsV1),
:mod:`~kcodec.managedfields.schema` (schemas from kcodec's models),
:mod:`~kcodec.managedfields.typed` (field sets, merge, compare, remove of JSON trees),
:mod:`~kcodec.managedfields.merge` (the Updater: apply, update, conflicts),
:mod:`~kcodec.managedfields.fieldmanager` (managedFields on every write) and
:mod:`~kcodec.managedfields.scalehandler` (managedFields across the scale subresource). The everyday
calls are :func:`kcodec.apply` and :func:`kcodec.extract`.
"""
from kcodec.managedfields.fieldmanager import FieldManager, Managed, decode_managed_fields, encode_managed_fields
from kcodec.managedfields.fieldpath import PathElement, Set, VersionedSet, make_path, path_string
from kcodec.managedfields.merge import Conflict, Conflicts, Updater
from kcodec.managedfields.objects import ObjectFieldManager
from kcodec.managedfields.scalehandler import ScaleHandler
from kcodec.managedfields.schema import ModelSchema, model_schema
from kcodec.managedfields.typed import TypedValue

__all__ = ["FieldManager", "Managed", "decode_managed_fields", "encode_managed_fields", "PathElement", "Set",
           "VersionedSet", "make_path", "path_string", "Conflict", "Conflicts", "Updater", "ModelSchema",
           "model_schema", "TypedValue", "ObjectFieldManager", "ScaleHandler"]
