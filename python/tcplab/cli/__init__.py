"""The `tcplab` command: the app, its entry point `main`, and where each command is defined.

    tcplab run FILE [--seed N] [--json] [--out DIR] [--plot DIR] [--set key=value ...]
    tcplab validate FILE [--set key=value ...] [--normalized]
    tcplab compare FILE [--sweep ber=1e-8..1e-4] [--points N] [--seeds N] [--out DIR] [--json]
    tcplab compare FILE --sim --testbed [--seeds N] [--out DIR] [--json]
    tcplab sweep FILE --grid PATH=VALUES ... --seeds 1..N --store DIR [--scheduler ...]
    tcplab results DIR [--sql QUERY] [--csv | --json]
    tcplab plot STORE --x PATH --y COLUMN [--hue PATH] [--logx]
    tcplab plot RUN_DIR [--out DIR]
    tcplab draw FILE [--out FILE] [--set key=value ...]
    tcplab variants [--json]
    tcplab schema [--json | --markdown]
    tcplab version
    tcplab model ...     the analytic models
    tcplab study ...     the reproduced studies
    tcplab testbed ...   run FILE, cleanup; Linux and root
    tcplab packetdrill SCRIPT... [--profile linux] [--set tcp.NAME=VALUE ...]
    tcplab conformance ns2 [--grid full|reduced]   (against ns-2.35, where `ns` is installed)
    tcplab conformance packetdrill DIR [--profile linux]   (a corpus of packetdrill scripts)

Each module of this package declares its commands on its own ``app`` (a typer.Typer; a group's
module, such as models.py, is the group), and the tables _COMMANDS and _GROUPS below name the
module of each command: it is imported only when one of its commands runs. What the commands
share (exit statuses, the ``error:`` line, option types, ``--set``) is in _common.py. Nothing
outside this package imports it.

A tcplab error (bad scenario, internal error) prints ``error: <message>`` on stderr and exits
with status 2, without a traceback; Ctrl-C and SIGTERM print ``interrupted`` (130, 143).
"""

# ruff: noqa: E402 - the cyclic collector is paused before the imports
import gc

# Start-up (Typer, its click, this package and the app) makes some 24,000 objects that live as
# long as the process, and no garbage: the cyclic collector is paused while they are made
# (until the end of this module, and in `main` while the command's module is imported), and
# `main` freezes them, so that neither a later collection nor the one at exit walks them again
# (40 M instructions, an eighth of a sweep's rerun that finds every run in its store).
_GC_WAS_ON = gc.isenabled()
gc.disable()

# No `from __future__ import annotations` in this package: Typer reads each command's
# annotations when it runs the command, and annotations kept as text it compiles and evaluates
# one by one (1 ms of a sweep's rerun).
import copy
import importlib
import sys
from typing import TYPE_CHECKING, Annotated, Any

try:
    import typer

    from tcplab import __version__, errors

    from ._common import (
        EXIT_INTERRUPTED,
        EXIT_TERMINATED,
        EXIT_USER_ERROR,
        fail,
        interrupted_said,
        os_error_text,
    )
except BaseException:
    # An importer that survives the failure gets its collector back.
    if _GC_WAS_ON:
        gc.enable()
    raise

#: Every command but the groups, in the order `tcplab -h` lists them -> the module of this
#: package whose `app` holds it. Only the module of the command being run is imported (and
#: every one for `tcplab -h`): `tcplab version` waits for no other.
_COMMANDS = {
    "run": ".run",
    "validate": ".run",
    "compare": ".compare",
    "schema": ".run",
    "variants": ".run",
    "version": ".run",
    "sweep": ".sweep",
    "results": ".sweep",
    "plot": ".sweep",
    "draw": ".draw",
    "packetdrill": ".packetdrill",
}
#: The groups (`tcplab model ...`), listed after the commands -> the module whose `app` is the
#: group. Mounted when named: the models pull in numpy, the studies pandas and matplotlib.
_GROUPS = {
    "model": ".models",
    "study": ".study",
    "testbed": ".testbed",
    "conformance": ".conformance",
}


def _module(name: str) -> Any:
    return importlib.import_module(name, __name__)


def _command_info(name: str) -> Any:
    """Typer's registration of the command `name`, from its module's app."""
    return next(c for c in _module(_COMMANDS[name]).app.registered_commands if c.name == name)


def _lazy_group(name: str) -> Any:
    """The click group of the sub-command `name`."""
    group = typer.main.get_group(_module(_GROUPS[name]).app)
    group.name = name
    return group


def _flags_as_flags(cmd: Any) -> Any:
    """Show on/off options as bare flags in the help (Typer labels them ``<bool>``, as if they
    took a value), in `cmd` and every command below it."""
    if cmd is None or getattr(cmd, "_tcplab_flags", False):
        return cmd
    cmd._tcplab_flags = True
    for param in getattr(cmd, "params", ()):
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    make_help = cmd.get_help_option

    def help_option(ctx: Any) -> Any:
        opt = make_help(ctx)
        if opt is not None and opt.metavar is None:
            opt.metavar = ""
        return opt

    cmd.get_help_option = help_option
    for sub in getattr(cmd, "commands", {}).values():
        _flags_as_flags(sub)
    return cmd


