"""The SSH wire encoding (RFC 4251 §5) that keys and signatures are made of."""

from __future__ import annotations


class WireFormatError(ValueError):
    """Bytes that are not the SSH structure they claim to be."""


def string(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


def mpint(value: int) -> bytes:
    """A non-negative integer, big-endian, with a leading zero byte when its top bit is set."""
    if value < 0:
        raise WireFormatError("negative mpint")
    raw = value.to_bytes((value.bit_length() + 8) // 8, "big") if value else b""
    return string(raw)


class WireReader:
    """Reads SSH values from the front of a byte string, refusing anything truncated."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    def raw(self, size: int) -> bytes:
        end = self._at + size
        if end > len(self._data):
            raise WireFormatError("truncated")
        chunk = self._data[self._at:end]
        self._at = end
        return chunk

    def uint32(self) -> int:
        return int.from_bytes(self.raw(4), "big")

    def string(self) -> bytes:
        return self.raw(self.uint32())

    def text(self) -> str:
        try:
            return self.string().decode("utf-8")
        except UnicodeDecodeError:
            raise WireFormatError("not UTF-8 text") from None

    def mpint(self) -> int:
        raw = self.string()
        if raw and raw[0] & 0x80:
            raise WireFormatError("negative mpint")
        return int.from_bytes(raw, "big")

    def end(self) -> None:
        if self._at != len(self._data):
            raise WireFormatError("trailing data")
