"""The engine of ``tools/generate_api.py``: statistic methods rendered from the table.

For every host (a pandas Series, a dask GroupBy, ``nanaccess.agg``, ...) the engine
iterates over :data:`nanaccess._stats.STATISTICS` and writes one method (or one
function) per statistic whose body calls a single hand-written hook, e.g.::

    def median(self, *, axis: Any = None, nan_policy: str | None = None) -> Any:
        \"\"\"<summary, Parameters, Returns, See Also, Examples>\"\"\"
        return self._reduce("median", axis=axis, nan_policy=nan_policy)

The hand-written accessor class inherits the rendered mixin and defines the hook
(``_reduce``) that maps the host's labels onto the core entry point. Adding a
statistic to the table adds it to every host on the next ``python
tools/generate_api.py`` (``--hosts pandas dask`` renders only those hosts' modules;
``--check`` compares, as tests/test_generated_api.py does).

How a host spec looks
---------------------
A module ``tools/apigen/hosts_<name>.py`` defines ``HOSTS = [HostSpec(...), ...]``;
:func:`discover_hosts` imports every such module. A :class:`HostSpec` says

* ``key`` (unique, also the marker name in ``docs/api.rst``), ``label`` (how users
  write the host, e.g. ``"Series.nanstats"``), ``path`` (the output module, relative
  to the repository; several specs may share one) and ``name`` (the mixin class,
  empty for ``kind="functions"``), ``hook`` (the method or function the body calls);
* ``params``: the host's own keywords (:class:`HostParam`: ``axis`` vs ``dim``,
  ``numeric_only``, ``keep_attrs``, ``engine``), each with its default as source
  text, numpydoc type and description, and an ``applies(statistic)`` filter; a host
  alias (``skipna``, ``interpolation``) has ``folds_into=(target, function)``: the
  hook never sees it, it receives ``target=function(alias, target)`` (the functions
  live in :mod:`nanaccess._conventions`, imported through the spec's ``imports``);
* ``order``: the signature layout -- names in positional order, then ``"*"``, then
  keyword-only names. Statistic parameters (``q``, ``ddof``, ...) appear where they
  are listed, and only for the statistics that have them; a statistic parameter not
  listed goes first after ``"*"``; ``nan_policy`` goes where listed (default: last);
* ``weights``: the host aligns frequency weights with its data, so the weighted
  statistics (:attr:`nanaccess._stats.Statistic.weighted`) get the keyword
  :data:`nanaccess._stats.WEIGHTS` (where ``order`` lists ``"weights"``, else first
  after ``"*"``); hosts that cannot take weights (windows, dask, grouped xarray) leave
  it False and never show it;
* ``pandas_defaults``: use :attr:`nanaccess._stats.Param.pandas_default` (``ddof=1``
  as pandas) instead of the table's default (``ddof=0`` as NumPy/xarray);
  ``defaults``: further per-host defaults (``{"q": 0.5}``: pandas' quantile default);
* ``statistics``: which table entries the host has (default: all); ``param_docs``:
  the host's own description of a table parameter (what a sequence ``q`` gives);
* ``returns(stat) -> (annotation, numpydoc text)``, ``extended(stat)`` (a paragraph
  after the summary), ``see_also(stat) -> [(target, description)]``;
* ``example``: an :class:`Example` (setup lines, the expression reaching the
  accessor, ``wrap`` such as ``"{call}.compute()"`` for lazy hosts). The calls per
  statistic come from :func:`example_calls` (or ``example_calls`` of the spec). The
  outputs are *computed* by running the examples (:func:`evaluate`), so every example
  passes ``--doctest-modules`` by construction and the check mode notices when a
  result changes;
* ``imports`` / ``type_imports``: module lines the rendered code needs (relative
  imports of the hook; annotations under ``TYPE_CHECKING``);
* ``docs_module`` / ``docs_prefix`` / ``docs_extra``: the ``docs/api.rst`` list
  between the indented comments ``.. generated-api: <key> begin`` and ``... end``
  inside an autosummary directive (the rendered methods in table order, then the
  hand-written names of ``docs_extra``); no ``docs_module``: not listed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[2]

#: the policies of :class:`nanaccess.options.NanPolicy` (tests/test_generated_api.py
#: checks that they agree)
POLICIES = ("raise", "propagate", "omit", "smallest", "largest", "totalorder")

#: annotations of the table's parameters (fallback ``Any``)
ANNOTATIONS = {
    "q": "float | Sequence[float]",
    "method": "str",
    "ddof": "float",
    "rng": "tuple[float, float]",
    "scale": "float | str",
    "weights": "Any",
    "weights_kind": "str",
}

NAN_POLICY_DOC = (
    "{" + ", ".join(f'"{p}"' for p in POLICIES) + "}, optional",
    "How NaN and missing values are treated (see :doc:`/semantics`); None uses "
    '``nanaccess.get_options()["nan_policy"]`` (initially "raise").',
)

HEADER = '''"""{title}