class _Group(typer.core.TyperGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        names = list(super().list_commands(ctx))
        return names + [n for n in _GROUPS if n not in names]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in _GROUPS and cmd_name not in self.commands:
            self.commands[cmd_name] = _lazy_group(cmd_name)
        return _flags_as_flags(super().get_command(ctx, cmd_name))

    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_as_flags(self) and super().get_params(ctx)


# The commands are added from _COMMANDS: all of them for `app`, the one being run by `main`.
_app = typer.Typer(
    cls=_Group,
    name="tcplab",
    help="A laboratory for TCP over noisy, high bit-error-rate links.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"tcplab {__version__}")
        raise typer.Exit(0)


@_app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            is_eager=True,
            callback=_print_version,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """A laboratory for TCP over noisy, high bit-error-rate links."""


def _whole() -> typer.Typer:
    """The app with every command, their modules imported (the groups are mounted by _Group
    when named)."""
    if not _app.registered_commands:
        _app.registered_commands = [_command_info(name) for name in _COMMANDS]
    return _app


if TYPE_CHECKING:
    app: typer.Typer


def __getattr__(name: str) -> Any:
    # `tcplab.cli.app`, the whole app (for tests and the docs), is made when first asked for.
    if name == "app":
        return _whole()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Terminated:
    """SIGTERM seen: set by the handler, which raises KeyboardInterrupt so that the same path
    stops the work (the core checks Python's handlers while it runs)."""

    seen = False


def _on_sigterm(signum: int, frame: Any) -> None:
    _Terminated.seen = True
    raise KeyboardInterrupt


def _app_for(argv: list[str]) -> typer.Typer:
    """The app to run for the command line `argv`: when it names a command, an app holding that
    command alone (or, for a group, none: _Group mounts it). Typer turns every registered
    command into a click command (reading each function's signature and annotations) before it
    parses anything; for the one being run that is wasted on the others (12 of the 70 ms a
    `tcplab sweep` that finds everything in its store takes), and so is importing their
    modules. Anything else (no command, an option first, a mistyped name, `--help`) gets the
    whole app, so its help and its errors list every command."""
    name = argv[1] if len(argv) > 1 else ""
    if name in _GROUPS:
        keep = []
    elif name in _COMMANDS:
        keep = [_command_info(name)]
    else:
        return _whole()
    only = copy.copy(_app)
    only.registered_commands = keep
    return only


def main() -> None:
    """Entry point of the `tcplab` script: every mistake ends as one line ``error: ...`` on
    stderr with exit status 2 (a usage mistake too); Ctrl-C as ``interrupted`` with 130 and
    SIGTERM as ``interrupted`` with 143."""
    import signal

    click_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
    try:
        # First, inside this block: from the moment SIGTERM is caught, it and Ctrl-C are said
        # as `interrupted`, also while the command's module is imported.
        signal.signal(signal.SIGTERM, _on_sigterm)
        was_on = gc.isenabled()
        gc.disable()  # importing the command's module is start-up too: see the top of this module
        try:
            to_run = _app_for(sys.argv)
        finally:
            if was_on:
                gc.enable()
        gc.freeze()
        rc = to_run(standalone_mode=False)
    except errors.TcplabError as e:  # from a mounted sub-command
        sys.exit(fail(e).exit_code)
    except click_error as e:  # a usage mistake: unknown option, missing or bad value
        if type(e).__name__ == "NoArgsIsHelpError":  # the help is printed already
            sys.exit(0)
        cmd = getattr(getattr(e, "ctx", None), "command_path", "tcplab")
        code = getattr(e, "exit_code", EXIT_USER_ERROR) or EXIT_USER_ERROR
        sys.exit(fail(f"{e.format_message()} (see {cmd} --help)", code).exit_code)
    except OSError as e:  # a file the user named that cannot be read or written
        sys.exit(fail(os_error_text(e)).exit_code)
    except (KeyboardInterrupt, typer.Abort):
        rc = EXIT_INTERRUPTED
    if rc == EXIT_INTERRUPTED or _Terminated.seen:
        # Typer turns KeyboardInterrupt into exit status 130 silently; a sub-command that
        # handled it itself has already said what it kept.
        rc = EXIT_TERMINATED if _Terminated.seen else EXIT_INTERRUPTED
        if not interrupted_said():
            typer.echo("interrupted", err=True)
    sys.exit(rc if isinstance(rc, int) else 0)


# Start-up is over (see the top of this module). Its objects are put in the oldest generation
# as they are (frozen, then unfrozen into it), else the collector, once enabled, would walk
# them all at the next allocation (6 M instructions) to age them there; not in a process that
# froze objects of its own, which unfreezing would let go.
if gc.get_freeze_count() == 0:
    gc.freeze()
    gc.unfreeze()
if _GC_WAS_ON:
    gc.enable()
