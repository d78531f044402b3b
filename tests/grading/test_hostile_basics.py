"""The first hostile submissions: none may pass, and the server must keep answering after each.
(The full attack suite lives in tests/sandbox/.)"""

from __future__ import annotations

import httpx
import pytest

from tests.support import REPO

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
HEAD = "import torch\nfrom torch import nn\n"

ATTACKS = {
    "infinite_loop": (
        HEAD + "class LayerNorm(nn.Module):\n    pass\nwhile True:\n    pass\n",
        {"timeout"},
    ),
    "memory_bomb": (
        HEAD
        + "class LayerNorm(nn.Module):\n    pass\nx = [bytearray(1 << 28) for _ in range(256)]\n",
        {"error", "crashed"},
    ),
    "torch_memory_bomb": (
        HEAD + "class LayerNorm(nn.Module):\n    pass\nx = torch.empty(1 << 40)\n",
        {"error", "crashed"},
    ),
    "os_exit_before_output": (
        HEAD + "import os\nclass LayerNorm(nn.Module):\n    pass\nos._exit(0)\n",
        {"crashed"},
    ),
    "segfault": (
        HEAD + "import ctypes\nclass LayerNorm(nn.Module):\n    pass\nctypes.string_at(0)\n",
        {"crashed"},
    ),
    "patch_allclose_and_return_zeros": (
        HEAD
        + "torch.allclose = lambda *a, **k: True\n"
        + "torch.testing.assert_close = lambda *a, **k: None\n"
        + "class LayerNorm(nn.Module):\n"
        + "    def __init__(self, dim, eps=1e-5):\n"
        + "        super().__init__()\n"
        + "        self.weight = nn.Parameter(torch.ones(dim))\n"
        + "        self.bias = nn.Parameter(torch.zeros(dim))\n"
        + "    def forward(self, x):\n"
        + "        return torch.zeros_like(x) * self.weight + 0 * self.bias\n",
        {"failed"},
    ),
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_never_passes_and_server_still_grades(api: httpx.Client, name: str) -> None:
    code, allowed = ATTACKS[name]
    r = api.post("/exercises/layer_norm/submissions", json={"code": code})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["verdict"] in allowed, (body["verdict"], body["message"])
    if name == "infinite_loop":
        assert body["timings_ms"]["total"] < 15_000
    after = api.post("/exercises/layer_norm/submissions", json={"code": SOLUTION}).json()
    assert after["verdict"] == "passed", after["message"]
