"""Server-side tables: what ``kubectl get`` prints, as kube-apiserver builds it.

Follows k8s.io/kubernetes ``pkg/printers/tablegenerator.go`` (:class:`TableGenerator`,
:class:`GenerateOptions`), ``pkg/printers/storage/storage.go`` (:class:`TableConvertor`, the
registries' ``TableConvertor``) and ``pkg/printers/internalversion/printers.go`` (the
handlers of the built-in kinds, :func:`kcodec.printers.internalversion.add_handlers`).

Handlers work on the internal version of an object, as the registry holds it, and are
keyed by the object's API package and Go type name (``("apps", "Deployment")``), so a
kind whose internal type shares its class with an external version is found as well.
"""
from __future__ import annotations

from kcodec.printers.internalversion import add_handlers
from kcodec.printers.tablegenerator import GenerateOptions, PrintFunc, TableConvertor, TableGenerator, type_key

__all__ = ["GenerateOptions", "TableGenerator", "TableConvertor", "PrintFunc", "type_key",
           "default_table_generator"]

_DEFAULT: TableGenerator | None = None


def default_table_generator() -> TableGenerator:
    """The generator with every built-in handler (``printers.NewTableGenerator().With(AddHandlers)``),
    built once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = TableGenerator().with_handlers(add_handlers)
    return _DEFAULT
