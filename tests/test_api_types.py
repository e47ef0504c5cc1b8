"""The browser client's API types (lordsofwar/web/static/js/api-types.d.ts) are generated from the
server's OpenAPI schema by scripts/api-types; they must match the schema the server has now, so
that the type check of the client (tsc, scripts/test) checks it against what the server sends."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "lordsofwar/web/static/js/api-types.d.ts"
GENERATOR = ROOT / "node_modules/.bin/openapi-typescript"


@pytest.mark.skipif(not GENERATOR.exists(), reason="node_modules is absent (scripts/bootstrap installs openapi-typescript)")
def test_the_generated_api_types_are_up_to_date(tmp_path: Path) -> None:
    fresh = tmp_path / "api-types.d.ts"
    done = subprocess.run([ROOT / "scripts/api-types", fresh], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert fresh.read_text() == COMMITTED.read_text(), (
        "lordsofwar/web/static/js/api-types.d.ts is stale: the server's schema changed; run scripts/api-types"
    )
    # the types are the schema's: every schema of the description is declared
    assert "export interface components" in fresh.read_text()
    assert "ErrorBody: {" in fresh.read_text()
