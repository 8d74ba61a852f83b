"""Candidates: the implementations the harness diffs against the oracle.

Every candidate answers ``call(function, html, options, mode)`` with a plain
result (see :mod:`harness.results`) or raises what the implementation raises,
and ``reset_dedup(mode)`` starts a fresh deduplication cache.

Names understood by :func:`make_candidate`:

* ``trafilatura`` -- the installed trafilatura itself (the oracle as candidate);
* ``reference`` / ``core`` -- trafila with that engine;
* ``reference-batch`` / ``core-batch`` (``:N`` for N threads; ``-pool`` after
  ``batch`` to take the thread pool even for an engine that holds the GIL) --
  the same through ``trafila.extract_batch``, each (option set, form) of a
  bundle one batch in page order (see :class:`TrafilaBatchCandidate`);
* ``module:callable`` -- ``callable(request) -> result`` with the request dict
  of harness/PROTOCOL.md;
* ``cmd:<shell command>`` -- a subprocess speaking the JSON Lines protocol;
* ``mutant:<name>`` -- deliberately wrong candidates that prove the harness.
"""

from __future__ import annotations

import base64
import importlib
import json
import shlex
import signal
import subprocess
from typing import Any, Callable, Dict, Optional, Tuple, Union

from .matrix import METADATA_FIELDS, compared_fields

Html = Union[str, bytes]


class HarnessTimeout(BaseException):
    """Raised inside a candidate call that overran its time (BaseException so
    that candidate code catching Exception cannot swallow it)."""


