"""``--format text|markdown|html|json`` and ``--render FILE`` for ``planner check`` and ``planner plan``.

Markdown, HTML and JSON go to standard output (redirect them to a file); the text report, and
notes such as "wrote the picture", go to the console (standard error when the report is on
standard output). HTML embeds the picture as inline SVG; Markdown links the ``--render`` file if
one is written, else embeds a PNG as a ``data:`` URI.
"""

from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.markup import escape

from planner.errors import ScenarioError

FORMATS = ("text", "markdown", "html", "json")
_ALIASES = {"md": "markdown", "htm": "html", "txt": "text"}


def parse_format(value: str, json_out: str | None) -> str:
    """The report format named by ``--format``.

    Raises
    ------
    ScenarioError
        An unknown format, or ``--json -`` together with a format that also writes to standard output.
    """
    fmt = _ALIASES.get(value.lower(), value.lower())
    if fmt not in FORMATS:
        raise ScenarioError(f"unknown report format; choose one of {', '.join(FORMATS)}", location="--format",
                            value=value)
    if fmt != "text" and json_out == "-":
        raise ScenarioError("--json - and this format both write to standard output; give --json a file name",
                            location="--format", value=value)
    return fmt


def check_output(world, report, fmt: str, render_path: str | None, console: Console, *, verbose: bool,
                 suggestions=None) -> None:
    """Write the picture (if asked) and the check report in ``fmt``; with ``suggestions`` (a
    :class:`planner.solve.suggest.SuggestReport`) the suggested moves follow the report (in JSON:
    the key ``suggestions``)."""
    # the picture and the suggestions modules only when asked for (a plain check imports neither)
    if render_path is not None:
        from planner.render import render_file

        render_file(world, render_path, report)
    if suggestions is not None:
        from planner.report import suggest as sg
    if fmt == "text":
        from planner.report.text import print_check_report

        print_check_report(report, console, verbose=verbose)
        if suggestions is not None:
            sg.print_suggestions(suggestions, console)
    elif fmt == "json":
        sys.stdout.write(json.dumps(check_json(report, suggestions), indent=2, allow_nan=False) + "\n")
    elif fmt == "markdown":
        from planner.render import render_bytes
        from planner.report.markdown import check_markdown

        png = None if render_path else render_bytes(world, "png", report)[0]
        text = check_markdown(report, picture_ref=render_path, png=png, title=_title(world))
        sys.stdout.write(text + ("\n" + sg.suggestions_markdown(suggestions) if suggestions is not None else ""))
    else:
        from planner.render import render_bytes
        from planner.report.html import check_html

        svg = render_bytes(world, "svg", report)[0]
        text = check_html(report, svg=svg, title=_title(world))
        if suggestions is not None:
            at = text.rfind("</body>")
            text = text[:at] + sg.suggestions_html(suggestions) + text[at:] if at >= 0 else \
                text + sg.suggestions_html(suggestions)
        sys.stdout.write(text)
    if render_path is not None:
        console.print(f"Wrote the battlefield picture to {escape(render_path)}")


def check_json(report, suggestions=None) -> dict:
    """The JSON report of ``planner check``: the legality report, and ``suggestions`` if given."""
    data = report.model_dump(mode="json")
    if suggestions is not None:
        data["suggestions"] = suggestions.to_dict()
    return data


def _title(world) -> str:
    name = world.scenario.name or (world.file or "scenario")
    return f"Deployment ruling: {name}"


def planned_world(result, world):
    """The world of the planned scenario (or the input world when there is no plan)."""
    from planner.world import resolve

    if result.scenario is None:
        return world
    return resolve(result.scenario, world.file)


def plan_picture_options(result, world):
    """Picture options for a plan: when it placed units by Infiltrate, the Infiltrate distances
    around their enemies are drawn (what the plan had to keep clear of)."""
    from planner.render import RenderOptions
    from planner.schema import SetupMethod

    infiltrators = [world.units[p.unit] for p in result.placements if p.unit in world.units
                    and world.units[p.unit].method is SetupMethod.INFILTRATE]
    if not infiltrators:
        return RenderOptions()
    from planner.render.areas import infiltrate_distances

    try:
        infiltrate_distances(world.scenario.ruleset)
    except ScenarioError:  # a ruleset without Infiltrate distances: nothing to draw
        return RenderOptions()
    return RenderOptions(exclusion_for=infiltrators[0].player)


def plan_output(result, world, fmt: str, render_path: str | None, console: Console) -> None:
    """Write the picture of the plan (if asked) and the plan report in ``fmt``."""
    from planner.report.html import plan_html
    from planner.report.markdown import plan_markdown
    from planner.report.plan_text import print_plan_report

    if fmt == "text":
        print_plan_report(result, console)
    pw = planned_world(result, world) if (render_path is not None or fmt in ("markdown", "html")) else world
    write_plan_formats(result, world, fmt, render_path, console, pw, plan_picture_options(result, pw),
                       plan_markdown, plan_html, "plan")


def write_plan_formats(result, world, fmt: str, render_path: str | None, console: Console, pw, opts,
                       markdown, html, what: str) -> None:
    """The picture (``render_path``) and the json / markdown / html report of a plan on standard
    output: ``pw`` is the planned world drawn with ``opts``; ``markdown(result, scenario=,
    picture_ref=, png=)`` and ``html(result, scenario=, svg=)`` write the ruling; ``what`` names
    the picture in the closing message."""
    from planner.render import render_bytes, render_file

    report = result.legality
    if render_path is not None:
        render_file(pw, render_path, report, opts)
    name = world.scenario.name or world.file
    if fmt == "json":
        sys.stdout.write(json.dumps(result.model_dump(mode="json", exclude={"scenario", "scenario_data"}), indent=2,
                                    allow_nan=False)
                         + "\n")
    elif fmt == "markdown":
        png = None if render_path else render_bytes(pw, "png", report, opts)[0]
        sys.stdout.write(markdown(result, scenario=name, picture_ref=render_path, png=png))
    elif fmt == "html":
        sys.stdout.write(html(result, scenario=name, svg=render_bytes(pw, "svg", report, opts)[0]))
    if render_path is not None:
        console.print(f"Wrote the picture of the {what} to {escape(render_path)}")
