"""Sandboxes for untrusted code: bubblewrap (isolated) and a plain-process fallback (not isolated)."""

from __future__ import annotations

from collections.abc import Sequence

from assay.sandbox.base import Sandbox, SandboxLimits, SandboxResult
from assay.sandbox.bubblewrap import Availability, BubblewrapSandbox
from assay.sandbox.process import ProcessSandbox
from assay.sandbox.zygote import ZygoteSandbox

__all__ = [
    "Availability",
    "BubblewrapSandbox",
    "ProcessSandbox",
    "Sandbox",
    "SandboxLimits",
    "SandboxResult",
    "SandboxUnavailable",
    "ZygoteSandbox",
    "get_sandbox",
]


class SandboxUnavailable(RuntimeError):
    """No isolating sandbox works here and the caller did not accept the weak one."""


def get_sandbox(allow_weak: bool = False, ro_binds: Sequence[str] = (), warm: bool = True) -> Sandbox:
    """The bubblewrap sandbox when it works here (with warm zygotes unless warm=False), else the
    plain-process one if allow_weak, else raise."""
    availability = BubblewrapSandbox.available()
    if availability:
        if warm and ZygoteSandbox.available():
            return ZygoteSandbox(ro_binds=ro_binds)
        return BubblewrapSandbox(ro_binds=ro_binds)
    if allow_weak:
        return ProcessSandbox(ro_binds=ro_binds)
    raise SandboxUnavailable(
        f"bubblewrap sandbox unavailable ({availability.reason}); install it (e.g. `apt-get install bubblewrap`) "
        "or pass --allow-weak-sandbox to run samples as plain, non-isolated processes"
    )
