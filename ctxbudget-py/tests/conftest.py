"""Shared fixtures: the repository's request bodies and tokenizer files."""

import gzip
import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"


def fixture_text(*parts: str) -> str:
    return FIXTURES.joinpath(*parts).read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def sessions() -> dict:
    """The three real-shaped agent sessions, one per wire format, as JSON text."""
    return {
        "openai": fixture_text("requests", "openai", "coding_session.json"),
        "anthropic": fixture_text("requests", "anthropic", "session.json"),
        "responses": fixture_text("responses", "agent_session.json"),
    }


@pytest.fixture(scope="session")
def small_bodies() -> list:
    """Every small request fixture, as JSON text."""
    bodies = []
    for folder in ("openai", "anthropic"):
        for path in sorted((FIXTURES / "requests" / folder).glob("*.json")):
            if path.stat().st_size < 50_000:
                bodies.append(path.read_text(encoding="utf-8"))
    return bodies


@pytest.fixture(scope="session")
def unzipped(tmp_path_factory):
    """A gzipped tokenizer fixture, unzipped to a temporary file."""
    folder = tmp_path_factory.mktemp("tokenizers")

    def unzip(name: str) -> Path:
        target = folder / name.removesuffix(".gz")
        if not target.exists():
            with gzip.open(FIXTURES / "tokenizers" / name, "rb") as source:
                target.write_bytes(source.read())
        return target

    return unzip


def load(text: str) -> dict:
    return json.loads(text)
