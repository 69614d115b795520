"""Readers from outside the package: a site's own `readers/` folder beside site.yaml, and
installed packages that expose readers under the `confsite.readers` entry-point group.

Each joins the registry of the build that finds it. A reader that cannot be loaded (an import
error, a missing or ill-typed attribute, a name already taken) is a located error naming its
file; every such error is reported at once.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import sys
import types
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from ..cache.digests import files_digest, folder_files
from ..diagnostics import ConfsiteError, SourceLoc, raise_all
from .registry import PluginReader, Registry, crash_site

SITE_READERS_FOLDER = "readers"
ENTRY_POINT_GROUP = "confsite.readers"
CARRIABLE = ("title", "authors", "abstract")
# A module of the folder with none of these is a helper the readers import, not a reader.
READER_FUNCTIONS = ("sniff", "read")


def site_registry(site_root: Path) -> Registry:
    """The built-in readers, then the site's `readers/*.py` (by file name), then installed
    entry points (by name), then the general reader: a site's reader that fits its files wins
    over the general one."""
    folder = site_root / SITE_READERS_FOLDER
    plugins, errors = [], []
    for load in (*folder_loaders(folder, site_root), *entry_point_loaders()):
        try:
            plugin = load()
        except ConfsiteError as err:
            errors.append(err)
            continue
        if plugin is not None:
            plugins.append(plugin)
    base = Registry()
    errors += name_clashes(base.names(), plugins)
    raise_all(errors)
    *specific, fallback = base.readers
    readers = (*specific, *(plugin.reader for plugin in plugins), fallback)
    return Registry(readers, tuple(plugins), code_digest(plugins, folder))


PluginLoader = Callable[[], "PluginReader | None"]


def folder_loaders(folder: Path, site_root: Path) -> list[PluginLoader]:
    if not folder.is_dir():
        return []
    package = folder_package(folder)
    return [
        partial(folder_reader, package, path, display_path(path, site_root))
        for path in sorted(folder.glob("*.py"))
        if not path.name.startswith("_")
    ]


def folder_package(folder: Path) -> str:
    """A package standing for the folder, so its modules can import each other (`from . import
    helper`). Named after the folder's code: an edited reader is imported afresh."""
    name = f"_confsite_site_readers_{folder_digest(folder)[:16]}"
    if name not in sys.modules:
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        sys.modules[name] = package
    return name


def folder_reader(package: str, path: Path, display: str) -> PluginReader | None:
    try:
        module = importlib.import_module(f"{package}.{path.stem}")
    except SyntaxError as err:
        raise ConfsiteError(
            SourceLoc(display, err.lineno), f"reader module does not compile: {err.msg}"
        ) from None
    except Exception as err:
        raise import_error(err, path, display) from None
    if not any(hasattr(module, function) for function in READER_FUNCTIONS):
        return None
    check_reader(module, display)
    return PluginReader(module, path, display)


def entry_point_loaders() -> list[PluginLoader]:
    entry_points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    ordered = sorted(entry_points, key=lambda entry: entry.name)
    return [partial(entry_point_reader, entry) for entry in ordered]


def entry_point_reader(entry: importlib.metadata.EntryPoint) -> PluginReader:
    what = f"entry point {entry.name!r} = {entry.value!r} in group {ENTRY_POINT_GROUP!r}"
    try:
        reader = entry.load()
    except Exception as err:
        file = module_file(entry.module)
        if file is None:
            raise ConfsiteError(what, f"cannot load: {type(err).__name__}: {err}") from None
        raise import_error(err, file, str(file)) from None
    file = module_file(reader.__name__ if inspect.ismodule(reader) else entry.module)
    display = f"{file or entry.module} ({what})"
    check_reader(reader, display)
    return PluginReader(reader, file or Path(entry.module), display)


def module_file(module_name: str) -> Path | None:
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if file is None:
        try:
            spec = importlib.util.find_spec(module_name)
        except Exception:  # its package fails to import: no file to name
            return None
        file = spec.origin if spec is not None else None
    return Path(file) if file else None


def import_error(err: Exception, path: Path, display: str) -> ConfsiteError:
    where = crash_site(err, path, display)
    message = f"reader module failed to import: {type(err).__name__}: {err}"
    if where.path == display:
        return ConfsiteError(where, message)
    return ConfsiteError(display, f"{message} (at {where})")


def check_reader(reader: object, display: str) -> None:
    """The attributes of the `Reader` protocol, with the types it needs."""
    problems = [f"'{attribute}' {problem}" for attribute, problem in attribute_problems(reader)]
    if problems:
        raise ConfsiteError(
            display,
            f"not a usable reader: {'; '.join(problems)} (see the Reader protocol in "
            "confsite/readers/base.py)",
        )


def attribute_problems(reader: object) -> Iterator[tuple[str, str]]:
    for attribute in ("name", "description"):
        value = getattr(reader, attribute, None)
        if not isinstance(value, str) or not value.strip():
            yield attribute, "is missing or not a non-empty string"
    name = getattr(reader, "name", "")
    if isinstance(name, str) and any(ch.isspace() for ch in name):
        yield "name", f"has spaces ({name!r}); site.yaml names a format in one word"
    carries = getattr(reader, "carries", None)
    if not isinstance(carries, tuple | list) or not set(carries) <= set(CARRIABLE):
        yield "carries", f"must be a tuple of some of {', '.join(CARRIABLE)}"
    for function in READER_FUNCTIONS:
        if not callable(getattr(reader, function, None)):
            yield function, "is missing or not a function"


def name_clashes(builtin: tuple[str, ...], plugins: list[PluginReader]) -> list[ConfsiteError]:
    taken = {name: "by a built-in reader" for name in builtin}
    errors = []
    for plugin in plugins:
        name = plugin.reader.name
        if name in taken:
            message = f"reader name {name!r} is already taken {taken[name]}; choose another"
            errors.append(ConfsiteError(plugin.display, message))
        taken.setdefault(name, f"by {plugin.display}")
    return errors


def display_path(path: Path, site_root: Path) -> str:
    try:
        return path.relative_to(site_root).as_posix()
    except ValueError:
        return str(path)


def folder_digest(folder: Path) -> str:
    return files_digest(folder_files(folder, "*.py")).hex()


def code_digest(plugins: list[PluginReader], folder: Path) -> str:
    """The source of every reader from outside the package: editing one reads sources anew."""
    if not plugins:
        return ""
    files = folder_files(folder, "*.py", "site/") if folder.is_dir() else []
    files += [(plugin.display, plugin.file) for plugin in plugins if plugin.file.is_file()]
    return files_digest(files).hex()
