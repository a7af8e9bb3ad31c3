"""A Scheme walk-through: register external, internal and unversioned kinds (Go:
k8s.io/apimachinery/pkg/runtime/scheme.go AddKnownTypes, AddUnversionedTypes).

Run: python examples/scheme_example.py
"""
from kcodec.api.apps import v1 as appsv1
from kcodec.api.core import v1 as corev1
from kcodec.api.meta import v1 as metav1
from kcodec.runtime import APIVersionInternal, Scheme
from kcodec.schema import GroupVersion


def main() -> None:
    core_gv = GroupVersion("", "v1")
    extensions_gv = GroupVersion("extensions", "v1beta1")
    core_internal_gv = GroupVersion("", APIVersionInternal)
    unversioned = GroupVersion("", "v1")

    scheme = Scheme("scheme-example")
    scheme.add_known_types(core_gv, corev1.Pod)
    scheme.add_known_types(extensions_gv, appsv1.DaemonSet)
    scheme.add_known_types(core_internal_gv, corev1.Pod)
    scheme.add_unversioned_types(unversioned, metav1.Status)

    for gvk, cls in sorted(scheme.all_known_types().items(), key=lambda kv: str(kv[0])):
        print(f"{gvk}  ->  {cls.__module__}.{cls.__name__}")
    kinds, is_unversioned = scheme.object_kinds(corev1.Pod())
    print("Pod kinds:", ", ".join(map(str, kinds)), "unversioned:", is_unversioned)
    kinds, is_unversioned = scheme.object_kinds(metav1.Status())
    print("Status kinds:", ", ".join(map(str, kinds)), "unversioned:", is_unversioned)
    print("groups registered:", scheme.is_group_registered(""), scheme.is_group_registered("extensions"))


if __name__ == "__main__":
    main()
