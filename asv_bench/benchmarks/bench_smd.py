"""The structured-merge-diff walks of server-side apply (kcodec.managedfields.typed and
fieldpath, the ``smd_*`` kernels) on the fully populated Deployment of bench_apply, one
walk at a time: what an apply of it spends in each (bench_apply times the whole apply).

``validate_to_field_set`` is the applied configuration's validation and field set
(typed/validate.go and tofieldset.go in one walk); ``merge`` merges it over the object it
created (merge.go); ``compare`` compares the two (compare.go); ``to_tree`` / ``from_tree``
write and read the FieldsV1 of its field set (fieldpath/serialize.go); ``ensure_named`` is
set.go's EnsureNamedFieldsAreMembers of that set, as the prune of a re-apply takes it.
"""
from __future__ import annotations

import copy

# _docs first: it puts this checkout on sys.path before kcodec is imported.
from ._docs import MODES, require_kcodec, use_mode
from .bench_apply import deployment_config


class StructuredMergeDiff:
    params = [MODES]
    param_names = ["mode"]

    def setup(self, mode: str) -> None:
        require_kcodec()
        use_mode(mode)
        import kcodec
        from kcodec.api.apps.v1 import Deployment
        from kcodec.managedfields import typed
        from kcodec.managedfields.schema import model_schema

        self.typed = typed
        self.schema = model_schema()
        self.type_ref = self.schema.type_ref_for(Deployment)
        self.config = deployment_config()
        live = kcodec.apply(None, self.config, "deployer")
        self.live = copy.deepcopy(live if isinstance(live, dict) else live.to_dict())
        self.live["metadata"].pop("managedFields", None)
        self.set = typed.validate_to_field_set(self.schema, self.type_ref, self.config)
        self.fields_v1 = self.set.to_tree()

    def time_validate_to_field_set(self, mode: str) -> None:
        self.typed.validate_to_field_set(self.schema, self.type_ref, self.config)

    def time_to_field_set(self, mode: str) -> None:
        self.typed.to_field_set(self.schema, self.type_ref, self.live)

    def time_merge(self, mode: str) -> None:
        self.typed.merge(self.schema, self.type_ref, self.live, self.config)

    def time_compare(self, mode: str) -> None:
        self.typed.compare(self.schema, self.type_ref, self.live, self.config)

    def time_to_tree(self, mode: str) -> None:
        self.set.to_tree()

    def time_from_tree(self, mode: str) -> None:
        from kcodec.managedfields.fieldpath import Set

        Set.from_tree(self.fields_v1)

    def time_ensure_named(self, mode: str) -> None:
        self.set.ensure_named_fields_are_members(self.schema, self.type_ref)
