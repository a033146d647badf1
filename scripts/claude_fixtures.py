#!/usr/bin/env python3
"""Writes tests/fixtures/claude/counts.json: what `ctok` 1.3.0 counts for corpus
slices, the shipped fixtures and adversarial text, in every generation.
`tests/suite/claude.rs` checks that ctxbudget's `Claude` counter gives the same.

Each count is the text's own tokens: `ctok.token_count(text, version)` less the
generation's message frame (7, 11, 6), which is what `Claude::count` returns.

ctok asks for Python >= 3.12 in its metadata but is pure Python; it was run here on
Python 3.11 from the unpacked wheel:

    pip download --no-deps ctok==1.3.0 -d /tmp/ctokdl
    unzip /tmp/ctokdl/ctok-1.3.0-py3-none-any.whl -d /tmp/ctokdl/x
    pip install regex            # ctok's one dependency
    PYTHONPATH=/tmp/ctokdl/x python3 scripts/claude_fixtures.py [CORPUS_DIR]

CORPUS_DIR defaults to ../shared/corpus beside the repository (/work/shared/corpus).
"""

import json
import pathlib
import random
import sys
import unicodedata

import ctok
from ctok import main as ctok_main

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
OUT = FIXTURES / "claude" / "counts.json"
CORPUS = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent.parent / "shared" / "corpus"
VERSIONS = ["3.0", "4.7", "4.8"]
OVERHEAD = {v: ctok_main._model(ctok_main._family(v)).message_overhead for v in VERSIONS}

HANDMADE = [
    "", " ", "  ", "   ", "\n", "\n\n", "\n" * 29, "\n" * 40, "\n" * 200, " \n", "a\n", "a\n\n\n",
    "a", " a", "  a", "a b", "a  b", "a\tb", "a\nb", "a \nb", "hello, world", "Hello, World!",
    "NASA likes tokenizers", "NASA NASA nasa Nasa nASA", "WiFi GaN QQ ABC ABCD ABCDE", "McDonald",
    "it's they'll WE'VE I'm you're 'twas x'S x'LL 'quoted' '''", "a 'b", "'First", "x 'REXX",
    "don't", "1's", "\u2019s it\u2019s \u201cquoted\u201d \u2018single\u2019 \u201elow\u201c",
    "1234567890", "3.14159 1,000,000 -42 +7e10", "\u0661\u0662\u0663 \u06f1\u06f2 12\u0663",
    "\u00bd \u00b2 \u2460\u2461 \u2153", "x\u00b2 + y\u00b2", "1\u3002\uff1f 1", "1 \uff1f\u30021",
    "e\u0301e\u0301", "cafe\u0301", "\u0301abc", "\u0301", "a\u0301\u0302\u0303\u0304\u0305",
    "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\U0001F44D\U0001F3FD", "\u2764\ufe0f \u2696\ufe0f",
    "\U0001F1EF\U0001F1F5", "\u263a\ufe0e", "emoji\U0001F600end", "\U0001F600 \U0001F600",
    "\u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u3067\u3059\u3002\u6b21\u306e\u6587\u3002",
    "\u4e2d\u6587\u5b57\u7b26 \ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8", "\u3005\u3006 \u30fc\u30f6",
    "\u0643\u064a\u0641 \u062d\u0627\u0644\u0643\u061f \u0623\u0646\u0627 \u0628\u062e\u064a\u0631",
    "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd", "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e",
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35 \u0e19\u0e4d\u0e32 \u0e19\u0e33", "\u0b95\u0bca\u0bb4\u0bc1\u0bae\u0bcd\u0baa\u0bc1, a",
    "\u0710\u0730\u0712 \u0730", "\u0391\u0392\u0393\u0394 \u03a3\u039f\u03a6\u0399\u0391 \u03c3\u03bf\u03c6\u03b9\u03b1",
    "\u03f4 \u0398\u03f4 \u0130stanbul \u0130STANBUL I\u0130 \u1e9e STRA\u1e9eE", "\u2102 \u2133 \u03d3",
    "\u2160\u2161\u2162 \u24b6\u24b7 \u24d0", "\u1c89\u1c8a", "\uff21\uff22\uff23 \uff41\uff42\uff43 \uff11\uff12",
    "a\u00a0b\u2003c\u3000d\u2028e", "a\x00b", "a\x01b\x7f\x85c", "a\r\nb\r\n", "\x0b\x0c",
    "\ue000\uf8ff", "x\ue000y", "\ufdd0\ufdd1\ufdd2\ufdd3\ufdd4", "\u27e8bow\u27e9 \u27e8eow\u27e9",
    "\u200b\u200c\u200d\u2060\ufeff", "a\u200bb", "\u00ad soft\u00adhyphen", "\U000e0100 \U0001d400\U0001d7ce",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "A" * 300, "ab" * 200, " " * 100, "\t" * 70, "x" + " " * 37 + "y", "." * 130, "-" * 90,
    "=" * 64 + "\n", "#" * 12 + " Title", "\u4e00" * 50, "\U0001F600" * 20, "\u0301" * 20,
    "   trailing   ", "\ttab\tend\t", "base64+/AbC==/+", "https://example.com/a/b?c=d&e=f",
    "fn main() {\n    println!(\"hi\");\n}\n", "if (a != b && c >= d) { x += 1; }", "a => b === c",
    "<|endoftext|> [INST] </s> <s>", "\u00ab\u00bb \u2014 \u2013 \u2022 \u00b0 \u20ac \u2026 \u2192 \u2116 \u2020",
    "a \u2014 b", "1\u00a9 a", "a \u00a7 a", "\u2500\u2502\u2514\u2550\u2588", "\u201e", "\u0f0d",
    "getElementsByAPINotFoundException", "XMLHttpRequest HTTPServer iOS macOS", "snake_case_name",
]

