"""`ctadesk solve INSTANCE --method ...`: protect a JJ instance or a saved project (protection
levels secretly widened unless --no-widen), optionally with senses from a file, writing release
and internal workbooks and the project with its result."""

from __future__ import annotations

import argparse
import sys

from ctadesk.cli.protection_options import (
    add_bivariate_arguments,
    add_model_arguments,
    add_quality_arguments,
    add_record_arguments,
    add_release_arguments,
    add_solve_arguments,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "solve", help="protect a JJ instance or a project by controlled tabular adjustment",
        description="Solve a CTA instance given as a JJ file or a ctadesk project and report the adjusted table.")
    parser.add_argument("instance", help="JJ instance file or ctadesk project (.ctaproj)")
    parser.add_argument("--senses", metavar="FILE",
                        help="senses of sensitive cells: lines 'cell, up|down|free' (cell: 0-based position or "
                             "label); cells not named keep the senses the input gives")
    add_record_arguments(parser)
    add_model_arguments(parser)
    add_solve_arguments(parser)
    parser.add_argument("--weights", default="file-costs", metavar="{unit,inverse,FILE}",
                        help="unit: 1; inverse: 1/|a_i|; a file path: one weight per cell; "
                             "default: the costs in the file")
    parser.add_argument("--preserve", default="", metavar="mean,variance",
                        help="keep the mean and/or the variance (regression slope 1) of the inner cells "
                             "by extra linear relations (Cox 2005, §3)")
    add_quality_arguments(parser)
    parser.add_argument("--round-to", type=int, metavar="BASE",
                        help="publish every cell as a multiple of BASE: a controlled rounding, additive and "
                             "protected (tau-argus's RND), zero-restricted where one exists; precision stays auto")
    parser.add_argument("--sol", metavar="OUT.sol", help="write the adjusted table in RCTA .sol layout")
    two = parser.add_argument_group("two variables (Cox 2005, §4)")
    two.add_argument("--second-values", metavar="TABLE",
                     help="protect a second variable of the same table with the first, keeping their variances "
                          "and covariance: a table file of the same cells and relations (a JJ file gives its own "
                          "values, bounds, costs, sensitive cells and protection levels); --json writes both tables")
    add_bivariate_arguments(two)
    add_release_arguments(parser)
    parser.set_defaults(func=run, stoppable=True)     # SIGINT/SIGTERM: ctadesk.cli.interrupt


def _release_settings(args: argparse.Namespace) -> dict[str, str]:
    """The options a release workbook names (a weights file by what it is, not by its path)."""
    weights = args.weights if args.weights in ("unit", "inverse", "file-costs") else "from a file"
    return {"weights": weights, "preserve": args.preserve or "nothing"}


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from ctadesk.app.formats import Holds, format_of, read_table
    from ctadesk.app.session import Session
    from ctadesk.cli.release import (
        preserved_measures,
        quality_terms,
        request_from,
        run_protection,
        write_json,
        write_workbooks,
    )
    from ctadesk.engine.methods.figures import figures
    from ctadesk.io.jj import read_weights, write_sol

    if format_of(args.instance, Holds.PROJECT, Holds.TABLE).project:
        session = Session.open(args.instance)
    else:
        session = Session(read_table(args.instance))
    project = session.project
    everything = np.arange(project.n_cells)
    weights = "table"
    if args.weights in ("unit", "inverse"):
        weights = args.weights
    elif args.weights != "file-costs":
        session.edit({"weights": (everything, read_weights(args.weights, project.n_cells))},
                     f"Weights from {args.weights}")
    if args.senses:
        from ctadesk.io.senses import read_senses

        sensitive = np.flatnonzero(project.sensitive)
        session.edit({"senses": (sensitive, read_senses(args.senses, project.to_problem()))},
                     f"Senses from {args.senses}")
    problem = project.to_problem()
    if args.seed is None and session.widening_seed is not None:
        args.seed = session.widening_seed
    if args.second_values:      # two variables: the bivariate methods (and clarabel) load only then
        from ctadesk.cli.bivariate import solve_two_variables

        return solve_two_variables(args, problem, weights)
    request = request_from(args, weights=weights, preserve=frozenset(preserved_measures(args.preserve))).replace(
        quality=quality_terms(args, problem, project.structure), quality_price=args.quality_price)
    protection = run_protection(problem, request, args)
    session.keep(protection)
    if args.save_project:
        session.save(args.save_project)
    result = protection.result
    if args.json:
        write_json(args.json, protection.as_dict())
    if args.sol and result.values is not None:
        write_sol(args.sol, protection.required, result.values)
    write_workbooks(args, project.structure, protection, _release_settings(args))
    print(f"{result.method}: {result.status.value}, {figures(result)}, "
          f"{'verified' if result.verified else 'NOT verified'}, {protection.outcome.cells_changed} cells changed, "
          f"{protection.seconds:.2f} s")
    if not result.protected:
        print(f"ctadesk: error: no protected table: {result.message}", file=sys.stderr)
        return 1
    return 0
