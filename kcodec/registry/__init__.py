"""The registry layer: what kube-apiserver builds on ``storage.Interface``.

- :mod:`kcodec.registry.request`: the request :class:`~kcodec.registry.request.Context`;
- :mod:`kcodec.registry.rest`: strategies and the Before{Create,Update,Delete} hooks
  (apiserver ``pkg/registry/rest``);
- :mod:`kcodec.registry.generic`: the generic :class:`~kcodec.registry.generic.Store`,
  RESTOptions and storage decorators (apiserver ``pkg/registry/generic``);
- :mod:`kcodec.registry.builtin`: the strategies and stores of every resource
  kube-apiserver serves, grouped as ``APIGroupInfo`` s.
"""
