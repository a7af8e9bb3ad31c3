"""Create-only review resources: answered from the request, never stored.

Go: k/k ``pkg/registry/authentication/selfsubjectreview``, ``.../tokenreview``,
``pkg/registry/authorization/{subjectaccessreview,selfsubjectaccessreview,
localsubjectaccessreview,selfsubjectrulesreview}/rest.go``. The authorizer decides the
access reviews (default :func:`always_allow`, Go's ``--authorization-mode=AlwaysAllow``);
the authenticator (``token -> UserInfo | None``) the token reviews.
"""
from __future__ import annotations

from typing import Any, Callable

from kcodec.api import errors as apierrors
from kcodec.registry.builtin.resources import ResourceInfo
from kcodec.registry.request import Context, UserInfo
from kcodec.schema import GroupKind

__all__ = ["ReviewREST", "always_allow"]


def always_allow(user: Any, attributes: Any) -> tuple[bool, str]:
    """Go's ``authorizerfactory.NewAlwaysAllowAuthorizer``: every request is allowed."""
    return True, ""


class ReviewREST:
    """The storage of one review resource: only ``create``, which returns the review with
    its status filled in."""

    def __init__(self, info: ResourceInfo, *, authorizer: Callable[[Any, Any], tuple[bool, str]] = always_allow,
                 authenticator: Callable[[str], UserInfo | None] | None = None) -> None:
        self.info = info
        self.authorizer = authorizer
        self.authenticator = authenticator

    def __repr__(self) -> str:
        return f"ReviewREST({self.info.resource}.{self.info.group})"

    def namespace_scoped(self) -> bool:
        return self.info.namespaced

    def verbs(self) -> list[str]:
        return ["create"]

    def new(self) -> Any:
        from kcodec import legacyscheme
        from kcodec.schema import GroupVersionKind

        return legacyscheme.scheme.new(GroupVersionKind(self.info.group, "__internal", self.info.kind))

    def create(self, ctx: Context, obj: Any, create_validation: Any = None, options: Any = None) -> Any:
        kind = self.info.kind
        if type(obj).__name__ != kind:
            raise apierrors.new_bad_request(f"not a {kind}: {type(obj).__name__}")
        if create_validation is not None:
            create_validation(ctx, obj.deep_copy())
        handler = getattr(self, "_" + kind)
        return handler(ctx, obj)

    def _user(self, ctx: Context) -> UserInfo:
        return ctx.user if ctx.user is not None else UserInfo()

    def _SelfSubjectReview(self, ctx: Context, obj: Any) -> Any:
        from kcodec.api.authentication import internal as authn

        user = self._user(ctx)
        obj.status = authn.SelfSubjectReviewStatus(user_info=authn.UserInfo(
            username=user.name, uid=user.uid, groups=list(user.groups) or None,
            extra={k: list(v) for k, v in user.extra.items()} or None))
        return obj

    def _TokenReview(self, ctx: Context, obj: Any) -> Any:
        from kcodec.api.authentication import internal as authn
        from kcodec.validation import field as f

        if not obj.spec.token:
            raise apierrors.new_invalid(GroupKind("authentication.k8s.io", "TokenReview"), "",
                                        f.ErrorList([f.required(f.Path("spec", "token"), "")]))
        user = self.authenticator(obj.spec.token) if self.authenticator is not None else None
        if user is None:
            obj.status = authn.TokenReviewStatus(authenticated=False, audiences=list(obj.spec.audiences or []) or None)
        else:
            obj.status = authn.TokenReviewStatus(authenticated=True, user=authn.UserInfo(
                username=user.name, uid=user.uid, groups=list(user.groups) or None),
                audiences=list(obj.spec.audiences or []) or None)
        return obj

    def _access(self, ctx: Context, obj: Any, user: Any) -> Any:
        from kcodec.api.authorization import internal as authz

        allowed, reason = self.authorizer(user, obj.spec)
        obj.status = authz.SubjectAccessReviewStatus(allowed=allowed, denied=False, reason=reason)
        return obj

    def _validate(self, obj: Any) -> None:
        """The kind's validation (k/k pkg/apis/authorization/validation), run by Go's review
        REST storages before asking the authorizer; errors are 422 Invalid."""
        from kcodec.api.authorization import validation as authzv
        from kcodec.registry.builtin.strategies import snake_kind

        errs = getattr(authzv, "validate_" + snake_kind(self.info.kind))(obj)
        if errs:
            raise apierrors.new_invalid(GroupKind("authorization.k8s.io", self.info.kind), "", errs)

    def _SubjectAccessReview(self, ctx: Context, obj: Any) -> Any:
        self._validate(obj)
        return self._subject_access(ctx, obj)

    def _subject_access(self, ctx: Context, obj: Any) -> Any:
        user = UserInfo(name=obj.spec.user, uid=obj.spec.uid, groups=list(obj.spec.groups or ()))
        return self._access(ctx, obj, user)

    def _LocalSubjectAccessReview(self, ctx: Context, obj: Any) -> Any:
        if not obj.metadata.namespace:
            # apiserver's create handler puts the request's namespace on the object
            # (rest.EnsureObjectNamespaceMatchesRequestNamespace).
            obj.metadata.namespace = ctx.namespace
        if obj.spec.resource_attributes is not None and obj.spec.resource_attributes.namespace != ctx.namespace:
            raise apierrors.new_bad_request(
                f"spec.resourceAttributes.namespace must match namespace: {ctx.namespace}")
        self._validate(obj)
        return self._subject_access(ctx, obj)

    def _SelfSubjectAccessReview(self, ctx: Context, obj: Any) -> Any:
        self._validate(obj)
        return self._access(ctx, obj, self._user(ctx))

    def _SelfSubjectRulesReview(self, ctx: Context, obj: Any) -> Any:
        from kcodec.api.authorization import internal as authz

        allowed, _ = self.authorizer(self._user(ctx), None)
        if allowed:
            obj.status = authz.SubjectRulesReviewStatus(
                resource_rules=[authz.ResourceRule(verbs=["*"], api_groups=["*"], resources=["*"])],
                non_resource_rules=[authz.NonResourceRule(verbs=["*"], non_resource_urls=["*"])],
                incomplete=False)
        else:
            obj.status = authz.SubjectRulesReviewStatus(incomplete=True)
        return obj
