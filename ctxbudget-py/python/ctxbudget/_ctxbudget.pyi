"""Type stubs of the native module ``ctxbudget._ctxbudget`` (import ``ctxbudget``)."""

from os import PathLike
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__version__: str

_Path = Union[str, "PathLike[str]"]
_Body = Union[Mapping[str, Any], str, bytes]
_EditsArg = Union[None, bool, "Edits", Mapping[str, Any]]

class CtxbudgetError(Exception):
    """The base of every error ctxbudget raises; ``str(e)`` is the engine's message."""

class RequestError(CtxbudgetError):
    """A request body that could not be read, checked or fitted."""

class DoesNotFitError(RequestError):
    """What must stay in a request is over the limit."""

class CounterError(CtxbudgetError):
    """A counter that could not be made."""

class ModelNotFoundError(CtxbudgetError):
    """A model name the catalogue does not know."""

class TrimError(CtxbudgetError):
    """Text that could not be trimmed, selected or disclosed."""

class SessionError(CtxbudgetError):
    """A message a ChatSession refused, or a prompt it could not prepare."""

class Counter:
    """A token counter; loads its vocabulary once."""

    @staticmethod
    def for_model(name: str) -> Counter: ...
    @staticmethod
    def encoding(name: str) -> Counter: ...
    @staticmethod
    def tokenizer_file(path: _Path) -> Counter: ...
    @staticmethod
    def tekken(path: _Path) -> Counter: ...
    @staticmethod
    def chars(chars_per_token: int = 4) -> Counter: ...
    def count(self, text: str) -> int: ...
    def count_many(self, texts: Sequence[str]) -> List[int]: ...
    @property
    def name(self) -> str: ...
    @property
    def exact(self) -> bool: ...
    @property
    def exactness(self) -> str: ...

def count(
    text: str,
    *,
    model: Optional[str] = None,
    encoding: Optional[str] = None,
    tokenizer: Optional[_Path] = None,
    counter: Optional[Counter] = None,
) -> int: ...

class Trimmed:
    @property
    def text(self) -> str: ...
    @property
    def tokens(self) -> int: ...
    @property
    def budget(self) -> int: ...
    @property
    def trimmed(self) -> bool: ...
    @property
    def boundary(self) -> Optional[str]: ...
    @property
    def span(self) -> Tuple[int, int]: ...
    @property
    def original_tokens(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]: ...

def trim(
    text: str,
    tokens: int,
    *,
    keep: str = "head",
    model: Optional[str] = None,
    encoding: Optional[str] = None,
    tokenizer: Optional[_Path] = None,
    counter: Optional[Counter] = None,
    min_fill: float = 0.8,
    elision: Optional[str] = None,
) -> Trimmed: ...

