"""The command line's reference page, read from the commands themselves: every command and
group of `tcplab`, each with its usage, its help, its arguments and every option (its names,
the value it takes, its default, its help), as click knows them once Typer has built them.
Typer carries its own copy of click, so the commands are read by their attributes, not by
click's classes.

docs/hooks.py puts it into the docs' reference/cli.md; `python -m tcplab.cli._reference`
prints it.
"""

# No `from __future__ import annotations` in this package: see tcplab.cli.
import re
from collections.abc import Iterator
from typing import Any

import typer


def _is_group(cmd: Any) -> bool:
    return hasattr(cmd, "list_commands")


def _is_argument(param: Any) -> bool:
    return param.param_type_name == "argument"


def _commands(cmd: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
    """`cmd` and every command below it, depth first, in the order `--help` lists them."""
    yield cmd, ctx
    if _is_group(cmd):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            sub_ctx = sub.context_class(sub, info_name=name, parent=ctx, **sub.context_settings)
            yield from _commands(sub, sub_ctx)


def _code(text: str) -> str:
    """`text` as a Markdown code span (backticks inside it allowed)."""
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _text(text: str) -> str:
    """Help text as Markdown: one paragraph a blank line, shown as written."""
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip())]
    out = []
    for p in paras:
        p = re.sub(r"([\\*_\[\]])", r"\\\1", p).replace("<", "&lt;").replace(">", "&gt;")
        out.append(p)
    return "\n\n".join(out)


def _metavar(param: Any) -> str:
    """The value an option or argument takes, as the reference shows it."""
    if getattr(param, "is_flag", False):
        return ""
    if param.metavar:
        return param.metavar
    kind = param.type
    if hasattr(kind, "choices"):
        return "|".join(str(c) for c in kind.choices)
    if hasattr(kind, "file_okay"):
        if not kind.file_okay:
            return "DIR"
        return "FILE" if not kind.dir_okay else "PATH"
    if _is_argument(param):
        return param.name.upper() if param.name else "ARG"
    name = kind.name.lower().removesuffix(" range")
    return {"int": "INTEGER", "str": "TEXT", "float": "NUMBER"}.get(name, name.upper())


def _limits(param: Any) -> str:
    kind = param.type
    if hasattr(kind, "min") and hasattr(kind, "max"):
        parts = []
        if kind.min is not None:
            parts.append(f"at least {kind.min}")
        if kind.max is not None:
            parts.append(f"at most {kind.max}")
        return ", ".join(parts)
    return ""


def _default(param: Any) -> str:
    if param.required or getattr(param, "show_default", None) is False:
        return ""
    if getattr(param, "is_flag", False) or param.default in (None, (), [], ""):
        return ""
    value = param.default() if callable(param.default) else param.default
    return "" if value in (None, (), [], "") else str(value)


def _usage(cmd: Any, ctx: Any) -> str:
    pieces = []
    for param in cmd.get_params(ctx):
        if _is_argument(param):
            mv = _metavar(param)
            pieces.append(mv if param.required else f"[{mv.strip('[]')}]")
    if any(not _is_argument(p) for p in cmd.get_params(ctx)):
        pieces.insert(0, "[OPTIONS]")
    if _is_group(cmd):
        pieces.append("COMMAND [ARGS]...")
    return " ".join([ctx.command_path, *pieces])


def anchor(command_path: str) -> str:
    """The anchor of a command on the page: ``tcplab-model-per``."""
    return command_path.replace(" ", "-")


def _params(cmd: Any, ctx: Any) -> list[str]:
    out: list[str] = []
    args = [p for p in cmd.get_params(ctx) if _is_argument(p)]
    if args:
        out += ["**Arguments**", ""]
        for p in args:
            notes = ["required" if p.required else "optional"]
            if getattr(p, "multiple", False) or p.nargs == -1:
                notes.append("one or more")
            help_ = getattr(p, "help", None) or ""
            out.append(f"- {_code(_metavar(p))} ({', '.join(notes)}): {_text(help_)}")
        out.append("")
    opts = [p for p in cmd.get_params(ctx) if not _is_argument(p) and not p.hidden]
    if opts:
        out += ["**Options**", ""]
        for p in opts:
            names = ", ".join(_code(n) for n in [*p.opts, *p.secondary_opts])
            mv = _metavar(p)
            head = f"{names} {_code(mv)}" if mv else names
            notes = []
            if p.required:
                notes.append("required")
            if p.multiple and "repeatable" not in (p.help or "").lower():
                notes.append("repeatable")
            if _limits(p):
                notes.append(_limits(p))
            if _default(p):
                notes.append(f"default {_code(_default(p))}")
            note = f" ({'; '.join(notes)})" if notes else ""
            out.append(f"- {head}{note}: {_text(p.help or '')}")
        out.append("")
    return out


def markdown(app: Any = None) -> str:
    """Every command of `app` (default: `tcplab.cli.app`, the whole command line) as Markdown:
    a section each, groups before their commands."""
    if app is None:
        from tcplab.cli import app
    root = typer.main.get_command(app)
    root_ctx = root.context_class(root, info_name="tcplab", **root.context_settings)
    out: list[str] = []
    for cmd, ctx in _commands(root, root_ctx):
        path = ctx.command_path
        level = "#" * min(2 + path.count(" "), 4)
        out += [f"{level} {path} {{ #{anchor(path)} }}", ""]
        out += ["```text", _usage(cmd, ctx), "```", ""]
        if cmd.help:
            out += [_text(cmd.help), ""]
        if _is_group(cmd):
            subs = [n for n in cmd.list_commands(ctx) if not cmd.get_command(ctx, n).hidden]
            links = [f"[{n}](#{anchor(f'{path} {n}')})" for n in subs]
            out += ["Commands: " + ", ".join(links) + ".", ""]
        out += _params(cmd, ctx)
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown())
