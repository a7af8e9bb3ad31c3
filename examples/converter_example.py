"""A Converter walk-through: apps/v1beta1 Deployment -> internal -> apps/v1 (Go:
k8s.io/apimachinery/pkg/conversion/converter.go and runtime/scheme.go ConvertToVersion).

Here the internal kind is served by the v1 type, so the second step is
the scheme's short-circuit (the target kind is already one of the object's kinds).

Run: python examples/converter_example.py
"""
from kcodec.api.apps import v1 as appsv1
from kcodec.api.apps import v1beta1 as appsv1beta1
from kcodec.api.meta import v1 as metav1
from kcodec.conversion import Scope
from kcodec.runtime import APIVersionInternal, Scheme
from kcodec.schema import GroupVersion

APPS_INTERNAL = GroupVersion("apps", APIVersionInternal)


def v1beta1_to_v1(src: appsv1beta1.Deployment, dst: appsv1.Deployment, scope: Scope) -> None:
    """Field-by-field through the JSON form: the two versions share their field names,
    and what v1 dropped (spec.rollbackTo) is left behind."""
    converted = appsv1.Deployment.from_dict(src.to_dict())
    for f in ("metadata", "spec", "status"):
        setattr(dst, f, getattr(converted, f))


def main() -> None:
    scheme = Scheme("converter-example")
    scheme.add_known_types(appsv1beta1.SCHEME_GROUP_VERSION, appsv1beta1.Deployment)
    scheme.add_known_types(appsv1.SCHEME_GROUP_VERSION, appsv1.Deployment)
    scheme.add_known_types(APPS_INTERNAL, appsv1.Deployment)
    metav1.add_to_group_version(scheme, appsv1beta1.SCHEME_GROUP_VERSION)
    metav1.add_to_group_version(scheme, appsv1.SCHEME_GROUP_VERSION)
    scheme.add_conversion_func(appsv1beta1.Deployment, appsv1.Deployment, v1beta1_to_v1)

    v1beta1_deployment = appsv1beta1.Deployment(
        kind="Deployment",
        api_version="apps/v1beta1",
        metadata=metav1.ObjectMeta(name="web", namespace="default"),
        spec=appsv1beta1.DeploymentSpec(replicas=3),
    )

    obj_internal = scheme.convert_to_version(v1beta1_deployment, APPS_INTERNAL)
    print("GVK:", obj_internal.get_object_kind().group_version_kind())

    obj_v1 = scheme.convert_to_version(obj_internal, appsv1.SCHEME_GROUP_VERSION)
    assert isinstance(obj_v1, appsv1.Deployment), "got wrong type"
    print("GVK:", obj_v1.get_object_kind().group_version_kind())
    print("replicas:", obj_v1.spec.replicas, "name:", obj_v1.metadata.name)


if __name__ == "__main__":
    main()
