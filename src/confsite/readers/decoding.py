"""Bytes read from disk to text: UTF-8 with an optional BOM; a NUL byte or invalid UTF-8 is an
error naming its line (both kinds of input file, dumps and YAML, go through here)."""

from __future__ import annotations

import codecs

from ..diagnostics import ConfsiteError, SourceLoc, line_at


def decode_utf8(path: str, data: bytes, nul_message: str, kind: str) -> str:
    """`nul_message` says what a NUL byte means for this kind of file; `kind` names the file
    in the advice to re-save it ("dump", "file")."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise ConfsiteError(SourceLoc(path, line_at(data, nul)), nul_message)
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[bom:].decode("utf-8")
    except UnicodeDecodeError as err:
        offset = bom + err.start  # the error's offset counts from after the BOM
        raise ConfsiteError(
            SourceLoc(path, line_at(data, offset)),
            f"not valid UTF-8 (byte 0x{data[offset]:02x} at offset {offset}); "
            f"re-save the {kind} as UTF-8",
        ) from None
