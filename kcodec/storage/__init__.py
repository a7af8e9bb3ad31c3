"""Storage-side codecs: how objects are written to and read from etcd."""
from kcodec.storage.codec import StorageCodec, StorageCodecConfig, new_storage_codec, parse_media_type
from kcodec.storage.store import Preconditions, Store, WatchEvent, Watcher
from kcodec.storage import value

__all__ = ["StorageCodec", "StorageCodecConfig", "new_storage_codec", "parse_media_type",
           "Store", "Preconditions", "WatchEvent", "Watcher"]
__all__ += ["value"]
from kcodec.storage.factory import (
    DefaultResourceEncodingConfig,
    DefaultStorageFactory,
    ResourceEncodingConfig,
    StorageConfig,
    kube_apiserver_storage_factory,
    storage_groups_to_encoding_version,
)
from kcodec.storage.value import (
    AESCBCTransformer,
    AESGCMTransformer,
    IdentityTransformer,
    KMSv2Transformer,
    PrefixTransformers,
    SecretboxTransformer,
    load_encryption_config,
)

__all__ += ["ResourceEncodingConfig", "DefaultResourceEncodingConfig", "storage_groups_to_encoding_version",
            "DefaultStorageFactory", "StorageConfig", "kube_apiserver_storage_factory",
            "IdentityTransformer", "AESCBCTransformer", "AESGCMTransformer", "SecretboxTransformer",
            "KMSv2Transformer", "PrefixTransformers", "load_encryption_config"]
