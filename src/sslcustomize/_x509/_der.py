"""Read the facts of an X.509 certificate from its DER bytes, with the standard library only.

The runtime path (startup hook, contexts, records, rejection messages) must not import
``cryptography``; what it needs from a certificate -- names, dates, the key, the subject
alternative names, a few extensions and the key's pin -- is read here by a small, strict DER
reader that follows the fixed X.509 schema (RFC 5280, section 4.1) and nothing else.

Strictness, so that every malformed input is one error (:class:`DERError`) and never an
``IndexError``, ``RecursionError`` or ``UnicodeDecodeError``:

* definite lengths only, in their shortest form, at most four length octets;
* every element ends exactly where its parent says, with no trailing bytes;
* low tag numbers only, primitive or constructed exactly as the schema says;
* no recursion: the reader descends the schema, so its depth is the schema's (at most 7);
* ``BOOLEAN`` is ``00`` or ``FF``, ``INTEGER`` is minimal, a ``BIT STRING``'s unused bits
  are zero, a DEFAULT value is never encoded, times have the exact RFC 5280 forms.

.. warning::
    This module reads certificates; it verifies nothing. No signature is checked, no point is
    checked to lie on its curve and no path is built: OpenSSL does all of that during the
    handshake. Callers treat :class:`DERError` as "this certificate cannot be read" and fall
    back to a message that does not depend on it, never to weaker verification.
"""

from __future__ import annotations

from functools import lru_cache

from sslcustomize._support._frozen import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt

__all__ = [
    "CertificateFacts",
    "DERError",
    "Extension",
    "Name",
    "expiry_and_pin",
    "key_algorithm",
    "parse_certificate",
    "pin_or_none",
    "read_elements",
    "spki_pin",
]

# Universal tags, as the identifier octet reads (constructed bit included).
_BOOLEAN = 0x01
_INTEGER = 0x02
_BIT_STRING = 0x03
_OCTET_STRING = 0x04
_NULL = 0x05
_OID = 0x06
_UTC_TIME = 0x17
_GENERALIZED_TIME = 0x18
_SEQUENCE = 0x30
_SET = 0x31

# RFC 5280 object identifiers read here.
_EXT_KEY_USAGE = "2.5.29.15"
_EXT_SAN = "2.5.29.17"
_EXT_BASIC_CONSTRAINTS = "2.5.29.19"
_EXT_EKU = "2.5.29.37"
_EXT_AIA = "1.3.6.1.5.5.7.1.1"
_CA_ISSUERS = "1.3.6.1.5.5.7.48.2"
_COMMON_NAME = "2.5.4.3"

_RSA = "1.2.840.113549.1.1.1"
_RSA_PSS = "1.2.840.113549.1.1.10"
_EC = "1.2.840.10045.2.1"
_DSA = "1.2.840.10040.4.1"
_ED25519 = "1.3.101.112"
_ED448 = "1.3.101.113"
_X25519 = "1.3.101.110"
_X448 = "1.3.101.111"

# Short attribute names in RFC 4514 strings: the same set cryptography's rfc4514_string() uses,
# so that records and messages read as they did when cryptography wrote them.
_RFC4514_NAMES = {
    "2.5.4.3": "CN",
    "2.5.4.7": "L",
    "2.5.4.8": "ST",
    "2.5.4.10": "O",
    "2.5.4.11": "OU",
    "2.5.4.6": "C",
    "2.5.4.9": "STREET",
    "0.9.2342.19200300.100.1.25": "DC",
    "0.9.2342.19200300.100.1.1": "UID",
}

# Signature algorithms by their usual (OpenSSL / cryptography) names.
SIGNATURE_NAMES = {
    "1.2.840.113549.1.1.4": "md5WithRSAEncryption",
    "1.2.840.113549.1.1.5": "sha1WithRSAEncryption",
    "1.3.14.3.2.29": "sha1WithRSAEncryption",
    "1.2.840.113549.1.1.14": "sha224WithRSAEncryption",
    "1.2.840.113549.1.1.11": "sha256WithRSAEncryption",
    "1.2.840.113549.1.1.12": "sha384WithRSAEncryption",
    "1.2.840.113549.1.1.13": "sha512WithRSAEncryption",
    "1.2.840.113549.1.1.10": "rsassaPss",
    "1.2.840.10045.4.1": "ecdsa-with-SHA1",
    "1.2.840.10045.4.3.1": "ecdsa-with-SHA224",
    "1.2.840.10045.4.3.2": "ecdsa-with-SHA256",
    "1.2.840.10045.4.3.3": "ecdsa-with-SHA384",
    "1.2.840.10045.4.3.4": "ecdsa-with-SHA512",
    "1.2.840.10040.4.3": "dsa-with-sha1",
    "2.16.840.1.101.3.4.3.1": "dsa-with-sha224",
    "2.16.840.1.101.3.4.3.2": "dsa-with-sha256",
    "1.3.101.112": "ed25519",
    "1.3.101.113": "ed448",
}