class call_timeout:
    """Context manager: interrupt the block after ``seconds`` (main thread, Unix)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.previous = None

    def _fire(self, signum, frame):  # pragma: no cover - timing dependent
        raise HarnessTimeout(f"no answer within {self.seconds:g} s")

    def __enter__(self):
        if self.seconds and hasattr(signal, "setitimer"):
            self.previous = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        if self.seconds and hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous or signal.SIG_DFL)
        return False


class Candidate:
    name = "candidate"
    #: set by candidates that can tell: the last call was not served natively
    last_delegated = False

    def call(self, function: str, html: Html, options: Dict[str, Any], mode: str) -> Any:
        raise NotImplementedError

    def reset_dedup(self, mode: str) -> None:
        pass

    def close(self) -> None:
        pass


def config_from_overrides(base: Any, overrides: Dict[str, Any]) -> Any:
    """A copy of ``base`` (a ConfigParser) with DEFAULT-section overrides (the protocol's config field)."""
    from configparser import ConfigParser

    cfg = ConfigParser()
    cfg.read_dict({section: dict(base[section]) for section in base})
    for key, value in overrides.items():
        cfg.set("DEFAULT", key, str(value))
    return cfg


def _with_config(options: Dict[str, Any], default_config: Callable[[], Any]) -> Dict[str, Any]:
    if isinstance(options.get("config"), dict):
        options = dict(options, config=config_from_overrides(default_config(), options["config"]))
    return options


def _lxml_xml(el: Any) -> Optional[str]:
    if el is None:
        return None
    from lxml import etree

    return etree.tostring(el, encoding="unicode")


def _serialise_tree(el: Any) -> str:
    """XML of a body tree, whichever element model holds it (trafila's or lxml's)."""
    if type(el).__module__.startswith("lxml"):
        return _lxml_xml(el)
    from trafila.html.serialize import tostring

    return tostring(el, encoding="unicode")


def plain_document(doc: Any, fields: Tuple[str, ...], tree_xml: Callable[[Any, str], Any]) -> Optional[dict]:
    """A bare_extraction / extract_with_metadata result as the candidate interface
    gives it: the fields' values, trees as XML strings (``tree_xml(doc, field)``)."""
    if doc is None:
        return None
    get = doc.get if isinstance(doc, dict) else (lambda k: getattr(doc, k, None))
    out = {}
    for field in fields:
        out[field] = tree_xml(doc, field) if field in ("body", "commentsbody") else get(field)
    return out


class TrafilaturaCandidate(Candidate):
    """The installed trafilatura, called as a user calls it."""

    name = "trafilatura"

    def __init__(self) -> None:
        import trafilatura
        from trafilatura import deduplication

        self.trafilatura = trafilatura
        self.version = trafilatura.__version__
        self.lru = deduplication.LRU_TEST

    def check_mode(self, mode: str) -> None:
        if self.version != mode:
            raise RuntimeError(
                f"mode {mode} needs trafilatura=={mode}, this environment has {self.version} "
                f"(use the tox env for that mode)"
            )

    def call(self, function: str, html: Html, options: Dict[str, Any], mode: str) -> Any:
        self.check_mode(mode)
        self.last_delegated = False  # the oracle runs everything itself
        from trafilatura.settings import DEFAULT_CONFIG

        options = _with_config(options, lambda: DEFAULT_CONFIG)
        if function == "extract":
            return self.trafilatura.extract(html, **options)
        if function == "bare_extraction":
            return plain_document(self.trafilatura.bare_extraction(html, **options),
                                  compared_fields(function, options), self._tree)
        if function == "extract_with_metadata":
            return plain_document(self.trafilatura.extract_with_metadata(html, **options), METADATA_FIELDS, self._tree)
        raise ValueError(f"unknown function {function!r}")

    @staticmethod
    def _tree(doc: Any, field: str) -> Optional[str]:
        value = doc.get(field) if isinstance(doc, dict) else getattr(doc, field, None)
        return value if value is None or isinstance(value, str) else _lxml_xml(value)

    def new_lru(self, maxsize: int) -> Any:
        """A fresh ``deduplicate=`` cache of this implementation."""
        from trafilatura.deduplication import LRUCache

        return LRUCache(maxsize=maxsize)

    def reset_dedup(self, mode: str) -> None:
        self.lru.clear()


class TrafilaCandidate(Candidate):
    """trafila with one engine (``reference`` or ``core``), through ``trafila.engine(name)``:
    both engines can be candidates in one process."""

    def __init__(self, engine: str) -> None:
        import trafila

        self.name = engine
        self.trafila = trafila
        self.engine = trafila.engine(engine)  # EngineUnavailable when not built
        from trafila import _delegation

        self._delegation = _delegation

    def call(self, function: str, html: Html, options: Dict[str, Any], mode: str) -> Any:
        before = self._delegation.delegated_calls
        try:
            return self._call(function, html, options, mode)
        finally:
            self.last_delegated = self._delegation.delegated_calls != before

    def _call(self, function: str, html: Html, options: Dict[str, Any], mode: str) -> Any:
        e = self.engine
        options = _with_config(options, lambda: e.implementation(mode).DEFAULT_CONFIG)
        if function == "extract":
            return e.extract(html, compat=mode, **options)
        if function == "bare_extraction":
            return plain_document(e.bare_extraction(html, compat=mode, **options), compared_fields(function, options),
                                  self._tree)
        if function == "extract_with_metadata":
            return plain_document(e.extract_with_metadata(html, compat=mode, **options), METADATA_FIELDS, self._tree)
        raise ValueError(f"unknown function {function!r}")

    @staticmethod
    def _tree(doc: Any, field: str) -> Optional[str]:
        # native_tree: trafila's own tree, without building the lxml copy the public field gives
        if hasattr(doc, "native_tree"):
            value = doc.native_tree(field)
        else:
            value = doc.get(field) if isinstance(doc, dict) else getattr(doc, field, None)
        if value is not None and not isinstance(value, str):
            value = _serialise_tree(value)
        return value

    def new_lru(self, maxsize: int) -> Any:
        """A fresh ``deduplicate=`` cache: the engine's own (native in 2.3.1 mode)."""
        return self.engine.LRUCache(maxsize=maxsize)

    def reset_dedup(self, mode: str) -> None:
        self.trafila.reset_caches()


class TrafilaBatchCandidate(TrafilaCandidate):
    """trafila's ``extract_batch`` with one engine. A parity run hands it the
    pages of each (option set, form) of a bundle in page order
    (:meth:`prepare_batch`, after the dedup reset); it extracts them in one
    batch and then answers the run's calls page by page from that batch. When
    a page raises, the batch restarts after it (the deduplication cache goes on
    from where the page left it, as the loop's does) and that page's call
    raises the same exception. bare_extraction sets, and a call that is not the
    next page of the batch, go through ``extract`` one by one (``unbatched_calls``).
    ``last_delegated``: exact when the batch ran the loop; on the pool, a page
    counts when any page was handed to trafilatura while it ran (an upper bound)."""

    def __init__(self, engine: str, threads: Optional[int] = None, force_pool: bool = False, name: str = "") -> None:
        super().__init__(engine)
        self.name = name or f"{engine}-batch"
        self.threads = threads
        self.force_pool = force_pool
        self.batched_calls = 0
        self.unbatched_calls = 0
        self._pending: Optional[dict] = None

    def prepare_batch(self, function: str, inputs: list, options: Dict[str, Any], mode: str, timeout: float) -> None:
        """Extract ``inputs`` in one batch; the calls that follow are answered from it."""
        from trafila import _batch, _delegation

        self._pending = None
        if function != "extract" or not inputs:
            return
        e = self.engine
        kwargs = dict(_with_config(dict(options), lambda: e.implementation(mode).DEFAULT_CONFIG), compat=mode)
        outcomes: list = []  # per page: ("ok", result) | ("raise", exception) | ("timeout", message)
        delegated: list = []
        token = self.trafila._CALL_ENGINE.set(e.name)
        try:
            start = 0
            while start < len(inputs):
                chunk = inputs[start:]
                results: list = []
                flags: Dict[int, bool] = {}
                before = _delegation.delegated_calls
                try:
                    with call_timeout(timeout * len(chunk)):
                        _batch.run_batch(chunk, self.threads, kwargs, observe=flags.__setitem__,
                                         force_pool=self.force_pool, into=results)
                except HarnessTimeout as exc:
                    outcomes += [("timeout", str(exc))] * len(chunk)
                    delegated += [False] * len(chunk)
                    break
                except Exception as exc:  # noqa: BLE001 - one page's exception is that page's outcome
                    failed = _batch.failed_page(exc)
                    if failed is None:
                        raise
                    outcomes += [("ok", r) for r in results[:failed]] + [("raise", exc)]
                    delegated += [bool(flags.get(i)) for i in range(failed)] + [_delegation.delegated_calls != before]
                    start += failed + 1
                    continue
                outcomes += [("ok", r) for r in results]
                delegated += [bool(flags.get(i)) for i in range(len(chunk))]
                break
        finally:
            self.trafila._CALL_ENGINE.reset(token)
        self._pending = {"function": function, "options": dict(options), "mode": mode, "inputs": inputs,
                         "outcomes": outcomes, "delegated": delegated, "next": 0}

    def _from_batch(self, function: str, html: Html, options: Dict[str, Any], mode: str) -> Optional[int]:
        batch = self._pending
        if batch is None or (function, options, mode) != (batch["function"], batch["options"], batch["mode"]):
            return None
        inputs = batch["inputs"]
        for i in range(batch["next"], len(inputs)):
            if inputs[i] is html or inputs[i] == html:
                batch["next"] = i + 1
                return i
        return None

    def call(self, function: str, html: Html, options: Dict[str, Any], mode: str) -> Any:
        index = self._from_batch(function, html, options, mode)
        if index is None:
            self.unbatched_calls += 1
            return super().call(function, html, options, mode)
        self.batched_calls += 1
        batch = self._pending
        assert batch is not None
        self.last_delegated = bool(batch["delegated"][index])
        kind, value = batch["outcomes"][index]
        if kind == "raise":
            raise value
        if kind == "timeout":
            raise HarnessTimeout(value)
        return value


def _batch_candidate(spec: str) -> Optional[Candidate]:
    """``<engine>-batch[-pool][:N]`` as a TrafilaBatchCandidate, or None for another spec."""
    head, _, threads = spec.partition(":")
    for engine in ("reference", "core"):
        for suffix, force_pool in (("-batch", False), ("-batch-pool", True)):
            if head == engine + suffix:
                if threads and not threads.isdigit():
                    raise ValueError(f"candidate {spec!r}: the thread count after ':' must be a number")
                return TrafilaBatchCandidate(engine, int(threads) if threads else None, force_pool, name=spec)
    return None


def request_dict(function: str, html: Html, options: Dict[str, Any], mode: str) -> dict:
    """The JSON Lines protocol's request (see harness/PROTOCOL.md)."""
    req: Dict[str, Any] = {"function": function, "mode": mode, "options": options}
    if isinstance(html, str):
        req["form"] = "str"
        req["html"] = html
    else:
        req["form"] = "bytes"
        req["html_b64"] = base64.b64encode(html).decode("ascii")
    return req


def decode_request(req: dict) -> Html:
    if req.get("form") == "str":
        return req["html"]
    return base64.b64decode(req["html_b64"])


class CallableCandidate(Candidate):
    """``module:callable``: called with the protocol's request dict."""

    def __init__(self, spec: str) -> None:
        module, _, attr = spec.partition(":")
        self.name = spec
        self.func: Callable[[dict], Any] = getattr(importlib.import_module(module), attr)
        self.reset: Optional[Callable[[str], None]] = getattr(self.func, "reset_dedup", None)

    def call(self, function, html, options, mode):
        return self.func(request_dict(function, html, options, mode))

    def reset_dedup(self, mode):
        if self.reset is not None:
            self.reset(mode)
        else:
            self.func({"op": "reset_dedup", "mode": mode})


#: the JSON Lines protocol's version (harness/PROTOCOL.md): 2 adds the hello handshake and the parse op
PROTOCOL_VERSION = 2
#: the functions a request may name; extract_with_metadata is refused (harness/PROTOCOL.md)
PROTOCOL_FUNCTIONS = ("extract", "bare_extraction")


class UnsupportedFunction(ValueError):
    """A function the JSON Lines protocol does not carry (extract_with_metadata): refused by the
    harness before anything is sent, and by harness.serve."""

    def __init__(self, function: str) -> None:
        super().__init__(f"{function!r} is not part of the JSON Lines protocol, which carries only "
                         f"{' and '.join(PROTOCOL_FUNCTIONS)} (extract_with_metadata's metadata is not compared "
                         f"over it; see harness/PROTOCOL.md)")
        self.function = function


class CandidateRaised(Exception):
    """A subprocess candidate reported that the implementation raised ``type_name``."""

    def __init__(self, type_name: str, message: str = "") -> None:
        super().__init__(message)
        self.type_name = type_name


class SubprocessCandidate(Candidate):
    """A program speaking JSON Lines on stdin/stdout (harness/PROTOCOL.md)."""

    def __init__(self, command: str, timeout: float = 120.0) -> None:
        self.name = "cmd:" + command
        self.command = command
        self.timeout = timeout
        self.proc: Optional[subprocess.Popen] = None
        self.counter = 0
        #: the protocol version the program speaks: None until started, 1 for a program without the handshake
        self.protocol: Optional[int] = None
        #: its answer to the hello request (protocol 2)
        self.hello: Dict[str, Any] = {}

    def _spawn(self) -> subprocess.Popen:
        return subprocess.Popen(
            shlex.split(self.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, encoding="utf-8", errors="surrogatepass", bufsize=1,
        )

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._spawn()
            if self.protocol is None:
                self._handshake()
        assert self.proc is not None
        return self.proc

    def _handshake(self) -> None:
        """The first request of a fresh program: ``{"op": "hello", "protocol": 2}``. A program that
        answers with its ``protocol`` number (2) is taken at its word (``hello`` keeps its answer:
        name, modes, functions, ops); any other answer -- an error, an exception, an answer without
        ``protocol`` -- is a protocol-1 program, and one that ends on it is started again and never
        asked again. Asked once per candidate, not after each restart."""
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        self.counter += 1
        req = {"id": self.counter, "op": "hello", "protocol": PROTOCOL_VERSION, "harness": "trafila-harness"}
        try:
            with call_timeout(self.timeout):
                proc.stdin.write(json.dumps(req, ensure_ascii=True) + "\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
        except (HarnessTimeout, BrokenPipeError, OSError):
            line = ""
        answer: Any = None
        if line:
            try:
                answer = json.loads(line)
            except ValueError:
                answer = None
        if isinstance(answer, dict) and isinstance(answer.get("protocol"), int) and answer.get("id") == req["id"]:
            self.protocol = answer["protocol"]
            self.hello = answer
            return
        self.protocol = 1
        self.hello = {}
        if not line or proc.poll() is not None:  # it ended (or hung) on the unknown request: start it afresh
            _discard(proc)
            self.proc = self._spawn()

    @property
    def ops(self) -> Tuple[str, ...]:
        """The requests beyond extraction the program announced in its hello (protocol 2)."""
        if self.protocol is None:
            self._start()
        return tuple(self.hello.get("ops", ())) if self.protocol and self.protocol >= 2 else ()

    def parse(self, src: Html) -> dict:
        """A parser case through the ``parse`` op (protocol 2, when announced): lxml's trees in the
        vectors' form (vectors/README.md)."""
        if "parse" not in self.ops:
            raise NotImplementedError("the program does not announce the parse op")
        req: Dict[str, Any] = {"op": "parse"}
        req.update({k: v for k, v in request_dict("parse", src, {}, "").items() if k in ("form", "html", "html_b64")})
        resp = self._ask(req)
        if "error" in resp:
            raise RuntimeError(resp["error"])
        return resp.get("result") or {}

    def _ask(self, req: dict) -> dict:
        proc = self._start()
        self.counter += 1
        req["id"] = self.counter
        assert proc.stdin is not None and proc.stdout is not None
        try:
            with call_timeout(self.timeout):
                proc.stdin.write(json.dumps(req, ensure_ascii=True) + "\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
        except HarnessTimeout:
            _discard(proc)
            self.proc = None
            raise
        if not line:
            code = _discard(proc, grace=5.0)
            self.proc = None
            raise RuntimeError(f"candidate process ended (exit {code})")
        resp = json.loads(line)
        if resp.get("id") != req["id"]:
            raise RuntimeError(f"answer id {resp.get('id')} for request {req['id']}")
        return resp

    def call(self, function, html, options, mode):
        if function not in PROTOCOL_FUNCTIONS:
            raise UnsupportedFunction(function)
        resp = self._ask(request_dict(function, html, options, mode))
        if "raise" in resp:
            raise CandidateRaised(resp["raise"], resp.get("message", ""))
        if "error" in resp:
            raise RuntimeError(resp["error"])
        return resp.get("result")

    def reset_dedup(self, mode):
        self._ask({"op": "reset_dedup", "mode": mode})

    def close(self):
        if self.proc is not None:
            _discard(self.proc, grace=5.0)
            self.proc = None


def _discard(proc: subprocess.Popen, grace: float = 0.0) -> int:
    """End a candidate program and close the pipes to it (garbage collection would otherwise close them
    with a ResourceWarning); its exit code. Its stdin is closed first, so a program that reads to the end
    of its input ends by itself; one still running after ``grace`` seconds is killed."""
    if proc.stdin is not None:
        try:
            proc.stdin.close()
        except OSError:  # a broken pipe to a program that has ended
            pass
    try:
        code = proc.wait(timeout=grace) if grace else proc.poll()
    except subprocess.TimeoutExpired:
        code = None
    if code is None:
        proc.kill()
        code = proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
    return code


def call_entry(cand: Candidate, function: str, html: Html, options: Dict[str, Any], mode: str, timeout: float) -> Any:
    """One call as a result entry (harness.results): the result, or the exception
    type it raised, or a timeout error. Never raises."""
    from .results import error_entry, raised_entry, result_entry

    try:
        with call_timeout(timeout):
            return result_entry(cand.call(function, html, dict(options), mode))
    except HarnessTimeout as exc:
        return error_entry(f"timeout: {exc}")
    except CandidateRaised as exc:
        return {"raise": exc.type_name}
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome
        return raised_entry(exc)


# --- mutants: deliberately wrong candidates that prove the harness catches what it should.
# Each wraps the installed trafilatura and breaks one thing, so the number of differences it
# must produce can be computed from the oracle cache alone (tests/test_harness_parity.py).

def drop_last_line(text):
    """``text`` without its last line (None and non-text as given)."""
    if not isinstance(text, str):
        return text
    return text.rsplit("\n", 1)[0] if "\n" in text else ""


class DropLastLine(Candidate):
    """Drops the last line of every text (and of bare_extraction's text field)."""

    name = "mutant:drop-last-line"

    def __init__(self) -> None:
        self.inner = TrafilaturaCandidate()

    def call(self, function, html, options, mode):
        out = self.inner.call(function, html, options, mode)
        if isinstance(out, dict):
            out = dict(out, text=drop_last_line(out.get("text")))
            return out
        return drop_last_line(out)

    def reset_dedup(self, mode):
        self.inner.reset_dedup(mode)


class IgnorePrecision(Candidate):
    """Ignores favor_precision."""

    name = "mutant:ignore-precision"

    def __init__(self) -> None:
        self.inner = TrafilaturaCandidate()

    def call(self, function, html, options, mode):
        options = {k: v for k, v in options.items() if k != "favor_precision"}
        return self.inner.call(function, html, options, mode)

    def reset_dedup(self, mode):
        self.inner.reset_dedup(mode)


MUTANTS = {"drop-last-line": DropLastLine, "ignore-precision": IgnorePrecision}


def make_mutant(name: str) -> Candidate:
    """The mutant ``name`` (a key of :data:`MUTANTS`)."""
    try:
        return MUTANTS[name]()
    except KeyError:
        raise ValueError(f"unknown mutant {name!r}; known: {', '.join(MUTANTS)}") from None


def make_candidate(spec: str, timeout: float = 120.0) -> Candidate:
    if spec == "trafilatura":
        return TrafilaturaCandidate()
    if spec in ("reference", "core"):
        return TrafilaCandidate(spec)
    batch = _batch_candidate(spec)
    if batch is not None:
        return batch
    if spec.startswith("cmd:"):
        return SubprocessCandidate(spec[4:], timeout=timeout)
    if spec.startswith("mutant:"):
        return make_mutant(spec[7:])
    if ":" in spec:
        return CallableCandidate(spec)
    raise ValueError(f"unknown candidate {spec!r}")
