"""ListOptions -> URL query parameters, as client-go's ParameterCodec does.

Run: python examples/parameter_codec_example.py
"""
from kcodec.api.core import v1 as corev1
from kcodec.api.meta import v1 as metav1
from kcodec.runtime import ParameterCodec, Scheme
from kcodec.runtime.parameter_codec import urlencode


def main() -> None:
    scheme = Scheme("parameter-codec-example")
    corev1.add_to_scheme(scheme)
    codec = ParameterCodec(scheme)

    options = metav1.ListOptions(limit=1, label_selector="app=foo")
    params = codec.encode_parameters(options, corev1.SCHEME_GROUP_VERSION)
    print(urlencode(params))

    back = metav1.ListOptions()
    codec.decode_parameters(params, corev1.SCHEME_GROUP_VERSION, back)
    print("decoded back:", back.limit, back.label_selector)


if __name__ == "__main__":
    main()