Generated by tools/generate_api.py from the statistics table
(:data:`nanaccess._stats.STATISTICS`); do not edit. Change the table, the host specs
(tools/apigen/hosts_*.py) or the templates (tools/apigen/render.py) and run
``python tools/generate_api.py``.
"""
'''


def load_table() -> ModuleType:
    """``nanaccess/_stats.py`` loaded on its own (it imports nothing of nanaccess), so
    the generator runs even when a rendered module is missing or stale."""
    path = ROOT / "nanaccess" / "_stats.py"
    spec = importlib.util.spec_from_file_location("_nanaccess_stats_table", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


STATS = load_table()


def package_functions() -> frozenset[str]:
    """Names in ``nanaccess.__all__``, read from the source (for See Also lines)."""
    import ast

    tree = ast.parse((ROOT / "nanaccess" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return frozenset(ast.literal_eval(node.value))
    return frozenset()


def _always(stat: Any) -> bool:
    return True


@dataclass(frozen=True)
class HostParam:
    """A keyword of the host (not of the statistic): axis, dim, numeric_only, ..."""

    name: str
    #: source text of the default
    default: str
    #: numpydoc type line
    type: str
    #: numpydoc description
    doc: str
    annotation: str = "Any"
    #: whether a statistic has this keyword on the host
    applies: Callable[[Any], bool] = _always
    #: a host alias folded into another argument before the hook is called:
    #: ``(target, function)`` forwards ``target=function(<this>, target)`` and not this
    #: keyword itself (``skipna`` into ``nan_policy``, ``interpolation`` into ``method``;
    #: the functions live in :mod:`nanaccess._conventions`)
    folds_into: tuple[str, str] | None = None


@dataclass(frozen=True)
class Example:
    """The example of a host: setup lines, then one call per :func:`example_calls`."""

    setup: tuple[str, ...]
    #: the expression the method is called on (``"s.nanstats"``, ``"na.agg"``)
    obj: str
    #: how a call is shown: ``"{call}"``, ``"{call}.compute()"``, ``"{call}(s)"``
    wrap: str = "{call}"


@dataclass(frozen=True)
class HostSpec:
    """What the engine needs to render one host (see the module docstring)."""

    key: str
    label: str
    path: str
    name: str
    doc: str
    example: Example
    returns: Callable[[Any], tuple[str, str]]
    kind: Literal["mixin", "functions"] = "mixin"
    hook: str = "_reduce"
    params: tuple[HostParam, ...] = ()
    order: tuple[str, ...] = ("q", "*")
    #: the weighted statistics take ``weights=`` on this host
    weights: bool = False
    #: the host's data come weighted (``obj.weighted(w)``): the statistics that take
    #: ``weights_kind`` show it without ``weights``
    weights_kind: bool = False
    pandas_defaults: bool = False
    defaults: dict[str, Any] = field(default_factory=dict)
    statistics: tuple[str, ...] | None = None
    extended: Callable[[Any], str] = lambda stat: ""
    see_also: Callable[[Any], Sequence[tuple[str, str]]] = lambda stat: ()
    example_calls: Callable[[Any], Sequence[str]] | None = None
    imports: tuple[str, ...] = ()
    type_imports: tuple[str, ...] = ()
    title: str = ""
    docs_module: str = ""
    docs_prefix: str = ""
    docs_extra: tuple[str, ...] = ()
    #: per-host descriptions of the table's parameters (e.g. what a sequence ``q`` gives)
    param_docs: dict[str, str] = field(default_factory=dict)

    def stats(self) -> list[Any]:
        names = self.statistics if self.statistics is not None else tuple(STATS.STATISTICS)
        return [STATS.get(n) for n in names]


# ----------------------------------------------------------------------- signatures


@dataclass(frozen=True)
class _Arg:
    name: str
    annotation: str
    default: str | None  # source text; None: required
    type: str
    doc: str
    folds_into: tuple[str, str] | None = None


def takes_policy(stat: Any) -> bool:
    """A count takes no policy: it counts numbers, whatever the NaNs are."""
    return stat.family != "count"


def source(value: Any) -> str:
    """``value`` as Python source, strings in double quotes (as ruff's style)."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _stat_default(spec: HostSpec, param: Any) -> str | None:
    if param.name in spec.defaults:
        return source(spec.defaults[param.name])
    if spec.pandas_defaults and param.pandas_default is not None:
        return source(param.pandas_default)
    if param.required:
        return None
    return source(param.default)


def signature(spec: HostSpec, stat: Any) -> tuple[list[_Arg], list[_Arg]]:
    """(positional, keyword-only) arguments of ``stat`` on ``spec``'s host."""
    own = stat.params + (stat.weight_params if spec.weights else ())
    if spec.weights_kind and not spec.weights:
        own += tuple(p for p in stat.weight_params if p.name != "weights")
    stat_params = {p.name: p for p in own}
    host = {p.name: p for p in spec.params if p.applies(stat)}
    order = list(spec.order)
    if "*" not in order:
        order.append("*")
    star = order.index("*")
    unlisted = [n for n in stat_params if n not in order]
    order[star + 1:star + 1] = unlisted
    if "nan_policy" not in order:
        order.append("nan_policy")
    pos: list[_Arg] = []
    kw: list[_Arg] = []
    for i, name in enumerate(order):
        target = pos if i < star else kw
        if name in stat_params:
            p = stat_params[name]
            doc = spec.param_docs.get(name, p.doc)
            if name == "weights" and "ddof" in stat_params:
                doc += (" With weights, ``ddof`` subtracts from the total weight (frequency "
                        "weights).")
            target.append(_Arg(name, ANNOTATIONS.get(name, "Any"), _stat_default(spec, p),
                               p.type, doc))
        elif name in host:
            h = host[name]
            target.append(_Arg(name, h.annotation, h.default, h.type, h.doc, h.folds_into))
        elif name == "nan_policy" and takes_policy(stat):
            target.append(_Arg(name, "NanPolicyArg", "None", *NAN_POLICY_DOC))
    return pos, kw


def _arg_text(a: _Arg) -> str:
    return f"{a.name}: {a.annotation}" + ("" if a.default is None else f" = {a.default}")


def _def_lines(name: str, args: list[str], ret: str, indent: str) -> list[str]:
    one = f"{indent}def {name}({', '.join(args)}) -> {ret}:"
    if len(one) <= 100:
        return [one]
    return [f"{indent}def {name}(", *[f"{indent}    {a}," for a in args], f"{indent}) -> {ret}:"]


# ------------------------------------------------------------------------ docstrings


def _wrap(text: str, indent: str, width: int = 92) -> list[str]:
    words = text.split()
    lines: list[str] = []
    cur = ""
    for w in words:
        if cur and len(indent) + len(cur) + 1 + len(w) > width:
            lines.append(indent + cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(indent + cur)
    return lines


def example_calls(stat: Any) -> list[str]:
    """The argument lists an example shows for ``stat`` (default for every host)."""
    if not takes_policy(stat):
        return [""]
    second = {
        "quantile": ('[0.25, 0.75], nan_policy="omit"', '0.5, nan_policy="propagate"'),
        "var": ('nan_policy="omit"', 'ddof=0, nan_policy="omit"'),
        "std": ('nan_policy="omit"', 'ddof=0, nan_policy="omit"'),
        "iqr": ('nan_policy="omit"', 'rng=(10, 90), nan_policy="omit"'),
        "mad": ('nan_policy="omit"', 'scale="normal", nan_policy="omit"'),
    }
    return list(second.get(stat.name, ('nan_policy="omit"', 'nan_policy="propagate"')))


def example_source(spec: HostSpec, stat: Any) -> list[str]:
    """The statements of ``stat``'s example (without prompts or outputs)."""
    calls = (spec.example_calls or example_calls)(stat)
    lines = list(spec.example.setup)
    for args in calls:
        call = f"{spec.example.obj}.{stat.name}({args})"
        lines.append(spec.example.wrap.format(call=call))
    return lines


def _param_lines(a: _Arg, room: int = 92) -> list[str]:
    """numpydoc lines of a parameter; a choice set too long for the type line moves
    into the description (type ``str``)."""
    typ, doc = a.type, a.doc
    suffix = ""
    if a.default is not None and a.name != "nan_policy":
        suffix = f", default {a.default}"
    if typ.endswith(", optional"):
        typ, suffix = typ[: -len(", optional")], ", optional"
    if len(f"{a.name} : {typ}{suffix}") > room and typ.startswith("{"):
        doc = f"One of {typ}. {doc}"
        typ = "str"
    return [f"{a.name} : {typ}{suffix}", *_wrap(doc, "    ")]


def docstring(spec: HostSpec, stat: Any, outputs: dict[str, list[str]] | None) -> list[str]:
    """The numpydoc docstring of ``stat`` on ``spec``'s host (lines, not indented)."""
    pos, kw = signature(spec, stat)
    out = [stat.summary]
    ext = spec.extended(stat)
    if ext:
        out += ["", *_wrap(ext, "")]
    params = pos + kw
    if params:
        out += ["", "Parameters", "----------"]
        for a in params:
            out += _param_lines(a)
    annotation, returns = spec.returns(stat)
    kind, _, desc = returns.strip("\n").partition("\n")
    out += ["", "Returns", "-------", kind, *_wrap(desc, "    ")]
    see = list(spec.see_also(stat))
    if see:
        out += ["", "See Also", "--------"]
        for target, desc in see:
            out += [target, *_wrap(desc, "    ")]
    out += ["", "Examples", "--------"]
    src = example_source(spec, stat)
    results = (outputs or {}).get(f"{spec.key}.{stat.name}")
    for i, line in enumerate(src):
        out.append(">>> " + line)
        if results is not None:
            out += [r if r.strip() else "<BLANKLINE>" for r in results[i]]
    return out


def _docstring_text(lines: list[str], indent: str) -> list[str]:
    body = [(indent + ln if ln else "") for ln in lines]
    body[0] = f'{indent}"""{lines[0]}'
    return [*body, f'{indent}"""']


# --------------------------------------------------------------------------- render


def forwarded_args(args: list[_Arg]) -> list[str]:
    """``name=value`` of each argument the hook receives: host aliases are folded
    into their target (``nan_policy=skipna_policy(skipna, nan_policy)``)."""
    folds = {a.folds_into[0]: (a.name, a.folds_into[1]) for a in args if a.folds_into}
    out = []
    for a in args:
        if a.folds_into:
            continue
        if a.name in folds:
            alias, fn = folds[a.name]
            out.append(f"{a.name}={fn}({alias}, {a.name})")
        else:
            out.append(f"{a.name}={a.name}")
    return out


def hook_annotation(spec: HostSpec) -> str:
    """The return annotation of a mixin's hook stub: the one most of its statistics
    declare (so that ``mypy --strict`` sees each method return what it declares)."""
    counts = Counter(spec.returns(st)[0] for st in spec.stats())
    return counts.most_common(1)[0][0] if counts else "Any"


def needs_cast(spec: HostSpec, annotation: str) -> bool:
    """Whether a method declared ``annotation`` casts what its hook returns: the hook's
    annotation is ``Any`` (and the method's is not) or another type than one of the
    members of the method's union."""
    hook = hook_annotation(spec) if spec.kind == "mixin" else "?"
    if spec.kind != "mixin" or annotation == "Any":
        return False
    return hook == "Any" or (
        hook != annotation and hook not in [m.strip() for m in annotation.split("|")])


def render_method(spec: HostSpec, stat: Any, outputs: dict | None) -> list[str]:
    pos, kw = signature(spec, stat)
    mixin = spec.kind == "mixin"
    indent = "    " if mixin else ""
    args = (["self"] if mixin else []) + [_arg_text(a) for a in pos]
    if kw:
        args += ["*", *[_arg_text(a) for a in kw]]
    annotation, _ = spec.returns(stat)
    lines = _def_lines(stat.name, args, annotation, indent)
    lines += _docstring_text(docstring(spec, stat, outputs), indent + "    ")
    forwarded = ", ".join(forwarded_args(pos + kw))
    target = f"self.{spec.hook}" if mixin else spec.hook
    cast = needs_cast(spec, annotation)
    if cast:
        target = f'cast("{annotation}", {target}'
    close = ")" if cast else ""
    call = f'return {target}("{stat.name}"' + (f", {forwarded})" if forwarded else ")") + close
    if len(indent) + 4 + len(call) <= 100:
        lines.append(f"{indent}    {call}")
    else:
        lines.append(f'{indent}    return {target}(')
        lines.append(f'{indent}        "{stat.name}",')
        lines += [f"{indent}        {a}," for a in forwarded_args(pos + kw)]
        lines.append(f"{indent}    ){close}")
    return lines


def render_host(spec: HostSpec, outputs: dict | None) -> list[str]:
    lines: list[str] = []
    if spec.kind == "mixin":
        lines.append(f"class {spec.name}:")
        lines += _docstring_text(_wrap(spec.doc, "") + [
            "",
            "Generated: one method per statistic of the table, each calling",
            f"``self.{spec.hook}``, which the accessor class defines.",
        ], "    ")
        lines += ["", "    __slots__ = ()", ""]
        hook_returns = hook_annotation(spec)
        lines += [f"    def {spec.hook}(self, stat: str, **kwargs: Any) -> {hook_returns}:",
                  "        raise NotImplementedError", ""]
        for stat in spec.stats():
            lines += render_method(spec, stat, outputs) + [""]
    else:
        for stat in spec.stats():
            lines += render_method(spec, stat, outputs) + ["", ""]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _uses(specs: Sequence[HostSpec], word: str) -> bool:
    """Whether a rendered signature or return annotation names ``word``."""
    for s in specs:
        for st in s.stats():
            pos, kw = signature(s, st)
            if any(word in a.annotation for a in pos + kw) or word in s.returns(st)[0]:
                return True
    return False


def render_module(specs: Sequence[HostSpec], outputs: dict | None) -> str:
    """The text of one output module holding ``specs`` (in order)."""
    title = specs[0].title or "Statistic methods rendered from the statistics table."
    lines = [HEADER.format(title=title).rstrip("\n"), "", "from __future__ import annotations",
             ""]
    std = []
    abc = [n for n in ("Hashable", "Sequence") if _uses(specs, n)]
    if abc:
        std.append(f"from collections.abc import {', '.join(abc)}")
    type_imports = sorted({i for s in specs for i in s.type_imports})
    casts = any(needs_cast(s, s.returns(st)[0]) for s in specs for st in s.stats())
    typing = (["TYPE_CHECKING"] if type_imports else []) + (
        ["Any"] if any(s.kind == "mixin" for s in specs) or _uses(specs, "Any") else []) + (
        ["cast"] if casts else [])
    if typing:
        std.append(f"from typing import {', '.join(typing)}")
    lines += std
    local = sorted({i for s in specs for i in s.imports})
    if _uses(specs, "NanPolicyArg"):  # the Literal policy names (nanaccess.typing)
        local = sorted([*local, "from ..typing import NanPolicyArg"])
    if local:
        lines += ["", *local]
    if type_imports:
        lines += ["", "if TYPE_CHECKING:", *[f"    {i}" for i in type_imports]]
    names = [s.name for s in specs if s.kind == "mixin"] + [
        st.name for s in specs if s.kind == "functions" for st in s.stats()]
    lines += ["", f"__all__ = {names!r}".replace("'", '"')]
    if len(lines[-1]) > 100:
        lines[-1:] = ["__all__ = [", *[f'    "{n}",' for n in names], "]"]
    for spec in specs:
        lines += ["", "", *render_host(spec, outputs)]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------ examples


def evaluate(specs: Sequence[HostSpec]) -> dict[str, list[list[str]]]:
    """Run every example as doctest would; the printed output of each statement.

    Needs an importable nanaccess whose hosts already have the methods (the writer
    renders without outputs first, then evaluates in a fresh process).
    """
    results: dict[str, list[list[str]]] = {}
    for spec in specs:
        for stat in spec.stats():
            ns: dict[str, Any] = {"__name__": "__example__"}
            outs: list[list[str]] = []
            for line in example_source(spec, stat):
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    try:
                        exec(compile(line, "<example>", "single"), ns)  # noqa: S102
                    except Exception as exc:
                        raise RuntimeError(
                            f"example of {spec.label}.{stat.name} failed at {line!r}:\n"
                            + "".join(traceback.format_exception(exc))
                        ) from None
                text = buf.getvalue().rstrip("\n")
                outs.append([ln.rstrip() for ln in text.splitlines()] if text else [])
            results[f"{spec.key}.{stat.name}"] = outs
    return results


# ----------------------------------------------------------------------------- docs


def render_docs_list(spec: HostSpec) -> list[str]:
    """The autosummary lines of ``spec``'s host (generated methods, then extras)."""
    names = [st.name for st in spec.stats()] + list(spec.docs_extra)
    return [f"   {spec.docs_prefix}{n}" for n in names]


MARK = ".. generated-api: "


def splice_docs(text: str, specs: Sequence[HostSpec]) -> str:
    """Replace the lines between ``.. generated-api: <key> begin`` and ``... end``.

    The markers sit inside an ``autosummary`` directive's content (indented; lines
    starting with ``..`` are not entries), so the list stays one directive. Markers
    of keys without a spec here keep their lines.
    """
    lines = text.splitlines()
    out: list[str] = []
    by_key = {s.key: s for s in specs if s.docs_module}
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        mark = line.strip()
        if mark.startswith(MARK) and mark.endswith(" begin"):
            key = mark[len(MARK):-len(" begin")]
            j = i + 1
            while j < len(lines) and lines[j].strip() != f"{MARK}{key} end":
                j += 1
            if j == len(lines):
                raise ValueError(f"docs/api.rst: no end marker for {key!r}")
            out += render_docs_list(by_key[key]) if key in by_key else lines[i + 1:j]
            i = j
            continue
        i += 1
    return "\n".join(out) + "\n"


def discover_hosts() -> list[HostSpec]:
    """Every ``HOSTS`` of ``tools/apigen/hosts_*.py``, in file-name order."""
    import importlib

    specs: list[HostSpec] = []
    for path in sorted(Path(__file__).parent.glob("hosts_*.py")):
        module = importlib.import_module(f"{__package__ or 'apigen'}.{path.stem}")
        specs += list(module.HOSTS)
    keys = [s.key for s in specs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"host keys defined twice: {sorted(dup)}")
    return specs
