"""Validation as kube-apiserver does it.

- :mod:`kcodec.validation.field`: field paths and field errors (apimachinery
  ``pkg/util/validation/field``);
- :mod:`kcodec.validation.names`: the syntax checks of names, label keys and values, ports,
  IPs (apimachinery ``pkg/util/validation``, ``pkg/api/validation`` generic.go and path);
- :mod:`kcodec.validation.objectmeta`: ObjectMeta on create and update (apimachinery
  ``pkg/api/validation/objectmeta.go``, ``pkg/apis/meta/v1/validation``).

Per-kind validation lives next to each API package: ``kcodec.api.<pkg>.validation``.
"""
