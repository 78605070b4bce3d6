"""A network loaded once (flysim.load_network) and the ID lists that go with it."""
from __future__ import annotations

import logging
import os
from typing import Any, Optional, Union

import numpy as np

from . import _flysim
from ._values import _MAX_SEED, _flag, _real, _root_ids, _whole, read_id_list

log = logging.getLogger("flysim")


class Network:
    """A loaded network: its neurons' root IDs in model order, and the engines kept for
    runs on it (one per engine kind, threads, batch, seed and model constants; those of
    the last four such settings used, so a sweep over seeds or model values does not pile
    them up)."""

    def __init__(self, session: "_flysim.NetworkSession") -> None:
        self._session = session
        self._ids: Optional[np.ndarray] = None

    @property
    def ids(self) -> np.ndarray:
        """Root IDs (numpy int64), index = model index."""
        if self._ids is None:
            self._ids = self._session.ids
            self._ids.setflags(write=False)
        return self._ids

    @property
    def description(self) -> str:
        """Where the network came from (file or generator and seed)."""
        return self._session.description

    def index_of(self, root_ids: Any) -> np.ndarray:
        """Model indices (numpy int64) of root IDs (integers, or an ID list file's path),
        in their order; an unknown ID is a ValueError naming it."""
        return self._session.index_of(_root_ids(root_ids, "index_of"))

    @property
    def kept_engines(self) -> int:
        """The engines kept on this network for later runs."""
        return self._session.kept_engines

    def release_engines(self) -> None:
        """Drops every kept engine, giving its memory (host or GPU) back; the next run
        builds one again, with the same spikes."""
        self._session.release_engines()

    def __len__(self) -> int:
        return len(self._session)

    def __repr__(self) -> str:
        return f"<flysim.Network {len(self)} neurons, {self._session.connections} connections: {self.description}>"


def load_network(neurons: Optional[Union[str, os.PathLike]] = None,
                 connectivity: Optional[Union[str, os.PathLike]] = None,
                 format: str = "flywire", *, seed: Optional[int] = None,
                 inhibitory_fraction: Optional[float] = None, cache: Optional[bool] = None,
                 cache_dir: Optional[Union[str, os.PathLike]] = None) -> Network:
    """The network as `flysim run` loads it (its network.* options), through flysim's cache.

    neurons: the neurons file (FlyWire Completeness CSV; for format="edgelist", an
        optional nodes file); None: data/Completeness_783.csv.
    connectivity: the FlyWire connectivity CSV (seven columns) or an edge list; None: the
        synthetic FlyWire-scale network (generated once, then read from the cache).
    format: "flywire" or "edgelist".
    seed: network.seed, the synthetic network's seed and the seed of an edge list's
        inhibitory neurons; None: 1.
    inhibitory_fraction: network.inhibitory-fraction, for edge lists; None: 0.4.
    cache, cache_dir: network.cache and network.cache-dir; None: on, in flysim's cache folder.
    """
    options = {"network.format": format}
    if neurons is not None:
        options["network.neurons"] = os.fspath(neurons)
    if connectivity is not None:
        options["network.connectivity"] = os.fspath(connectivity)
    if seed is not None:
        options["network.seed"] = str(_whole(seed, "seed", 0, _MAX_SEED))
    if inhibitory_fraction is not None:
        options["network.inhibitory-fraction"] = repr(_real(inhibitory_fraction, "inhibitory_fraction"))
    if cache is not None:
        options["network.cache"] = "true" if _flag(cache, "cache") else "false"
    if cache_dir is not None:
        options["network.cache-dir"] = os.fspath(cache_dir)
    return Network(_flysim.load_network(options, log.info))


# MN9's root ID: the proboscis motor neuron the sugar experiment reads (screen's default readout).
MN9: int = _flysim.mn9_root_id()


def sugar_ids() -> np.ndarray:
    """The sugar-sensing neurons' root IDs (numpy int64): data/sugar_grn_783.txt, run's
    default stimulus."""
    return read_id_list(_flysim.sugar_ids_file())


def _indices_of(net: Network, root_ids: Any, what: str) -> np.ndarray:
    """Model indices of root IDs, an unknown ID an error that names the argument `what`."""
    try:
        return net._session.index_of(_root_ids(root_ids, what))
    except _flysim.InputError as e:
        raise _flysim.InputError(f"{what}: {e}") from None
