"""Syntax checks of the CEL expressions built-in kinds carry (DRA device selectors,
admission-policy validations, audit annotations, variables and mutations).

Go compiles each expression in its own environment (k8s.io/dynamic-resource-allocation/cel,
k8s.io/apiserver pkg/admission/plugin/cel) and refuses one that does not compile with
``compilation failed: `` followed by cel-go's issues. kcodec parses the expression with the
CEL library the CRD rules use (:mod:`kcodec.api.apiextensions.cel`, optional ``celpy``):
syntax errors are reported as the CRD rules report them (celpy's position, ``Syntax error:
unexpected input``); type errors (undeclared variables, wrong overloads) are not, since
each kind's typed environment is not modelled. Without celpy nothing is reported. cel-go's
optional syntax (``x.?field``, ``m[?key]``, ``[?x]``, ``{?k: v}``, enabled in Kubernetes'
base environment) parses, as the CRD rules' grammar has it
(:mod:`kcodec.api.apiextensions.cel.syntax`).
"""
from __future__ import annotations

__all__ = ["cel_syntax_error"]


def cel_syntax_error(expression: str) -> str | None:
    """The ``compilation failed: ...`` detail when ``expression`` does not parse as CEL,
    else None (also when the CEL library is not installed)."""
    from kcodec.api.apiextensions.cel import interpreter
    from kcodec.api.apiextensions.cel.compilation import _issue

    celpy = interpreter.load()
    if celpy is None:
        return None
    try:
        interpreter.environment().compile(expression)
    except celpy.CELParseError as exc:
        line = getattr(exc, "line", None) or 1
        col = (getattr(exc, "column", None) or 1) - 1
        return "compilation failed: " + _issue(expression, line, col, "Syntax error: unexpected input")
    except RecursionError:
        return "compilation failed: ERROR: <input>:1:1: expression nested too deeply"
    return None