# Named curves: OID -> (name as cryptography and OpenSSL spell it, field size in bits).
_CURVES = {
    "1.2.840.10045.3.1.1": ("secp192r1", 192),
    "1.3.132.0.33": ("secp224r1", 224),
    "1.2.840.10045.3.1.7": ("secp256r1", 256),
    "1.3.132.0.34": ("secp384r1", 384),
    "1.3.132.0.35": ("secp521r1", 521),
    "1.3.132.0.10": ("secp256k1", 256),
    "1.3.36.3.3.2.8.1.1.7": ("brainpoolP256r1", 256),
    "1.3.36.3.3.2.8.1.1.11": ("brainpoolP384r1", 384),
    "1.3.36.3.3.2.8.1.1.13": ("brainpoolP512r1", 512),
}

# Keys of one fixed size: OID -> (type, octets, bits as OpenSSL counts them, if read here).
_FIXED_KEYS: dict[str, tuple[str, int, int | None]] = {
    _ED25519: ("Ed25519", 32, 253),
    _ED448: ("Ed448", 57, 456),
    _X25519: ("X25519", 32, 253),
    _X448: ("X448", 56, 448),
}

# Post-quantum signature keys (FIPS 204 ML-DSA, FIPS 205 SLH-DSA; RFC 9881, RFC 9909): OID ->
# (name as OpenSSL 3.5 spells it, public key octets). The same OIDs name their signatures.
_ML_DSA = {
    "2.16.840.1.101.3.4.3.17": ("ML-DSA-44", 1312),
    "2.16.840.1.101.3.4.3.18": ("ML-DSA-65", 1952),
    "2.16.840.1.101.3.4.3.19": ("ML-DSA-87", 2592),
}
_SLH_DSA = {
    f"2.16.840.1.101.3.4.3.{arc}": (f"SLH-DSA-{hash_}-{bits}{size}", 2 * int(bits) // 8)
    for arc, (hash_, bits, size) in enumerate(
        (
            (hash_, bits, size)
            for hash_ in ("SHA2", "SHAKE")
            for bits in ("128", "192", "256")
            for size in ("s", "f")
        ),
        start=20,
    )
}
SIGNATURE_NAMES.update({oid: name for oid, (name, _length) in {**_ML_DSA, **_SLH_DSA}.items()})
_FIXED_KEYS.update(
    {oid: (name, length, None) for oid, (name, length) in {**_ML_DSA, **_SLH_DSA}.items()}
)

# KeyUsage bits (RFC 5280, 4.2.1.3), in bit order.
_KEY_USAGES = (
    "digital_signature",
    "content_commitment",
    "key_encipherment",
    "data_encipherment",
    "key_agreement",
    "key_cert_sign",
    "crl_sign",
    "encipher_only",
    "decipher_only",
)

# Attribute value string types: tag -> codec. BIT STRING (x500UniqueIdentifier) is hex.
_STRING_CODECS = {
    0x0C: "utf-8",  # UTF8String
    0x12: "utf-8",  # NumericString
    0x13: "utf-8",  # PrintableString
    0x14: "utf-8",  # TeletexString: read as UTF-8, as cryptography does
    0x15: "utf-8",  # VideotexString
    0x16: "utf-8",  # IA5String
    0x19: "utf-8",  # GraphicString
    0x1A: "utf-8",  # VisibleString
    0x1B: "utf-8",  # GeneralString
    0x1C: "utf-32-be",  # UniversalString
    0x1E: "utf-16-be",  # BMPString
}


class DERError(ValueError):
    """The bytes are not a certificate this reader accepts: treat the certificate as unreadable."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Name:
    """A distinguished name (subject or issuer).

    Attributes:
        rdns: The relative distinguished names in encoded order, each a tuple of
            ``(oid, value)`` pairs; a ``BIT STRING`` value is written ``#`` and its hex octets.
        rfc4514: The name as an RFC 4514 string, last RDN first (as cryptography writes it).
        der: The name's encoding, tag and length included.
    """

    rdns: tuple[tuple[tuple[str, str], ...], ...]
    rfc4514: str
    der: bytes

    @property
    def attributes(self) -> tuple[tuple[str, str], ...]:
        """Return every ``(oid, value)`` attribute, in encoded order."""
        return tuple(attribute for rdn in self.rdns for attribute in rdn)

    def short(self) -> str:
        """Return the first common name, else the RFC 4514 string, else ``(empty name)``."""
        for rdn in self.rdns:
            for oid, value in rdn:
                if oid == _COMMON_NAME:
                    return value
        return self.rfc4514 or "(empty name)"


@dataclass(frozen=True, slots=True, kw_only=True)
class Extension:
    """One extension, as encoded: its OID, criticality and the octets of its value."""

    oid: str
    critical: bool
    value: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class CertificateFacts:
    """What the runtime reads from a certificate.

    Attributes:
        version: 1, 2 or 3.
        serial: The serial number (signed, as encoded).
        signature_algorithm_oid: The outer signature algorithm, dotted.
        issuer: The issuer name.
        subject: The subject name.
        not_before: Start of validity, aware, UTC.
        not_after: End of validity, aware, UTC.
        spki: The SubjectPublicKeyInfo, exactly as encoded (tag and length included).
        key_algorithm_oid: The public key's algorithm, dotted.
        key_type: ``RSA`` (``key_algorithm_oid`` tells an RSASSA-PSS key), ``EC``, ``DSA``,
            ``Ed25519``, ``Ed448``, ``X25519``, ``X448``, ``ML-DSA-65`` (and the other ML-DSA
            and SLH-DSA parameter sets) or, for any other algorithm, its dotted OID.
        key_bits: RSA / DSA modulus bits, EC field bits, 253 for Ed25519, 456 for Ed448 (as
            OpenSSL counts them); ``None`` when not known.
        curve: The EC named curve (``secp256r1``...), or its dotted OID if not known; ``None``
            for other keys.
        extensions: Every extension, in encoded order.
        dns_names: SAN ``dNSName`` entries, in order.
        ip_addresses: SAN ``iPAddress`` entries, as :mod:`ipaddress` writes them.
        ca: The basicConstraints cA flag; ``None`` without the extension.
        path_length: The basicConstraints pathLenConstraint, if any.
        key_usage: Names of the keyUsage bits set (``key_cert_sign``...); ``None`` without the
            extension.
        extended_key_usage: extKeyUsage OIDs, dotted; ``None`` without the extension.
        ca_issuers: AIA caIssuers URIs, in order.
    """

    version: int
    serial: int
    signature_algorithm_oid: str
    issuer: Name
    subject: Name
    not_before: dt.datetime
    not_after: dt.datetime
    spki: bytes
    key_algorithm_oid: str
    key_type: str
    key_bits: int | None
    curve: str | None
    extensions: tuple[Extension, ...]
    dns_names: tuple[str, ...]
    ip_addresses: tuple[str, ...]
    ca: bool | None
    path_length: int | None
    key_usage: frozenset[str] | None
    extended_key_usage: tuple[str, ...] | None
    ca_issuers: tuple[str, ...]

    @property
    def signature_algorithm(self) -> str:
        """Return the signature algorithm's usual name, or its dotted OID if it has none here."""
        return SIGNATURE_NAMES.get(self.signature_algorithm_oid, self.signature_algorithm_oid)

    @property
    def key(self) -> str:
        """Return the key as a person reads it: ``RSA 2048``, ``EC secp256r1``, ``Ed25519``."""
        if self.curve is not None:
            return f"{self.key_type} {self.curve}"
        if self.key_type in {"RSA", "DSA"} and self.key_bits is not None:
            return f"{self.key_type} {self.key_bits}"
        return self.key_type

    @property
    def names(self) -> tuple[str, ...]:
        """Return the SAN DNS names, then the SAN IP addresses."""
        return self.dns_names + self.ip_addresses

    @property
    def pin(self) -> str:
        """Return the ``sha256/BASE64`` pin of the public key, as curl writes it."""
        return _pin(self.spki)

    @property
    def self_issued(self) -> bool:
        """Return whether subject and issuer are the same name, byte for byte."""
        return self.subject.der == self.issuer.der


# --- TLV reading -------------------------------------------------------------------------------

# One element: (tag, where its header begins, where its contents start, where they stop).
_Element = tuple[int, int, int, int]


def _long_length(data: bytes, pos: int, end: int, first: int) -> tuple[int, int]:
    """Read a long-form length whose first octet was ``first``; return it and what follows."""
    count = first & 0x7F
    if count == 0:
        raise DERError("indefinite length")
    if count > 4:  # a certificate is far below 4 GiB
        raise DERError("length too large")
    if pos + count > end:
        raise DERError("truncated length")
    if data[pos] == 0:
        raise DERError("length not in its shortest form")
    length = int.from_bytes(data[pos : pos + count], "big")
    if length < 0x80:
        raise DERError("length not in its shortest form")
    return length, pos + count


def read_elements(data: bytes, pos: int, end: int) -> list[_Element]:
    """Read every element from ``pos`` to exactly ``end``, without descending into them.

    Each element is ``(tag, where its header begins, where its contents start, where they
    stop)``. The one TLV reader of the package: the subject hash walks names with it too.
    One call reads all the elements of a container: that, more than anything, makes this
    reader faster than loading the certificate with cryptography.
    """
    found: list[_Element] = []
    while pos < end:
        begin = pos
        if pos + 2 > end:
            raise DERError("truncated element")
        tag = data[pos]
        length = data[pos + 1]
        pos += 2
        if tag & 0x1F == 0x1F:
            raise DERError("high tag numbers are not used in certificates")
        if length & 0x80:
            length, pos = _long_length(data, pos, end, length)
        stop = pos + length
        if stop > end:
            raise DERError("truncated element: it runs past its container")
        found.append((tag, begin, pos, stop))
        pos = stop
    return found


def _shape(elements: list[_Element], tags: tuple[int, ...], what: str) -> None:
    """Check that ``elements`` are exactly ``tags``, in order."""
    if len(elements) != len(tags):
        raise DERError(f"malformed {what}")
    for element, tag in zip(elements, tags):  # noqa: B905 - lengths checked just above
        if element[0] != tag:
            raise DERError(f"malformed {what}")


def _only(data: bytes, start: int, stop: int, tag: int, what: str) -> _Element:
    """Read ``start..stop`` as exactly one element with ``tag``."""
    elements = read_elements(data, start, stop)
    if len(elements) != 1 or elements[0][0] != tag:
        raise DERError(f"malformed {what}")
    return elements[0]


def _contents(data: bytes, element: _Element, tag: int, what: str) -> list[_Element]:
    """Return the elements inside ``element``, which must have ``tag``."""
    if element[0] != tag:
        raise DERError(f"malformed {what}")
    return read_elements(data, element[2], element[3])


@lru_cache(maxsize=512)
def _oid_text(octets: bytes) -> str:
    """Return an OBJECT IDENTIFIER's dotted form (cached: certificates repeat a few OIDs)."""
    if not octets or octets[-1] & 0x80:
        raise DERError("malformed object identifier")
    arcs: list[int] = []
    value = 0
    first = True
    for octet in octets:
        if first and octet == 0x80:
            raise DERError("object identifier arc not in its shortest form")
        value = (value << 7) | (octet & 0x7F)
        first = not octet & 0x80
        if first:
            arcs.append(value)
            value = 0
    head = arcs[0]
    top = 0 if head < 40 else 1 if head < 80 else 2
    return ".".join(map(str, (top, head - 40 * top, *arcs[1:])))


def _oid(data: bytes, element: _Element) -> str:
    if element[0] != _OID:
        raise DERError("expected an object identifier")
    return _oid_text(data[element[2] : element[3]])


def _integer(data: bytes, start: int, stop: int) -> int:
    """Return the value of INTEGER contents, checking the encoding is minimal."""
    if start == stop:
        raise DERError("empty integer")
    if stop - start > 1 and (
        (data[start] == 0 and not data[start + 1] & 0x80)
        or (data[start] == 0xFF and data[start + 1] & 0x80)
    ):
        raise DERError("integer not in its shortest form")
    return int.from_bytes(data[start:stop], "big", signed=True)


def _unsigned_bits(data: bytes, element: _Element) -> int:
    """Return the bit length of a positive INTEGER (its tag checked by the caller)."""
    _tag, _begin, start, stop = element
    _integer(data, start, min(stop, start + 2))  # minimal form, non-empty
    if data[start] & 0x80:
        raise DERError("negative value where a positive one is required")
    if data[start] == 0:
        start += 1
        if start == stop:
            raise DERError("zero where a positive value is required")
    return (stop - start - 1) * 8 + data[start].bit_length()


def _bit_string(data: bytes, start: int, stop: int) -> tuple[int, int]:
    """Check BIT STRING contents; return (unused bits, where the bits start)."""
    if start == stop:
        raise DERError("empty bit string")
    unused = data[start]
    if unused > 7 or (unused and start + 1 == stop):
        raise DERError("malformed bit string")
    if unused and data[stop - 1] & ((1 << unused) - 1):
        raise DERError("bit string padding bits are not zero")
    return unused, start + 1


def _boolean(data: bytes, start: int, stop: int) -> bool:
    if stop - start != 1 or data[start] not in (0x00, 0xFF):
        raise DERError("malformed boolean")
    return data[start] == 0xFF


def _ascii(data: bytes, start: int, stop: int) -> str:
    raw = data[start:stop]
    if not raw.isascii():
        raise DERError("non-ASCII octets in an IA5String")
    return raw.decode("ascii")


# --- Names -------------------------------------------------------------------------------------


def _escape(value: str) -> str:
    """Escape an attribute value for an RFC 4514 string (section 2.4)."""
    if not value:
        return ""
    for special in ("\\", '"', "+", ",", ";", "<", ">"):
        if special in value:
            value = value.replace(special, "\\" + special)
    value = value.replace("\0", "\\00")
    if value[0] in "# ":
        value = "\\" + value
    if value[-1] == " ":
        value = value[:-1] + "\\ "
    return value


def _attribute(data: bytes, element: _Element) -> tuple[str, str, str]:
    """Read an AttributeTypeAndValue; return its OID, value and RFC 4514 form."""
    pair = _contents(data, element, _SEQUENCE, "attribute")
    if len(pair) != 2:
        raise DERError("malformed attribute")
    oid = _oid(data, pair[0])
    tag, _begin, start, stop = pair[1]
    raw = data[start:stop]
    if tag == _BIT_STRING:  # x500UniqueIdentifier: shown as hex, as RFC 4514 says
        _bit_string(data, start, stop)
        value = "#" + raw.hex()
        return oid, value, f"{_RFC4514_NAMES.get(oid, oid)}={value}"
    codec = _STRING_CODECS.get(tag)
    if codec is None:
        raise DERError(f"attribute value of unsupported type 0x{tag:02x}")
    try:
        value = raw.decode(codec)
    except UnicodeDecodeError as error:
        raise DERError(f"attribute value is not valid {codec}") from error
    return oid, value, f"{_RFC4514_NAMES.get(oid, oid)}={_escape(value)}"


def _name(data: bytes, element: _Element) -> Name:
    rdns: list[tuple[tuple[str, str], ...]] = []
    texts: list[str] = []
    for rdn in _contents(data, element, _SEQUENCE, "name"):
        attributes = _contents(data, rdn, _SET, "relative distinguished name")
        if not attributes:
            raise DERError("empty relative distinguished name")
        read = [_attribute(data, attribute) for attribute in attributes]
        rdns.append(tuple((oid, value) for oid, value, _text in read))
        texts.append("+".join(text for _oid_text, _value, text in read))
    texts.reverse()
    return Name(rdns=tuple(rdns), rfc4514=",".join(texts), der=data[element[1] : element[3]])


# --- Times and keys ----------------------------------------------------------------------------


def _time(data: bytes, element: _Element) -> dt.datetime:
    """Read a UTCTime (``YYMMDDHHMMSSZ``) or GeneralizedTime (``YYYYMMDDHHMMSSZ``)."""
    tag, _begin, start, stop = element
    raw = data[start:stop]
    if tag == _UTC_TIME:
        if len(raw) != 13 or raw[12] != 0x5A or not raw[:12].isdigit():
            raise DERError("malformed UTCTime")
        year = int(raw[:2])
        year += 2000 if year < 50 else 1900  # RFC 5280, 4.1.2.5.1
        rest = raw[2:12]
    elif tag == _GENERALIZED_TIME:
        if len(raw) != 15 or raw[14] != 0x5A or not raw[:14].isdigit():
            raise DERError("malformed GeneralizedTime")
        year = int(raw[:4])
        rest = raw[4:14]
    else:
        raise DERError(f"expected a time, found tag 0x{tag:02x}")
    import datetime as dt  # noqa: PLC0415 - read with a certificate's dates, not by a connection

    try:
        return dt.datetime(
            year,
            int(rest[0:2]),
            int(rest[2:4]),
            int(rest[4:6]),
            int(rest[6:8]),
            int(rest[8:10]),
            tzinfo=dt.timezone.utc,
        )
    except ValueError as error:
        raise DERError(f"impossible date or time: {raw!r}") from error


def _algorithm(data: bytes, element: _Element) -> tuple[str, _Element | None]:
    """Read an AlgorithmIdentifier; return its OID and its parameters, if any."""
    parts = _contents(data, element, _SEQUENCE, "algorithm identifier")
    if not 1 <= len(parts) <= 2:
        raise DERError("malformed algorithm identifier")
    return _oid(data, parts[0]), parts[1] if len(parts) == 2 else None


_KeyFacts = tuple[str, int | None, str | None]  # type, bits, curve


def _rsa_key(data: bytes, key_start: int, key_stop: int) -> int:
    """Read an RSAPublicKey (RFC 8017, A.1.1); return the modulus bits."""
    numbers = _contents(data, _only(data, key_start, key_stop, _SEQUENCE, "RSA key"), _SEQUENCE, "")
    _shape(numbers, (_INTEGER, _INTEGER), "RSA key")
    _unsigned_bits(data, numbers[1])
    return _unsigned_bits(data, numbers[0])


def _ec_key(data: bytes, params: _Element | None, point: bytes) -> _KeyFacts:
    """Read an EC key's named curve (RFC 5480, 2.1.1) and check the point's length."""
    if params is None:
        raise DERError("EC key without curve parameters")
    if params[0] != _OID:  # explicit parameters (RFC 5480 forbids them): readable, not named
        return "EC", None, "(explicit parameters)"
    curve_oid = _oid(data, params)
    curve, bits = _CURVES.get(curve_oid, (curve_oid, 0))
    if bits:
        field = (bits + 7) // 8
        form = point[:1]
        if not (
            (form == b"\x04" and len(point) == 1 + 2 * field)
            or (form in (b"\x02", b"\x03") and len(point) == 1 + field)
        ):
            raise DERError("malformed EC point")
    return "EC", bits or None, curve


def _dsa_key(data: bytes, params: _Element | None, key_start: int, key_stop: int) -> int | None:
    """Read a DSA key (RFC 3279, 2.3.2); return the bits of p if the parameters are here."""
    bits: int | None = None
    if params is not None:
        numbers = _contents(data, params, _SEQUENCE, "DSA parameters")
        _shape(numbers, (_INTEGER, _INTEGER, _INTEGER), "DSA parameters")
        bits = _unsigned_bits(data, numbers[0])
        _unsigned_bits(data, numbers[1])
        _unsigned_bits(data, numbers[2])
    _unsigned_bits(data, _only(data, key_start, key_stop, _INTEGER, "DSA key"))
    return bits


def _public_key(data: bytes, element: _Element) -> tuple[str, _KeyFacts]:
    """Read a SubjectPublicKeyInfo: its algorithm OID, then (type, bits, curve)."""
    parts = _contents(data, element, _SEQUENCE, "public key")
    _shape(parts, (_SEQUENCE, _BIT_STRING), "public key")
    oid, params = _algorithm(data, parts[0])
    unused, key_start = _bit_string(data, parts[1][2], parts[1][3])
    key_stop = parts[1][3]
    if unused:
        raise DERError("a public key is whole octets")
    if oid == _RSA:
        if params is not None and (params[0] != _NULL or params[2] != params[3]):
            raise DERError("RSA parameters must be NULL")
        return oid, ("RSA", _rsa_key(data, key_start, key_stop), None)
    if oid == _RSA_PSS:  # an RSA key for PSS only; its parameters (restrictions) are not read
        return oid, ("RSA", _rsa_key(data, key_start, key_stop), None)
    if oid == _EC:
        return oid, _ec_key(data, params, data[key_start:key_stop])
    fixed = _FIXED_KEYS.get(oid)
    if fixed is not None:
        name, length, bits = fixed
        if params is not None or key_stop - key_start != length:
            raise DERError(f"malformed {name} key")
        return oid, (name, bits, None)
    if oid == _DSA:
        return oid, ("DSA", _dsa_key(data, params, key_start, key_stop), None)
    return oid, (oid, None, None)


# --- Extensions --------------------------------------------------------------------------------


def _general_name(data: bytes, element: _Element) -> None:
    """Check one GeneralName (RFC 5280, 4.2.1.6)."""
    tag, _begin, start, stop = element
    if tag in (0x81, 0x82, 0x86):  # rfc822Name, dNSName, URI: IA5String
        _ascii(data, start, stop)
    elif tag == 0x87:  # iPAddress
        if stop - start not in (4, 16):
            raise DERError("an IP address in a name is 4 or 16 octets")
    elif tag == 0x88:  # registeredID
        _oid_text(data[start:stop])
    elif tag == 0xA4:  # directoryName, EXPLICIT Name
        _name(data, _only(data, start, stop, _SEQUENCE, "directory name"))
    elif tag not in (0xA0, 0xA3, 0xA5):  # otherName, x400Address, ediPartyName: not read
        raise DERError(f"unknown general name tag 0x{tag:02x}")


def _sequence_of(value: bytes) -> list[_Element]:
    """Return the elements of an extension value that is exactly one SEQUENCE."""
    return _contents(value, _only(value, 0, len(value), _SEQUENCE, "extension"), _SEQUENCE, "")


def _ip_text(packed: bytes) -> str:
    """Return an address as :mod:`ipaddress` writes it (imported only for IPv6)."""
    if len(packed) == 4:
        return "%d.%d.%d.%d" % tuple(packed)  # noqa: UP031 - the fastest spelling here
    import ipaddress  # noqa: PLC0415 - only for certificates that list IPv6 addresses

    return str(ipaddress.IPv6Address(packed))


def _subject_alt_names(value: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    dns: list[str] = []
    ips: list[str] = []
    for name in _sequence_of(value):
        _general_name(value, name)
        tag, _begin, start, stop = name
        if tag == 0x82:
            dns.append(value[start:stop].decode("ascii"))
        elif tag == 0x87:
            ips.append(_ip_text(value[start:stop]))
    return tuple(dns), tuple(ips)


def _basic_constraints(value: bytes) -> tuple[bool, int | None]:
    parts = _sequence_of(value)
    ca = False
    if parts and parts[0][0] == _BOOLEAN:
        ca = _boolean(value, parts[0][2], parts[0][3])
        if not ca:
            raise DERError("DEFAULT value encoded (cA FALSE)")
        parts = parts[1:]
    if not parts:
        return ca, None
    _shape(parts, (_INTEGER,), "basic constraints")
    path_length = _integer(value, parts[0][2], parts[0][3])
    if path_length < 0:
        raise DERError("negative path length")
    return ca, path_length


def _key_usage(value: bytes) -> frozenset[str]:
    _tag, _begin, start, stop = _only(value, 0, len(value), _BIT_STRING, "key usage")
    _unused, first = _bit_string(value, start, stop)
    bits = value[first:stop]
    return frozenset(
        usage
        for index, usage in enumerate(_KEY_USAGES)
        if index // 8 < len(bits) and bits[index // 8] & (0x80 >> index % 8)
    )


def _extended_key_usage(value: bytes) -> tuple[str, ...]:
    return tuple(_oid(value, usage) for usage in _sequence_of(value))


def _ca_issuers(value: bytes) -> tuple[str, ...]:
    uris: list[str] = []
    for description in _sequence_of(value):
        parts = _contents(value, description, _SEQUENCE, "access description")
        if len(parts) != 2:
            raise DERError("malformed access description")
        method, location = parts
        _general_name(value, location)
        if _oid(value, method) == _CA_ISSUERS and location[0] == 0x86:
            uris.append(value[location[2] : location[3]].decode("ascii"))
    return tuple(uris)


def _extensions(data: bytes, start: int, stop: int) -> tuple[Extension, ...]:
    extensions: list[Extension] = []
    seen: set[str] = set()
    for extension in _contents(
        data, _only(data, start, stop, _SEQUENCE, "extensions"), _SEQUENCE, ""
    ):
        parts = _contents(data, extension, _SEQUENCE, "extension")
        critical = False
        if len(parts) == 3:
            _shape(parts, (_OID, _BOOLEAN, _OCTET_STRING), "extension")
            critical = _boolean(data, parts[1][2], parts[1][3])
            if not critical:
                raise DERError("DEFAULT value encoded (critical FALSE)")
        else:
            _shape(parts, (_OID, _OCTET_STRING), "extension")
        oid = _oid(data, parts[0])
        if oid in seen:
            raise DERError(f"extension {oid} appears twice")  # RFC 5280, 4.2
        seen.add(oid)
        value = parts[-1]
        extensions.append(Extension(oid=oid, critical=critical, value=data[value[2] : value[3]]))
    return tuple(extensions)


# --- Certificates ------------------------------------------------------------------------------

# TBSCertificate fields after the version: serial, signature, issuer, validity, subject, key.
_TBS_TAGS = (_INTEGER, _SEQUENCE, _SEQUENCE, _SEQUENCE, _SEQUENCE, _SEQUENCE)
# And the optional ones after them, in order: issuerUniqueID, subjectUniqueID, extensions.
_TBS_OPTIONAL = (0x81, 0x82, 0xA3)


def _pin(spki: bytes) -> str:
    import base64  # noqa: PLC0415 - with a pin, not with every connection
    import hashlib  # noqa: PLC0415 - the same (1.2-1.6 ms on a first connection)

    return "sha256/" + base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


def _tbs(der: bytes) -> tuple[int, list[_Element], str]:
    """Frame a Certificate; return its version, TBSCertificate fields and signature algorithm."""
    if not isinstance(der, bytes):
        raise DERError("a certificate is bytes")
    certificate = _only(der, 0, len(der), _SEQUENCE, "certificate")
    parts = _contents(der, certificate, _SEQUENCE, "certificate")
    _shape(parts, (_SEQUENCE, _SEQUENCE, _BIT_STRING), "certificate")
    signature_oid, _params = _algorithm(der, parts[1])
    _bit_string(der, parts[2][2], parts[2][3])
    fields = _contents(der, parts[0], _SEQUENCE, "TBSCertificate")
    version = 1
    if fields and fields[0][0] == 0xA0:
        _tag, _begin, start, stop = _only(der, fields[0][2], fields[0][3], _INTEGER, "version")
        number = _integer(der, start, stop)
        if number == 0:
            raise DERError("DEFAULT value encoded (version 1)")
        if number not in (1, 2):
            raise DERError(f"unknown certificate version {number + 1}")
        version = number + 1
        fields = fields[1:]
    _shape(fields[:6], _TBS_TAGS, "TBSCertificate")
    return version, fields, signature_oid


def spki_pin(der: bytes) -> str:
    """Return the ``sha256/BASE64`` pin of a DER certificate's public key, as curl writes it.

    The hash is over the SubjectPublicKeyInfo exactly as the certificate encodes it (RFC 7469,
    2.4). The certificate's framing and its key are read in full; names, validity and
    extensions are not (:func:`parse_certificate` reads them).

    Raises:
        DERError: The bytes are not a readable certificate.
    """
    _version, fields, _signature = _tbs(der)
    key = fields[5]
    _public_key(der, key)
    return _pin(der[key[1] : key[3]])


def expiry_and_pin(der: bytes) -> tuple[dt.datetime, str]:
    """Return a DER certificate's end of validity and the ``sha256/BASE64`` pin of its key.

    What ``scan`` shows of a leaf OpenSSL verified: the framing, validity and key are read as
    :func:`parse_certificate` reads them; names and extensions are not (a tenth of its work).

    Raises:
        DERError: The bytes are not a readable certificate.
    """
    _version, fields, _signature = _tbs(der)
    times = _contents(der, fields[3], _SEQUENCE, "validity")
    if len(times) != 2:
        raise DERError("malformed validity")
    key = fields[5]
    _public_key(der, key)
    return _time(der, times[1]), _pin(der[key[1] : key[3]])


def key_algorithm(der: bytes) -> str:
    """Return the dotted OID of a DER certificate's public key algorithm.

    Raises:
        DERError: The bytes are not a readable certificate.
    """
    _version, fields, _signature = _tbs(der)
    oid, _facts = _public_key(der, fields[5])
    return oid


def parse_certificate(der: bytes) -> CertificateFacts:
    """Read a DER certificate's facts.

    Args:
        der: One certificate, DER encoded, with nothing after it.

    Returns:
        The certificate's facts.

    Raises:
        DERError: The bytes are not a certificate this strict reader accepts. Callers treat it
            as "unreadable"; it is a :class:`ValueError`.
    """
    version, fields, signature_oid = _tbs(der)
    serial, signature, issuer, validity, subject, key = fields[:6]
    # The TBSCertificate repeats the algorithm (RFC 5280, 4.1.2.3); the outer one is reported,
    # as cryptography and OpenSSL do, and a mismatch is left to OpenSSL to reject.
    _algorithm(der, signature)
    times = _contents(der, validity, _SEQUENCE, "validity")
    if len(times) != 2:
        raise DERError("malformed validity")
    key_oid, (key_type, key_bits, curve) = _public_key(der, key)
    extensions: tuple[Extension, ...] = ()
    allowed: tuple[int, ...] = _TBS_OPTIONAL
    for tag, _begin, start, stop in fields[6:]:
        if tag not in allowed:
            raise DERError(f"unexpected element 0x{tag:02x} in the certificate")
        allowed = allowed[allowed.index(tag) + 1 :]
        if tag == 0xA3:
            extensions = _extensions(der, start, stop)
        else:
            _bit_string(der, start, stop)
    found = {extension.oid: extension.value for extension in extensions}
    san = found.get(_EXT_SAN)
    dns_names, ip_addresses = _subject_alt_names(san) if san is not None else ((), ())
    constraints = found.get(_EXT_BASIC_CONSTRAINTS)
    ca, path_length = _basic_constraints(constraints) if constraints is not None else (None, None)
    usage = found.get(_EXT_KEY_USAGE)
    eku = found.get(_EXT_EKU)
    aia = found.get(_EXT_AIA)
    return CertificateFacts(
        version=version,
        serial=_integer(der, serial[2], serial[3]),
        signature_algorithm_oid=signature_oid,
        issuer=_name(der, issuer),
        subject=_name(der, subject),
        not_before=_time(der, times[0]),
        not_after=_time(der, times[1]),
        spki=der[key[1] : key[3]],
        key_algorithm_oid=key_oid,
        key_type=key_type,
        key_bits=key_bits,
        curve=curve,
        extensions=extensions,
        dns_names=dns_names,
        ip_addresses=ip_addresses,
        ca=ca,
        path_length=path_length,
        key_usage=_key_usage(usage) if usage is not None else None,
        extended_key_usage=_extended_key_usage(eku) if eku is not None else None,
        ca_issuers=_ca_issuers(aia) if aia is not None else (),
    )


def pin_or_none(der: bytes) -> str | None:
    """Return :func:`spki_pin` of ``der``, or ``None`` for a certificate that cannot be read.

    For the connection path: a certificate this strict reader refuses simply matches no pin.
    """
    try:
        return spki_pin(der)
    except DERError:
        return None
