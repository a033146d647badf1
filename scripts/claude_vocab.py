#!/usr/bin/env python3
"""Builds ctxbudget/data/claude/ from an unpacked `ctok` wheel (MIT, Sander Land).

    python3 -m venv /tmp/ctokenv && /tmp/ctokenv/bin/pip install regex
    pip download --no-deps ctok==1.3.0 -d /tmp/ctokdl && unzip /tmp/ctokdl/ctok-1.3.0-*.whl -d /tmp/ctokdl/x
    python3 scripts/claude_vocab.py /tmp/ctokdl/x

ctok 1.3.0 asks for Python >= 3.12 in its metadata but is pure Python; this script only
reads its JSON vocabularies and needs the `regex` module for the Unicode table.

Writes, for each vocabulary file of ctok (`v3`, `v4_7`):

- `<name>.pieces`: every piece of the tiling vocabulary, UTF-8, NUL-separated, sorted,
  the structural markers written as the noncharacters ctok uses internally (U+FDD0
  word start, U+FDD1 word end, U+FDD3 capital, U+FDD4 all capitals), and the
  contraction pieces with their closing word-end marker glued on, as ctok's engine
  reads them;
- `<name>.bytes`: the multi-byte prefixes of UTF-8 characters that cost one token
  (hex, one a line);

and `unicode.bin`, the per-codepoint facts the marked stream reads, as Python's
`unicodedata` (general category, canonical combining class) and the `regex` module
(`\\p{Alphabetic}`, `\\p{M}`) of the Python that runs this script give them: runs of
`start: u32 LE, category: u8, flags: u8` (flags: 1 Alphabetic, 2 mark, 4 combining
class not 0), and `LICENSE` (ctok's).
"""

import json
import pathlib
import shutil
import struct
import sys
import unicodedata

import regex

CATEGORIES = ("Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc Pd Ps Pe Pi Pf Po "
              "Sm Sc Sk So Zs Zl Zp Cc Cf Cs Co Cn").split()
MARKERS = {"⟨bow⟩": "\ufdd0", "⟨eow⟩": "\ufdd1", "⟨shift⟩": "\ufdd3", "⟨caps⟩": "\ufdd4"}
BYTE_ATOM = regex.compile(r"⟨0x([0-9A-Fa-f]{2})⟩")
ATOM = regex.compile(r"⟨(?:bow|eow|shift|caps|0x[0-9A-Fa-f]{2})⟩|.", regex.DOTALL)


def parse(public: str) -> str:
    """A piece in ctok's public notation -> its internal string (markers as glyphs)."""
    out, buf = [], bytearray()
    for m in ATOM.finditer(public):
        tok = m.group(0)
        byte = BYTE_ATOM.fullmatch(tok)
        if byte:
            buf.append(int(byte.group(1), 16))
            continue
        if buf:
            out.append(buf.decode("utf-8"))
            buf.clear()
        out.append(MARKERS.get(tok, tok))
    if buf:
        out.append(buf.decode("utf-8"))
    return "".join(out)


def vocabulary(doc: dict) -> tuple[list[str], list[str]]:
    tokens = doc["tokens"]
    pieces = set()
    for group, entries in tokens.items():
        if group == "bytes_fallback":
            continue
        for piece in entries:
            pieces.add(parse(piece))
    for contraction in tokens["contractions"]:
        pieces.add(parse(contraction) + "\ufdd1")
    assert all("\0" not in p and p for p in pieces)
    return sorted(pieces), sorted(tokens["bytes_fallback"])


def unicode_table() -> bytes:
    alphabetic = regex.compile(r"\p{Alphabetic}")
    mark = regex.compile(r"\p{M}")
    out, last = bytearray(), None
    for cp in range(0x110000):
        c = chr(cp)
        flags = ((1 if alphabetic.fullmatch(c) else 0) | (2 if mark.fullmatch(c) else 0)
                 | (4 if unicodedata.combining(c) else 0))
        key = (CATEGORIES.index(unicodedata.category(c)), flags)
        if key != last:
            out += struct.pack("<IBB", cp, *key)
            last = key
    return bytes(out)


def main() -> None:
    wheel = pathlib.Path(sys.argv[1])
    out = pathlib.Path(__file__).resolve().parent.parent / "ctxbudget" / "data" / "claude"
    out.mkdir(parents=True, exist_ok=True)
    for name in ("v3", "v4_7"):
        doc = json.loads((wheel / "ctok" / "data" / f"pieces_{name}.json").read_text("utf-8"))
        pieces, byte_tokens = vocabulary(doc)
        (out / f"{name}.pieces").write_bytes("\0".join(pieces).encode("utf-8"))
        (out / f"{name}.bytes").write_text("".join(t + "\n" for t in byte_tokens))
        print(name, len(pieces), "pieces,", len(byte_tokens), "byte prefixes")
    (out / "unicode.bin").write_bytes(unicode_table())
    shutil.copy(wheel / "ctok-1.3.0.dist-info" / "licenses" / "LICENSE", out / "LICENSE")
    print("unicode", unicodedata.unidata_version, "regex", regex.__version__)


if __name__ == "__main__":
    main()
