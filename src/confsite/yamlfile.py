"""Load YAML into plain data plus the line of every key, for messages like `site.yaml:7: ...`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .diagnostics import ConfsiteError, SourceLoc, line_at
from .readers.decoding import decode_utf8

KeyPath = tuple[str | int, ...]
# libyaml's parser where PyYAML was built with it: a site.yaml of 1,000 sources is parsed in
# a fortieth of the time, which a build with nothing to do spends first.
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class YamlDocument:
    path: str
    data: Any
    lines: dict[KeyPath, int]

    def loc(self, key_path: KeyPath) -> SourceLoc:
        """The location of the deepest known prefix of `key_path`."""
        for end in range(len(key_path), -1, -1):
            line = self.lines.get(key_path[:end])
            if line is not None:
                return SourceLoc(self.path, line)
        return SourceLoc(self.path)

    def error(self, key_path: KeyPath, message: str) -> ConfsiteError:
        label = format_key_path(key_path)
        return ConfsiteError(self.loc(key_path), f"{label}: {message}" if label else message)


def format_key_path(key_path: KeyPath) -> str:
    text = ""
    for part in key_path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def load_yaml(path: Path, display_path: str) -> YamlDocument:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfsiteError(display_path, "file not found") from None
    except OSError as err:
        raise ConfsiteError(display_path, f"cannot read: {err.strerror}") from None
    text = decode_utf8(display_path, data, "NUL byte: expected a YAML text file", "file")
    return parse_yaml(text, display_path)


def parse_yaml(text: str, display_path: str) -> YamlDocument:
    """YAML text parsed, each value's line kept; broken YAML is an error with its line."""
    try:
        node = yaml.compose(text, Loader=FAST_LOADER)
    except yaml.YAMLError:
        node = _composed_for_diagnosis(text, display_path)
    values = _Values(display_path)
    data = values.of(node) if node is not None else None
    return YamlDocument(display_path, data, values.lines)


def _composed_for_diagnosis(text: str, display_path: str) -> yaml.Node | None:
    """What PyYAML's own parser makes of text libyaml refused: its error as `site.yaml:7:
    invalid YAML: ...`, worded the same whether libyaml is installed or not (or its nodes,
    where it reads what libyaml does not)."""
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else None
        problem = err.problem or err.context or "invalid YAML"
        raise ConfsiteError(SourceLoc(display_path, line), f"invalid YAML: {problem}") from None
    except yaml.reader.ReaderError as err:
        # A control character YAML does not allow; the reader knows only its offset.
        before = text[: err.position].encode("utf-8")
        raise ConfsiteError(
            SourceLoc(display_path, line_at(before, len(before))),
            f"invalid YAML: control character U+{err.character:04X} is not allowed",
        ) from None
    except yaml.YAMLError as err:
        first = (str(err).splitlines() or ["invalid YAML"])[0]
        raise ConfsiteError(display_path, f"invalid YAML: {first}") from None


class _Values:
    """A document's nodes as plain values, each value's line kept in `lines`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines: dict[KeyPath, int] = {}
        self._constructor = yaml.constructor.SafeConstructor()  # one a document, not a value

    def of(self, node: yaml.Node, key_path: KeyPath = ()) -> Any:
        self.lines.setdefault(key_path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            result: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = self._scalar(key_node)
                if not isinstance(key, str | int) or isinstance(key, bool):
                    raise self._error(key_node, "mapping keys must be text")
                key = str(key)
                if key in result:
                    raise self._error(key_node, f"duplicate key {key!r}")
                child_path = (*key_path, key)
                self.lines[child_path] = key_node.start_mark.line + 1
                result[key] = self.of(value_node, child_path)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.of(item, (*key_path, index)) for index, item in enumerate(node.value)]
        return self._scalar(node)

    def _scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise self._error(node, "expected a plain value")
        try:
            return self._constructor.construct_object(node, deep=True)
        except yaml.YAMLError as err:
            raise self._error(node, str(err)) from None

    def _error(self, node: yaml.Node, message: str) -> ConfsiteError:
        return ConfsiteError(SourceLoc(self.path, node.start_mark.line + 1), message)
