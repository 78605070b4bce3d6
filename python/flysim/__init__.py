"""flysim from Python: the fruit-fly brain LIF model (Shiu et al., Nature 2024) run by
flysim's engines in this process.

    import flysim
    net = flysim.load_network()                      # the synthetic FlyWire-scale network
    res = flysim.run(net, stimulus={"sugar": (sugar_ids, 150.0)}, trials=30)
    res.spikes, res.rates, res.summary

The reference model's notebook calls work too: flysim.run_exp(...), flysim.get_rate(...)
and flysim.default_params (philshiu/Drosophila_brain_model: model.py, utils.py).
The spikes of trial k are those of `flysim run` with the same options.
"""
from __future__ import annotations

import logging
from typing import Any

from ._flysim import BUILD_VERSION, InputError  # (and flysim._flysim, the compiled part)
from .files import load_exps, read_csv
from .network import MN9, Network, load_network, read_id_list, sugar_ids
from .reference import get_rate, run_exp
from .runs import RunResult, run
from .screens import ScreenResult, screen
from .service import Service, ServiceError

# The project's version; BUILD_VERSION adds the commit, as `flysim version` prints it.
__version__ = BUILD_VERSION.split(" ", 1)[0]

# The module's logger (messages of load_network and run_exp): flysim.log.setLevel(logging.INFO).
log = logging.getLogger("flysim")

__all__ = ["BUILD_VERSION", "InputError", "Network", "RunResult", "ScreenResult", "Service", "ServiceError", "load_network", "read_id_list", "run",
           "screen", "run_exp", "get_rate", "load_exps", "read_csv", "default_params", "MN9", "sugar_ids"]


def __getattr__(name: str) -> Any:
    # default_params imports brian2 (seconds) only when asked for.
    if name == "default_params":
        from .reference import _default_params
        globals()["default_params"] = _default_params()
        return globals()["default_params"]
    raise AttributeError(f"module 'flysim' has no attribute {name!r}")
