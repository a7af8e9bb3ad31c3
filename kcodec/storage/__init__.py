"""Storage-side codecs: how objects are written to and read from etcd."""
from kcodec.storage.codec import StorageCodec, StorageCodecConfig, new_storage_codec, parse_media_type
from kcodec.storage.store import Preconditions, Store, WatchEvent, Watcher
from kcodec.storage import value

__all__ = ["StorageCodec", "StorageCodecConfig", "new_storage_codec", "parse_media_type",
           "Store", "Preconditions", "WatchEvent", "Watcher"]
__all__ += ["value"]
