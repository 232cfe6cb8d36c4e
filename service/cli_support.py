"""What every ``arbiter`` command group shares: the services built once per invocation, domain
errors as a message and a non-zero exit, JSON output.  Its own module so the groups in
``service/cli_*.py`` import it, not ``service.cli`` (which imports them)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from service.config import Config, ConfigError
from service.domain.errors import DomainError


class CliError(click.ClickException):
    exit_code = 2


def _services(ctx: click.Context) -> Any:
    obj = ctx.ensure_object(dict)
    if "services" not in obj:
        from service.bootstrap import build_services

        try:
            obj["services"] = build_services(Config.from_env())
        except ConfigError as exc:
            raise CliError(str(exc)) from None
        ctx.find_root().call_on_close(obj["services"].close)
    return obj["services"]


def domain_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn domain errors into a message on stderr and a non-zero exit."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except DomainError as exc:
            detail = "; ".join(f"{k}: {', '.join(v)}" for k, v in exc.details.items())
            raise CliError(f"{exc.message}" + (f" ({detail})" if detail else "")) from None

    return wrapper


def _json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, sort_keys=True, default=str))
