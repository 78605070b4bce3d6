"""flysim.Service: a client of a running `flysim serve`'s control API."""
from __future__ import annotations

import json
import math
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterable, Optional, Tuple

from ._values import RootIds, _real, _root_ids, _whole


def _finite(value: float, what: str) -> float:
    """`value`, or a ValueError naming `what`: JSON has no NaN or infinity to send."""
    if not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number")
    return value


class ServiceError(RuntimeError):
    """A request `flysim serve`'s control API refused, or one that reached no service.

    status: the HTTP status (400 a bad request, 401 a token, 409 a refused command, ...;
        docs/SERVICE.md), None when nothing answered.
    message: the service's own words (its "error" or "message" field).
    """

    def __init__(self, message: str, status: Optional[int]) -> None:
        super().__init__(message if status is None else f"HTTP {status}: {message}")
        self.message = message
        self.status = status


class Service:
    """A client of a running `flysim serve`'s control API (docs/SERVICE.md).

        svc = flysim.Service("http://127.0.0.1:7460")
        svc.status()["engine"]; svc.stimulus(rate_hz=200); svc.stop()

    url: the service's address (control.bind and control.port).
    token: the token of the service's control.token-file (sent as 'Authorization: Bearer'):
        the file's text will do (its first line is the token, surrounding blanks dropped);
        None when it has none.
    timeout: seconds (> 0) to wait for an answer, None: without limit (a swap builds an engine; a command is answered
        once it took effect at an epoch boundary).
    Commands return the service's reply: ok, message, and the boundary (trial, step) at which
    the command applied; a refusal is a ServiceError.
    """

    def __init__(self, url: str = "http://127.0.0.1:7460", token: Optional[str] = None,
                 timeout: Optional[float] = 120.0) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.netloc:
            raise ValueError(f"url={url!r} must be http://HOST:PORT (the control API speaks plain HTTP)")
        self.url = url.rstrip("/")
        self.timeout = None if timeout is None else _real(timeout, "timeout")
        if self.timeout is not None and not 0 < self.timeout < float("inf"):
            raise ValueError(f"timeout={timeout!r} must be a positive number of seconds (or None: without limit)")
        if token is not None:
            if not isinstance(token, str):
                raise TypeError(f"token must be a str (the token file's text), not {type(token).__name__}")
            lines = token.strip().splitlines()
            token = lines[0].strip() if lines else ""
            if not token or any(c.isspace() or not c.isprintable() for c in token):
                raise ValueError("token must be one word of printable characters (a control.token-file's text)")
        self._token = token

    def __repr__(self) -> str:
        return f"<flysim.Service {self.url}{' (token)' if self._token else ''}>"

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None,
                 query: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        url = self.url + path
        given = {k: v for k, v in (query or {}).items() if v is not None}
        if given:
            url += "?" + urllib.parse.urlencode(given)
        data = None if method == "GET" else json.dumps(body or {}).encode()
        request = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self._token:
            request.add_header("Authorization", f"Bearer {self._token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                answer = json.loads(text)
                message = answer.get("error") or answer.get("message") or text
            except (ValueError, AttributeError):
                message = text or e.reason
            raise ServiceError(f"{method} {path}: {message}", e.code) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise ServiceError(f"{method} {path}: no flysim serve answers at {self.url} ({reason})", None) from None

    def status(self) -> Dict[str, Any]:
        """The run's state (GET /status): state, trial, step, engine, threads, lag, cost, ..."""
        return self._request("GET", "/status")

    def swap(self, engine: str, threads: Optional[int] = None) -> Dict[str, Any]:
        """Moves the run to engine "cpu" (a pool of `threads`; None: engine.threads) or "cuda"."""
        body: Dict[str, Any] = {"engine": engine}
        if threads is not None:
            body["threads"] = _whole(threads, "threads", -2**31, 2**31 - 1)  # its range is the service's to check
        return self._request("POST", "/swap", body)

    def stimulus(self, rate_hz: Optional[float] = None, poisson_ids: Optional[RootIds] = None,
                 kicks: Optional[Iterable[Tuple[int, float]]] = None, group: Optional[str] = None,
                 silence_ids: Optional[RootIds] = None, silence_mode: Optional[str] = None) -> Dict[str, Any]:
        """Changes the stimulus at the next boundary; what is None stays as it is.

        rate_hz, poisson_ids: the Poisson rate and neurons (root IDs) of the default group,
            or of `group` (a new group needs its poisson_ids).
        kicks: (root_id, after_ms) pairs: the neuron gets one kick that many ms after the
            boundary where the command applies.
        silence_ids: the silenced root IDs, replacing the set ([] silences none);
            silence_mode: "outgoing" or "both".
        Root IDs are integers or the path of an ID list file, read here (not by the service).
        """
        body: Dict[str, Any] = {}
        if rate_hz is not None:
            body["rate_hz"] = _finite(_real(rate_hz, "rate_hz", "Hz"), f"rate_hz={rate_hz!r}")
        if poisson_ids is not None:
            body["poisson_ids"] = _root_ids(poisson_ids, "poisson_ids")
        if kicks is not None:
            try:
                body["kicks"] = [{"neuron_id": int(root_id), "after_ms": float(after_ms)} for root_id, after_ms in kicks]
            except (TypeError, ValueError):
                raise ValueError("kicks must be (root_id, after_ms) pairs") from None
            for k, kick in enumerate(body["kicks"]):
                _finite(kick["after_ms"], f"kicks[{k}]'s after_ms={kick['after_ms']!r}")
        if group is not None:
            body["group"] = str(group)
        if silence_ids is not None:
            body["silence_ids"] = _root_ids(silence_ids, "silence_ids")
        if silence_mode is not None:
            body["silence_mode"] = silence_mode
        return self._request("POST", "/stimulus", body)

    def checkpoint(self) -> Dict[str, Any]:
        """Writes a checkpoint at the next boundary; the reply's "file" names it."""
        return self._request("POST", "/checkpoint")

    def pause(self) -> Dict[str, Any]:
        """Holds the run at the next boundary (status "paused") until resume()."""
        return self._request("POST", "/pause")

    def resume(self) -> Dict[str, Any]:
        """Continues a paused run."""
        return self._request("POST", "/resume")

    def stop(self) -> Dict[str, Any]:
        """Ends the run at the next boundary (the service then exits)."""
        return self._request("POST", "/stop")

    def spikes(self, since: Optional[int] = None, neurons: Optional[int] = None) -> Dict[str, Any]:
        """The live raster (GET /spikes): the top `neurons` (default 64) and their spike
        counts per 20 ms bin from position `since` (the previous answer's "next")."""
        return self._request("GET", "/spikes", query={"since": since, "neurons": neurons})

    def rates(self, since: Optional[int] = None) -> Dict[str, Any]:
        """Population and readout rates per bin (GET /rates) from position `since`."""
        return self._request("GET", "/rates", query={"since": since})

    def top(self, neurons: Optional[int] = None) -> Dict[str, Any]:
        """The top `neurons` responders over the window (GET /top; default 10)."""
        return self._request("GET", "/top", query={"neurons": neurons})