POOL = [
    "a", "b", "z", "E", "Q", "the", "The", "THE", "NASA", "word", "Word", "WORD", "x", " ", " ", "  ",
    "\n", "\n\n", "\t", "\r\n", "\x00", "\x07", "\x85", ".", ",", "!", "?", "'", "\"", "(", ")", "{",
    "}", ";", ":", "-", "_", "/", "\\", "=", "==", "=>", "<", ">", "@", "#", "$", "%", "&", "*",
    "0", "1", "42", "2024", "3.5", "\u0663", "\u06f5", "\u00b2", "\u00bd", "\u2460", "\u2160",
    "\u24b6", "'s", "'t", "'ll", "'re", "n't", "\u2019", "\u201c", "\u201d", "\u201e", "\u00ab",
    "\u2014", "\u2026", "\u2022", "\u3002", "\uff1f", "\u3001", "\u300c", "\u300d", "\u3000",
    "\u00a0", "\u2028", "\u200b", "\u200d", "\u00ad", "\ufeff", "\u0301", "\u0308", "\u0327",
    "\u093f", "\u094d", "\u0e31", "\u0e4d", "\u0e32", "\u064e", "\u05b8", "\u0730", "\u0711",
    "\u0bcd", "\ufe0f", "\ufe0e", "\u4e2d", "\u6587", "\u65e5", "\u3005", "\u3042", "\u30ab",
    "\u30fc", "\ud55c", "\uae00", "\u0928", "\u0915", "\u0645", "\u0644", "\u05e9", "\u0e01",
    "\u0b95", "\u10d0", "\u0531", "\u0561", "\u0416", "\u0436", "\u03a3", "\u03c2", "\u03c3",
    "\u0130", "\u0131", "\u1e9e", "\u00df", "\u03f4", "\u2102", "\u01c5", "\u1c89", "\u00e9",
    "\u00c9", "\u0149", "\ufb01", "\uff21", "\uff41", "\U0001F600", "\U0001F44D", "\U0001F3FD",
    "\U0001F468", "\U0001F1EF", "\U0001d400", "\U00020000", "\ue000", "\ufdd0", "\ufdd2",
    "\u27e8", "\u27e9", "\u2500", "\u2588", "\u20ac", "\u00a3", "\u00a9", "\u2192", "\u221a",
]


def counts(text: str) -> list[int]:
    return [ctok.token_count(text, v) - OVERHEAD[v] for v in VERSIONS]


def main() -> None:
    cases = []

    def add(source: str, text: str) -> None:
        cases.append({"source": source, "text": text, "counts": counts(text)})

    for text in HANDMADE:
        add("handmade", text)
    rng = random.Random(19)
    for _ in range(600):
        n = rng.randint(1, 24)
        add("random", "".join(rng.choice(POOL) for _ in range(n)))
    for name in ["markdown.md", "prose.txt", "code.txt", "multilingual.txt"]:
        text = (FIXTURES / name).read_text(encoding="utf-8")
        add(f"fixture {name}", text)
    for name in ["prose.txt", "markdown.md", "code.txt"]:
        text = (CORPUS / name).read_text(encoding="utf-8")
        for i in range(24):
            start = (i * 104729) % len(text)
            length = [1, 7, 40, 200, 1000, 3000][i % 6]
            add(f"corpus {name}", text[start:start + length])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as out:
        out.write('{"ctok": "1.3.0", "python": "%s", "unicode": "%s", "generations": ["v3", "v4.7", "v4.8"],\n'
                  % (sys.version.split()[0], unicodedata.unidata_version))
        out.write(' "cases": [\n')
        out.write(",\n".join(json.dumps(case, ensure_ascii=True) for case in cases))
        out.write("\n]}\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()
