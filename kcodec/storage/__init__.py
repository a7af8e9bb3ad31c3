"""Storage-side codecs: how objects are written to and read from etcd."""
from kcodec.storage.codec import StorageCodec, StorageCodecConfig, new_storage_codec, parse_media_type
from kcodec.storage import value

__all__ = ["StorageCodec", "StorageCodecConfig", "new_storage_codec", "parse_media_type"]
__all__ += ["value"]