class Disclosed:
    @property
    def text(self) -> str: ...
    @property
    def rendered(self) -> str: ...
    @property
    def trailer(self) -> str: ...
    @property
    def shown(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def tokens(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]: ...

def disclose(
    markdown: str,
    tokens: int,
    *,
    recovery: str,
    unit: str = "lines",
    model: Optional[str] = None,
    encoding: Optional[str] = None,
    tokenizer: Optional[_Path] = None,
    counter: Optional[Counter] = None,
) -> Disclosed: ...

class Selection:
    @property
    def text(self) -> str: ...
    @property
    def tokens(self) -> int: ...
    @property
    def budget(self) -> int: ...
    @property
    def chunks(self) -> List[Dict[str, Any]]: ...
    @property
    def dropped(self) -> List[int]: ...
    def to_dict(self) -> Dict[str, Any]: ...

def select(
    chunks: Sequence[str],
    scores: Sequence[float],
    tokens: int,
    *,
    separator: Optional[str] = None,
    marker: Optional[str] = None,
    min_partial: Optional[int] = None,
    keep_scanning: bool = False,
    model: Optional[str] = None,
    encoding: Optional[str] = None,
    tokenizer: Optional[_Path] = None,
    counter: Optional[Counter] = None,
) -> Selection: ...

class Edits:
    """The context edits a fit makes before it drops whole messages."""

    def __init__(self, **options: Any) -> None: ...
    @staticmethod
    def none() -> Edits: ...
    @property
    def is_none(self) -> bool: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Report:
    @property
    def tokens_before(self) -> Optional[int]: ...
    @property
    def tokens_after(self) -> int: ...
    @property
    def dropped(self) -> int: ...
    @property
    def fits(self) -> bool: ...
    @property
    def trimmed(self) -> bool: ...
    @property
    def limit(self) -> int: ...
    @property
    def kept(self) -> int: ...
    @property
    def output_reserved(self) -> int: ...
    @property
    def exactness(self) -> str: ...
    @property
    def counter(self) -> str: ...
    @property
    def warnings(self) -> List[str]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class FittedRequest:
    @property
    def body(self) -> Dict[str, Any]: ...
    @property
    def json(self) -> str: ...
    @property
    def report(self) -> Report: ...
    @property
    def format(self) -> str: ...

def fit_request(
    body: _Body,
    *,
    model: Optional[str] = None,
    max_input: Optional[int] = None,
    window: Optional[int] = None,
    output: Optional[int] = None,
    counter: Optional[Counter] = None,
    encoding: Optional[str] = None,
    tokenizer: Optional[_Path] = None,
    edits: _EditsArg = None,
    format: Optional[str] = None,
    count_dropped: bool = False,
) -> FittedRequest: ...

class RequestCount:
    @property
    def tokens(self) -> int: ...
    @property
    def fixed(self) -> int: ...
    @property
    def messages(self) -> int: ...
    @property
    def assumptions(self) -> List[str]: ...
    @property
    def format(self) -> str: ...
    @property
    def model(self) -> Optional[str]: ...
    @property
    def counter(self) -> str: ...
    @property
    def warning(self) -> Optional[str]: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def __int__(self) -> int: ...

def count_request(
    body: _Body,
    *,
    model: Optional[str] = None,
    encoding: Optional[str] = None,
    tokenizer: Optional[_Path] = None,
    counter: Optional[Counter] = None,
    format: Optional[str] = None,
) -> RequestCount: ...

class Model:
    @staticmethod
    def lookup(name: str) -> Model: ...
    @property
    def name(self) -> str: ...
    @property
    def provider(self) -> str: ...
    @property
    def window(self) -> int: ...
    @property
    def max_output(self) -> Optional[int]: ...
    @property
    def default_output(self) -> int: ...
    @property
    def prompt_limit(self) -> int: ...
    @property
    def tokenizer(self) -> str: ...
    @property
    def api_format(self) -> str: ...
    @property
    def aliases(self) -> List[str]: ...
    @property
    def prices(self) -> Optional[Dict[str, Optional[float]]]: ...
    def input_cost(self, tokens: int, cached: int = 0) -> Optional[float]: ...
    def output_cost(self, tokens: int, prompt_tokens: int = 0) -> Optional[float]: ...
    def counter(self) -> Counter: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Prompt:
    @property
    def messages(self) -> List[Dict[str, Any]]: ...
    @property
    def tokens(self) -> int: ...
    @property
    def limit(self) -> int: ...
    @property
    def stable_prefix(self) -> Optional[int]: ...
    @property
    def cache_breakpoints(self) -> List[int]: ...
    @property
    def cut_moved(self) -> bool: ...
    @property
    def dropped(self) -> int: ...
    @property
    def edits(self) -> Optional[Dict[str, Any]]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class ChatSession:
    def __init__(
        self,
        limit: int,
        *,
        model: Optional[str] = None,
        encoding: Optional[str] = None,
        tokenizer: Optional[_Path] = None,
        counter: Optional[Counter] = None,
        edits: _EditsArg = None,
        low_water: Optional[float] = None,
        grid: Optional[float] = None,
        minimal_fit: bool = False,
        start_on_user: bool = False,
    ) -> None: ...
    def push(self, message: Mapping[str, Any]) -> int: ...
    def extend(self, messages: Sequence[Mapping[str, Any]]) -> None: ...
    def pop(self) -> Optional[Dict[str, Any]]: ...
    def prepare(self) -> Prompt: ...
    @property
    def messages(self) -> List[Dict[str, Any]]: ...
    @property
    def tokens(self) -> int: ...
    @property
    def limit(self) -> int: ...
    @limit.setter
    def limit(self, limit: int) -> None: ...
    @property
    def pending_calls(self) -> List[str]: ...
    @property
    def counter(self) -> str: ...
    def edit_totals(self) -> Dict[str, int]: ...
    def __len__(self) -> int: ...

class RequestBatchFitter:
    def __init__(
        self,
        *,
        model: Optional[str] = None,
        max_input: Optional[int] = None,
        window: Optional[int] = None,
        output: Optional[int] = None,
        counter: Optional[Counter] = None,
        encoding: Optional[str] = None,
        tokenizer: Optional[_Path] = None,
        edits: _EditsArg = None,
        format: Optional[str] = None,
        threads: Optional[int] = None,
    ) -> None: ...
    @property
    def threads(self) -> int: ...
    def fit(self, bodies: Any) -> Any: ...

def count_texts(
    texts: Any,
    *,
    model: Optional[str] = None,
    encoding: Optional[str] = None,
    tokenizer: Optional[_Path] = None,
    counter: Optional[Counter] = None,
    threads: Optional[int] = None,
) -> Any: ...

def trim_chat(
    messages: Union[str, List[Dict[str, Any]]],
    max_tokens: int,
    *,
    costs: Optional[List[int]] = None,
    priming: int = 0,
    piece_counter: Optional[Callable[[int, int, int, str], int]] = None,
    counter: Optional[Counter] = None,
    model: Optional[str] = None,
    encoding: Optional[str] = None,
    tokenizer: Optional[_Path] = None,
    strategy: str = "last",
    include_system: bool = True,
    keep_latest_user: bool = True,
    start_on: List[str] = ...,
    end_on: List[str] = ...,
    allow_partial: bool = False,
) -> Dict[str, Any]: ...
